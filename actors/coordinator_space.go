package actors

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// Intermediate space (Zaharia et al. §5.4). Map outputs stay on their
// node's disk until the job ends. A node reports its free space on every
// heartbeat and the coordinator offers a job's map to a node only when the
// map's spill fits, counting the spill of maps launched since. Two jobs can
// still fill the disks before either finishes: then no map fits anywhere,
// no map runs, and no job can finish without more maps. When that lasts
// two heartbeat intervals, the coordinator evicts one job's map outputs
// from every node; its finished maps run again, but only once another job
// has ended ("results from one job must be deleted until the other job
// completes"): until then the victim gets no map, or fair sharing would
// hand it the freed space at once. The victim is the job submitted latest
// or the one with the least progress, which lets some job make progress;
// evicting the job using the most space is the paper's counter-example,
// which can livelock.

// Eviction victims (CoordinatorConfig.Evict).
const (
	EvictLatest        = "latest"         // the job submitted latest
	EvictLeastProgress = "least_progress" // the lowest fraction of tasks done
	EvictLargest       = "largest"        // the most intermediate data: can livelock
)

// spaceTick checks for an intermediate-space deadlock.
type spaceTick struct{}

// spaceOn reports whether the coordinator accounts for intermediate space.
func (c *Coordinator) spaceOn() bool { return c.cfg.IntermediateSpace > 0 }

// mapSpill is the most intermediate space one of the job's maps needs.
func (c *Coordinator) mapSpill(job sched.JobID) int64 {
	j := c.jobs[job]
	if j == nil || j.spec.Reduces == 0 || j.maps == 0 {
		return 0
	}
	return (j.spec.ShuffleBytes + int64(j.maps) - 1) / int64(j.maps)
}

// admitsMap reports whether a map of the job fits in the node's free
// intermediate space, less the spill of maps launched there that the node
// had not received at its last heartbeat.
func (c *Coordinator) admitsMap(job sched.JobID, node sched.NodeID) bool {
	// An evicted job waits for another to end: no maps, no reduces.
	return !c.held[job] && c.mapSpill(job) <= c.freeSpace(node)
}

func (c *Coordinator) freeSpace(node sched.NodeID) int64 {
	n := &c.nodes[node]
	free := n.freeSpace
	for _, b := range n.spillInFlight {
		free -= b
	}
	return free
}

// spaceReport books a heartbeat's free space and the map launches it
// shows the node received.
func (c *Coordinator) spaceReport(n *nodeEntry, hb *Heartbeat) {
	received := int(hb.Launches[sched.Map] - n.mapsAcked)
	n.spillInFlight = n.spillInFlight[min(received, len(n.spillInFlight)):]
	n.mapsAcked, n.freeSpace = hb.Launches[sched.Map], hb.FreeSpace
}

// checkSpace evicts a job's map outputs once the cluster has been stuck
// for two heartbeat intervals.
func (c *Coordinator) checkSpace(ctx actor.Context) {
	now := c.deps.Clock.Now()
	if !c.spaceStuck() {
		c.stuckSince = -1
		return
	}
	if c.stuckSince < 0 {
		c.stuckSince = now
	}
	if now-c.stuckSince < 2*c.cfg.Heartbeat {
		return
	}
	c.stuckSince = -1
	if c.releaseHeld() {
		return
	}
	victim, ok := c.evictionVictim()
	if !ok {
		return
	}
	c.held[victim] = true
	c.deps.progressed()
	ctx.Send(c.jobs[victim].jm, &EvictOutputs{Job: victim})
	c.dropJobData(ctx, victim)
	// Its reducers would hold their slots waiting for maps it may not
	// run: they go too, and start again with the job.
	for _, a := range c.runningOf(victim) {
		if a.Kind == sched.Reduce {
			c.cfg.Directory.relay(ctx, c.running[a], &KillTask{Attempt: a, Reason: "outputs evicted for intermediate space"})
		}
	}
}

// releaseHeld lets one held job run again when the jobs that are not held
// are stuck without it and one of its maps would fit somewhere.
func (c *Coordinator) releaseHeld() bool {
	id, ok := c.nextReleased()
	if !ok {
		return false
	}
	for i := range c.nodes {
		if n := &c.nodes[i]; n.registered && !n.dead && c.mapSpill(id) <= c.freeSpace(sched.NodeID(i)) {
			delete(c.held, id)
			return true
		}
	}
	return false
}

// nextReleased is the held job the eviction rule ranks last (ties to the
// one submitted first): releasing jobs one at a time in that order keeps
// them from filling the disks together again.
func (c *Coordinator) nextReleased() (sched.JobID, bool) {
	var best *sched.JobStatus
	var bestKey float64
	for _, st := range c.table.Jobs() {
		if !c.held[st.ID] {
			continue
		}
		if key := c.victimKey(st); best == nil || key < bestKey {
			best, bestKey = st, key
		}
	}
	if best == nil {
		return 0, false
	}
	return best.ID, true
}

// jobEndedSpace frees the job's map outputs on every node and, when a job
// that was not held ends, lets the next held job run again.
func (c *Coordinator) jobEndedSpace(ctx actor.Context, job sched.JobID) {
	c.dropJobData(ctx, job)
	wasHeld := c.held[job]
	delete(c.held, job)
	if !wasHeld {
		if id, ok := c.nextReleased(); ok {
			delete(c.held, id)
		}
	}
}

// spaceStuck reports whether no map runs, some that are not held are
// pending, none of those fits on any live node, and no job is finishing:
// running reduces of a job whose maps are all done.
func (c *Coordinator) spaceStuck() bool {
	pending := false
	for _, st := range c.table.Jobs() {
		if st.RunningMaps > 0 || st.FinishedMaps >= st.Maps && st.RunningReduces > 0 {
			return false
		}
		if st.PendingMaps == 0 || c.held[st.ID] {
			continue
		}
		pending = true
		for i := range c.nodes {
			if n := &c.nodes[i]; n.registered && !n.dead && c.admitsMap(st.ID, sched.NodeID(i)) {
				return false
			}
		}
	}
	return pending
}

// evictionVictim picks the job whose outputs go, among the jobs holding
// any: the one the rule ranks first, ties going to the job submitted
// later.
func (c *Coordinator) evictionVictim() (sched.JobID, bool) {
	var best *sched.JobStatus
	var bestKey float64
	for _, st := range c.table.Jobs() { // in submission order
		if st.FinishedMaps == 0 || st.Reduces == 0 {
			continue
		}
		if key := c.victimKey(st); best == nil || key >= bestKey {
			best, bestKey = st, key
		}
	}
	if best == nil {
		return 0, false
	}
	return best.ID, true
}

// victimKey ranks a job for eviction: larger goes first.
func (c *Coordinator) victimKey(st *sched.JobStatus) float64 {
	switch c.cfg.Evict {
	case EvictLeastProgress:
		return -float64(st.FinishedMaps+st.FinishedReduces) / float64(st.Maps+st.Reduces)
	case EvictLargest:
		return float64(st.FinishedMaps) * float64(c.mapSpill(st.ID))
	}
	return float64(st.Submit) // EvictLatest
}

// dropJobData tells every live node to delete the job's map outputs.
func (c *Coordinator) dropJobData(ctx actor.Context, job sched.JobID) {
	for i := range c.nodes {
		if n := &c.nodes[i]; n.registered && !n.dead {
			c.cfg.Directory.relay(ctx, sched.NodeID(i), &DropJobData{Job: job})
		}
	}
}

// checkSpill fails a job at submission whose maps could never fit on any
// node.
func (c *Coordinator) checkSpill(ctx actor.Context, id sched.JobID) {
	if spill := c.mapSpill(id); spill > c.cfg.IntermediateSpace {
		ctx.Send(c.jobs[id].jm, &FailJob{Job: id, Reason: fmt.Sprintf(
			"a map spills %d bytes, more than a node's intermediate space (%d bytes)", spill, c.cfg.IntermediateSpace)})
	}
}
