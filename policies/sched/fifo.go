package sched

import (
	"fmt"
	"sort"
	"time"

	"clusteremu/units"
)

// FIFO is Hadoop's default scheduler: jobs in order of priority, then
// submission time. A free slot goes to the first job with a pending task of
// the slot's kind; within that job the coordinator takes the task closest to
// the node (node-local, then rack-local, then any), which is the greedy
// in-job locality behind head-of-line scheduling. Reduces become pending
// only once a job's slow-start fraction of maps has finished, so "a job with
// a pending reduce" already respects slow-start.
//
// With delay scheduling (NewFIFOWithDelay) a job without a node-local map
// for the node is skipped for the next one in the queue until it has
// waited T1 (Zaharia et al., Algorithm 1, with the queue as the job order).
//
// FIFO never preempts. Assign costs O(jobs) in the worst case.
type FIFO struct {
	queue []Job // priority, then submission time, then ID
	waits Waits
	delay *delayState
}

// FIFOParams are "fifo"'s parameters: delay scheduling, off by default as
// in Hadoop's FIFO scheduler, with the waits of the delay-scheduling paper.
//
//	delay = false
//	t1 = "15s"   # wait before rack-local
//	t2 = "15s"   # further wait before off-rack
type FIFOParams struct {
	DelayParams
}

// DefaultFIFOParams returns "fifo"'s defaults: delay = false, t1 = t2 =
// 15 s.
func DefaultFIFOParams() *FIFOParams {
	return &FIFOParams{DelayParams{T1: units.Duration(defaultWait), T2: units.Duration(defaultWait)}}
}

// Validate implements Params.
func (p *FIFOParams) Validate() error {
	var c paramChecks
	p.check(&c)
	return c.err()
}

// NewFIFO returns an empty FIFO policy without delay scheduling.
func NewFIFO() *FIFO { return NewFIFOWithDelay(Waits{}) }

// NewFIFOWithDelay returns an empty FIFO policy that delays maps for
// locality by w when w.Enabled.
func NewFIFOWithDelay(w Waits) *FIFO { return &FIFO{waits: w, delay: newDelayState()} }

// Name implements Policy.
func (*FIFO) Name() string { return "fifo" }

// Submitted inserts the job after every job of the same or higher
// priority submitted before it.
func (f *FIFO) Submitted(_ time.Duration, job Job) {
	i := sort.Search(len(f.queue), func(i int) bool { return before(job, f.queue[i]) })
	f.queue = append(f.queue, Job{})
	copy(f.queue[i+1:], f.queue[i:])
	f.queue[i] = job
	f.delay.add(job, f.waits)
}

func before(a, b Job) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	return a.ID < b.ID
}

// Ended removes the job from the queue.
func (f *FIFO) Ended(_ time.Duration, id JobID) {
	for i, j := range f.queue {
		if j.ID == id {
			f.queue = append(f.queue[:i], f.queue[i+1:]...)
			f.delay.remove(id)
			return
		}
	}
}

// Launched implements Policy: a more local launch than the job's delay
// level lowers the level.
func (f *FIFO) Launched(_ time.Duration, l Launch) {
	if l.Attempt.Kind == Map {
		f.delay.launched(l.Attempt.Job, l.Locality)
	}
}

// Finished implements Policy; FIFO keeps no per-attempt state.
func (*FIFO) Finished(time.Duration, Finish) {}

// Heartbeat implements Policy: skipped jobs wait for the time since the
// last heartbeat.
func (f *FIFO) Heartbeat(now time.Duration, _ NodeID) { f.delay.heartbeat(now) }

// Assign gives the slot to the first queued job with a pending task of the
// slot's kind, at any locality without delay scheduling.
func (f *FIFO) Assign(_ time.Duration, v View, s Slot) (Assignment, bool) {
	for i, job := range f.queue {
		if s.Why != nil && wants(v, job.ID, s) {
			s.Why.Note(job.ID, "FIFO order %d: priority %d, submitted at %v", i+1, job.Priority, job.Submit)
		}
		if a, ok := f.delay.offer(job.ID, v, s); ok {
			return a, true
		}
	}
	return Assignment{}, false
}

// AssignContainer implements ContainerAware, as YARN's FIFO scheduler
// serves applications: the container goes to the first queued job with a
// task that may run there, a reduce before a map.
func (f *FIFO) AssignContainer(_ time.Duration, v View, s Slot) (Assignment, bool) {
	return assignContainer(v, s, f.delay, len(f.queue), func(i int) (JobID, string) {
		job := f.queue[i]
		if s.Why == nil {
			return job.ID, ""
		}
		return job.ID, fmt.Sprintf("FIFO order %d: priority %d, submitted at %v", i+1, job.Priority, job.Submit)
	})
}

// assignContainer offers a container to n jobs in order, job(i) naming
// the i-th with what the policy makes of it: to the first with a reduce
// for the node, or a map delay scheduling lets it launch there, a reduce
// before a map, as an application master asks for its reduces at a
// higher priority than its maps.
func assignContainer(v View, s Slot, delay *delayState, n int, job func(i int) (JobID, string)) (Assignment, bool) {
	maps := s
	maps.Kind = Map
	for i := range n {
		id, why := job(i)
		if _, ok := v.BestLocality(id, Reduce, s.Node); ok {
			s.Why.Note(id, "%s; a reduce, which the job asks for before its maps", why)
			return Assignment{Job: id, Kind: Reduce, MaxLocality: OffRack}, true
		}
		if s.Why != nil && wants(v, id, maps) {
			s.Why.Note(id, "%s", why)
		}
		if a, ok := delay.offer(id, v, maps); ok {
			return a, true
		}
	}
	return Assignment{}, false
}

// Tick implements Policy; FIFO never preempts.
func (*FIFO) Tick(time.Duration, View) []Preemption { return nil }
