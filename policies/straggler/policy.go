package straggler

import (
	"time"

	"clusteremu/policies/sched"
)

// Policy decides, for one job, which running tasks to copy, which
// attempts to kill and which tasks to restart. Its job manager feeds it
// every launch, progress report and end of the job's attempts, and asks
// it to Decide on each report and every DecidePeriod.
type Policy interface {
	// Name is the policy's scenario name ("mantri", "late", ...).
	Name() string
	// Launched tells the policy an attempt of the job launched.
	Launched(now time.Duration, l Launch)
	// Progressed gives it an attempt's progress report.
	Progressed(now time.Duration, r Report)
	// Ended tells it an attempt ended.
	Ended(now time.Duration, e End)
	// Decide returns what to do now, in order. The policy books its own
	// actions as done: a copy asked for is queued until it launches or
	// is withdrawn, a restarted task waits for its next launch.
	Decide(now time.Duration, v View) []Action
}

// DecidePeriod is how often a job manager asks its policy to Decide
// besides on each progress report.
const DecidePeriod = 10 * time.Second

// Launch is an attempt that started: where, its task's input and whether
// it is a copy of a running task that the policy asked for.
type Launch struct {
	Attempt sched.Attempt
	Node    sched.NodeID
	// Bytes is the task's input: a map's block, a reduce's partition of
	// its job's shuffle (Mantri's d).
	Bytes int64
	Copy  bool
}

// Report is an attempt's progress report: Hadoop's progress score (a
// map's input read, or half read and half computed; a reduce's copy,
// sort and reduce, a third each), the share of its input it has read (a
// map's block, a reduce's map outputs copied; 1 once past reading:
// Mantri's d_read / d), the attempt's launch and the report's instant.
type Report struct {
	Attempt   sched.Attempt
	Score     float64
	Read      float64
	Start, At time.Duration
}

// End is an attempt that ended, and how.
type End struct {
	Attempt sched.Attempt
	Outcome sched.Outcome
}

// View is what a job manager knows of its job beyond the attempts.
type View interface {
	// Waiting counts the tasks of the kind that may run now and have no
	// attempt: pending at the coordinator, waiting for a slot.
	Waiting(kind sched.TaskKind) int
}

// ActionKind is what an Action does.
type ActionKind uint8

// The actions.
const (
	// Duplicate asks for another attempt of a running task, launched on
	// a node that does not run it when a slot frees (QueueCopy).
	Duplicate ActionKind = iota
	// Withdraw takes back a Duplicate not yet launched (WithdrawCopy).
	Withdraw
	// Kill stops one attempt, its work lost; its task runs on in its
	// other attempts.
	Kill
	// Restart moves a task elsewhere ("kills a running task and restarts
	// it elsewhere", the thesis's §4.2.2): its job manager queues a copy,
	// launched as a Duplicate's is, on a node that does not run the task,
	// and kills every other attempt of the task once the copy launches.
	Restart
)

var actionNames = [...]string{"duplicate", "withdraw", "kill", "restart"}

func (k ActionKind) String() string { return actionNames[k] }

// Action is one decision: Task names the task of a Duplicate, Withdraw or
// Restart; Attempt the attempt a Kill stops.
type Action struct {
	Kind    ActionKind
	Task    Task
	Attempt sched.Attempt
	Reason  string
}

// Task names one task of the job.
type Task struct {
	Kind sched.TaskKind
	Task int32
}

// Setup is what a policy is built with besides its parameters.
type Setup struct {
	// Tasks are the job's maps and reduces.
	Tasks [2]int
	// Delta is the progress-report period Δ ([tasks] progress_interval):
	// Mantri's unit of time.
	Delta time.Duration
	// Lag is the delay from a copy's request to its launch assumed until
	// one is measured: half a heartbeat interval.
	Lag time.Duration
}
