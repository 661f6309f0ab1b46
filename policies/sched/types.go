package sched

import (
	"cmp"
	"fmt"
	"math"
	"time"
)

// JobID names a job within one run. IDs are assigned in submission order.
type JobID int64

// NodeID names a worker node; RackID names its rack.
type (
	NodeID int32
	RackID int32
)

// Shape is the cluster a policy schedules, as it was built: its nodes and
// each node's slots by TaskKind. A policy that partitions slots between
// queues (TAGS, SITA) splits them by it; nodes that die later keep their
// slots' places in the partitions.
type Shape struct {
	Nodes int
	Slots [2]int
	// NodeSlots, when not nil, is each node's slots by kind, node by
	// node, where nodes differ ([[cluster.class]]); Slots is then not
	// every node's.
	NodeSlots [2][]int
}

// Of is node's slots of kind.
func (s Shape) Of(node NodeID, kind TaskKind) int {
	if s.NodeSlots[kind] != nil {
		return s.NodeSlots[kind][node]
	}
	return s.Slots[kind]
}

// Total is the cluster's slots of kind.
func (s Shape) Total(kind TaskKind) int {
	if s.NodeSlots[kind] == nil {
		return s.Nodes * s.Slots[kind]
	}
	total := 0
	for _, n := range s.NodeSlots[kind] {
		total += n
	}
	return total
}

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

// The locality levels: PACMan's memory locality (the node caches the
// task's input block in memory), then the delay-scheduling paper's,
// node-local best. A cluster without a cache has no memory-local task.
const (
	MemoryLocal Locality = iota
	NodeLocal
	RackLocal
	OffRack
)

// Localities is how many levels there are, for arrays indexed by level.
const Localities = int(OffRack) + 1

func (l Locality) String() string {
	switch l {
	case MemoryLocal:
		return "memory"
	case NodeLocal:
		return "node"
	case RackLocal:
		return "rack"
	case OffRack:
		return "remote"
	}
	return fmt.Sprintf("Locality(%d)", l)
}

// words says the level as a sentence does: node-local, rack-local,
// remote.
func (l Locality) words() string {
	if l == OffRack {
		return "remote"
	}
	return l.String() + "-local"
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

// ShareFactor is what the priority multiplies a job's weight by in fair
// sharing, as Hadoop's fair scheduler weighs its jobs: 4 for very high,
// 2 high, 1 normal, 0.5 low, 0.25 very low (2^(Normal − p)).
func (p Priority) ShareFactor() float64 {
	return math.Ldexp(1, int(Normal)-int(p))
}

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
	// Work is the slot time the job's attempts hold when it runs alone
	// (the sizing pass): an oracle's size, given only to a policy that
	// implements NeedsWork (SRPT); 0 for every other.
	Work time.Duration
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

// Launch describes an attempt that has started, as the policy hears of it:
// the slot it was offered and runs in, and how close to its input.
type Launch struct {
	Attempt  Attempt
	Node     NodeID
	Rack     RackID
	Slot     int // the node's slot of the attempt's kind, as offered (Slot.Index)
	Locality Locality
}

// Finish describes an attempt that has left its slot, as the policy hears
// of it: on the heartbeat that reports it, or when its node is declared
// dead. At is when the attempt ended on its node (for a lost node, when
// the coordinator declared it dead), so a policy summing the slot time a
// job held (launch to At) counts no heartbeat wait.
type Finish struct {
	Attempt Attempt
	Node    NodeID
	Outcome Outcome
	At      time.Duration
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
// node's slots of that kind from 0; the attempt launched for the offer runs
// in that very slot, so partitioning policies (TAGS, SITA) can split a
// node's slots between queues.
type Slot struct {
	Node  NodeID
	Rack  RackID
	Kind  TaskKind
	Index int
	// Why, when not nil, collects the policy's reasons for its answer, a
	// note per job it looked at (clusteremu explain). A policy writes to
	// it only; nothing it decides may read it.
	Why *Explanation
}

// Explanation is why a policy answered a slot offer as it did: the jobs
// it looked at, in order, each with what it made of the job.
type Explanation struct {
	Notes []JobNote
}

// JobNote is what a policy made of one job for one slot offer.
type JobNote struct {
	Job    JobID
	Reason string
}

// Note records a job's reason; on a nil Explanation it does nothing, so
// a policy calls it unconditionally and pays for the formatting only when
// someone asks.
func (e *Explanation) Note(job JobID, format string, args ...any) {
	if e != nil {
		e.Notes = append(e.Notes, JobNote{Job: job, Reason: fmt.Sprintf(format, args...)})
	}
}

// Assignment is a policy's answer to a slot offer: run a task of Kind from
// Job in the slot, at no worse than MaxLocality. The coordinator picks the
// job's best-placed pending task for the node (node-local first), which is
// Hadoop's in-job locality preference.
//
// With Copy set, the slot runs another attempt of Task, a task of the job
// that is running and not yet finished (a speculative copy or a clone),
// instead of a pending task; a map's copy must be within MaxLocality of
// the node. The first attempt to succeed ends the task; its job manager
// kills the others, whose slot time counts as killed work.
type Assignment struct {
	Job         JobID
	Kind        TaskKind
	MaxLocality Locality
	Copy        bool
	Task        int32
}

// Preemption is a policy's decision to take a slot back: the attempt is
// killed, its work lost, and its task runs again from the start (the Fair
// scheduler). Work-conserving pausing (FBQ, TAGS) needs no preemption: a
// policy pauses a job by not assigning it slots, and its running tasks
// finish.
type Preemption struct {
	Attempt Attempt
	Reason  string
}
