package sched

import "time"

// COMP is Ghit & Epema's comparison scheduling (§IV-E), after Jelenkovic,
// Kang and Tan: on arrival a job's size is predicted from its input
// (SITA's fit) and compared with the service of the last K − 1 jobs that
// finished; larger than exactly m of them, it joins queue m + 1 and stays
// there. Queues are served as FBQ's, highest first, FIFO within, lower
// queues multiplexed, no partitions, no limits.
//
// The paper leaves open what the history holds and what happens before
// K − 1 jobs have finished: here it holds the finished jobs' own service
// (the slot time the policy summed, not their predictions), and a job
// arriving earlier is ranked among the jobs that have finished (none: it
// joins queue 1).
type COMP struct {
	*multiQueue
	fit     sizeFit
	history []time.Duration // the last K − 1 finished jobs' service, oldest first
}

// NewCOMP returns a COMP policy with valid parameters p.
func NewCOMP(p *MultiQueueParams) *COMP {
	c := &COMP{multiQueue: newMultiQueue(p, Shape{})}
	c.dispatch = c.rank
	c.ended = c.finished
	return c
}

// rank is the queue of a new job: the number of remembered jobs its
// predicted size exceeds.
func (c *COMP) rank(j *mqJob) int {
	j.predicted = c.fit.predict(j.job.InputBytes)
	m := 0
	for _, s := range c.history {
		if j.predicted > s {
			m++
		}
	}
	return m
}

// finished remembers a finished job's service and refits.
func (c *COMP) finished(j *mqJob) {
	c.fit.add(j.job.InputBytes, j.service)
	if len(c.history) == c.k-1 {
		c.history = append(c.history[:0], c.history[1:]...)
	}
	c.history = append(c.history, j.service)
}

func init() {
	Register("comp", DefaultCOMPParams, func(p *MultiQueueParams) (Policy, error) { return NewCOMP(p), nil })
}
