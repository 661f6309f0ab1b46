package cluster

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
)

// deterministicRuntime is a deterministic run: every actor uses the
// executor's mailbox, so one goroutine (the one that calls Run) delivers
// every message and the clock is virtual.
type deterministicRuntime struct {
	system
	ex       *executor
	done     bool
	progress time.Duration
	dead     int
	dropped  int
	events   []Event  // RunOptions.Events without OnEvent
	choices  []Choice // RunOptions.Choices without OnChoice
}

func newDeterministicRuntime(opts RunOptions, sys *actor.ActorSystem) *deterministicRuntime {
	ex := newExecutor(opts)
	ex.sys = sys
	ex.replay = opts.Replay
	r := &deterministicRuntime{system: system{opts: opts, sys: sys}, ex: ex}
	ex.onEvent, ex.onChoice = opts.OnEvent, opts.OnChoice
	if ex.onEvent == nil && opts.Events {
		ex.onEvent = func(e Event) { r.events = append(r.events, e) }
	}
	if ex.onChoice == nil && opts.Choices {
		ex.onChoice = func(c Choice) { r.choices = append(r.choices, c) }
	}
	r.sub = r.sys.EventStream.Subscribe(func(evt any) {
		if _, ok := evt.(*actor.DeadLetterEvent); ok {
			if ex.running == "clock" {
				r.dropped++
			} else {
				r.dead++
			}
		}
	})
	return r
}

func (r *deterministicRuntime) Clock() actors.Clock { return r.ex }

func (r *deterministicRuntime) Props(producer actor.Producer) *actor.Props {
	return actor.PropsFromProducer(producer, actor.WithMailbox(r.ex.newMailbox), neverRestart())
}

func (r *deterministicRuntime) Spawn(name string, producer actor.Producer) (*actor.PID, error) {
	return r.spawn(name, r.Props(producer))
}

func (r *deterministicRuntime) Perturb() func(actors.Perturbation, string) time.Duration {
	if !r.ex.course.perturbs() {
		return nil
	}
	return func(kind actors.Perturbation, target string) time.Duration {
		return r.ex.delay(DecisionKind(kind), target)
	}
}

func (r *deterministicRuntime) Intercept() func(from, to string, msg any) (bool, time.Duration) {
	if !r.ex.course.intercepts() {
		return nil
	}
	return r.ex.intercept
}

func (r *deterministicRuntime) Done() { r.done = true }

func (r *deterministicRuntime) Fail(err error) {
	if r.ex.failed == nil {
		if r.ex.handling == nil {
			r.ex.failed = fmt.Errorf("at %v: %w", r.ex.now, err)
		} else {
			r.ex.failed = fmt.Errorf("at %v (step %d), %s handling %s: %w", r.ex.now, r.ex.steps, r.ex.running, typeName(r.ex.handling), err)
		}
	}
}

func (r *deterministicRuntime) Now() time.Duration { return time.Duration(r.ex.shown.Load()) }

func (r *deterministicRuntime) Progress() { r.progress = r.ex.now }

func (r *deterministicRuntime) Interrupt() { r.interrupted.Store(true) }

func (r *deterministicRuntime) Run() RunEnd {
	reason := r.loop()
	end := r.ex.now
	// Stopping an actor that already stopped (a job manager whose job
	// ended) is a dead letter of the shutdown, not of the run.
	dead := r.dead
	r.stop()
	res := RunEnd{
		Reason: reason, At: end, Err: r.ex.failed, Steps: r.ex.steps, DeadLetters: dead, Dropped: r.dropped,
		Diverged: r.ex.diverged, Events: r.events, Choices: r.choices, Decisions: r.ex.course.log,
	}
	res.Reason = endReason(res.Reason, res.Err)
	return res
}

func (r *deterministicRuntime) loop() EndReason {
	limit := time.Duration(1<<63 - 1)
	if r.opts.Until > 0 {
		limit = r.opts.Until.Std()
	}
	for {
		switch {
		case r.ex.failed != nil:
			return EndFailed
		case r.done:
			return EndDone
		case r.interrupted.Load():
			return EndInterrupted
		case r.ex.step():
			if r.opts.StopAt > 0 && r.ex.steps == r.opts.StopAt {
				if r.opts.OnStop != nil {
					r.opts.OnStop(r.ex.stepState())
				}
				return EndInterrupted
			}
		case r.stalled():
			return EndFailed
		case r.sampled(limit):
		case !r.ex.fireDue(limit):
			if _, pending := r.ex.timers.next(); pending {
				r.ex.now = limit
				return EndDeadline
			}
			return EndIdle
		}
	}
}

// sampled calls the WatchClock sample when the clock is about to pass its
// instant (the next timer is at or after it, and the run goes on that
// far), and reports whether it did.
func (r *deterministicRuntime) sampled(limit time.Duration) bool {
	next, ok := r.ex.timers.next()
	if r.sample == nil || r.sampleAt <= 0 || !ok || next < r.sampleAt || r.sampleAt > limit {
		return false
	}
	at := r.sampleAt
	if r.sampleAt = r.sample(at); r.sampleAt <= at {
		r.sampleAt = 0
	}
	return true
}

// stalled reports, before the clock moves, whether it would move past the
// watchdog's limit with no progress, and fails the run listing what is
// pending.
func (r *deterministicRuntime) stalled() bool {
	next, ok := r.ex.timers.next()
	if r.opts.StallAfter <= 0 || !ok || next-r.progress <= r.opts.StallAfter.Std() {
		return false
	}
	if r.idle() || r.ex.timers.progressing() {
		r.progress = next // waiting for work, or for a flow to end, is not a stall
		return false
	}
	r.ex.failed = &StallError{Since: r.progress, Next: next, Timers: r.ex.timers.pending()}
	return true
}

// stop stops every actor, children first as protoactor does, delivering
// the stop messages on this goroutine; timers are dropped.
func (r *deterministicRuntime) stop() {
	r.ex.timers.clear()
	for _, pid := range r.top {
		if _, alive := r.sys.ProcessRegistry.GetLocal(pid.Id); alive {
			r.sys.Root.Stop(pid)
		}
	}
	for r.ex.step() {
	}
	r.sys.EventStream.Unsubscribe(r.sub)
	releaseActorSystem(r.sys, r.top)
}
