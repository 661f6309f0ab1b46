package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// RackSwitch is a rack's top-of-rack switch on the control path: messages
// between the rack's nodes and the master (coordinator, job managers) pass
// through it and take Latency to cross. Data flows do not: they are the
// fabric's.
//
// Under a run's [chaos] each hop takes a seeded extra delay; the switch
// still forwards each destination's messages in the order it got them, as
// a switch port's queue does.
//
// A switch that is down (a partition fault) holds every message it gets
// and forwards them, in order, once it is up again: the connections
// behind a control message retransmit across a short outage, so messages
// arrive late rather than not at all. Those a long outage made stale (a
// heartbeat of a node declared dead meanwhile, the report of an attempt
// already run again) are the receivers' to ignore.
type RackSwitch struct {
	rack    sched.RackID
	latency time.Duration
	calls   bool // heartbeats are calls (HeartbeatConfig.Serves)
	deps    Deps
	last    map[string]time.Duration // each destination's latest delivery, under chaos
	down    bool
	held    []*Relay // while down, in arrival order
}

// Directory tells master-side actors how to reach the workers: each
// node's actor and the rack switch its control messages cross.
type Directory struct {
	Nodes    []*actor.PID // by node ID
	Switches []*actor.PID // by node ID: the node's rack switch
	Caches   []*actor.PID // by node ID: its cache client, when the cluster caches
}

// relayCache sends msg to a node's cache client through its rack switch.
func (d *Directory) relayCache(ctx actor.Context, node sched.NodeID, msg any) {
	ctx.Send(d.Switches[node], &Relay{From: ctx.Self(), To: d.Caches[node], Msg: msg})
}

// relay sends msg to a node through its rack switch.
func (d *Directory) relay(ctx actor.Context, node sched.NodeID, msg any) {
	ctx.Send(d.Switches[node], &Relay{From: ctx.Self(), To: d.Nodes[node], Msg: msg})
}

// NewRackSwitch returns a rack switch actor's state; hb is the run's
// [heartbeat].
func NewRackSwitch(rack sched.RackID, hb *HeartbeatConfig, deps Deps) *RackSwitch {
	return &RackSwitch{rack: rack, latency: hb.ControlLatency.Std(), calls: hb.Serves(), deps: deps, last: make(map[string]time.Duration)}
}

// Receive implements actor.Actor.
func (s *RackSwitch) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *Relay:
		if s.down {
			s.held = append(s.held, msg)
			s.deps.Metrics.Count(MetricHeldByPartition, 1)
			return
		}
		s.handleRelay(ctx, msg)
	case *SetSwitchUp:
		s.handleSetUp(ctx, msg)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		s.deps.Fail(fmt.Errorf("rack switch %d: unhandled message %T", s.rack, msg))
	}
}

// handleSetUp takes the switch down, or brings it up and forwards what it
// held.
func (s *RackSwitch) handleSetUp(ctx actor.Context, msg *SetSwitchUp) {
	s.down = !msg.Up
	if s.down {
		return
	}
	held := s.held
	s.held = nil
	for _, m := range held {
		s.handleRelay(ctx, m)
	}
}

// handleRelay forwards the message after the hop latency. With no latency
// it goes at once, in the same instant. Under chaos every message takes a
// timer, whose order keeps a destination's messages in line even when
// they are due at once.
func (s *RackSwitch) handleRelay(ctx actor.Context, msg *Relay) {
	extra := time.Duration(0)
	if s.deps.Intercept != nil && msg.From != nil {
		drop, d := s.deps.Intercept(actorName(msg.From), actorName(msg.To), msg.Msg)
		if drop {
			s.deps.Metrics.Count(MetricDroppedByRule, 1)
			s.breakCall(ctx, msg)
			return
		}
		if d > 0 {
			s.deps.Metrics.Count(MetricDelayedByRule, 1)
		}
		extra = d
	}
	if s.deps.Perturb != nil || s.deps.Intercept != nil {
		to := msg.To.Id
		at := s.deps.Clock.Now() + s.latency + extra
		if s.deps.Perturb != nil {
			at += s.deps.Perturb(PerturbRelay, to)
		}
		// A destination's messages stay in line, a delayed one holding
		// back those behind it, as a connection's stream does.
		at = max(at, s.last[to])
		s.last[to] = at
		s.deps.Clock.At(at, msg.To, msg.Msg)
		return
	}
	if s.latency <= 0 {
		ctx.Send(msg.To, msg.Msg)
		return
	}
	s.deps.Clock.After(s.latency, msg.To, msg.Msg)
}

// breakCall tells the node whose heartbeat call, or its answer, was
// dropped that the call's connection broke.
func (s *RackSwitch) breakCall(ctx actor.Context, msg *Relay) {
	if !s.calls {
		return
	}
	switch m := msg.Msg.(type) {
	case *Heartbeat:
		ctx.Send(msg.From, &CallBroken{Seq: m.Seq})
	case *HeartbeatAnswered:
		ctx.Send(msg.To, &CallBroken{Seq: m.Seq})
	}
}

// actorName is a PID's name in the run: its id ("node-3",
// "coordinator/job-2").
func actorName(pid *actor.PID) string { return pid.Id }
