package actors

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// Containers (cluster.containers): each node's slots are one pool, as a
// YARN NodeManager's containers are, of which a map takes one and a
// reduce cluster.reduce_containers. With maps and reduces drawing on one
// pool, the MapReduce application master (Hadoop 2's
// RMContainerAllocator) keeps its reduces from taking what its maps need,
// by two rules that here run in the coordinator on its own numbers, the
// headroom the ResourceManager would send the AM being the live nodes'
// free containers, or less when the policy bounds the job's queue
// (headroom):
//
//   - Ramp-up (scheduleReduces), an admission rule on reduces: past
//     slow-start, while maps wait, the reduces may hold at most
//     min(finished maps / maps, rampup limit) of what the job holds plus
//     the headroom, and the share the waiting and running maps do not
//     need (reduceLimit). Once every map has a container, every reduce
//     may have one.
//   - Preemption (preemptReducesIfNeeded, as of Hadoop 2.8), on the
//     scheduler's tick: a job with maps waiting, reduces running and no
//     map running kills reduces for the maps that hang (preemptReduces).
//
// The AM's allocate call is once a second in Hadoop; here the ramp-up
// rule is read at each offer and the preemption runs on the scheduler's
// tick (scheduler.tick, 1 s by default).

// offerOrder is the order a node's free slots are offered in by kind:
// maps first, or with containers reduces first, as the AM asks for its
// reduces at a higher priority than its maps (Hadoop 2's
// RMContainerAllocator: 10 against 20) once its ramp-up rule lets them
// run.
func (s *coordState) offerOrder() []sched.TaskKind {
	if s.containersOn() {
		return reducesFirst
	}
	return mapsFirst
}

var (
	mapsFirst    = []sched.TaskKind{sched.Map, sched.Reduce}
	reducesFirst = []sched.TaskKind{sched.Reduce, sched.Map}
)

// offerContainers hands the node's free containers to a policy that
// picks the job and then the kind (sched.ContainerAware), one at a time,
// until it leaves one idle, or after one launch without assign-multiple.
// A node reserved for a reduce serves its reservation first, and nothing
// else while the reduce does not fit; a reduce the policy picks that
// does not fit reserves the node (reserve).
func (s *coordState) offerContainers(now time.Duration, node sched.NodeID, p sched.ContainerAware) {
	n := &s.nodes[node]
	if !s.serveReservation(now, node) {
		return
	}
	for n.used < n.containers {
		slot := sched.Slot{Node: node, Rack: s.cfg.RackOf[node], Kind: sched.Map, Index: n.freeSlot(sched.Map)}
		if s.cfg.Explain {
			slot.Why = &sched.Explanation{}
		}
		a, ok := p.AssignContainer(now, coordView{s}, slot)
		if ok && a.Kind == sched.Reduce && n.containers-n.used < n.takes[sched.Reduce] {
			s.reserve(node, a.Job, false)
			if slot.Why != nil {
				slot.Why.Note(a.Job, "its reduce takes %d containers, more than the node has free: the node is reserved for it", n.takes[sched.Reduce])
			}
			s.explain(now, slot, len(s.out.effects))
			return
		}
		if ok {
			slot.Kind, slot.Index = a.Kind, n.freeSlot(a.Kind)
		}
		first := len(s.out.effects)
		launched := ok && s.launch(now, a, slot)
		s.explain(now, slot, first)
		if !launched || !s.cfg.Heartbeat.AssignMultiple {
			return
		}
	}
}

// ceilDiv is ⌈x / d⌉.
func ceilDiv(x float64, d int) int { return int(math.Ceil(x / float64(d))) }

// resetContainers gives a node registering its containers, none in use.
func (s *coordState) resetContainers(node sched.NodeID, containers int) {
	s.unreserve(node)
	n := &s.nodes[node]
	n.containers, n.used = containers, 0
	n.takes = [2]int{s.cfg.Cluster.Takes(sched.Map), s.cfg.Cluster.Takes(sched.Reduce)}
}

// freeSlot is the node's lowest free slot of the kind; with a container
// free, each kind has one.
func (n *nodeEntry) freeSlot(kind sched.TaskKind) int {
	return slices.Index(n.busy[kind], false)
}

// setBusy marks the node's slot of the kind busy or free, counting the
// node's containers in use and the cluster's free ones.
func (s *coordState) setBusy(node sched.NodeID, kind sched.TaskKind, slot int, busy bool) {
	n := &s.nodes[node]
	if n.busy[kind][slot] == busy {
		return
	}
	n.busy[kind][slot] = busy
	d := n.takes[kind]
	if busy {
		d = -d
	}
	n.used -= d
	if n.containers > 0 && s.live(node) && !n.resync {
		s.freeContainers += d
	}
	s.checkContainers(node)
}

// checkContainers fails the run when the coordinator counts more of a
// node's containers in use than it has, or fewer than none.
func (s *coordState) checkContainers(node sched.NodeID) {
	if n := &s.nodes[node]; n.containers > 0 && (n.used < 0 || n.used > n.containers) {
		s.fail("node %d has %d of its %d containers in use", node, n.used, n.containers)
	}
}

// countContainers counts the free containers of the live nodes, but for
// those a restarted coordinator waits to hear again from (resync), whose
// containers it cannot offer yet.
func (s *coordState) countContainers() {
	s.freeContainers = 0
	for i := range s.nodes {
		if n := &s.nodes[i]; n.registered && !n.dead && !n.resync && n.containers > 0 {
			s.freeContainers += n.containers - n.used
		}
	}
}

// rampUp is the AM's ramp-up rule as an admission rule on reduces.
type rampUp struct {
	s     *coordState
	limit float64
}

func (r *rampUp) admits(job sched.JobID, kind sched.TaskKind, node sched.NodeID) bool {
	if !r.s.amRuns(job) {
		return false // its AM waits for a container: nothing asks for tasks
	}
	if kind != sched.Reduce {
		return true
	}
	j := r.s.table.job(job)
	if n := &r.s.nodes[node]; n.containers-n.used < n.takes[sched.Reduce] {
		// No reduce fits the node. A policy sees one, to reserve the
		// node for it (reserve), while the job holds fewer reservations
		// than it has reduces waiting.
		if !r.s.viewing || j == nil || r.s.reserved[job] >= j.status.PendingReduces || !r.s.mayFit(node, n.takes[sched.Reduce]) {
			return false
		}
	}
	if j == nil {
		return true
	}
	if r.s.rampedDown[job] {
		return false // its AM took reduces back for its maps this tick
	}
	if j.status.PendingMaps == 0 {
		return true // no map waits: every reduce may run, whatever the headroom
	}
	return j.status.ReduceAttempts < reduceLimit(j.status, r.s.headroom(job), r.limit, r.s.cfg.Cluster.ReduceSize())
}

// headroom is the containers the job's AM is told it may still get: the
// live nodes' free containers, bounded by what its queue may still take
// when the policy limits queues (sched.Headroom), as YARN's
// ResourceManager computes it.
func (s *coordState) headroom(job sched.JobID) int {
	free := s.freeContainers - s.reservedFree()
	if p, ok := s.policy.(sched.Headroom); ok {
		if h, ok := p.Headroom(coordView{s}, job); ok {
			return min(h, free)
		}
	}
	return free
}

// reservedFree counts the free containers of the nodes reserved for a
// reduce, which no other request may take.
func (s *coordState) reservedFree() int {
	n := 0
	for node := range s.reservedNodes {
		if e := &s.nodes[node]; s.live(node) && !e.resync {
			n += max(0, e.containers-e.used)
		}
	}
	return n
}

// reduceLimit is how many reduces the job may run
// (RMContainerAllocator.scheduleReduces, in containers, of which a map
// takes one and a reduce size): all of them once no map waits; otherwise
// the ideal reduce share of what the job holds plus the headroom,
// min(finished maps / maps, limit), and whatever the maps' ideal share
// leaves unused, over a reduce's size.
func reduceLimit(st sched.JobStatus, headroom int, limit float64, size int) int {
	if st.PendingMaps == 0 {
		return math.MaxInt
	}
	total := float64(st.MapAttempts + size*st.ReduceAttempts + headroom)
	done := 1.0
	if st.Maps > 0 {
		done = float64(st.FinishedMaps) / float64(st.Maps)
	}
	reduces := min(done, limit) * total
	maps := total - reduces
	if need := float64(st.PendingMaps + st.MapAttempts); maps > need {
		reduces += maps - need
	}
	return int(reduces) / size
}

// The rule reads the job table and the free containers as they stand;
// it keeps no picture of the nodes of its own.
func (*rampUp) reported(*Heartbeat)                             {}
func (*rampUp) launched(sched.NodeID, sched.Attempt, *TaskSpec) {}
func (*rampUp) registered(sched.NodeID, [2]int64)               {}

// containersOn reports whether the nodes' slots are containers.
func (s *coordState) containersOn() bool { return s.cfg.Cluster.Containers > 0 }

// rampLimits are the AM's ramp-up and preemption limits, Hadoop's 0.5
// where the scenario leaves them 0.
func rampLimits(t *TasksConfig) (rampup, preemption float64) {
	return cmp.Or(t.ReduceRampupLimit, 0.5), cmp.Or(t.ReducePreemptionLimit, 0.5)
}

// preemptReduces runs every job's AM preemption rule
// (preemptReducesIfNeeded): it kills the reduces that hold the containers
// the job's waiting maps cannot get. Only a job with maps waiting, reduces
// running and no map running is looked at; its maps hang once they have
// waited longer than a delay. Past tasks.reduce_unconditional_preempt_delay
// they are taken back whatever the headroom; otherwise, when neither a
// free container nor one its own released reduces would take first is
// left for a map, past tasks.reduce_preempt_delay.
func (s *coordState) preemptReduces(now time.Duration) {
	if !s.containersOn() {
		return
	}
	rampup, limit := rampLimits(&s.cfg.Tasks)
	noRoom, anyway := preemptDelays(&s.cfg.Tasks)
	size := s.cfg.Cluster.ReduceSize()
	clear(s.rampedDown)
	for st := range s.table.statuses() {
		if st.PendingMaps == 0 || st.ReduceAttempts == 0 || st.MapAttempts > 0 {
			continue // no map waits, no reduce to take back, or a map's container comes back to the job
		}
		room := s.headroom(st.ID)
		hanging, noRoomLeft := s.table.hangingMaps(st.ID, now, anyway), false
		if hanging == 0 {
			// The job's released reduces ask at a higher priority than
			// its maps: what they would take is no room for a map.
			released := min(st.PendingReduces, max(0, reduceLimit(st, room, rampup, size)-st.ReduceAttempts))
			if room-size*released >= 1 {
				continue // a map has room
			}
			hanging, noRoomLeft = s.table.hangingMaps(st.ID, now, noRoom), true
		}
		if hanging > 0 {
			why := fmt.Sprintf("preempted for maps waiting over %v", anyway)
			if noRoomLeft {
				why = "preempted for maps: the job's reduces held every container it may get"
			}
			// Until its next tick the AM asks for no reduce (Hadoop
			// schedules reduces only on a heartbeat that preempted none),
			// so what its kills free goes to its maps.
			s.rampedDown[st.ID] = true
			s.preemptFor(st, hanging, room, limit, size, why)
		}
	}
}

// preemptFor kills the job's reduces for hanging maps, as Hadoop's AM
// counts them (preemptReducer): enough for one map, or the limit's share
// of what the job holds and could get, whichever is more, but no more
// than the hanging maps need; the most recently launched first, as they
// have copied least. Reduces being killed count among them, so a rule
// that holds on the next tick kills no more until they end. room is the
// job's headroom.
func (s *coordState) preemptFor(st sched.JobStatus, hanging, room int, limit float64, size int, why string) {
	var reduces []sched.Attempt
	for _, a := range s.runningOf(st.ID) {
		if a.Kind == sched.Reduce {
			reduces = append(reduces, a)
		}
	}
	total := st.MapAttempts + size*st.ReduceAttempts + room
	n := min(max(1, ceilDiv(limit*float64(total), size)), ceilDiv(float64(hanging), size), len(reduces))
	slices.SortStableFunc(reduces, func(a, b sched.Attempt) int {
		return cmp.Compare(s.running[b].at, s.running[a].at)
	})
	for _, a := range reduces[:n] {
		if !s.preempting[a] {
			s.preempting[a] = true
			s.out.counts = append(s.out.counts, count{MetricReducesPreempted, 1})
			s.emit(&killAttempt{a, s.running[a].node, why})
		}
	}
}

// preemptDelays are how long a map waits before the AM takes reduces
// back for it: with no room for it (Hadoop's
// mapreduce.job.reducer.preempt.delay.sec, 0), and whatever the room
// (mapreduce.job.reducer.unconditional-preempt.delay.sec, 5 min, where
// the scenario leaves it 0).
func preemptDelays(t *TasksConfig) (noRoom, anyway time.Duration) {
	return t.ReducePreemptDelay.Std(), cmp.Or(t.ReduceUnconditionalPreemptDelay.Std(), 5*time.Minute)
}

// Reservations: YARN's schedulers, picking for a node an application
// whose next request does not fit what the node has free (here a reduce
// of cluster.reduce_containers), reserve the node for it: the node takes
// nothing else until the request fits, as its running containers end,
// and the reserved request then has it. Without, a node with fewer free
// containers than a reduce takes would go to maps as they come, and a
// job's reduces could wait for two containers to free at once. A
// reservation lapses when its job no longer asks for the reduce (none
// pending, or the AM's ramp-up holds it back) or ends, and with the
// node's loss; containers.reserved counts those made. A reserved node's
// free containers are no headroom for any other job's AM.

// reservation is the job a node is reserved for, when reserved: for its
// reduce, or with am for its AM (coordinator_am.go).
type reservation struct {
	job      sched.JobID
	reserved bool
	am       bool
}

// reserve holds the node for the job's reduce, or with am its AM, and
// counts the reservation.
func (s *coordState) reserve(node sched.NodeID, job sched.JobID, am bool) {
	s.hold(node, job, am)
	s.out.counts = append(s.out.counts, count{MetricContainersReserved, 1})
}

// serveReservation launches the reduce a node is reserved for once it
// fits, and reports whether the node's containers may go to the policy:
// not while the reserved reduce waits for room.
func (s *coordState) serveReservation(now time.Duration, node sched.NodeID) bool {
	n := &s.nodes[node]
	r := n.reservedFor
	if !r.reserved {
		return true
	}
	if r.am {
		return false // placeAMs serves it
	}
	s.unreserve(node) // so that the job's wish is asked as of a node not held for it
	s.viewing = true
	wants := s.admits(r.job, sched.Reduce, node)
	s.viewing = false
	if j := s.table.job(r.job); j == nil || j.status.PendingReduces == 0 || !wants {
		return true
	}
	if n.containers-n.used < n.takes[sched.Reduce] {
		s.hold(node, r.job, false)
		return false
	}
	slot := sched.Slot{Node: node, Rack: s.cfg.RackOf[node], Kind: sched.Reduce, Index: n.freeSlot(sched.Reduce)}
	if slot.Index >= 0 {
		s.launch(now, sched.Assignment{Job: r.job, Kind: sched.Reduce, MaxLocality: sched.OffRack}, slot)
	}
	return true
}

// mayFit reports whether a request of size containers fits the node once
// its tasks end: its containers less its AMs', which stay to their jobs'
// ends. A node it never fits is not reserved for it.
func (s *coordState) mayFit(node sched.NodeID, size int) bool {
	n := &s.nodes[node]
	return n.containers-n.ams >= size
}

// hold marks the node reserved for the job's reduce, or with am its AM.
func (s *coordState) hold(node sched.NodeID, job sched.JobID, am bool) {
	s.nodes[node].reservedFor = reservation{job: job, reserved: true, am: am}
	if s.reserved == nil {
		s.reserved, s.reservedNodes = map[sched.JobID]int{}, map[sched.NodeID]struct{}{}
	}
	s.reserved[job]++
	s.reservedNodes[node] = struct{}{}
}

// unreserve lifts the node's reservation.
func (s *coordState) unreserve(node sched.NodeID) {
	n := &s.nodes[node]
	if !n.reservedFor.reserved {
		return
	}
	if s.reserved[n.reservedFor.job]--; s.reserved[n.reservedFor.job] <= 0 {
		delete(s.reserved, n.reservedFor.job)
	}
	delete(s.reservedNodes, node)
	n.reservedFor = reservation{}
}

// dropReservations lifts the reservations for a job that ended.
func (s *coordState) dropReservations(job sched.JobID) {
	if s.reserved[job] == 0 {
		return
	}
	for i := range s.nodes {
		if r := s.nodes[i].reservedFor; r.reserved && r.job == job {
			s.unreserve(sched.NodeID(i))
		}
	}
}
