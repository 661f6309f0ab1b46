package cluster

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
)

// liveRuntime is a run on protoactor's own dispatchers: messages are
// delivered concurrently, and the live clock, counting messages in
// flight, moves virtual time at quiescence or follows the machine's clock.
type liveRuntime struct {
	system
	clock    *liveClock
	done     atomic.Bool
	progress atomic.Int64
	dead     atomic.Int64
	failMu   sync.Mutex
	failure  error
	watcher  *actor.PID
}

func newLiveRuntime(opts RunOptions, sys *actor.ActorSystem) *liveRuntime {
	mode := opts.Clock
	if mode == "" {
		mode = Virtual
	}
	wall := opts.WallClock
	if wall == nil {
		wall = systemClock{}
	}
	r := &liveRuntime{system: system{opts: opts, sys: sys}, clock: newLiveClock(mode, opts.Speedup, wall, opts.Until.Std())}
	r.clock.sys = r.sys
	r.sub = r.sys.EventStream.Subscribe(func(evt any) {
		if _, ok := evt.(*actor.DeadLetterEvent); ok {
			r.dead.Add(1)
		}
	})
	r.watcher = r.sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &stopWatcher{} }))
	return r
}

func (r *liveRuntime) Clock() actors.Clock { return r.clock }

// Props counts every message through the live clock and turns a
// handler's panic into a failed run, not a restart.
func (r *liveRuntime) Props(producer actor.Producer) *actor.Props {
	return actor.PropsFromProducer(producer,
		actor.WithMailbox(actor.Unbounded(r.clock)),
		actor.WithReceiverMiddleware(r.recoverPanics),
		neverRestart(),
	)
}

func (r *liveRuntime) Spawn(name string, producer actor.Producer) (*actor.PID, error) {
	return r.spawn(name, r.Props(producer))
}

// Intercept is nil: message rules need a deterministic run.
func (r *liveRuntime) Intercept() func(from, to string, msg any) (bool, time.Duration) { return nil }

// Perturb is nil: chaos and pinned delays need a deterministic run.
func (r *liveRuntime) Perturb() func(actors.Perturbation, string) time.Duration { return nil }

func (r *liveRuntime) Done() {
	r.done.Store(true)
	r.clock.poke()
}

func (r *liveRuntime) Now() time.Duration { return r.clock.Now() }

func (r *liveRuntime) Progress() { r.progress.Store(int64(r.clock.Now())) }

func (r *liveRuntime) Interrupt() {
	r.interrupted.Store(true)
	r.clock.poke()
}

// recoverPanics fails the run when a handler panics. The panic is
// recovered here, so the mailbox counts the message as handled and the
// clock is not left waiting for it.
func (r *liveRuntime) recoverPanics(next actor.ReceiverFunc) actor.ReceiverFunc {
	return func(ctx actor.ReceiverContext, env *actor.MessageEnvelope) {
		defer func() {
			if p := recover(); p != nil {
				r.Fail(fmt.Errorf("actor %s panicked at %v handling %s: %v",
					ctx.Self().Id, r.clock.Now(), typeName(env.Message), p))
			}
		}()
		next(ctx, env)
	}
}

func (r *liveRuntime) Fail(err error) {
	r.failMu.Lock()
	if r.failure == nil {
		r.failure = err
	}
	r.failMu.Unlock()
	r.clock.poke()
}

func (r *liveRuntime) failed() error {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	return r.failure
}

// Run drives the live clock until the run ends, then stops every actor
// through the watcher and waits for them to be gone.
func (r *liveRuntime) Run() RunEnd {
	stopped := func() bool { return r.done.Load() || r.interrupted.Load() || r.failed() != nil || r.stalled() }
	reason := r.clock.drive(stopped)
	end := r.clock.Now()
	// Stopping and watching an actor that already stopped is a dead
	// letter of the shutdown, not of the run.
	dead := int(r.dead.Load())
	done := make(chan struct{})
	r.sys.Root.Send(r.watcher, &stopAll{pids: r.top, done: done})
	<-done
	r.sys.Root.Stop(r.watcher)
	r.sys.EventStream.Unsubscribe(r.sub)
	r.sys.Shutdown()
	r.clock.mu.Lock()
	lag, maxLate, dropped := r.clock.lag, r.clock.maxLate, r.clock.dropped
	r.clock.mu.Unlock()
	res := RunEnd{Reason: reason, At: end, Err: r.failed(), Steps: r.clock.handled.Load(),
		DeadLetters: dead, Dropped: dropped, Lag: lag, MaxLate: maxLate}
	switch {
	case r.done.Load():
		res.Reason = EndDone
	case r.interrupted.Load():
		res.Reason = EndInterrupted
	}
	res.Reason = endReason(res.Reason, res.Err)
	return res
}

// stalled applies the watchdog before the clock moves on.
func (r *liveRuntime) stalled() bool {
	if r.opts.StallAfter <= 0 {
		return false
	}
	r.clock.mu.Lock()
	next, ok := r.clock.timers.next()
	r.clock.mu.Unlock()
	progress := r.progress.Load()
	if !ok || next-timeOf(progress) <= r.opts.StallAfter.Std() {
		return false
	}
	if r.idle() || r.clock.progressing() {
		r.progress.Store(int64(next)) // waiting for work, or for a flow to end, is not a stall
		return false
	}
	r.clock.mu.Lock()
	pending := r.clock.timers.pending()
	r.clock.mu.Unlock()
	r.Fail(&StallError{Since: timeOf(progress), Next: next, Timers: pending})
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
