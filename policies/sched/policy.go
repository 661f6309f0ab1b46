package sched

import (
	"iter"
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
	// Finished tells the policy an attempt has ended and freed its slot;
	// f.At is when it ended, which may be before now.
	Finished(now time.Duration, f Finish)
	// Heartbeat tells the policy a node's heartbeat is being answered; the
	// Assign calls for that node's free slots follow.
	Heartbeat(now time.Duration, node NodeID)
	// Assign picks the job to run a task in the free slot s, or reports
	// false to leave the slot idle until the node's next heartbeat (see
	// SlotAware for the slots offered after a declined one).
	Assign(now time.Duration, v View, s Slot) (Assignment, bool)
	// Tick runs the policy's periodic work and returns the attempts to
	// preempt, in the order they should be taken.
	Tick(now time.Duration, v View) []Preemption
}

// SlotAware is implemented by a policy whose answer depends on which of a
// node's free slots it is offered (Slot.Index), as one that partitions
// each node's slots between queues does. Such a policy, when SlotAware
// reports true, is offered every free slot of a kind on each heartbeat,
// whatever it declined; any other policy is offered a node's free slots
// until it declines one, as it would decline the rest alike.
type SlotAware interface {
	SlotAware() bool
}

// ContainerAware is implemented by a policy that, offered a container (a
// slot either kind of task may take: cluster.containers), picks the job
// first and then the kind, as YARN's ResourceManager picks an application
// and serves its requests by their priority, the MapReduce application
// master's reduces before its maps. The slot's Kind and Index name a
// free slot of the node but bind nothing: the attempt runs in a free slot
// of the kind assigned. A policy that does not implement it is offered
// each container as a reduce slot, then as a map slot.
type ContainerAware interface {
	AssignContainer(now time.Duration, v View, s Slot) (Assignment, bool)
}

// Headroom is implemented by a ContainerAware policy that bounds the
// containers a job's queue may hold (Capacity's maximum capacity, Fair's
// pool fair share): what the job's queue may still take, the headroom
// YARN's ResourceManager sends the job's application master with each
// allocation, which the cluster's free containers bound further. The AM's
// rules read it: reduces ramp up into it, and with none left for a
// waiting map they are taken back. false: the policy sets no bound.
type Headroom interface {
	Headroom(v View, job JobID) (int, bool)
}

// RequestView is implemented by a View that tells a job's map requests
// as YARN's ResourceManager keeps them: Locations is how many nodes and
// racks its pending maps were listed under (a request stays listed once
// satisfied, at no container), and Nodes the live nodes. The Capacity
// Scheduler's delay for off-switch containers reads them.
type RequestView interface {
	Locations(job JobID) int
	Nodes() int
}

// QueueShares is implemented by a policy of queues each guaranteed a share
// of the cluster (Capacity): QueueShare names the queue a job of the pool
// joins and its share of the cluster, in (0, 1], of which the queue's
// application masters may hold cluster.am_share, as YARN's
// maximum-am-resource-percent is of a queue's capacity.
type QueueShares interface {
	QueueShare(pool string) (queue string, share float64)
}

// ContainerView is implemented by the View of a cluster of containers:
// a map takes one of a node's containers, a reduce ReduceContainers (0
// when the nodes have map and reduce slots instead). A ContainerAware
// policy weighs what a job holds by it.
type ContainerView interface {
	ReduceContainers() int
}

// onContainers reports whether the view's nodes have containers.
func onContainers(v View) bool {
	cv, ok := v.(ContainerView)
	return ok && cv.ReduceContainers() > 0
}

// containerKind is the kind of task a job would run in a container on
// the node: a reduce before a map, as an application master asks for its
// reduces at a higher priority than its maps; false when it has neither
// for the node.
func containerKind(v View, id JobID, node NodeID) (TaskKind, bool) {
	if _, ok := v.BestLocality(id, Reduce, node); ok {
		return Reduce, true
	}
	_, ok := v.BestLocality(id, Map, node)
	return Map, ok
}

// reduceSize is the containers a reduce takes in v's cluster: 1 unless v
// says (ContainerView).
func reduceSize(v View) int {
	if cv, ok := v.(ContainerView); ok {
		return max(1, cv.ReduceContainers())
	}
	return 1
}

// Partitioned is implemented by a policy that splits the cluster's slots
// between its queues (TAGS, SITA): Partition is the 1-based partition a
// slot belongs to, fixed when the policy is built, so a run can report
// each partition's utilisation and share of the work. It must be safe to
// call from any goroutine.
type Partitioned interface {
	Partition(Slot) int
}

// View is the coordinator's current picture of the active jobs, valid only
// during the call it was passed to. It hands out copies: nothing a policy
// does to what it gets changes the coordinator's state.
type View interface {
	// Jobs yields the active jobs in submission order (ties by ID).
	Jobs() iter.Seq[JobStatus]
	// Job returns one active job, and false when it is not active.
	Job(id JobID) (JobStatus, bool)
	// BestLocality reports the best locality any pending task of the
	// given kind of job would have on the node, and false when the job has
	// no pending task of that kind the node may run (under copy-compute
	// splitting a node takes a limited number of a job's reducers).
	BestLocality(job JobID, kind TaskKind, node NodeID) (Locality, bool)
	// Slots is the number of slots of the kind on the live nodes.
	Slots(kind TaskKind) int
	// Progress is the job's stage progress of the kind in [0, 1], the
	// mean of its tasks' progress scores (a finished task counts 1), as
	// its job manager last reported it; 0 unless the policy implements
	// NeedsProgress and reports are on.
	Progress(job JobID, kind TaskKind) float64
}

// Versioned is implemented by a View that counts the changes to its
// jobs: Version moves whenever a job comes, goes or has any of its
// counts changed, and never comes back to an earlier value, so while it
// stands Jobs and Job yield what they did. A policy may then keep what it
// made of the jobs without looking at them again (FAIR's slot order).
// Slots, BestLocality and Progress are not covered.
type Versioned interface {
	Version() uint64
}

// NeedsWork is implemented by a policy that is told each job's size
// before it runs (Job.Work, an oracle: SRPT). For such a policy, when
// NeedsWork reports true, the run measures every job alone first (the
// sizing pass); every other policy gets Work = 0.
type NeedsWork interface {
	NeedsWork() bool
}

// NeedsProgress is implemented by a policy that reads its jobs' stage
// progress (View.Progress: LAS_MQ's stage awareness). Only when it
// reports true do job managers send their progress to the coordinator,
// which costs a message per progress report.
type NeedsProgress interface {
	NeedsProgress() bool
}

// JobStatus is a job's progress as the coordinator sees it. Tasks are
// counted apart from attempts: a task is pending (it may run now: reduces
// become pending when the job's slow-start fraction of maps has finished),
// running (at least one attempt runs), finished, or none of these while
// its job manager has yet to re-queue it after a lost attempt. A running
// task may have several attempts (speculative copies, clones); the
// attempts are the slots the job holds.
type JobStatus struct {
	Job
	PendingMaps, RunningMaps, FinishedMaps          int
	PendingReduces, RunningReduces, FinishedReduces int
	MapAttempts, ReduceAttempts                     int // running attempts
}

// Pending returns the pending tasks of the kind.
func (j JobStatus) Pending(kind TaskKind) int { return byKind(kind, j.PendingMaps, j.PendingReduces) }

// Running returns the running tasks of the kind.
func (j JobStatus) Running(kind TaskKind) int { return byKind(kind, j.RunningMaps, j.RunningReduces) }

// Finished returns the finished tasks of the kind.
func (j JobStatus) Finished(kind TaskKind) int {
	return byKind(kind, j.FinishedMaps, j.FinishedReduces)
}

// Attempts returns the running attempts of the kind: the slots of that
// kind the job holds.
func (j JobStatus) Attempts(kind TaskKind) int { return byKind(kind, j.MapAttempts, j.ReduceAttempts) }

func byKind(kind TaskKind, maps, reduces int) int {
	if kind == Map {
		return maps
	}
	return reduces
}
