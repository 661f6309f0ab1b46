package cluster

import (
	"sync"
	"time"
)

// WallClock is the real time the scaled and wall clocks follow. Tests
// inject a fake so that no test sleeps.
type WallClock interface {
	Now() time.Time
	// WaitUntil returns a channel that is closed once the clock reaches
	// t, and a function that releases the wait early.
	WaitUntil(t time.Time) (<-chan struct{}, func())
}

// systemClock is the machine's clock; its waits are runtime timers, which
// hold no goroutine.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) WaitUntil(t time.Time) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	var once sync.Once
	timer := time.AfterFunc(time.Until(t), func() { once.Do(func() { close(ch) }) })
	return ch, func() { timer.Stop() }
}
