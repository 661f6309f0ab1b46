package actors

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// A job manager's part of recompute avoidance (coordinator_recompute.go):
// it reports the maps it runs again because their output could not be
// fetched; runs again, before any fetch of them fails, the maps whose
// outputs sit on a node the coordinator suspects; and copies an output to
// a rack-mate when the copy is cheaper than the expected recompute, so a
// reducer whose fetch fails reads the copy (node_recompute.go). An output
// and its copy are lost together with the product of their nodes'
// chances, each drawn apart (erratum 6).

// reportLost tells the coordinator, under [intermediate_loss], that node
// failed to serve the outputs of rerun maps, which run again, and of
// served more, which a copy serves: a loss the copy made harmless is
// still the node's loss, for its r_m and its suspicion, or a node whose
// outputs are copied would look sound for as long as they are.
func (m *JobManager) reportLost(ctx actor.Context, node sched.NodeID, rerun, served int) {
	if !m.reportLosses || rerun+served == 0 {
		return
	}
	m.deps.Metrics.Count(MetricRecomputed, int64(rerun))
	ctx.Send(m.coordinator, &OutputLost{Job: m.id, Node: node, Maps: rerun + served})
}

// copiesFailed books that node failed to serve the outputs of maps,
// which a copy elsewhere serves instead, and returns how many of them
// failed there for the first time: every reducer that reads one meets
// the same loss.
func (j *jobState) copiesFailed(node sched.NodeID, maps []int32) int {
	n := 0
	for _, m := range maps {
		if m < 0 || int(m) >= len(j.maps) || j.maps[m].state != taskDone {
			continue
		}
		k := failedCopy{m, j.maps[m].outAtt, node}
		if j.failedCopies == nil {
			j.failedCopies = make(map[failedCopy]bool)
		}
		if !j.failedCopies[k] {
			j.failedCopies[k] = true
			n++
		}
	}
	return n
}

// failedCopy names a copy of a map's output that its node failed to
// serve: the attempt that wrote it and the node.
type failedCopy struct {
	m, attempt int32
	node       sched.NodeID
}

// handleNodeSuspected runs again the finished maps whose outputs are on
// the suspected node while a reduce still needs them; reducers keep what
// they fetched already.
func (m *JobManager) handleNodeSuspected(ctx actor.Context, msg *NodeSuspected) {
	if m.state.outcome != nil {
		return
	}
	fx, n := m.state.suspected(msg.Node)
	m.deps.Metrics.Count(MetricRecomputedSuspected, int64(n))
	m.apply(ctx, fx)
}

// outputProtection is a job manager's part of output replication: the
// rack-local rate a copy moves at, the budget, the tokens it has, and
// each node's loss estimate as the coordinator last gave it.
type outputProtection struct {
	nics     nodeNICs
	budget   float64 // tokens granted per byte processed
	tokens   float64 // bytes the job may still copy
	perRack  int     // nodes per rack: a node's rack-mates are its rack's
	lossRate map[sched.NodeID]float64
}

// rackMate is the node an output on node is copied to: the next node of
// its rack; none in a rack of one.
func (p *outputProtection) rackMate(node sched.NodeID) (sched.NodeID, bool) {
	if p.perRack < 2 {
		return 0, false
	}
	first := int(node) / p.perRack * p.perRack
	return sched.NodeID(first + (int(node)-first+1)%p.perRack), true
}

// rate is the NIC rate a copy from one node to another moves at: the
// slower of the two.
func (p *outputProtection) rate(from, to sched.NodeID) float64 {
	return min(p.nics.of(from), p.nics.of(to))
}

// maybeProtect copies a map's newly committed output to a rack-mate when
// the expected time to make it again is worth more than the copy and the
// job's tokens cover it (straggler.ShouldReplicate). Every map that
// finishes grants tokens for the bytes it processed: its block and its
// output.
func (m *JobManager) maybeProtect(ctx actor.Context, msg *TaskFinished) {
	p := m.protect
	if p == nil || msg.Attempt.Kind != sched.Map || msg.Outcome != sched.Succeeded || m.state.outcome != nil ||
		len(m.state.reduces) == 0 {
		return // no reduce will read the output
	}
	tk := &m.state.maps[msg.Attempt.Task]
	if tk.state != taskDone || tk.outAtt != msg.Attempt.Attempt {
		return // a sibling's output was committed
	}
	p.tokens += p.budget * float64(m.spec.InputBytes/int64(max(len(m.state.maps), 1))+msg.OutputBytes)
	to, ok := p.rackMate(msg.Node)
	tRedo := m.deps.Clock.Now() - msg.Start
	if !ok || !straggler.ShouldReplicate(msg.OutputBytes, p.rate(msg.Node, to), p.lossRate[msg.Node], tRedo, p.tokens) {
		return
	}
	p.tokens -= float64(msg.OutputBytes)
	m.dir.relay(ctx, msg.Node, &ReplicateOutput{
		Job: m.id, Map: msg.Attempt.Task, Attempt: msg.Attempt.Attempt, Bytes: msg.OutputBytes, To: to, JobManager: ctx.Self(),
	})
}

// handleOutputReplicated books a copy of a map's output and tells the
// running reducers where it is.
func (m *JobManager) handleOutputReplicated(ctx actor.Context, msg *OutputReplicated) {
	if m.state.outcome == nil {
		m.apply(ctx, m.state.replicated(msg.Map, msg.Attempt, msg.To))
	}
}

// replicated books node to as holding a copy of the output of the map's
// attempt, still the map's output, and announces it to the running
// reducers.
func (j *jobState) replicated(m, attempt int32, to sched.NodeID) effects {
	if m < 0 || int(m) >= len(j.maps) {
		return effects{}
	}
	tk := &j.maps[m]
	if tk.state != taskDone || tk.outAtt != attempt || tk.holds(to) {
		return effects{} // run again since, or copied there already
	}
	tk.replicas = append(tk.replicas, to)
	out := mapOutput{m, tk.output, tk.outBytes, attempt, slices.Clone(tk.replicas)}
	if j.tracks() {
		// Only the reduce clones bound to this copy read it.
		var fx effects
		for _, r := range j.runningReducers() {
			if o, ok := j.outputFor(m, j.access.slotOf[r.Attempt]); ok && o.Attempt == attempt {
				fx.told = append(fx.told, told{ref: r, outs: []mapOutput{out}})
			}
		}
		return fx
	}
	return effects{announce: []mapOutput{out}, reducers: j.runningReducers()}
}

// holds reports whether a map's output, or a copy of it, is on node.
func (t *task) holds(node sched.NodeID) bool {
	return t.output == node || slices.Contains(t.replicas, node)
}
