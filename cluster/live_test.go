package cluster

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/units"
	"clusteremu/workload"
)

// fakeWall is a wall clock the test moves. Every wait it is asked for is
// reported on waits, so the test knows when the driver waits, and for
// which instant, without sleeping.
type fakeWall struct {
	mu      sync.Mutex
	now     time.Time
	pending map[chan struct{}]time.Time
	waits   chan time.Time
}

func newFakeWall() *fakeWall {
	return &fakeWall{now: time.Unix(1000, 0), pending: map[chan struct{}]time.Time{}, waits: make(chan time.Time, 256)}
}

func (f *fakeWall) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeWall) WaitUntil(t time.Time) (<-chan struct{}, func()) {
	f.mu.Lock()
	ch := make(chan struct{})
	f.pending[ch] = t
	f.mu.Unlock()
	select {
	case f.waits <- t:
	default: // the test reads only the instants it expects
	}
	return ch, func() {
		f.mu.Lock()
		delete(f.pending, ch)
		f.mu.Unlock()
	}
}

// awaitWait blocks until the driver waits for the wall instant t; it may
// wait for an earlier instant several times first (a message handled
// wakes it), which is skipped.
func (f *fakeWall) awaitWait(t time.Time) time.Time {
	for {
		if got := <-f.waits; !got.Before(t) {
			return got
		}
	}
}

// advance moves the clock to t and releases the waits due by then.
func (f *fakeWall) advance(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = t
	for ch, at := range f.pending {
		if !at.After(t) {
			close(ch)
			delete(f.pending, ch)
		}
	}
}

// clockLog records, on its actor's goroutine, when each note arrived.
type clockLog struct {
	clock actors.Clock
	got   chan string
}

func (c *clockLog) Receive(ctx actor.Context) {
	if n, ok := ctx.Message().(*note); ok {
		c.got <- fmt.Sprintf("%v %s", c.clock.Now(), n.text)
	}
}

// startScaled runs, at ×10 on a fake wall clock, an actor that logs two
// notes due at emulated 1 s and 3 s.
func startScaled(t *testing.T) (*fakeWall, chan string, chan RunEnd) {
	t.Helper()
	wall := newFakeWall()
	r := NewRuntime(RunOptions{Clock: Scaled, Speedup: 10, WallClock: wall})
	got := make(chan string, 4)
	pid, err := r.Spawn("log", func() actor.Actor { return &clockLog{clock: r.Clock(), got: got} })
	require.NoError(t, err)
	r.Clock().At(time.Second, pid, &note{"one"})
	r.Clock().At(3*time.Second, pid, &note{"three"})
	results := make(chan RunEnd)
	go func() { results <- r.Run() }()
	return wall, got, results
}

func TestScaledClockFollowsTheWallClock(t *testing.T) {
	// ×10: emulated 1 s is 100 ms of wall time. The driver waits for the
	// wall instant of each deadline and fires it then.
	wall, got, results := startScaled(t)
	start := wall.Now()

	assert.Equal(t, start.Add(100*time.Millisecond), wall.awaitWait(start))
	wall.advance(start.Add(100 * time.Millisecond))
	assert.Equal(t, "1s one", <-got)
	assert.Equal(t, start.Add(300*time.Millisecond), wall.awaitWait(start.Add(101*time.Millisecond)))
	wall.advance(start.Add(300 * time.Millisecond))
	assert.Equal(t, "3s three", <-got)

	res := <-results
	require.NoError(t, res.Err)
	assert.Equal(t, EndIdle, res.Reason)
	assert.Zero(t, res.Lag)
}

func TestScaledClockHoldsTimeBackWhenLate(t *testing.T) {
	// The wall clock overshoots the first deadline (100 ms) by 250 ms:
	// the timer still fires at emulated 1 s, never late, and emulated time
	// is rebased; the next deadline is 200 ms of wall time after that.
	wall, got, results := startScaled(t)
	start := wall.Now()

	wall.awaitWait(start)
	wall.advance(start.Add(350 * time.Millisecond))
	assert.Equal(t, "1s one", <-got)
	assert.Equal(t, start.Add(550*time.Millisecond), wall.awaitWait(start.Add(101*time.Millisecond)), "rebased by the 250 ms lag")
	wall.advance(start.Add(550 * time.Millisecond))
	assert.Equal(t, "3s three", <-got)
	res := <-results
	require.NoError(t, res.Err)
	assert.Equal(t, 250*time.Millisecond, res.Lag)
	assert.Equal(t, 250*time.Millisecond, res.MaxLate)
}

func TestConcurrentVirtualWaitsForQuiescence(t *testing.T) {
	// Protoactor's dispatcher runs the cascade on its goroutines; the
	// clock must not move to the 2 s timer until all 101 hops are done.
	r := NewRuntime(RunOptions{Deterministic: new(false)})
	c := &cascade{clock: r.Clock()}
	pid, err := r.Spawn("cascade", func() actor.Actor { return c })
	require.NoError(t, err)
	got := make(chan string, 1)
	logPID, err := r.Spawn("log", func() actor.Actor { return &clockLog{clock: r.Clock(), got: got} })
	require.NoError(t, err)
	r.Clock().At(time.Second, pid, &hop{left: 100})
	r.Clock().At(2*time.Second, logPID, &note{"after"})
	res := r.Run()
	require.NoError(t, res.Err)
	require.Len(t, c.seen, 101)
	for _, at := range c.seen {
		assert.Equal(t, time.Second, at)
	}
	assert.Equal(t, "2s after", <-got)
	assert.Equal(t, 2*time.Second, res.At)
}

func TestConcurrentPanicFailsTheRun(t *testing.T) {
	r := NewRuntime(RunOptions{Deterministic: new(false)})
	pid, err := r.Spawn("bomb", func() actor.Actor { return bomb{} })
	require.NoError(t, err)
	r.Clock().At(5*time.Second, pid, &note{"x"})
	r.Clock().At(time.Hour, pid, &note{"never"})
	res := r.Run()
	assert.Equal(t, EndFailed, res.Reason)
	assert.EqualError(t, res.Err, "actor bomb panicked at 5s handling cluster.note: boom")
}

// runawayWall is a machine slower than the speed-up asked of it: each
// reading of the wall clock is the next of steps (cycling) after the one
// before, and every wait is over at once.
type runawayWall struct {
	mu    sync.Mutex
	now   time.Time
	steps []time.Duration
	i     int
}

func (w *runawayWall) Now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(w.steps[w.i%len(w.steps)])
	w.i++
	return w.now
}

func (w *runawayWall) WaitUntil(time.Time) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	close(ch)
	return ch, func() {}
}

// On a machine slower than its speed-up (each wall reading 20 µs after the
// last: 2 s of emulated time at ×10⁵), a scaled run still submits every
// job due by its deadline and ends there exactly: no timer is skipped and
// no instant read before the run began or past the deadline.
func TestScaledClockAtAnySpeedupKeepsItsDeadline(t *testing.T) {
	for _, k := range []float64{1e3, 1e5} {
		cfg := smallCluster()
		cfg.Run.Clock, cfg.Run.Speedup = Scaled, k
		cfg.Run.Until = units.Duration(10 * time.Minute)
		cfg.Run.WallClock = &runawayWall{now: time.Unix(0, 0), steps: []time.Duration{20 * time.Microsecond}}
		var jobs []workload.JobSpec
		for i := range 30 {
			jobs = append(jobs, workload.JobSpec{Name: fmt.Sprint("j", i), InputBytes: 4 * mib, Submit: time.Duration(i) * 30 * time.Second})
		}
		cfg.Workload = [][]workload.JobSpec{jobs}
		c, err := Build(cfg)
		require.NoError(t, err)
		rep, err := c.Run()
		if err != nil {
			assert.Contains(t, err.Error(), "run ended deadline", "×%g", k)
		}
		assert.Equal(t, EndDeadline, rep.End.Reason, "×%g", k)
		assert.Equal(t, 10*time.Minute, rep.End.At, "×%g", k)
		assert.Equal(t, 21.0, rep.Summary["jobs.submitted"], "×%g: the jobs due by 10 min", k)
		assert.Equal(t, 20.0, rep.Summary["jobs.succeeded"], "×%g: all but the one submitted at the deadline", k)
	}
}

// ticker logs the emulated time of each tick and sets the next one a
// second later, as an actor that schedules from Now does.
type ticker struct {
	clock actors.Clock
	got   chan time.Duration
}

type tick struct{ left int }

func (k *ticker) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*tick); ok {
		k.got <- k.clock.Now()
		if m.left > 0 {
			k.clock.After(time.Second, ctx.Self(), &tick{m.left - 1})
		}
	}
}

// A wake-up late by less than the tolerance (4 ms) keeps the run's pace,
// but the timer still fires at its own instant: its handler reads 1 s,
// not 1 s plus 4 ms × k, and what it schedules from there keeps the
// virtual run's instants. At ×10⁵ the 4 ms would otherwise be 400 s.
func TestScaledClockReadsTheDeadlineAfterALateWakeUp(t *testing.T) {
	for _, k := range []float64{600, 1e5} {
		wall := newFakeWall()
		r := NewRuntime(RunOptions{Clock: Scaled, Speedup: k, WallClock: wall})
		got := make(chan time.Duration, 8)
		pid, err := r.Spawn("ticker", func() actor.Actor { return &ticker{clock: r.Clock(), got: got} })
		require.NoError(t, err)
		r.Clock().At(time.Second, pid, &tick{left: 2})
		results := make(chan RunEnd)
		go func() { results <- r.Run() }()

		start := wall.Now()
		target := wall.awaitWait(start)
		wall.advance(target.Add(4 * time.Millisecond))
		// The ticks due at 2 s and 3 s are due by this wall time already:
		// they fire at once, each at its own instant, with no wait.
		var seen []time.Duration
		for len(seen) < 3 {
			select {
			case at := <-got:
				seen = append(seen, at)
			case w := <-wall.waits:
				if !w.After(wall.Now()) {
					continue // an instant already due: the wait ends at once (or a stale record of one)
				}
				assert.Fail(t, "waited", "×%g: for %v after the late wake-up", k, w.Sub(start))
				wall.advance(w)
			}
		}
		assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, seen, "×%g", k)
		res := <-results
		require.NoError(t, res.Err)
		assert.Equal(t, EndIdle, res.Reason, "×%g", k)
		assert.Equal(t, 3*time.Second, res.At, "×%g", k)
		assert.Zero(t, res.Lag, "×%g: within the tolerance", k)
	}
}

// stamp is a timer's delivery: the instant it was due and how many more
// follow it a chain step later.
type stamp struct {
	at   time.Duration
	left int
}

// stampLog records, for each stamp, when it was due and the emulated time
// its handler read; a stamp with more to follow sets the next one.
type stampLog struct {
	clock actors.Clock
	step  time.Duration
	seen  [][2]time.Duration
}

func (l *stampLog) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*stamp); ok {
		now := l.clock.Now()
		l.seen = append(l.seen, [2]time.Duration{m.at, now})
		if m.left > 0 {
			l.clock.At(now+l.step, ctx.Self(), &stamp{now + l.step, m.left - 1})
		}
	}
}

// However far the wall clock jumps between two readings (here by turns
// 1 µs, an hour and 3 ms) and whatever the speed-up, a scaled run fires
// every timer due by its deadline, in deadline order, each handler reads
// an instant from its own deadline up to the deadline of the run, and the
// run ends at the deadline exactly, with the delay reported as lag. At
// ×10³⁰⁰ an hour of wall time is past any duration: the clock saturates.
func TestScaledClockNeverRunsPastItsTimersOrDeadline(t *testing.T) {
	const until = 5 * time.Second
	for _, k := range []float64{1, 600, 1e5, 1e9, 1e300} {
		wall := &runawayWall{now: time.Unix(0, 0), steps: []time.Duration{time.Microsecond, time.Hour, 3 * time.Millisecond}}
		r := NewRuntime(RunOptions{Clock: Scaled, Speedup: k, WallClock: wall, Until: units.Duration(until)})
		l := &stampLog{clock: r.Clock(), step: 700 * time.Millisecond}
		pid, err := r.Spawn("log", func() actor.Actor { return l })
		require.NoError(t, err)
		for i := range 41 { // every 250 ms up to 10 s
			at := time.Duration(i) * 250 * time.Millisecond
			r.Clock().At(at, pid, &stamp{at: at})
		}
		r.Clock().At(100*time.Millisecond, pid, &stamp{at: 100 * time.Millisecond, left: 20})
		res := r.Run()
		require.NoError(t, res.Err)
		assert.Equal(t, EndDeadline, res.Reason, "×%g", k)
		assert.Equal(t, until, res.At, "×%g", k)
		assert.Positive(t, res.Lag, "×%g", k)

		fixed, chained := 0, 0
		var last [2]time.Duration
		for _, s := range l.seen {
			assert.LessOrEqual(t, s[0], s[1], "×%g: handled before its deadline", k)
			assert.LessOrEqual(t, s[1], until, "×%g: past the deadline", k)
			assert.LessOrEqual(t, last[0], s[0], "×%g: fired out of deadline order", k)
			assert.LessOrEqual(t, last[1], s[1], "×%g: time went back", k)
			last = s
			if s[0]%(250*time.Millisecond) == 0 {
				fixed++
			} else {
				chained++
			}
		}
		assert.Equal(t, 21, fixed, "×%g: the timers due by 5 s, 5 s included", k)
		lastChained := l.seen[0]
		for _, s := range l.seen {
			if s[0]%(250*time.Millisecond) != 0 {
				lastChained = s
			}
		}
		assert.Greater(t, lastChained[1]+l.step, until, "×%g: a chained timer due by the deadline did not fire (%d fired)", k, chained)
	}
}

// A scaled clock in slow motion waits for its timers however far off in
// wall time they are: at ×10⁻⁹ a timer due at 20 s is 634 years away,
// beyond what a duration holds, and the wait saturates instead of
// wrapping into the past and firing at once.
func TestScaledClockInSlowMotionWaits(t *testing.T) {
	wall := newFakeWall()
	r := NewRuntime(RunOptions{Clock: Scaled, Speedup: 1e-9, WallClock: wall})
	got := make(chan string, 1)
	pid, err := r.Spawn("log", func() actor.Actor { return &clockLog{clock: r.Clock(), got: got} })
	require.NoError(t, err)
	r.Clock().At(20*time.Second, pid, &note{"late"})
	results := make(chan RunEnd)
	go func() { results <- r.Run() }()

	start := wall.Now()
	select {
	case w := <-wall.waits:
		assert.Equal(t, start.Add(math.MaxInt64), w)
	case s := <-got:
		assert.Fail(t, "fired without waiting", s)
	}
	r.Interrupt()
	res := <-results
	assert.Equal(t, EndInterrupted, res.Reason)
	assert.Zero(t, res.At)
	assert.Zero(t, res.Lag)
}
