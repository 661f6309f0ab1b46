package actors

import (
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// The coordinator's part of speculation: the copies of running tasks that
// job managers queue (QueueCopy) wait here until a slot is offered to
// their job, which takes them before its pending tasks, on a node that
// does not run the task, while the running copies of the slot's kind stay
// within the cap of the cluster's slots. LATE's slow nodes take no copy:
// each node's rate ratios (AttemptMeasured) rank it, and the slowest
// share of the nodes that have any are passed over.

// SpeculationConfig is what the coordinator keeps to of a run's
// speculation policy (straggler.Params).
type SpeculationConfig struct {
	// On: job managers may queue copies.
	On bool
	// Cap is the most copies running at once, as a share of the live
	// slots of their kind.
	Cap float64
	// SlowNodes is the share of the nodes, slowest first, that take no
	// copy; 0: any node.
	SlowNodes float64
}

// taskRef names one task of a job.
type taskRef struct {
	job  sched.JobID
	kind sched.TaskKind
	task int32
}

// speculation is the coordinator's state of it.
type speculation struct {
	cfg SpeculationConfig
	// queued are each job's queued copies by kind, in the order asked.
	queued map[sched.JobID]*[2][]int32
	// nodesOf are the nodes each running task's attempts run on.
	nodesOf map[taskRef][]sched.NodeID
	// copies are the running attempts launched as copies; running
	// counts them by kind.
	copies  map[sched.Attempt]bool
	running [2]int
	// ratios hold each node's rate ratios summed and counted; slow is
	// the set of slow nodes, recomputed when a ratio came since (stale).
	ratioSum []float64
	ratioN   []int
	slow     []bool
	stale    bool
}

func newSpeculation(cfg SpeculationConfig, nodes int) *speculation {
	return &speculation{
		cfg: cfg, queued: make(map[sched.JobID]*[2][]int32), nodesOf: make(map[taskRef][]sched.NodeID),
		copies: make(map[sched.Attempt]bool), ratioSum: make([]float64, nodes), ratioN: make([]int, nodes),
		slow: make([]bool, nodes),
	}
}

// queue books a job manager's request for a copy of a task; asked twice,
// it is queued once.
func (sp *speculation) queue(msg *QueueCopy) {
	q := sp.queued[msg.Job]
	if q == nil {
		q = &[2][]int32{}
		sp.queued[msg.Job] = q
	}
	if !slices.Contains(q[msg.Kind], msg.Task) {
		q[msg.Kind] = append(q[msg.Kind], msg.Task)
	}
}

// withdraw takes a queued copy back.
func (sp *speculation) withdraw(job sched.JobID, kind sched.TaskKind, task int32) {
	if q := sp.queued[job]; q != nil {
		q[kind] = slices.DeleteFunc(q[kind], func(t int32) bool { return t == task })
	}
}

// jobEnded forgets a job's queued copies.
func (sp *speculation) jobEnded(job sched.JobID) { delete(sp.queued, job) }

// launched books an attempt launched on node, a copy or not.
func (sp *speculation) launched(a sched.Attempt, node sched.NodeID, copied bool) {
	ref := taskRef{a.Job, a.Kind, a.Task}
	sp.nodesOf[ref] = append(sp.nodesOf[ref], node)
	if copied {
		sp.copies[a] = true
		sp.running[a.Kind]++
	}
}

// ended books an attempt that left its node.
func (sp *speculation) ended(a sched.Attempt, node sched.NodeID) {
	ref := taskRef{a.Job, a.Kind, a.Task}
	nodes := sp.nodesOf[ref]
	if i := slices.Index(nodes, node); i >= 0 {
		nodes = slices.Delete(nodes, i, i+1)
	}
	if len(nodes) == 0 {
		delete(sp.nodesOf, ref)
	} else {
		sp.nodesOf[ref] = nodes
	}
	if sp.copies[a] {
		delete(sp.copies, a)
		sp.running[a.Kind]--
	}
}

// measured books a node's rate ratio for LATE's slow nodes.
func (sp *speculation) measured(msg *AttemptMeasured) {
	if int(msg.Node) < len(sp.ratioSum) && !math.IsNaN(msg.RateRatio) && !math.IsInf(msg.RateRatio, 0) {
		sp.ratioSum[msg.Node] += msg.RateRatio
		sp.ratioN[msg.Node]++
		sp.stale = true
	}
}

// isSlow reports whether the node is among the slowest SlowNodes share
// of the nodes measured, by mean rate ratio.
func (sp *speculation) isSlow(node sched.NodeID) bool {
	if sp.cfg.SlowNodes <= 0 {
		return false
	}
	if sp.stale {
		sp.stale = false
		type nodeMean struct {
			node sched.NodeID
			mean float64
		}
		var ms []nodeMean
		for i, n := range sp.ratioN {
			sp.slow[i] = false
			if n > 0 {
				ms = append(ms, nodeMean{sched.NodeID(i), sp.ratioSum[i] / float64(n)})
			}
		}
		slices.SortStableFunc(ms, func(a, b nodeMean) int {
			switch {
			case a.mean < b.mean:
				return -1
			case a.mean > b.mean:
				return 1
			}
			return 0
		})
		for _, m := range ms[:int(sp.cfg.SlowNodes*float64(len(ms)))] {
			sp.slow[m.node] = true
		}
	}
	return sp.slow[node]
}

// room reports whether another copy of the kind may run on a cluster of
// slots such slots.
func (sp *speculation) room(kind sched.TaskKind, slots int) bool {
	return float64(sp.running[kind]+1) <= sp.cfg.Cap*float64(slots)
}

// bestCopy finds the queued copy of the job that the node would run
// first: the first queued, within max, of a task still running and not
// on this node. It drops the queued copies of tasks that ended as it
// meets them.
func (s *coordState) bestCopy(job sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	sp := s.spec
	q := sp.queued[job]
	if q == nil || len(q[kind]) == 0 || !sp.room(kind, s.liveSlots[kind]) || sp.isSlow(node) {
		return 0, 0, false
	}
	q[kind] = slices.DeleteFunc(q[kind], func(t int32) bool { return !s.table.copyable(job, kind, t) })
	for _, t := range q[kind] {
		if slices.Contains(sp.nodesOf[taskRef{job, kind, t}], node) {
			continue
		}
		loc := sched.OffRack
		if kind == sched.Map {
			loc = s.table.mapLocality(job, t, node)
		}
		if loc <= max {
			return t, loc, true
		}
	}
	return 0, 0, false
}

// takeCopy takes the copy bestCopy finds off the queue.
func (s *coordState) takeCopy(job sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	t, loc, ok := s.bestCopy(job, kind, node, max)
	if ok {
		s.spec.withdraw(job, kind, t)
	}
	return t, loc, ok
}

// queueCopy books a job manager's QueueCopy.
func (s *coordState) queueCopy(msg *QueueCopy) {
	if s.spec != nil && s.jobs[msg.Job] != nil {
		s.spec.queue(msg)
	}
}

// withdrawCopy books a job manager's WithdrawCopy.
func (s *coordState) withdrawCopy(msg *WithdrawCopy) {
	if s.spec != nil {
		s.spec.withdraw(msg.Job, msg.Kind, msg.Task)
	}
}

// measured books an attempt's rate ratio for the slow nodes and the
// blacklist.
func (s *coordState) measured(now time.Duration, msg *AttemptMeasured) {
	if s.clones != nil {
		s.measureClones(now, msg.Attempt.Job, msg.RateRatio)
	}
	if s.spec != nil {
		s.spec.measured(msg)
	}
	if s.black != nil {
		s.black.measured(msg)
	}
}

// endBlacklistWindow lists the nodes the blacklist keeps out of the next
// window and notes each.
func (s *coordState) endBlacklistWindow() {
	if s.black == nil {
		return
	}
	for _, n := range s.black.endWindow() {
		s.out.counts = append(s.out.counts, count{MetricNodesBlacklisted, 1})
		s.emit(&noteNode{n, "blacklisted for a window"})
	}
}
