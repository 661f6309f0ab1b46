package cluster

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
)

// ClockMode selects how emulated time relates to the wall clock.
type ClockMode string

// Clock modes.
const (
	// Virtual jumps to the next timer as soon as nothing is in flight.
	Virtual ClockMode = "virtual"
	// Scaled runs Speedup emulated seconds per wall second.
	Scaled ClockMode = "scaled"
	// Wall runs in real time (Scaled with a speedup of 1).
	Wall ClockMode = "wall"
)

// liveClock is the clock of a concurrent run, whose actors run on
// protoactor's own goroutines. It counts messages posted and handled
// (mailbox middleware), so it knows when nothing is in flight, and a
// driver goroutine fires timers:
//
//   - virtual: when nothing is in flight, at the earliest deadline;
//   - scaled and wall: when the wall clock reaches the deadline's wall
//     time and nothing is in flight. If the machine fell behind, emulated
//     time is held back by the delay (it is rebased) rather than fired
//     late in a burst, and the delay is added to the lag; wake-ups within
//     lateTolerance count as on time. Either way a timer fires at its own
//     instant: Now reads the deadline at the fire and runs on from there
//     at ×k, never past the next pending deadline nor until. How late
//     the wake-up was never shows in emulated time, where at ×k it would
//     be k times as long.
type liveClock struct {
	mode  ClockMode
	k     float64 // emulated seconds per wall second
	wall  WallClock
	until time.Duration

	mu      sync.Mutex
	timers  *timers
	w0      time.Time     // wall time of emulated 0, rebased when held back; paces the timers
	wf      time.Time     // wall time of the last fire, from which Now runs on
	driving bool          // the run began: Now follows the wall clock
	fired   time.Duration // the last instant whose timers fired
	shown   time.Duration // the last Now returned (Now never goes back)
	lag     time.Duration
	maxLate time.Duration
	dropped int // timers that came due for actors that had stopped

	inflight atomic.Int64
	handled  atomic.Uint64
	wake     chan struct{} // idle, a new timer, done or failure
	sys      *actor.ActorSystem
}

func newLiveClock(mode ClockMode, speedup float64, wall WallClock, until time.Duration) *liveClock {
	if mode == Wall {
		speedup = 1
	}
	return &liveClock{mode: mode, k: speedup, wall: wall, until: until, timers: newTimers(), wake: make(chan struct{}, 1)}
}

func (c *liveClock) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Now implements actors.Clock.
func (c *liveClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

// nowLocked is the emulated time: on a virtual clock the last instant
// fired; on a scaled or wall clock the last instant fired plus the wall
// time since it fired (wf) times the speed-up, but never past the next
// pending timer nor the deadline, so a machine slower than the speed-up
// holds time back instead of skipping timers; before the run begins, 0.
func (c *liveClock) nowLocked() time.Duration {
	now := c.fired
	if c.mode != Virtual && c.driving {
		now = time.Duration(addSat(int64(c.fired), int64(scale(c.wall.Now().Sub(c.wf), c.k))))
		if next, ok := c.timers.next(); ok && now > next {
			now = next
		}
		if c.until > 0 && now > c.until {
			now = c.until
		}
	}
	c.shown = max(c.shown, now, c.fired)
	return c.shown
}

// scale is d × k, saturating instead of overflowing at any speed-up.
func scale(d time.Duration, k float64) time.Duration {
	return saturate(float64(d) * k)
}

// saturate converts f to a duration in [0, math.MaxInt64]. Go leaves the
// conversion of a float out of range undefined (amd64 gives math.MinInt64).
func saturate(f float64) time.Duration {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= 0:
		return 0
	}
	return time.Duration(f)
}

func (c *liveClock) add(at, period time.Duration, to *actor.PID, msg any) actors.TimerID {
	c.mu.Lock()
	id := c.timers.add(max(at, c.nowLocked()), period, to, msg)
	c.mu.Unlock()
	c.poke()
	return id
}

// After implements actors.Clock.
func (c *liveClock) After(d time.Duration, to *actor.PID, msg any) actors.TimerID {
	return c.add(c.Now()+max(d, 0), 0, to, msg)
}

// At implements actors.Clock.
func (c *liveClock) At(t time.Duration, to *actor.PID, msg any) actors.TimerID {
	return c.add(t, 0, to, msg)
}

// Every implements actors.Clock.
func (c *liveClock) Every(first, period time.Duration, to *actor.PID, msg any) actors.TimerID {
	if period <= 0 {
		panic(fmt.Sprintf("cluster: Every with period %v: must be > 0", period))
	}
	return c.add(first, period, to, msg)
}

// Cancel implements actors.Clock.
func (c *liveClock) Cancel(id actors.TimerID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers.cancel(id)
}

// MailboxStarted implements actor.MailboxMiddleware.
func (c *liveClock) MailboxStarted() {}

// MessagePosted runs on the sender's goroutine before the send returns,
// so a message is counted before its sender's own message is counted done.
func (c *liveClock) MessagePosted(any) { c.inflight.Add(1) }

// MessageReceived counts a message handled; the last one wakes the driver.
func (c *liveClock) MessageReceived(any) {
	c.handled.Add(1)
	if c.inflight.Add(-1) == 0 {
		c.poke()
	}
}

// MailboxEmpty implements actor.MailboxMiddleware.
func (c *liveClock) MailboxEmpty() {}

// drive fires timers until the run ends, and reports why it ended.
func (c *liveClock) drive(stopped func() bool) EndReason {
	c.mu.Lock()
	c.w0, c.driving = c.wall.Now(), true
	c.wf = c.w0
	c.mu.Unlock()
	for {
		if stopped() {
			return EndDone
		}
		if c.inflight.Load() > 0 {
			<-c.wake
			continue
		}
		c.mu.Lock()
		next, ok := c.timers.next()
		c.mu.Unlock()
		switch {
		case !ok:
			return EndIdle
		case c.until > 0 && next > c.until:
			c.mu.Lock()
			c.fired = c.until
			c.mu.Unlock()
			return EndDeadline
		}
		if c.mode != Virtual && !c.waitFor(next) {
			continue // woken early: a new timer, the work done or a failure
		}
		c.fire(next)
	}
}

// waitFor waits until the wall clock reaches the deadline's wall time; it
// reports false when woken before. Arriving late, whether the machine fell
// behind or the wait itself overran, holds emulated time back by the delay.
func (c *liveClock) waitFor(next time.Duration) bool {
	c.mu.Lock()
	target := c.w0.Add(saturate(float64(next) / c.k))
	c.mu.Unlock()
	if c.wall.Now().Before(target) {
		ch, release := c.wall.WaitUntil(target)
		defer release()
		select {
		case <-ch:
		case <-c.wake:
			return false
		}
	}
	// Waking a little after the target is the timer's own jitter, not an
	// overloaded machine: emulated time keeps its pace. Only a delay past
	// the tolerance is held back.
	if late := c.wall.Now().Sub(target); late > lateTolerance {
		c.mu.Lock()
		c.w0 = c.w0.Add(late)
		c.lag += late
		c.maxLate = max(c.maxLate, late)
		c.mu.Unlock()
	}
	return true
}

// lateTolerance is how late a wake-up may be before emulated time is held
// back: above the wall clock's timer jitter, below anything an engineer
// would call real time.
const lateTolerance = 5 * time.Millisecond

// progressing reports whether a pending timer is work moving forward
// (timers.progressing).
func (c *liveClock) progressing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers.progressing()
}

// fire posts every timer due at next whose actor is still there; emulated
// time runs on from next.
func (c *liveClock) fire(next time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fired = max(c.fired, next)
	if c.mode != Virtual {
		c.wf = c.wall.Now()
	}
	c.timers.popDue(next, func(t *timer) {
		if _, alive := c.sys.ProcessRegistry.GetLocal(t.to.Id); alive {
			c.sys.Root.Send(t.to, t.msg)
		} else {
			c.dropped++
		}
	})
}
