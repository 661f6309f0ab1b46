package cluster

import (
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"

	"clusteremu/actors"
	"clusteremu/units"
)

// RunOptions is how a run goes: the scenario's [run] table (the tagged
// fields) and what only a program or the CLI sets.
type RunOptions struct {
	// Seed seeds everything the run generates (block placement, jobs,
	// heartbeat phases), through per-actor streams (see Runtime.Rand).
	Seed uint64 `toml:"seed"`
	// ScheduleSeed seeds only the order in which messages ready at the
	// same instant are delivered, and [chaos] delays.
	ScheduleSeed uint64 `toml:"schedule_seed"`
	// Clock is the clock mode; "" is Virtual. Speedup is a Scaled run's
	// emulated seconds per wall second, > 0.
	Clock   ClockMode `toml:"clock"`
	Speedup float64   `toml:"speedup"`
	// Deterministic runs the virtual clock on the executor, one goroutine
	// delivering every message (the default); false uses protoactor's own
	// dispatchers (real interleavings, for the race detector). Scaled and
	// wall runs are never deterministic. Nil is the clock's default.
	Deterministic *bool `toml:"deterministic"`
	// Until stops the run at this emulated instant; 0 runs until the work
	// is done or nothing is left to happen.
	Until units.Duration `toml:"until"`
	// StallAfter fails the run when no actor reports progress for this
	// long in emulated time although timers keep firing; 0 never does.
	StallAfter units.Duration `toml:"stall_after"`
	// Slowdown runs every job alone on an empty copy of the cluster after
	// the run, for its reference runtime (ReferenceRuntimes), and reports
	// slowdowns. It costs one extra run per distinct job.
	Slowdown bool `toml:"slowdown"`

	// Events records every delivery (Result.Events).
	Events bool `toml:"-"`
	// Choices records every scheduling choice (Result.Choices).
	Choices bool `toml:"-"`
	// WallClock is the real time a scaled or wall run follows; nil is the
	// machine's.
	WallClock WallClock `toml:"-"`
	// Replay follows a recorded choice log: the run makes the same
	// choices while they name a ready actor at the same instant, and
	// draws from the schedule seed past the log's end or where it
	// diverged.
	Replay []Choice `toml:"-"`
	// Chaos perturbs the control plane with delays drawn from the
	// schedule seed (the scenario's [chaos], Config.Chaos).
	Chaos Chaos `toml:"-"`
	// Pinned runs the default course — same-instant messages in the order
	// they were posted, no delays — except at Decisions; nothing is drawn.
	Pinned    bool       `toml:"-"`
	Decisions []Decision `toml:"-"`
	// RecordDecisions records where the run left the default course
	// (Result.Decisions): replaying them pinned repeats the run.
	RecordDecisions bool `toml:"-"`
}

// Concurrent reports whether the run delivers messages on protoactor's
// own goroutines: always on a scaled or wall clock, on the virtual clock
// when Deterministic is false.
func (o *RunOptions) Concurrent() bool {
	if o.Clock == Scaled || o.Clock == Wall {
		return true
	}
	return o.Deterministic != nil && !*o.Deterministic
}

// EndReason says why a run ended.
type EndReason string

// End reasons.
const (
	EndDone     EndReason = "done"     // an actor declared the work done
	EndIdle     EndReason = "idle"     // nothing left to deliver and no timer pending
	EndDeadline EndReason = "deadline" // the emulated deadline was reached
	EndFailed   EndReason = "failed"   // an actor failed, panicked or the run stalled
)

// Result is how a run ended.
type Result struct {
	Reason      EndReason
	End         time.Duration // emulated time at the end
	Err         error         // why a failed run failed
	Steps       uint64        // messages delivered, system messages included
	DeadLetters int           // messages sent to actors that no longer exist
	Dropped     int           // timers that came due for actors that had stopped
	Diverged    int           // replayed choices that could not be followed
	Events      []Event
	Choices     []Choice
	Decisions   []Decision
	// Lag is how far a scaled or wall run held emulated time back because
	// the machine could not keep up; MaxLate is the largest single delay.
	Lag, MaxLate time.Duration
}

// Runtime is one deterministic run: a protoactor system whose actors all
// use the executor's mailbox, so one goroutine (the one that calls Run)
// delivers every message and the clock is virtual.
type Runtime struct {
	opts     RunOptions
	sys      *actor.ActorSystem
	ex       *executor
	top      []*actor.PID
	done     bool
	progress time.Duration
	dead     int
	dropped  int
	sub      *eventstream.Subscription

	live     *liveClock // nil in a deterministic run
	liveDone atomic.Bool
	liveProg atomic.Int64
	failMu   sync.Mutex
	liveFail error
	liveDead atomic.Int64
	watcher  *actor.PID
}

// NewRuntime creates an idle run.
func NewRuntime(opts RunOptions) *Runtime {
	sys := actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}),
		// The dead-letter throttle starts a goroutine that lives one
		// interval; a short interval lets it end before leak checks.
		actor.WithDeadLetterThrottleInterval(time.Millisecond),
	)
	ex := newExecutor(opts)
	ex.sys = sys
	ex.recordEvents = opts.Events
	ex.recordChoices = opts.Choices
	ex.replay = opts.Replay
	r := &Runtime{opts: opts, sys: sys, ex: ex}
	if opts.Concurrent() {
		return r.makeLive(opts)
	}
	r.sub = sys.EventStream.Subscribe(func(evt any) {
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

// Clock returns the run's clock.
func (r *Runtime) Clock() actors.Clock {
	if r.live != nil {
		return r.live
	}
	return r.ex
}

// Props returns props for an actor of this run: the executor's mailbox and
// a supervisor that never restarts (a panic fails the run instead).
func (r *Runtime) Props(producer actor.Producer) *actor.Props {
	if r.live != nil {
		return r.liveProps(producer)
	}
	return actor.PropsFromProducer(producer,
		actor.WithMailbox(r.ex.newMailbox),
		actor.WithSupervisor(actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective })),
	)
}

// Spawn starts a top-level actor under a name unique in the run.
func (r *Runtime) Spawn(name string, producer actor.Producer) (*actor.PID, error) {
	pid, err := r.sys.Root.SpawnNamed(r.Props(producer), name)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", name, err)
	}
	r.top = append(r.top, pid)
	return pid, nil
}

// Send posts a message from outside the actors, before or between runs.
func (r *Runtime) Send(to *actor.PID, msg any) { r.sys.Root.Send(to, msg) }

// Rand returns the seeded stream of the named actor: derived from the
// workload seed and the name alone, so adding an actor shifts no other
// actor's numbers.
func (r *Runtime) Rand(name string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return rand.New(rand.NewPCG(r.opts.Seed, h.Sum64()))
}

// Perturb returns the run's perturbation function for actors.Deps: nil
// unless the run is deterministic and has chaos or follows pinned delays.
func (r *Runtime) Perturb() func(actors.Perturbation, string) time.Duration {
	if r.live != nil || !r.ex.course.perturbs() {
		return nil
	}
	return func(kind actors.Perturbation, target string) time.Duration {
		return r.ex.delay(DecisionKind(kind), target)
	}
}

// Done ends the run after the message being handled: the work is done.
func (r *Runtime) Done() {
	if r.live != nil {
		r.liveDone.Store(true)
		r.live.poke()
		return
	}
	r.done = true
}

// Fail ends the run with an error after the message being handled.
func (r *Runtime) Fail(err error) {
	if r.live != nil {
		r.liveFailed(err)
		return
	}
	if r.ex.failed == nil {
		if r.ex.handling == nil {
			r.ex.failed = fmt.Errorf("at %v: %w", r.ex.now, err)
		} else {
			r.ex.failed = fmt.Errorf("at %v, %s handling %s: %w", r.ex.now, r.ex.running, typeName(r.ex.handling), err)
		}
	}
}

// Now returns the run's emulated time; unlike Clock().Now() it may be
// called from any goroutine while the run goes on (a progress display).
func (r *Runtime) Now() time.Duration {
	if r.live != nil {
		return r.live.Now()
	}
	return time.Duration(r.ex.shown.Load())
}

// Progress tells the stall watchdog that the run's state changed.
func (r *Runtime) Progress() {
	if r.live != nil {
		r.liveProg.Store(int64(r.live.Now()))
		return
	}
	r.progress = r.ex.now
}

// Run delivers messages until the work is done, the deadline passes, an
// actor fails or nothing is left to happen; then it stops every actor and
// returns. It must be called once, on the goroutine that built the run.
func (r *Runtime) Run() Result {
	if r.live != nil {
		return r.runLive()
	}
	reason := r.loop()
	end := r.ex.now
	r.stop()
	res := Result{
		Reason: reason, End: end, Err: r.ex.failed, Steps: r.ex.steps, DeadLetters: r.dead, Dropped: r.dropped,
		Diverged: r.ex.diverged, Events: r.ex.events, Choices: r.ex.choices, Decisions: r.ex.course.log,
	}
	if res.Err != nil {
		res.Reason = EndFailed
	}
	return res
}

func (r *Runtime) loop() EndReason {
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
		case r.ex.step():
		case r.stalled():
			return EndFailed
		case !r.ex.fireDue(limit):
			if _, pending := r.ex.timers.next(); pending {
				r.ex.now = limit
				return EndDeadline
			}
			return EndIdle
		}
	}
}

// stalled reports, before the clock moves, whether it would move past the
// watchdog's limit with no progress, and fails the run listing what is
// pending.
func (r *Runtime) stalled() bool {
	next, ok := r.ex.timers.next()
	if r.opts.StallAfter <= 0 || !ok || next-r.progress <= r.opts.StallAfter.Std() {
		return false
	}
	pending := r.ex.timers.pending()
	keys := make([]string, 0, len(pending))
	for k, n := range pending {
		keys = append(keys, fmt.Sprintf("%s ×%d", k, n))
	}
	slices.Sort(keys)
	r.ex.failed = fmt.Errorf("stalled: no progress since %v, next timer at %v; pending timers: %s",
		r.progress, next, strings.Join(keys, ", "))
	return true
}

// stop stops every actor, children first as protoactor does, delivering
// the stop messages on this goroutine; timers are dropped.
func (r *Runtime) stop() {
	r.ex.timers.clear()
	for _, pid := range r.top {
		if _, alive := r.sys.ProcessRegistry.GetLocal(pid.Id); alive {
			r.sys.Root.Stop(pid)
		}
	}
	for r.ex.step() {
	}
	r.sys.EventStream.Unsubscribe(r.sub)
	r.sys.Shutdown()
}
