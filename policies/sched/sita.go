package sched

import (
	"math"
	"time"
)

// SITA is Ghit & Epema's size-interval task assignment for data clusters
// (§IV-D), after Harchol-Balter et al.: on arrival a job's size is
// predicted from its input bytes, and a job predicted at L_{k−1} or more
// and below L_k joins queue k (L_0 = 0, L_K = ∞) and runs to completion in
// its partition, even when the prediction was wrong. Partitions are
// TAGS's. A job predicted exactly at a cutoff goes past it, as a job whose
// service reaches a limit leaves its queue under FBQ and TAGS.
//
// The paper predicts size "based on [its] correlation with the job input
// size" without a formula: here a least-squares line through (log input,
// log service) of the jobs that have finished, refitted at every job's
// end (sizeFit). Until two finished jobs differ in input, and for a job
// without input, the prediction is 0: queue 1.
type SITA struct {
	*multiQueue
	fit sizeFit
}

// NewSITA returns a SITA policy with valid parameters p for a cluster of
// the shape.
func NewSITA(p *MultiQueueParams, shape Shape) *SITA {
	s := &SITA{multiQueue: newMultiQueue(p, shape)}
	s.dispatch = s.interval
	s.ended = func(j *mqJob) { s.fit.add(j.job.InputBytes, j.service) }
	return s
}

// interval is the queue of a new job: the number of cutoffs at or below
// its predicted size.
func (s *SITA) interval(j *mqJob) int {
	j.predicted = s.fit.predict(j.job.InputBytes)
	q := 0
	for q < s.k-1 && j.predicted >= s.thresholds[q] {
		q++
	}
	return q
}

// SlotAware implements SlotAware, as TAGS does.
func (*SITA) SlotAware() bool { return true }

// Partition is the 1-based queue whose partition holds the slot.
func (s *SITA) Partition(slot Slot) int { return s.parts.of(slot) }

func init() {
	RegisterShaped("sita", DefaultSITAParams, func(p *MultiQueueParams, shape Shape) (Policy, error) {
		return NewSITA(p, shape), nil
	})
}

// sizeFit is the least-squares line log(service) = a + b·log(input) over
// the finished jobs with input and service, kept as running means and
// co-moments (Welford's updates), so each job's end refits in O(1) and
// equal inputs never cancel to a spurious slope.
type sizeFit struct {
	n            int
	meanX, meanY float64
	sxx, sxy     float64 // Σ (x − mean x)², Σ (x − mean x)(y − mean y)
}

// add refits with a finished job; one without input or service says
// nothing of the line.
func (f *sizeFit) add(input int64, service time.Duration) {
	if input <= 0 || service <= 0 {
		return
	}
	x, y := math.Log(float64(input)), math.Log(service.Seconds())
	f.n++
	dx := x - f.meanX
	f.meanX += dx / float64(f.n)
	f.meanY += (y - f.meanY) / float64(f.n)
	f.sxx += dx * (x - f.meanX)
	f.sxy += dx * (y - f.meanY)
}

// predict is the fitted service for the input, 0 without input or before
// two finished jobs differ in input.
func (f *sizeFit) predict(input int64) time.Duration {
	if input <= 0 || f.n < 2 || !(f.sxx > 0) {
		return 0
	}
	b := f.sxy / f.sxx
	a := f.meanY - b*f.meanX
	secs := math.Exp(a + b*math.Log(float64(input)))
	if !(secs < float64(math.MaxInt64/int64(time.Second))) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs * float64(time.Second))
}
