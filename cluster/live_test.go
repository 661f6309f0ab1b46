package cluster

import (
	"fmt"
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
// reading of the wall clock is step after the one before, and every wait
// is over at once.
type runawayWall struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (w *runawayWall) Now() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(w.step)
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
		cfg.Run.WallClock = &runawayWall{now: time.Unix(0, 0), step: 20 * time.Microsecond}
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
