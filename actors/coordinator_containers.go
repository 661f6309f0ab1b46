package actors

import (
	"cmp"
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// Containers (cluster.containers): each node's slots are one pool, as a
// YARN NodeManager's containers are, and a map or a reduce takes any free
// one. With maps and reduces drawing on one pool, the MapReduce
// application master (Hadoop 2's RMContainerAllocator) keeps its reduces
// from taking what its maps need, by two rules that here run in the
// coordinator on its own numbers, the headroom the ResourceManager would
// send the AM on its next allocate call:
//
//   - Ramp-up (scheduleReduces): past slow-start, while maps wait, the
//     reduces may hold at most min(finished maps / maps, rampup limit) of
//     what the job holds plus the cluster's free containers, and the
//     share the waiting and running maps do not need. Once every map has
//     a container, every reduce may have one.
//   - Preemption (preemptReducesIfNeeded): when maps wait and neither a
//     free container nor one of the job's running maps nor one of its
//     reduces already being killed can take one, the reduces have taken
//     the cluster; the AM kills max(1, preemption limit × what the job
//     holds plus the free containers) of them, at most one a waiting map,
//     the most recently launched first (they have copied least), and
//     their tasks wait again. Hadoop's default delay,
//     mapreduce.job.reducer.preempt.delay.sec = 0, counts every waiting
//     map as hanging.
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
func (s *coordState) offerContainers(now time.Duration, node sched.NodeID, p sched.ContainerAware) {
	n := &s.nodes[node]
	for n.used < n.containers {
		slot := sched.Slot{Node: node, Rack: s.cfg.RackOf[node], Kind: sched.Map, Index: n.freeSlot(sched.Map)}
		if s.cfg.Explain {
			slot.Why = &sched.Explanation{}
		}
		a, ok := p.AssignContainer(now, coordView{s}, slot)
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

// size is the containers an attempt of the kind takes on the node: a
// map one, a reduce cluster.reduce_containers.
func (n *nodeEntry) size(kind sched.TaskKind) int {
	if kind == sched.Reduce {
		return n.reduceSize
	}
	return 1
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
	d := n.size(kind)
	if busy {
		d = -d
	}
	n.used -= d
	if n.containers > 0 && s.live(node) && !n.resync {
		s.freeContainers += d
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
	if kind != sched.Reduce {
		return true
	}
	if n := &r.s.nodes[node]; n.containers-n.used < n.reduceSize {
		return false // no reduce fits the node
	}
	j := r.s.table.job(job)
	if j == nil {
		return true
	}
	return j.status.ReduceAttempts < reduceLimit(j.status, r.s.freeContainers, r.limit, r.s.cfg.Cluster.ReduceSize())
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

// preemptReduces runs every job's AM preemption rule: it kills the
// reduces that hold the containers the job's waiting maps cannot get.
func (s *coordState) preemptReduces(now time.Duration) {
	if !s.containersOn() {
		return
	}
	_, limit := rampLimits(&s.cfg.Tasks)
	size := s.cfg.Cluster.ReduceSize()
	for st := range s.table.statuses() {
		if st.PendingMaps == 0 || st.ReduceAttempts == 0 || s.freeContainers+st.MapAttempts > 0 {
			continue // a map can have a container, free or the job's own
		}
		var running, killing []sched.Attempt
		for _, a := range s.runningOf(st.ID) {
			if a.Kind != sched.Reduce {
				continue
			}
			if s.preempting[a] {
				killing = append(killing, a)
			} else {
				running = append(running, a)
			}
		}
		if len(killing) > 0 {
			continue // the maps will have those reduces' containers
		}
		// Hadoop's count: enough reduces for one map, or the limit's
		// share of what the job holds and could get, whichever is more,
		// but no more than the waiting maps need.
		total := st.MapAttempts + size*st.ReduceAttempts + s.freeContainers
		n := min(max(1, ceilDiv(limit*float64(total), size)), ceilDiv(float64(st.PendingMaps), size), len(running))
		// The most recently launched reduces have copied least.
		slices.SortStableFunc(running, func(a, b sched.Attempt) int {
			return cmp.Compare(s.running[b].at, s.running[a].at)
		})
		for _, a := range running[:n] {
			s.preempting[a] = true
			s.out.counts = append(s.out.counts, count{MetricReducesPreempted, 1})
			s.emit(&killAttempt{a, s.running[a].node, "preempted for maps: the job's reduces held every container"})
		}
	}
}
