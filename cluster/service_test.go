package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The queue is kept window by window at its most, and held still between
// windows in which it changed; a run in which it never changed has none.
func TestQueueTallyKeepsEachWindowsMost(t *testing.T) {
	ms := time.Millisecond
	s := time.Second
	q := newQueueTally()
	q.change(200*ms, 1)
	q.change(300*ms, 1)
	q.change(300*ms, 1) // three at 0.3 s
	q.change(500*ms, -1)
	q.change(900*ms, -1) // one left at 0.9 s
	q.change(3500*ms, 1) // two from 3.5 s
	assert.Equal(t, []QueueSpan{{0, s, 3}, {s, 3 * s, 1}, {3 * s, 4 * s, 2}, {4 * s, 10 * s, 2}}, q.until(10*s))

	q = newQueueTally()
	q.change(2500*ms, 4)
	assert.Equal(t, []QueueSpan{{0, 2 * s, 0}, {2 * s, 2700 * ms, 4}}, q.until(2700*ms), "the last window ends with the run")
	assert.Equal(t, []QueueSpan(nil), newQueueTally().until(5*s))
}
