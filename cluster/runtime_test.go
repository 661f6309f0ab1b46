package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"clusteremu/actors"
	"clusteremu/units"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorderActor logs what it receives with the emulated time.
type recorderActor struct {
	clock actors.Clock
	log   *[]string
	name  string
}

type note struct{ text string }

func (a *recorderActor) Receive(ctx actor.Context) {
	if n, ok := ctx.Message().(*note); ok {
		*a.log = append(*a.log, fmt.Sprintf("%v %s %s", a.clock.Now(), a.name, n.text))
	}
}

func spawnRecorder(t *testing.T, r Runtime, name string, log *[]string) *actor.PID {
	t.Helper()
	pid, err := r.Spawn(name, func() actor.Actor { return &recorderActor{clock: r.Clock(), log: log, name: name} })
	require.NoError(t, err)
	return pid
}

func TestTimersFireInDeadlineThenSetOrder(t *testing.T) {
	r := NewRuntime(RunOptions{})
	var log []string
	a := spawnRecorder(t, r, "a", &log)
	c := r.Clock()
	c.After(3*time.Second, a, &note{"third"})
	c.At(time.Second, a, &note{"first"})
	c.After(3*time.Second, a, &note{"fourth, set after third"})
	c.After(2*time.Second, a, &note{"second"})
	cancelled := c.After(2*time.Second, a, &note{"cancelled"})
	assert.True(t, c.Cancel(cancelled))
	assert.False(t, c.Cancel(cancelled), "a timer cancels once")
	res := r.Run()
	require.NoError(t, res.Err)
	assert.Equal(t, EndIdle, res.Reason)
	assert.Equal(t, 3*time.Second, res.At)
	assert.Equal(t, []string{"1s a first", "2s a second", "3s a third", "3s a fourth, set after third"}, log)
}

func TestPeriodicTimersUseAbsoluteDeadlines(t *testing.T) {
	r := NewRuntime(RunOptions{Until: units.Duration(10 * time.Second)})
	var log []string
	a := spawnRecorder(t, r, "a", &log)
	r.Clock().Every(500*time.Millisecond, 3*time.Second, a, &note{"tick"})
	res := r.Run()
	require.NoError(t, res.Err)
	assert.Equal(t, EndDeadline, res.Reason)
	assert.Equal(t, 10*time.Second, res.At)
	assert.Equal(t, []string{"500ms a tick", "3.5s a tick", "6.5s a tick", "9.5s a tick"}, log)
}

// cascade handles a chain of messages and checks the clock stands still
// while any of them is in flight, although a timer is due meanwhile.
type cascade struct {
	clock actors.Clock
	seen  []time.Duration
}

type hop struct{ left int }

func (c *cascade) Receive(ctx actor.Context) {
	if h, ok := ctx.Message().(*hop); ok {
		c.seen = append(c.seen, c.clock.Now())
		if h.left > 0 {
			ctx.Send(ctx.Self(), &hop{h.left - 1})
		}
	}
}

func TestVirtualTimeHoldsWhileMessagesAreInFlight(t *testing.T) {
	r := NewRuntime(RunOptions{})
	c := &cascade{clock: r.Clock()}
	pid, err := r.Spawn("cascade", func() actor.Actor { return c })
	require.NoError(t, err)
	r.Clock().At(time.Second, pid, &hop{left: 100})
	r.Clock().After(0, pid, &hop{left: 0}) // due at 0, fires at once
	res := r.Run()
	require.NoError(t, res.Err)
	require.Len(t, c.seen, 102)
	assert.Equal(t, time.Duration(0), c.seen[0])
	for _, at := range c.seen[1:] {
		assert.Equal(t, time.Second, at)
	}
}

// fan sends to many peers at once; the peers all answer the sink, so the
// order in which the sink hears them is the schedule's choice.
type fan struct{ peers []*actor.PID }

type ping struct{ from int }

func (f *fan) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*note); ok {
		for i, p := range f.peers {
			ctx.Send(p, &ping{from: i})
		}
	}
}

type echo struct{ sink *actor.PID }

func (e *echo) Receive(ctx actor.Context) {
	if p, ok := ctx.Message().(*ping); ok {
		ctx.Send(e.sink, &note{fmt.Sprint(p.from)})
	}
}

func runFan(t *testing.T, seed uint64, replay []Choice) ([]string, RunEnd) {
	t.Helper()
	return runFanWith(t, RunOptions{ScheduleSeed: seed, Events: true, Choices: true, Replay: replay})
}

func runFanWith(t *testing.T, opts RunOptions) ([]string, RunEnd) {
	t.Helper()
	r := NewRuntime(opts)
	var log []string
	sink := spawnRecorder(t, r, "sink", &log)
	var peers []*actor.PID
	for i := range 20 {
		pid, err := r.Spawn(fmt.Sprintf("peer-%02d", i), func() actor.Actor { return &echo{sink: sink} })
		require.NoError(t, err)
		peers = append(peers, pid)
	}
	src, err := r.Spawn("fan", func() actor.Actor { return &fan{peers: peers} })
	require.NoError(t, err)
	r.Clock().At(time.Second, src, &note{"go"})
	res := r.Run()
	require.NoError(t, res.Err)
	return log, res
}

func TestSameSeedSameInterleaving(t *testing.T) {
	a, resA := runFan(t, 7, nil)
	b, resB := runFan(t, 7, nil)
	assert.Equal(t, a, b)
	assert.Equal(t, resA.Events, resB.Events)
	require.Len(t, a, 20)

	c, resC := runFan(t, 8, nil)
	assert.ElementsMatch(t, a, c)
	assert.NotEqual(t, a, c, "another schedule seed explores another order")
	assert.NotEqual(t, resA.Events, resC.Events)
}

func TestChoiceLogReplays(t *testing.T) {
	want, rec := runFan(t, 11, nil)
	got, res := runFan(t, 99, rec.Choices)
	assert.Equal(t, want, got, "the choice log overrides the schedule seed")
	assert.Equal(t, rec.Events, res.Events)
	assert.Zero(t, res.Diverged)

	// Override one choice: the sink's first delivery goes to another
	// ready peer, and the run differs from there on.
	edited := append([]Choice(nil), rec.Choices...)
	for i, ch := range edited {
		if ch.Receiver == "sink" && ch.Count > 0 {
			for _, other := range edited[i+1:] {
				if other.Receiver != "sink" && other.At == ch.At {
					edited[i] = Choice{At: ch.At, Receiver: other.Receiver}
					break
				}
			}
			break
		}
	}
	changed, _ := runFan(t, 11, edited)
	assert.NotEqual(t, want, changed)
}

func TestPinnedCourse(t *testing.T) {
	// With nothing pinned the default course is FIFO: the fan posts its
	// pings in peer order, so the sink hears the peers in order.
	fifo, res := runFanWith(t, RunOptions{ScheduleSeed: 3, Pinned: true, RecordDecisions: true})
	want := make([]string, 20)
	for i := range want {
		want[i] = fmt.Sprintf("1s sink %d", i)
	}
	assert.Equal(t, want, fifo)
	assert.Empty(t, res.Decisions, "the default course records no departure")

	// A seeded run departs from FIFO; replaying its departures pinned,
	// under any seed, repeats it exactly.
	seeded, rec := runFanWith(t, RunOptions{ScheduleSeed: 7, Events: true, RecordDecisions: true})
	require.NotEqual(t, want, seeded)
	require.NotEmpty(t, rec.Decisions)
	for _, d := range rec.Decisions {
		assert.Equal(t, DecideOrder, d.Kind)
		assert.Contains(t, []time.Duration{0, time.Second}, d.At, "actors start at 0, the fan goes at 1s")
	}
	again, res := runFanWith(t, RunOptions{ScheduleSeed: 99, Events: true, Pinned: true, Decisions: rec.Decisions, RecordDecisions: true})
	assert.Equal(t, seeded, again)
	assert.Equal(t, rec.Events, res.Events)
	assert.Equal(t, rec.Decisions, res.Decisions)

	// Dropping departures moves the run toward FIFO.
	fewer, _ := runFanWith(t, RunOptions{Pinned: true, Decisions: rec.Decisions[:len(rec.Decisions)/2]})
	assert.NotEqual(t, seeded, fewer)
	assert.ElementsMatch(t, want, fewer)
}

type bomb struct{}

func (bomb) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*note); ok {
		panic("boom")
	}
}

func TestPanicFailsTheRun(t *testing.T) {
	r := NewRuntime(RunOptions{})
	pid, err := r.Spawn("bomb", func() actor.Actor { return bomb{} })
	require.NoError(t, err)
	r.Clock().At(5*time.Second, pid, &note{"x"})
	r.Clock().At(time.Hour, pid, &note{"never"})
	res := r.Run()
	assert.Equal(t, EndFailed, res.Reason)
	// Step 1 is the bomb's Started, step 2 the note.
	assert.EqualError(t, res.Err, "actor bomb panicked at 5s (step 2) handling cluster.note: boom")
	assert.Equal(t, 5*time.Second, res.At)
}

func TestStallWatchdog(t *testing.T) {
	r := NewRuntime(RunOptions{StallAfter: units.Duration(time.Minute)})
	var log []string
	a := spawnRecorder(t, r, "a", &log)
	r.Clock().Every(3*time.Second, 3*time.Second, a, &note{"heartbeat"})
	res := r.Run()
	assert.Equal(t, EndStalled, res.Reason)
	assert.EqualError(t, res.Err, "stalled: no progress since 0s, next timer at 1m3s; pending timers: cluster.note ×1")
	assert.Len(t, log, 20, "heartbeats at 3 s … 60 s")
}

func TestTimerToStoppedActorIsDropped(t *testing.T) {
	for _, opts := range []RunOptions{{}, {Deterministic: new(false)}} {
		t.Run(fmt.Sprintf("concurrent=%v", opts.Concurrent()), func(t *testing.T) { timerToStoppedActor(t, opts) })
	}
}

func timerToStoppedActor(t *testing.T, opts RunOptions) {
	r := NewRuntime(opts)
	var log []string
	a := spawnRecorder(t, r, "a", &log)
	r.Clock().At(time.Second, a, &note{"before"})
	r.Clock().At(2*time.Second, a, &note{"after"})
	stopper, err := r.Spawn("stopper", func() actor.Actor {
		return actor.ReceiveFunc(func(ctx actor.Context) {
			if _, ok := ctx.Message().(*note); ok {
				ctx.Stop(a)
			}
		})
	})
	require.NoError(t, err)
	r.Clock().At(1500*time.Millisecond, stopper, &note{"stop a"})
	res := r.Run()
	require.NoError(t, res.Err)
	assert.Equal(t, []string{"1s a before"}, log)
	assert.Zero(t, res.DeadLetters)
	assert.Equal(t, 1, res.Dropped)
}

func TestRandStreamsArePerName(t *testing.T) {
	draw := func(seed uint64, names ...string) map[string]uint64 {
		r := NewRuntime(RunOptions{Seed: seed})
		defer r.Run()
		out := map[string]uint64{}
		for _, n := range names {
			out[n] = r.Rand(n).Uint64()
		}
		return out
	}
	a := draw(1, "node-1", "node-2")
	b := draw(1, "node-0", "node-2", "node-1")
	assert.Equal(t, a["node-1"], b["node-1"], "adding an actor shifts no other stream")
	assert.Equal(t, a["node-2"], b["node-2"])
	assert.NotEqual(t, a["node-1"], a["node-2"])
	assert.NotEqual(t, a["node-1"], draw(2, "node-1")["node-1"])
}

// canceller cancels the next of its timers each time it is told to and
// records whether that timer was still pending.
type canceller struct {
	clock actors.Clock
	ids   *[]actors.TimerID
	got   *[]bool
}

func (c *canceller) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*note); ok {
		id := (*c.ids)[len(*c.got)]
		*c.got = append(*c.got, c.clock.Cancel(id))
	}
}

func TestCancelAfterTheMessageIsQueued(t *testing.T) {
	// Two timers due at 1 s: one for a, one telling c to cancel a's. Both
	// are posted when the clock reaches 1 s, so whichever runs first, a's
	// message is already queued when c cancels: Cancel reports false and
	// the message is still delivered, once. A periodic timer cancelled
	// after one delivery delivers no more.
	for seed := range uint64(8) {
		r := NewRuntime(RunOptions{ScheduleSeed: seed})
		var log []string
		var results []bool
		a := spawnRecorder(t, r, "a", &log)
		var ids []actors.TimerID
		c, err := r.Spawn("c", func() actor.Actor { return &canceller{clock: r.Clock(), ids: &ids, got: &results} })
		require.NoError(t, err)
		ids = append(ids, r.Clock().At(time.Second, a, &note{"queued"}))
		r.Clock().At(time.Second, c, &note{"cancel"})
		ids = append(ids, r.Clock().Every(time.Second, time.Second, a, &note{"tick"}))
		r.Clock().At(1500*time.Millisecond, c, &note{"cancel periodic"})
		res := r.Run()
		require.NoError(t, res.Err)
		assert.Equal(t, EndIdle, res.Reason, "nothing left once the periodic timer is cancelled")
		assert.Equal(t, []string{"1s a queued", "1s a tick"}, sortedCopy(log))
		assert.Equal(t, []bool{false, true}, results, "the one-shot had fired; the periodic was pending")
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	slices.Sort(out)
	return out
}

// A deterministic run's actor system is kept for the next run only when
// its actors are gone; one still holding an actor is shut down.
func TestActorSystemKeptOnlyWhenEmpty(t *testing.T) {
	sys := newActorSystem(false)
	pid, err := sys.Root.SpawnNamed(actor.PropsFromFunc(func(actor.Context) {}), "left")
	require.NoError(t, err)
	releaseActorSystem(sys, []*actor.PID{pid})
	assert.True(t, sys.IsStopped(), "a system with a live actor is not reused")

	sys = newActorSystem(false)
	pid, err = sys.Root.SpawnNamed(actor.PropsFromFunc(func(actor.Context) {}), "gone")
	require.NoError(t, err)
	require.NoError(t, sys.Root.StopFuture(pid).Wait())
	releaseActorSystem(sys, []*actor.PID{pid})
	assert.False(t, sys.IsStopped(), "an emptied system is kept")
}

// Runs one after another in a process, on reused actor systems, give the
// same interleaving as the first and name the same actors.
func TestRunsAfterRunsAreAlike(t *testing.T) {
	run := func() []string {
		r := NewRuntime(RunOptions{})
		var log []string
		for _, name := range []string{"a", "b", "c"} {
			pid := spawnRecorder(t, r, name, &log)
			r.Clock().After(time.Second, pid, &note{pid.Id})
		}
		require.NoError(t, r.Run().Err)
		return log
	}
	first := run()
	for range 5 {
		assert.Equal(t, first, run())
	}
}

// An ended one-shot timer's record is reused; a cancelled timer stays
// cancelled when its record serves another.
func TestReusedTimersKeepTheirOrder(t *testing.T) {
	r := NewRuntime(RunOptions{})
	var log []string
	a := spawnRecorder(t, r, "a", &log)
	c := r.Clock()
	c.At(time.Second, a, &note{"one"})
	relay, err := r.Spawn("relay", func() actor.Actor {
		return actor.ReceiveFunc(func(ctx actor.Context) {
			if _, ok := ctx.Message().(*note); ok {
				gone := c.After(time.Second, a, &note{"cancelled"})
				c.After(2*time.Second, a, &note{"three"})
				c.After(time.Second, a, &note{"two"})
				assert.True(t, c.Cancel(gone))
				assert.False(t, c.Cancel(gone))
			}
		})
	})
	require.NoError(t, err)
	c.At(1500*time.Millisecond, relay, &note{"set"})
	res := r.Run()
	require.NoError(t, res.Err)
	assert.Equal(t, []string{"1s a one", "2.5s a two", "3.5s a three"}, log)
}
