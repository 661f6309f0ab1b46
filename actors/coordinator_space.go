package actors

import (
	"fmt"
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/workload"
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

// spaceAdmission admits a job's map to a node only when its spill fits the
// node's free intermediate space, and no task of a held job.
type spaceAdmission struct {
	capacity []int64 // by node: its intermediate space, unlimitedSpace for none
	nodes    []spaceNode
	spills   map[sched.JobID]int64 // the most one map of the job spills
	least    map[sched.JobID]int64 // the least
	// held are the evicted jobs waiting for another job to end.
	held map[sched.JobID]bool
	// stuckSince is when the cluster last became stuck, -1 when it is not.
	stuckSince time.Duration
}

// spaceNode is one node's free space at its last heartbeat, and the spill
// of the map launches sent since.
type spaceNode struct {
	free     int64
	acked    int64 // map launches the node had received
	inFlight []int64
}

func newSpaceAdmission(capacity []int64) *spaceAdmission {
	s := &spaceAdmission{
		capacity: capacity,
		nodes:    make([]spaceNode, len(capacity)),
		spills:   make(map[sched.JobID]int64),
		least:    make(map[sched.JobID]int64),
		held:     make(map[sched.JobID]bool), stuckSince: -1,
	}
	for i := range s.nodes {
		s.nodes[i].free = capacity[i]
	}
	return s
}

// unlimitedSpace is the free space of a node that does not account for
// it (a [[cluster.class]] with intermediate_space "0B" in a cluster whose
// other nodes do): every spill fits.
const unlimitedSpace = math.MaxInt64

// nodeSpace is each of the nodes' intermediate space, unlimitedSpace
// where the node does not account for it, or nil when no node does.
func nodeSpace(c *ClusterConfig, nodes int) []int64 {
	out := make([]int64, nodes)
	limited := false
	for n := range out {
		out[n] = unlimitedSpace
		if space := int64(c.ForNode(n).IntermediateSpace); space > 0 {
			out[n], limited = space, true
		}
	}
	if !limited {
		return nil
	}
	return out
}

// largest is the most intermediate space a node has.
func (s *spaceAdmission) largest() int64 { return slices.Max(s.capacity) }

// addJob books the most intermediate space one of a job's maps needs:
// its spill follows its block of the input, which a skewed file splits
// unevenly.
func (s *spaceAdmission) addJob(id sched.JobID, spec workload.JobSpec, maps int, input *file) {
	if spec.Reduces == 0 || maps == 0 {
		return
	}
	if input == nil || input.cuts == nil || len(input.blocks) != maps {
		s.spills[id] = (spec.ShuffleBytes + int64(maps) - 1) / int64(maps)
		s.least[id] = spec.ShuffleBytes / int64(maps)
		return
	}
	s.least[id] = spec.ShuffleBytes
	for i := range maps {
		share := input.share(spec.ShuffleBytes, i)
		s.spills[id], s.least[id] = max(s.spills[id], share), min(s.least[id], share)
	}
}

// neverFits says why the job's map outputs can never all be on the nodes'
// disks at once, as they must be before it ends, or "" when they can: a
// map spills more than any node has, the maps spill more than all the
// nodes have, or the nodes hold fewer outputs than it has maps even at
// its least spill. Such a job would fill the disks, be evicted, and wait
// for ever.
func (s *spaceAdmission) neverFits(id sched.JobID, maps int, total int64) string {
	if spill, most := s.spill(id), s.largest(); spill > most {
		return fmt.Sprintf("a map spills %d bytes, more than any node's intermediate space (%d bytes at most)", spill, most)
	}
	least := s.least[id]
	var room int64
	outputs := 0 // the most outputs the nodes hold, counted up to maps
	for _, c := range s.capacity {
		if c == unlimitedSpace {
			return ""
		}
		room += c
		if least > 0 {
			outputs = int(min(int64(outputs)+c/least, int64(maps)))
		}
	}
	if total > room || least > 0 && outputs < maps {
		return fmt.Sprintf("its %d maps spill %d bytes, which the nodes' %d bytes of intermediate space cannot hold at once, "+
			"and a job's map outputs stay until it ends", maps, total, room)
	}
	return ""
}

// spill is the most intermediate space one of the job's maps needs.
func (s *spaceAdmission) spill(id sched.JobID) int64 { return s.spills[id] }

// mostFree is the most space any node reported free.
func (s *spaceAdmission) mostFree() int64 {
	var most int64
	for i := range s.nodes {
		most = max(most, s.nodes[i].free)
	}
	return most
}

func (s *spaceAdmission) admits(job sched.JobID, kind sched.TaskKind, node sched.NodeID) bool {
	// An evicted job waits for another to end: no maps, no reduces.
	return !s.held[job] && (kind != sched.Map || s.fits(job, node))
}

// fits reports whether a map of the job fits in the node's free space,
// less the spill of maps launched there that the node had not received at
// its last heartbeat.
func (s *spaceAdmission) fits(job sched.JobID, node sched.NodeID) bool {
	n := &s.nodes[node]
	free := n.free
	for _, b := range n.inFlight {
		free -= b
	}
	return s.spills[job] <= free
}

func (s *spaceAdmission) reported(hb *Heartbeat) {
	n := &s.nodes[hb.Node]
	received := int(hb.Launches[sched.Map] - n.acked)
	n.inFlight = n.inFlight[min(received, len(n.inFlight)):]
	n.acked = hb.Launches[sched.Map]
	if s.capacity[hb.Node] != unlimitedSpace {
		n.free = hb.FreeSpace
	}
}

func (s *spaceAdmission) registered(node sched.NodeID, launches [2]int64) {
	s.nodes[node] = spaceNode{free: s.capacity[node], acked: launches[sched.Map]}
}

func (s *spaceAdmission) launched(node sched.NodeID, a sched.Attempt, spec *TaskSpec) {
	if a.Kind == sched.Map {
		s.nodes[node].inFlight = append(s.nodes[node].inFlight, spec.SpillBytes)
	}
}

// checkSpace evicts a job's map outputs once the cluster has been stuck
// for two heartbeat intervals.
func (c *coordState) checkSpace(now time.Duration) {
	s := c.space
	if !c.spaceStuck() {
		s.stuckSince = -1
		return
	}
	if s.stuckSince < 0 {
		s.stuckSince = now
	}
	if now-s.stuckSince < 2*c.cfg.Heartbeat.Interval.Std() {
		return
	}
	s.stuckSince = -1
	if c.releaseHeld() {
		return
	}
	victim, ok := c.evictionVictim()
	if !ok {
		return
	}
	s.held[victim] = true
	c.out.progress = true
	c.emit(&tellJob{victim, &EvictOutputs{Job: victim}})
	c.dropJobData(victim)
	// Its reducers would hold their slots waiting for maps it may not
	// run: they go too, and start again with the job.
	for _, a := range c.runningOf(victim) {
		if a.Kind == sched.Reduce {
			c.emit(&killAttempt{a, c.running[a].node, "outputs evicted for intermediate space"})
		}
	}
}

// releaseHeld lets one held job run again when the jobs that are not held
// are stuck without it and one of its maps would fit somewhere.
func (c *coordState) releaseHeld() bool {
	id, ok := c.nextReleased()
	if !ok {
		return false
	}
	for i := range c.nodes {
		if c.live(sched.NodeID(i)) && c.space.fits(id, sched.NodeID(i)) {
			delete(c.space.held, id)
			return true
		}
	}
	return false
}

// nextReleased is the held job the eviction rule ranks last (ties to the
// one submitted first): releasing jobs one at a time in that order keeps
// them from filling the disks together again.
func (c *coordState) nextReleased() (sched.JobID, bool) {
	return c.rankJobs(func(st *sched.JobStatus) bool { return c.space.held[st.ID] }, func(key, best float64) bool { return key < best })
}

// evictionVictim picks the job whose outputs go, among the jobs holding
// any: the one the rule ranks first, ties going to the job submitted
// later.
func (c *coordState) evictionVictim() (sched.JobID, bool) {
	return c.rankJobs(func(st *sched.JobStatus) bool { return st.FinishedMaps > 0 && st.Reduces > 0 },
		func(key, best float64) bool { return key >= best })
}

// rankJobs returns the job, among those in submission order that pass
// the filter, whose victimKey beats every earlier one's.
func (c *coordState) rankJobs(in func(*sched.JobStatus) bool, beats func(key, best float64) bool) (sched.JobID, bool) {
	var best *sched.JobStatus
	var bestKey float64
	for _, j := range c.table.order {
		st := &j.status
		if !in(st) {
			continue
		}
		if key := c.victimKey(st); best == nil || beats(key, bestKey) {
			best, bestKey = st, key
		}
	}
	if best == nil {
		return 0, false
	}
	return best.ID, true
}

// spaceJobEnded frees the job's map outputs on every node and, when a job
// that was not held ends, lets the next held job run again.
func (c *coordState) spaceJobEnded(job sched.JobID) {
	c.dropJobData(job)
	s := c.space
	wasHeld := s.held[job]
	delete(s.held, job)
	delete(s.spills, job)
	delete(s.least, job)
	if !wasHeld {
		if id, ok := c.nextReleased(); ok {
			delete(s.held, id)
		}
	}
}

// spaceStuck reports whether no map runs, some that are not held are
// pending, none of those fits on any live node, and no job is finishing:
// running reduces of a job whose maps are all done.
func (c *coordState) spaceStuck() bool {
	pending := false
	for _, j := range c.table.order {
		st := &j.status
		if st.MapAttempts > 0 || st.FinishedMaps >= st.Maps && st.ReduceAttempts > 0 {
			return false
		}
		if st.PendingMaps == 0 || c.space.held[st.ID] {
			continue
		}
		pending = true
		for i := range c.nodes {
			if c.live(sched.NodeID(i)) && c.space.admits(st.ID, sched.Map, sched.NodeID(i)) {
				return false
			}
		}
	}
	return pending
}

// victimKey ranks a job for eviction: larger goes first.
func (c *coordState) victimKey(st *sched.JobStatus) float64 {
	switch c.cfg.Cluster.Evict {
	case EvictLeastProgress:
		return -float64(st.FinishedMaps+st.FinishedReduces) / float64(st.Maps+st.Reduces)
	case EvictLargest:
		return float64(st.FinishedMaps) * float64(c.space.spill(st.ID))
	}
	return float64(st.Submit) // EvictLatest
}

// dropJobData tells every live node to delete the job's map outputs.
func (c *coordState) dropJobData(job sched.JobID) {
	for i := range c.nodes {
		if c.live(sched.NodeID(i)) {
			c.emit(&tellNode{sched.NodeID(i), &DropJobData{Job: job}})
		}
	}
}
