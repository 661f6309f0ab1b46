package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// A job manager's part of recompute avoidance (coordinator_recompute.go):
// it reports the maps it runs again because their output could not be
// fetched, and runs again, before any fetch of them fails, the maps whose
// outputs sit on a node the coordinator suspects.

// reportLost tells the coordinator that n maps whose outputs were on
// node run again, under [intermediate_loss].
func (m *JobManager) reportLost(ctx actor.Context, node sched.NodeID, n int) {
	if !m.reportLosses || n == 0 {
		return
	}
	m.deps.Metrics.Count(MetricRecomputed, int64(n))
	ctx.Send(m.coordinator, &OutputLost{Job: m.id, Node: node, Maps: n})
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
