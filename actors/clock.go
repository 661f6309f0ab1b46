package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// TimerID names a timer set on a Clock; 0 is never a valid timer.
type TimerID uint64

// Clock is the emulated time source and timer service actors use. Time is
// emulated time since the run started. Timers deliver a message to an
// actor at an emulated instant; timers due at the same instant deliver in
// the order they were set, and a timer aimed at an actor that has stopped
// is dropped. Actors never read the wall clock.
type Clock interface {
	// Now returns the emulated time.
	Now() time.Duration
	// After delivers msg to `to` at Now()+d; d ≤ 0 means "at the end of
	// this instant", after every message already queued for it.
	After(d time.Duration, to *actor.PID, msg any) TimerID
	// At delivers msg to `to` at instant t (now, if t is in the past).
	At(t time.Duration, to *actor.PID, msg any) TimerID
	// Every delivers msg to `to` at first, first+period, first+2·period,
	// ...: absolute deadlines, so a late delivery never shifts later ones.
	Every(first, period time.Duration, to *actor.PID, msg any) TimerID
	// Cancel stops a timer, periodic ones included. A cancelled timer never
	// delivers again; a message it already delivered stays delivered. It
	// reports whether the timer was still pending.
	Cancel(id TimerID) bool
}
