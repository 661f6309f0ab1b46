package sched

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Policy decides which job's task runs in a free slot and which running
// attempts to take back. See the package documentation for why each method
// exists and the order in which the coordinator calls them.
type Policy interface {
	// Name is the policy's scenario name ("fifo", "fair", ...).
	Name() string
	// Submitted tells the policy a job has arrived and is ready to run.
	Submitted(now time.Duration, job Job)
	// Ended tells the policy a job has finished, failed or been cut off;
	// it holds no running attempt any more.
	Ended(now time.Duration, job JobID)
	// Launched tells the policy an attempt has started in a slot.
	Launched(now time.Duration, l Launch)
	// Finished tells the policy an attempt has ended and freed its slot.
	Finished(now time.Duration, a Attempt, o Outcome)
	// Heartbeat tells the policy a node's heartbeat is being answered; the
	// Assign calls for that node's free slots follow.
	Heartbeat(now time.Duration, node NodeID)
	// Assign picks the job to run a task in the free slot s, or reports
	// false to leave the slot idle until the node's next heartbeat.
	Assign(now time.Duration, v View, s Slot) (Assignment, bool)
	// Tick runs the policy's periodic work and returns the attempts to
	// preempt, in the order they should be taken.
	Tick(now time.Duration, v View) []Preemption
}

// View is the coordinator's current picture of the active jobs, read-only
// for the policy and valid only during the call it was passed to.
type View interface {
	// Jobs returns the active jobs in submission order (ties by ID).
	Jobs() []*JobStatus
	// Job returns one active job, or nil.
	Job(id JobID) *JobStatus
	// BestLocality reports the best locality any pending task of the
	// given kind of job would have on the node, and false when the job has
	// no pending task of that kind the node may run (under copy-compute
	// splitting a node takes a limited number of a job's reducers).
	BestLocality(job JobID, kind TaskKind, node NodeID) (Locality, bool)
	// Slots is the number of slots of the kind on the live nodes.
	Slots(kind TaskKind) int
}

// JobStatus is a job's progress as the coordinator sees it. Pending counts
// only tasks that may run now: reduces become pending when the job's
// slow-start fraction of maps has finished.
type JobStatus struct {
	Job
	PendingMaps, RunningMaps, FinishedMaps          int
	PendingReduces, RunningReduces, FinishedReduces int
}

// Pending returns the pending tasks of the kind.
func (j *JobStatus) Pending(kind TaskKind) int {
	if kind == Map {
		return j.PendingMaps
	}
	return j.PendingReduces
}

// Running returns the running attempts of the kind.
func (j *JobStatus) Running(kind TaskKind) int {
	if kind == Map {
		return j.RunningMaps
	}
	return j.RunningReduces
}

// Factory builds a policy from its parameters, decoded from the scenario's
// [scheduler] table. It rejects unknown or invalid parameters with an error
// naming the parameter.
type Factory func(params map[string]any) (Policy, error)

var registry = map[string]Factory{
	"fifo": fifoParams,
	"fair": fairParams,
}

// Register makes a policy defined outside this package available to
// scenarios under name, as the race example's does; it is meant for init
// functions and panics when the name is taken.
func Register(name string, f Factory) {
	if _, taken := registry[name]; taken {
		panic(fmt.Sprintf("sched: policy %q registered twice", name))
	}
	registry[name] = f
}

// Names lists the registered policies, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// New builds the named policy with its parameters.
func New(name string, params map[string]any) (Policy, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("scheduler.name = %q: must be one of %s", name, strings.Join(Names(), ", "))
	}
	return f(params)
}
