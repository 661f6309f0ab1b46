package cluster

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
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
	// Warmup keeps the jobs submitted before it, and their attempts, out
	// of the job, task, cache and phase metrics and the counters kept per
	// job (Recorder.CountJob: cloning's): they run, and fill the history
	// a policy learns from (Scarlett's T_L, Dolly's p and ω), before the
	// measured span. The run's counters (flows, faults, replication, the
	// cloning budget's peaks) count the whole run. 0: none.
	Warmup units.Duration `toml:"warmup,omitzero" json:",omitempty"`
	// StallAfter fails the run when no actor reports progress for this
	// long in emulated time although timers keep firing; 0 never does.
	StallAfter units.Duration `toml:"stall_after"`
	// Slowdown runs every job alone on an empty copy of the cluster after
	// the run, for its reference runtime (ReferenceRuntimes), and reports
	// slowdowns. It costs one extra run per distinct job.
	Slowdown bool `toml:"slowdown"`
	// ReferenceScheduler names the policy the reference runs are made
	// under, with its default parameters; "" is the run's own. Ghit &
	// Epema measure every job alone on the whole cluster, so a policy that
	// confines jobs to a partition (TAGS, SITA) is compared with "fifo"'s
	// references.
	ReferenceScheduler string `toml:"reference_scheduler"`
	// Strategy is how a deterministic run orders the messages ready at
	// one instant: "" or "random", a uniform draw with the schedule seed;
	// "pct", Burckhardt et al.'s probabilistic concurrency testing
	// (ASPLOS 2010) with PCTDepth d over about PCTSteps deliveries: every
	// actor gets a random priority, the highest-priority ready actor goes
	// first, and at d − 1 steps drawn from [1, PCTSteps] the actor just
	// run drops below every other (executor.go's pctChoice). [chaos]
	// delays are drawn as under "random".
	Strategy Strategy `toml:"strategy,omitzero" json:",omitempty"`
	PCTDepth int      `toml:"pct_depth,omitzero" json:",omitempty"`
	PCTSteps uint64   `toml:"pct_steps,omitzero" json:",omitempty"`

	// Events records every delivery (RunEnd.Events) of a deterministic
	// run; OnEvent, when set, receives each instead, as it happens, so a
	// long run's log need not be held in memory.
	Events  bool        `toml:"-"`
	OnEvent func(Event) `toml:"-" json:"-"`
	// Choices records every scheduling choice (RunEnd.Choices) of a
	// deterministic run; OnChoice, when set, receives each instead.
	Choices  bool         `toml:"-"`
	OnChoice func(Choice) `toml:"-" json:"-"`
	// StopAt, above 0, ends a deterministic run right after the delivery
	// of that step, as an interrupt would, and hands OnStop the run as it
	// stands there: every actor's own account of its state, the messages
	// queued and the next timers (run --stop-at-step).
	StopAt uint64          `toml:"-" json:",omitempty"`
	OnStop func(StepState) `toml:"-" json:"-"`
	// LinkSamples, when positive, has the fabric record what each link
	// carried over windows of at least that length (Records.Links), for
	// utilisation over time. The fabric samples when it next handles a
	// message after each window, so sampling adds no message and changes
	// no emulated figure.
	LinkSamples time.Duration `toml:"-"`
	// KeepFlows keeps every flow's record (Records.FlowList): a day of
	// trace has millions.
	KeepFlows bool `toml:"-"`
	// TallyAttempts keeps no attempt record: each attempt that ends is
	// counted into Records.Tally, all the summary needs, and dropped, so
	// a run that writes no outputs holds no record per finished attempt
	// (about 500 bytes each; a day of trace has hundreds of thousands).
	TallyAttempts bool `toml:"-"`
	// Explain records every slot offer the policy looked at a job for,
	// with its reasons (Records.Offers), for clusteremu explain.
	Explain bool `toml:"-"`

	// The On hooks stream what grows with a run's length: each, when set,
	// receives its records as they are made, and the run keeps none of
	// them, so a long run's memory does not grow with the work it has
	// finished. A hook is called under the records' lock, so its calls
	// never overlap and come in the order the run made the records (the
	// same order for the same seeds in a deterministic run); it must not
	// call back into the cluster nor change what it is given.
	//
	// OnAttemptEnded receives each attempt's record as it ends, instead of
	// Records.Attempts; Records.Tally still counts them, Records.CutOff
	// still lists those running at the end, and every attempt is still
	// checked to end once (while it runs: the run keeps the running
	// attempts' records, not the finished ones').
	OnAttemptEnded func(actors.AttemptRecord) `toml:"-" json:"-"`
	// OnLinks receives each link sample (LinkSamples) instead of
	// Records.Links.Samples; Records.Links still names the links.
	OnLinks func(actors.LinkSample) `toml:"-" json:"-"`
	// OnOffer receives each explained offer (Explain) instead of
	// Records.Offers.
	OnOffer func(actors.OfferRecord) `toml:"-" json:"-"`
	// OnFlowEnded receives each flow's record as it ends, whether or not
	// KeepFlows is set, and Records.FlowList stays empty; Records.Flows
	// still totals them.
	OnFlowEnded func(actors.FlowRecord) `toml:"-" json:"-"`
	// OnProgress receives each progress report instead of
	// Records.Progress.
	OnProgress func(actors.AttemptProgress) `toml:"-" json:"-"`
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
	// Rules are the message rules ([[fault]] kind = "message",
	// Config.Rules).
	Rules []MessageRule `toml:"-"`
	// Pinned runs the default course — same-instant messages in the order
	// they were posted, no delays — except at Decisions; nothing is drawn.
	Pinned    bool       `toml:"-"`
	Decisions []Decision `toml:"-"`
	// RecordDecisions records where the run left the default course
	// (RunEnd.Decisions): replaying them pinned repeats the run.
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

// Strategy is how a deterministic run orders same-instant messages
// (RunOptions.Strategy).
type Strategy string

// The strategies.
const (
	Random Strategy = "random"
	PCT    Strategy = "pct"
)

// End reasons.
const (
	EndDone     EndReason = "done"     // an actor declared the work done
	EndIdle     EndReason = "idle"     // nothing left to deliver and no timer pending
	EndDeadline EndReason = "deadline" // the emulated deadline was reached
	EndFailed   EndReason = "failed"   // an actor failed or panicked
	EndStalled  EndReason = "stalled"  // no progress for RunOptions.StallAfter (a *StallError)
	// EndInterrupted: Runtime.Interrupt asked the run to stop (Ctrl-C).
	EndInterrupted EndReason = "interrupted"
)

// StallError ends a run that made no progress — no attempt or job changed
// state, no flow completed — for RunOptions.StallAfter while timers kept
// firing.
type StallError struct {
	Since, Next time.Duration // the last progress, and the timer past the limit
	// Timers counts the pending timers by message type.
	Timers map[string]int
	// Waiting is what each active job waits for, as the coordinator
	// sees it (Cluster.Run fills it in).
	Waiting []string
}

func (e *StallError) Error() string {
	types := slices.Sorted(maps.Keys(e.Timers))
	timers := make([]string, len(types))
	for i, t := range types {
		timers[i] = fmt.Sprintf("%s ×%d", t, e.Timers[t])
	}
	msg := fmt.Sprintf("stalled: no progress since %v, next timer at %v; pending timers: %s", e.Since, e.Next, strings.Join(timers, ", "))
	if len(e.Waiting) > 0 {
		msg += "; waiting: " + strings.Join(e.Waiting, "; ")
	}
	return msg
}

// endReason is how a run that ended for reason with err ended: stalled,
// failed, or as the loop said.
func endReason(reason EndReason, err error) EndReason {
	var stall *StallError
	switch {
	case errors.As(err, &stall):
		return EndStalled
	case err != nil:
		return EndFailed
	}
	return reason
}

// RunEnd is how a run ended.
type RunEnd struct {
	Reason      EndReason
	At          time.Duration // emulated time at the end
	Err         error         // why a failed run failed
	Steps       uint64        // messages delivered, system messages included
	DeadLetters int           // messages sent to actors that no longer exist
	Dropped     int           // timers that came due for actors that had stopped
	Diverged    int           // replayed choices that could not be followed
	Events      []Event
	Choices     []Choice
	Decisions   []Decision
	// Lag is the wall time a scaled or wall run fell behind because the
	// machine could not keep up (emulated time was held back, at ×speedup
	// that much more of it); MaxLate is the largest single delay.
	Lag, MaxLate time.Duration
}

// Runtime is one run of an emulated cluster: a protoactor system whose
// actors take their clock, props, random streams and sinks from it.
// NewRuntime picks one of two: a deterministic run, in which one goroutine
// (the one that calls Run) delivers every message through the executor and
// the clock is virtual (runtime_deterministic.go), or a live run on
// protoactor's own dispatchers under a virtual, scaled or wall clock
// (runtime_live.go).
type Runtime interface {
	// Clock is the run's clock.
	Clock() actors.Clock
	// Props returns props for an actor of this run: the run's mailbox and
	// a supervisor that never restarts (a panic fails the run instead).
	Props(producer actor.Producer) *actor.Props
	// Spawn starts a top-level actor under a name unique in the run.
	Spawn(name string, producer actor.Producer) (*actor.PID, error)
	// Send posts a message from outside the actors, before or between
	// runs.
	Send(to *actor.PID, msg any)
	// Rand returns the seeded stream of the named actor: derived from the
	// workload seed and the name alone, so adding an actor shifts no
	// other actor's numbers.
	Rand(name string) *rand.Rand
	// Intercept returns the run's message-rule function for actors.Deps;
	// nil when nothing intercepts messages.
	Intercept() func(from, to string, msg any) (bool, time.Duration)
	// Perturb returns the run's perturbation function for actors.Deps:
	// nil unless the run is deterministic and has chaos or follows pinned
	// delays.
	Perturb() func(actors.Perturbation, string) time.Duration
	// Done ends the run after the message being handled: the work is
	// done.
	Done()
	// Fail ends the run with an error after the message being handled.
	Fail(err error)
	// Now returns the run's emulated time; unlike Clock().Now() it may be
	// called from any goroutine while the run goes on (a progress
	// display).
	Now() time.Duration
	// Progress tells the stall watchdog that the run's state changed.
	Progress()
	// WatchWork gives the stall watchdog what says whether work is
	// pending (jobs submitted and not ended): time with none, waiting for
	// the next arrival, is not a stall. Without it every quiet span is.
	WatchWork(pending func() bool)
	// WatchClock has a deterministic run call sample, on the goroutine
	// that runs it, each time its clock is about to pass an instant: first
	// at, then each instant sample returns, until it returns 0 or the run
	// ends. sample sees the run as every message before the instant left
	// it, and must change nothing (it adds no message, no timer and no
	// draw, so the run is the same with it). A run that is not
	// deterministic never calls it.
	WatchClock(at time.Duration, sample func(at time.Duration) time.Duration)
	// Interrupt ends the run after the message being delivered, as
	// EndInterrupted; it may be called from any goroutine, before or
	// during Run.
	Interrupt()
	// Run delivers messages until the work is done, the deadline passes,
	// an actor fails or nothing is left to happen; then it stops every
	// actor and returns. It must be called once, on the goroutine that
	// built the run.
	Run() RunEnd
}

// NewRuntime creates an idle run: deterministic unless opts ask for
// concurrent delivery (RunOptions.Concurrent).
func NewRuntime(opts RunOptions) Runtime {
	sys := newActorSystem(!opts.Concurrent())
	if opts.Concurrent() {
		return newLiveRuntime(opts, sys)
	}
	return newDeterministicRuntime(opts, sys)
}

// system is what both kinds of run share: the options, the actor system
// and the top-level actors to stop at the end.
type system struct {
	opts        RunOptions
	sys         *actor.ActorSystem
	top         []*actor.PID
	sub         *eventstream.Subscription
	interrupted atomic.Bool
	pending     func() bool // work is pending (WatchWork); nil: always
	sampleAt    time.Duration
	sample      func(time.Duration) time.Duration // WatchClock; nil: none
}

func (s *system) WatchWork(pending func() bool) { s.pending = pending }

// liveActors counts the actors alive, protoactor's own processes among
// them.
func (s *system) liveActors() int {
	n := 0
	for _, bucket := range s.sys.ProcessRegistry.LocalPIDs.LocalPIDs {
		n += bucket.Count()
	}
	return n
}

func (s *system) WatchClock(at time.Duration, sample func(time.Duration) time.Duration) {
	s.sampleAt, s.sample = at, sample
}

// idle reports whether no work is pending, so quiet time is no stall.
func (s *system) idle() bool { return s.pending != nil && !s.pending() }

func (s *system) spawn(name string, props *actor.Props) (*actor.PID, error) {
	pid, err := s.sys.Root.SpawnNamed(props, name)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", name, err)
	}
	s.top = append(s.top, pid)
	return pid, nil
}

func (s *system) Send(to *actor.PID, msg any) { s.sys.Root.Send(to, msg) }

func (s *system) Rand(name string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return rand.New(rand.NewPCG(s.opts.Seed, h.Sum64()))
}

// neverRestart is every actor's supervisor: a panicking actor stops, and
// the run fails.
func neverRestart() actor.PropsOption {
	return actor.WithSupervisor(actor.NewOneForOneStrategy(0, 0, func(any) actor.Directive { return actor.StopDirective }))
}
