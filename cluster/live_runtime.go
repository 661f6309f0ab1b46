package cluster

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// makeLive sets the run up for concurrent delivery on protoactor's own
// dispatcher, with the live clock counting messages in flight.
func (r *Runtime) makeLive(opts RunOptions) *Runtime {
	mode := opts.Clock
	if mode == "" {
		mode = Virtual
	}
	wall := opts.WallClock
	if wall == nil {
		wall = systemClock{}
	}
	r.live = newLiveClock(mode, opts.Speedup, wall, opts.Until.Std())
	r.live.sys = r.sys
	r.sub = r.sys.EventStream.Subscribe(func(evt any) {
		if _, ok := evt.(*actor.DeadLetterEvent); ok {
			r.liveDead.Add(1)
		}
	})
	r.watcher = r.sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &stopWatcher{} }))
	return r
}

// liveProps counts every message through the live clock and turns a
// handler's panic into a failed run, not a restart.
func (r *Runtime) liveProps(producer actor.Producer) *actor.Props {
	return actor.PropsFromProducer(producer,
		actor.WithMailbox(actor.Unbounded(r.live)),
		actor.WithReceiverMiddleware(r.recoverPanics),
		actor.WithSupervisor(actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective })),
	)
}

// recoverPanics fails the run when a handler panics. The panic is
// recovered here, so the mailbox counts the message as handled and the
// clock is not left waiting for it.
func (r *Runtime) recoverPanics(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(ctx actor.ReceiverContext, env *actor.MessageEnvelope) {
		defer func() {
			if p := recover(); p != nil {
				r.liveFailed(fmt.Errorf("actor %s panicked at %v handling %s: %v",
					ctx.Self().Id, r.live.Now(), typeName(env.Message), p))
			}
		}()
		next(ctx, env)
	}
}

func (r *Runtime) liveFailed(err error) {
	r.failMu.Lock()
	if r.liveFail == nil {
		r.liveFail = err
	}
	r.failMu.Unlock()
	r.live.poke()
}

func (r *Runtime) failure() error {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	return r.liveFail
}

// runLive drives the live clock until the run ends, then stops every
// actor through the watcher and waits for them to be gone.
func (r *Runtime) runLive() Result {
	stopped := func() bool { return r.liveDone.Load() || r.failure() != nil || r.liveStalled() }
	reason := r.live.drive(stopped)
	end := r.live.Now()
	// Stopping and watching an actor that already stopped is a dead
	// letter of the shutdown, not of the run.
	dead := int(r.liveDead.Load())
	done := make(chan struct{})
	r.sys.Root.Send(r.watcher, &stopAll{pids: r.top, done: done})
	<-done
	r.sys.Root.Stop(r.watcher)
	r.sys.EventStream.Unsubscribe(r.sub)
	r.sys.Shutdown()
	r.live.mu.Lock()
	lag, maxLate, dropped := r.live.lag, r.live.maxLate, r.live.dropped
	r.live.mu.Unlock()
	res := Result{Reason: reason, End: end, Err: r.failure(), Steps: r.live.handled.Load(),
		DeadLetters: dead, Dropped: dropped, Lag: lag, MaxLate: maxLate}
	if res.Err != nil {
		res.Reason = EndFailed
	} else if r.liveDone.Load() {
		res.Reason = EndDone
	}
	return res
}

// liveStalled applies the watchdog before the clock moves on.
func (r *Runtime) liveStalled() bool {
	if r.opts.StallAfter <= 0 {
		return false
	}
	r.live.mu.Lock()
	next, ok := r.live.timers.next()
	r.live.mu.Unlock()
	progress := r.liveProg.Load()
	if !ok || next-timeOf(progress) <= r.opts.StallAfter.Std() {
		return false
	}
	r.liveFailed(fmt.Errorf("stalled: no progress since %v, next timer at %v", timeOf(progress), next))
	return true
}

// stopWatcher stops a run's top-level actors and closes done once every
// one has terminated.
type stopWatcher struct {
	left int
	done chan struct{}
}

// stopAll asks the watcher to stop the pids.
type stopAll struct {
	pids []*actor.PID
	done chan struct{}
}

func (w *stopWatcher) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *stopAll:
		w.done, w.left = m.done, len(m.pids)
		if w.left == 0 {
			close(w.done)
		}
		for _, pid := range m.pids {
			ctx.Watch(pid)
			ctx.Stop(pid)
		}
	case *actor.Terminated:
		w.left--
		if w.left == 0 && w.done != nil {
			close(w.done)
		}
	}
}

func timeOf(ns int64) time.Duration { return time.Duration(ns) }
