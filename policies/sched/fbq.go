package sched

// FBQ is Ghit & Epema's multi-level feedback queueing for data clusters
// (§IV-B), after Schrage's M/G/1 feedback queues: every job enters queue
// 1; a job whose service (the slot time its attempts held) reaches its
// queue's limit L_k moves to the tail of queue k + 1, and the last queue
// has no limit. A free slot goes to the first job with a task for it in
// the highest non-empty queue, FIFO within a queue; when those jobs cannot
// use it, a job of a lower queue may (multiplexing). A job passed over
// keeps its running attempts: FBQ pauses, it never kills.
//
// Without partitions a slot declined is declined for every job, so FBQ is
// not slot-aware. Assign costs O(jobs) in the worst case, Finished O(jobs
// in the job's queue) when it demotes and O(1) otherwise.
type FBQ struct{ *multiQueue }

// NewFBQ returns an FBQ policy with valid parameters p.
func NewFBQ(p *MultiQueueParams) *FBQ { return &FBQ{newMultiQueue(p, Shape{})} }

func init() {
	Register("fbq", DefaultFBQParams, func(p *MultiQueueParams) (Policy, error) { return NewFBQ(p), nil })
}
