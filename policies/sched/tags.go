package sched

// TAGS is Ghit & Epema's task assignment by guessing size for data
// clusters (§IV-C), after Harchol-Balter's TAGS: FBQ's feedback queues,
// each with a partition of the cluster's slots where its jobs must run.
// Queue k's partition holds round(C_k × slots) of each kind (Partition);
// a slot of partition k goes only to queue k's jobs, FIFO, and stays idle
// when none has a task for it. A job whose service reaches L_k moves to
// queue k + 1 and its partition; its attempts running in partition k
// finish there, and nothing it did is redone (the original TAGS killed
// and restarted it).
type TAGS struct{ *multiQueue }

// NewTAGS returns a TAGS policy with valid parameters p for a cluster of
// the shape.
func NewTAGS(p *MultiQueueParams, shape Shape) *TAGS { return &TAGS{newMultiQueue(p, shape)} }

// SlotAware implements SlotAware: a slot of one partition declined says
// nothing of the next slot, which may be another queue's.
func (*TAGS) SlotAware() bool { return true }

// Partition is the 1-based queue whose partition holds the slot.
func (t *TAGS) Partition(s Slot) int { return t.parts.of(s) }

func init() {
	RegisterShaped("tags", DefaultTAGSParams, func(p *MultiQueueParams, shape Shape) (Policy, error) {
		return NewTAGS(p, shape), nil
	})
}
