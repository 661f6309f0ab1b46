package sched

import (
	"sort"
	"time"
)

// FIFO is Hadoop's default scheduler: jobs in order of priority, then
// submission time. A free slot goes to the first job with a pending task of
// the slot's kind; within that job the coordinator takes the task closest to
// the node (node-local, then rack-local, then any), which is the greedy
// in-job locality behind head-of-line scheduling. Reduces become pending
// only once a job's slow-start fraction of maps has finished, so "a job with
// a pending reduce" already respects slow-start.
//
// FIFO never preempts. Assign costs O(jobs) in the worst case.
type FIFO struct {
	queue []Job // priority, then submission time, then ID
}

// NewFIFO returns an empty FIFO policy.
func NewFIFO() *FIFO { return &FIFO{} }

// Name implements Policy.
func (*FIFO) Name() string { return "fifo" }

// Submitted inserts the job after every job of the same or higher
// priority submitted before it.
func (f *FIFO) Submitted(_ time.Duration, job Job) {
	i := sort.Search(len(f.queue), func(i int) bool { return before(job, f.queue[i]) })
	f.queue = append(f.queue, Job{})
	copy(f.queue[i+1:], f.queue[i:])
	f.queue[i] = job
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
			return
		}
	}
}

// Launched implements Policy; FIFO keeps no per-attempt state.
func (*FIFO) Launched(time.Duration, Launch) {}

// Finished implements Policy; FIFO keeps no per-attempt state.
func (*FIFO) Finished(time.Duration, Attempt, Outcome) {}

// Heartbeat implements Policy; FIFO does not wait for locality.
func (*FIFO) Heartbeat(time.Duration, NodeID) {}

// Assign gives the slot to the first queued job with a pending task of the
// slot's kind, at any locality.
func (f *FIFO) Assign(_ time.Duration, v View, s Slot) (Assignment, bool) {
	for _, job := range f.queue {
		st := v.Job(job.ID)
		if st != nil && st.Pending(s.Kind) > 0 {
			return Assignment{Job: job.ID, Kind: s.Kind, MaxLocality: OffRack}, true
		}
	}
	return Assignment{}, false
}

// Tick implements Policy; FIFO never preempts.
func (*FIFO) Tick(time.Duration, View) []Preemption { return nil }
