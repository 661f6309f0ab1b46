package sched

import (
	"cmp"
	"fmt"
	"time"
)

// JobID names a job within one run. IDs are assigned in submission order.
type JobID int64

// NodeID names a worker node; RackID names its rack.
type (
	NodeID int32
	RackID int32
)

// TaskKind is the kind of slot a task needs.
type TaskKind uint8

// The task kinds. A reduce task occupies a reduce slot from its copy phase
// until its output is written.
const (
	Map TaskKind = iota
	Reduce
)

func (k TaskKind) String() string {
	switch k {
	case Map:
		return "map"
	case Reduce:
		return "reduce"
	}
	return fmt.Sprintf("TaskKind(%d)", k)
}

// Locality says how close a task ran to its input, best first. Reduces,
// which read from every map, are always OffRack.
type Locality uint8

// The locality levels of the delay-scheduling paper, node-local best.
const (
	NodeLocal Locality = iota
	RackLocal
	OffRack
)

func (l Locality) String() string {
	switch l {
	case NodeLocal:
		return "node"
	case RackLocal:
		return "rack"
	case OffRack:
		return "remote"
	}
	return fmt.Sprintf("Locality(%d)", l)
}

// Priority is a job's Hadoop priority; lower values are served first.
type Priority int8

// Hadoop's five priority levels.
const (
	VeryHigh Priority = iota
	High
	Normal
	Low
	VeryLow
)

// Job is what a policy learns of a job when it is submitted: nothing a
// real scheduler could not know at submission time, except where a paper's
// policy is explicitly given a size estimate.
type Job struct {
	ID       JobID
	Name     string
	Pool     string
	Priority Priority
	// Weight scales the job's share within its pool (1 when unset).
	Weight float64
	// Submit is the emulated instant the job was submitted.
	Submit  time.Duration
	Maps    int
	Reduces int
	// InputBytes is the job's total map input, known at submission; the
	// size-predicting policies (SITA, COMP) estimate job size from it.
	InputBytes int64
	// LocalityWait, when set, replaces the policy's (and the job's pool's)
	// delay-scheduling waits for this job: the paper's IO-rate biasing
	// gives CPU-bound jobs T1 = T2 = 0 so they launch anywhere at once.
	// Nil keeps the policy's waits.
	LocalityWait *Waits
}

// Attempt identifies one run of one task. Attempt numbers count from 0;
// speculative copies and re-runs after a kill get the next number.
type Attempt struct {
	Job     JobID
	Kind    TaskKind
	Task    int32
	Attempt int32
}

// CompareAttempts orders attempts by job, kind, task and attempt number.
func CompareAttempts(a, b Attempt) int {
	return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Task, b.Task), cmp.Compare(a.Attempt, b.Attempt))
}

func (a Attempt) String() string {
	return fmt.Sprintf("j%d-%s%d.%d", a.Job, a.Kind, a.Task, a.Attempt)
}

// Launch describes an attempt that has started, as the policy hears of it.
type Launch struct {
	Attempt  Attempt
	Node     NodeID
	Rack     RackID
	Locality Locality
}

// Outcome is how an attempt ended.
type Outcome uint8

// Attempt outcomes.
const (
	Succeeded Outcome = iota
	Failed
	Killed
)

func (o Outcome) String() string {
	switch o {
	case Succeeded:
		return "succeeded"
	case Failed:
		return "failed"
	case Killed:
		return "killed"
	}
	return fmt.Sprintf("Outcome(%d)", o)
}

// Slot is one free slot offered on a node's heartbeat. Index numbers the
// node's slots of that kind from 0, so partitioning policies (TAGS, SITA)
// can split a node's slots between queues.
type Slot struct {
	Node  NodeID
	Rack  RackID
	Kind  TaskKind
	Index int
}

// Assignment is a policy's answer to a slot offer: run a task of Kind from
// Job in the slot, at no worse than MaxLocality. The coordinator picks the
// job's best-placed pending task for the node (node-local first), which is
// Hadoop's in-job locality preference.
type Assignment struct {
	Job         JobID
	Kind        TaskKind
	MaxLocality Locality
}

// PreemptAction says what to do with a running attempt taken from its job.
type PreemptAction uint8

// Preemption actions: Kill loses the attempt's work and re-queues the task
// as never started (the Fair scheduler); Suspend keeps its work so it can
// resume later (the work-conserving preemption of FBQ and TAGS).
const (
	Kill PreemptAction = iota
	Suspend
)

// Preemption is a policy's decision to take a slot back.
type Preemption struct {
	Attempt Attempt
	Action  PreemptAction
	Reason  string
}
