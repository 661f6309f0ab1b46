package cluster

import "time"

// Sample is a running cluster's size at an emulated instant: what a trace
// of its memory over a run sets the heap beside.
type Sample struct {
	At time.Duration
	// Jobs are submitted and not ended; Ended have ended.
	Jobs, Ended int
	// Attempts are running, of both kinds.
	Attempts int
	// Flows are in the network.
	Flows int
	// Actors are alive: the nodes, switches, coordinator and clients, and
	// one job manager a job running.
	Actors int
}

// WatchSizes has a deterministic run call sample each time its clock is
// about to pass an instant: first at, then each instant sample returns,
// until it returns 0 or the run ends (Runtime.WatchClock). Set it before
// Run. sample runs on the run's goroutine between deliveries, so it may
// take its time and read the process's memory; the run is the same with
// it as without.
func (c *Cluster) WatchSizes(at time.Duration, sample func(Sample) time.Duration) {
	c.rt.WatchClock(at, func(at time.Duration) time.Duration {
		return sample(c.sizes(at))
	})
}

// sizes counts what the run holds at instant at.
func (c *Cluster) sizes(at time.Duration) Sample {
	s := Sample{At: at, Flows: c.network.NumFlows()}
	if a, ok := c.rt.(interface{ liveActors() int }); ok {
		s.Actors = a.liveActors()
	}
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	s.Ended = len(c.rec.jobs)
	s.Jobs = len(c.rec.submitted) - s.Ended
	s.Attempts = len(c.rec.running)
	return s
}
