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
type RackSwitch struct {
	rack    sched.RackID
	latency time.Duration
	deps    Deps
}

// NewRackSwitch returns a rack switch actor's state.
func NewRackSwitch(rack sched.RackID, latency time.Duration, deps Deps) *RackSwitch {
	return &RackSwitch{rack: rack, latency: latency, deps: deps}
}

// Receive implements actor.Actor.
func (s *RackSwitch) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *Relay:
		s.handleRelay(ctx, msg)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		s.deps.Fail(fmt.Errorf("rack switch %d: unhandled message %T", s.rack, msg))
	}
}

// handleRelay forwards the message after the hop latency. With no latency
// it goes at once, in the same instant.
func (s *RackSwitch) handleRelay(ctx actor.Context, msg *Relay) {
	if s.latency <= 0 {
		ctx.Send(msg.To, msg.Msg)
		return
	}
	s.deps.Clock.After(s.latency, msg.To, msg.Msg)
}
