package actors

import (
	"maps"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// The coordinator's part of Mantri's recompute avoidance (the thesis's
// §3.4; notes §2.2): job managers report each output their reducers
// could not fetch (OutputLost); when a node has lost
// tasks.recompute_trigger of them within tasks.recompute_window it is
// suspected, and under tasks.protect_outputs every job manager hears of
// it (NodeSuspected) and runs again elsewhere the maps whose outputs
// there a reduce still needs. A suspicion is right when the node loses
// another output within the window after it, which the run counts with or
// without protection: without it, nothing moves the node's outputs away,
// so the count says how often the trigger foresaw a loss.

// suspicions is what the coordinator keeps of the nodes' losses.
type suspicions struct {
	trigger int
	window  time.Duration
	// rate is each node's r_m, its share of outputs lost
	// (straggler.LossEWMA), for TaskLaunched.
	rate map[sched.NodeID]float64
	// losses are each node's losses within the last window; open the
	// suspicions not yet found right, by when they were made.
	losses map[sched.NodeID][]time.Duration
	open   map[sched.NodeID]time.Duration
}

func newSuspicions(r RecomputeConfig) *suspicions {
	return &suspicions{
		trigger: r.Trigger(), window: r.Window(),
		losses: make(map[sched.NodeID][]time.Duration), open: make(map[sched.NodeID]time.Duration),
		rate: make(map[sched.NodeID]float64),
	}
}

// moveRate moves a node's loss estimate by one output, lost or produced.
func (s *suspicions) moveRate(node sched.NodeID, lost bool) {
	r, ok := s.rate[node]
	if !ok {
		r = straggler.PriorLoss
	}
	s.rate[node] = straggler.LossEWMA(r, lost)
}

// lost books n outputs node lost at now. It reports whether an open
// suspicion of the node proved right, and whether the node is suspected
// afresh: its history starts over then, so the next suspicion needs
// trigger new losses.
func (s *suspicions) lost(node sched.NodeID, n int, now time.Duration) (right, suspect bool) {
	if at, ok := s.open[node]; ok {
		delete(s.open, node)
		right = now > at && now-at <= s.window
	}
	for range n {
		s.losses[node] = straggler.RecentLosses(s.losses[node], now, s.window)
		s.moveRate(node, true)
	}
	if !straggler.Suspected(s.losses[node], now, s.window, s.trigger) {
		return right, false
	}
	delete(s.losses, node)
	s.open[node] = now
	return right, true
}

// handleOutputLost books a job's lost outputs and, when their node turns
// suspected under protection, tells every job manager, in job order.
func (c *Coordinator) handleOutputLost(ctx actor.Context, now time.Duration, msg *OutputLost) {
	right, suspect := c.suspicions().lost(msg.Node, msg.Maps, now)
	if right {
		c.deps.Metrics.Count(MetricSuspicionsRight, 1)
	}
	if !suspect {
		return
	}
	c.deps.Metrics.Count(MetricNodesSuspected, 1)
	if !c.cfg.Tasks.ProtectOutputs {
		return
	}
	c.core.offSuspected().hold(msg.Node)
	c.deps.Clock.After(c.suspicions().window, c.self, &suspicionLapsed{Node: msg.Node})
	for _, job := range slices.Sorted(maps.Keys(c.jms)) {
		ctx.Send(c.jms[job], &NodeSuspected{Node: msg.Node})
	}
}

// suspicionLapsed ends a suspicion's window: its node takes maps again
// unless a later suspicion holds it.
type suspicionLapsed struct{ Node sched.NodeID }

// suspectedNodes is an admission rule under tasks.protect_outputs: a
// suspected node takes no map for tasks.recompute_window after the
// suspicion, so the maps its lost and suspected outputs run again run
// elsewhere (the notes' §2.2: recomputes are scheduled elsewhere), and no
// new output goes where fetches are expected to fail.
type suspectedNodes struct {
	held []int // suspicions of each node still within their window
}

func (s *suspectedNodes) hold(node sched.NodeID) {
	if int(node) < len(s.held) {
		s.held[node]++
	}
}

func (s *suspectedNodes) lapse(node sched.NodeID) {
	if int(node) < len(s.held) && s.held[node] > 0 {
		s.held[node]--
	}
}

func (s *suspectedNodes) admits(_ sched.JobID, kind sched.TaskKind, node sched.NodeID) bool {
	return kind != sched.Map || int(node) >= len(s.held) || s.held[node] == 0
}
func (*suspectedNodes) reported(*Heartbeat)                             {}
func (*suspectedNodes) launched(sched.NodeID, sched.Attempt, *TaskSpec) {}
func (*suspectedNodes) registered(sched.NodeID, [2]int64)               {}

// offSuspected is the suspected-nodes rule, made and admitted on first
// use.
func (s *coordState) offSuspected() *suspectedNodes {
	if s.suspected == nil {
		s.suspected = &suspectedNodes{held: make([]int, len(s.cfg.RackOf))}
		s.admit = append(s.admit, s.suspected)
	}
	return s.suspected
}

func (c *Coordinator) suspicions() *suspicions {
	if c.suspect == nil {
		c.suspect = newSuspicions(c.cfg.Tasks.RecomputeConfig)
	}
	return c.suspect
}

// noteProduced moves the loss estimates of the nodes whose maps a
// heartbeat reports finished, under tasks.protect_outputs.
func (c *Coordinator) noteProduced(msg *Heartbeat) {
	if !c.cfg.Tasks.ProtectOutputs {
		return
	}
	for _, e := range msg.Ended {
		if e.Attempt.Kind == sched.Map && e.Outcome == sched.Succeeded {
			c.suspicions().moveRate(msg.Node, false)
		}
	}
}

// lossRate is a node's r_m for TaskLaunched: 0 without protection.
func (c *Coordinator) lossRate(node sched.NodeID) float64 {
	if !c.cfg.Tasks.ProtectOutputs {
		return 0
	}
	if r, ok := c.suspicions().rate[node]; ok {
		return r
	}
	return straggler.PriorLoss
}
