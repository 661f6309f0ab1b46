package cluster

import (
	"cmp"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
)

// stepShown is how many queued messages and timers a StepState lists.
const stepShown = 12

// StepState is a deterministic run as it stands right after one delivery
// (RunOptions.StopAt): what each live actor says of its state, the
// messages waiting in mailboxes in the order they were posted, and the
// earliest pending timers in the order they will fire. The executor
// delivers every message on one goroutine, so between two steps every
// actor's state is at rest and may be read.
type StepState struct {
	Step   uint64
	At     time.Duration
	Actors []ActorState // in spawn order
	// Queued are the first messages waiting in mailboxes, in post order,
	// and how many wait in all; which is delivered next is the schedule's
	// choice among the ready mailboxes.
	Queued      []Event
	QueuedTotal int
	// Timers are the earliest pending timers (At their deadline, Sender
	// "clock"), and how many are pending in all.
	Timers      []Event
	TimersTotal int
}

// ActorState is one actor's account of its state (actors.Describer); an
// actor that gives none has no lines.
type ActorState struct {
	Name  string
	Lines []string
}

// stepState takes the run's state between two steps.
func (ex *executor) stepState() StepState {
	st := StepState{Step: ex.steps, At: ex.now}
	type queued struct {
		seq uint64
		e   Event
	}
	var waiting []queued
	for _, m := range ex.all {
		if _, alive := ex.sys.ProcessRegistry.GetLocal(m.name); !alive {
			continue
		}
		as := ActorState{Name: m.name}
		if ctx, ok := m.invoker.(actor.Context); ok {
			if d, ok := ctx.Actor().(actors.Describer); ok {
				as.Lines = d.Describe()
			}
		}
		st.Actors = append(st.Actors, as)
		for _, e := range m.system.items[m.system.head:] {
			waiting = append(waiting, queued{e.seq, Event{At: ex.now, Sender: "system", Receiver: m.name, Type: typeName(e.msg)}})
		}
		for _, e := range m.user.items[m.user.head:] {
			waiting = append(waiting, queued{e.seq, Event{At: ex.now, Sender: e.sender, Receiver: m.name, Type: typeName(e.msg)}})
		}
	}
	slices.SortFunc(waiting, func(a, b queued) int { return cmp.Compare(a.seq, b.seq) })
	st.QueuedTotal = len(waiting)
	for _, q := range waiting[:min(len(waiting), stepShown)] {
		st.Queued = append(st.Queued, q.e)
	}
	pending := slices.Clone(ex.timers.heap)
	slices.SortFunc(pending, func(a, b *timer) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	st.TimersTotal = len(pending)
	for _, t := range pending[:min(len(pending), stepShown)] {
		st.Timers = append(st.Timers, Event{At: t.at, Sender: "clock", Receiver: t.to.Id, Type: typeName(t.msg)})
	}
	return st
}
