package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLedgerHandsTheLowestUnitsWithinCapacity(t *testing.T) {
	l := newLedger(5, []int{2, 1})
	assert.Equal(t, []int{0, 1}, l.hand(0))
	assert.Equal(t, []int{2}, l.hand(1))
	assert.Empty(t, l.hand(0), "worker 0 is full")
	assert.True(t, l.finish(1))
	assert.Equal(t, []int{3}, l.hand(0))
	assert.False(t, l.complete())
}

// A lost worker's units wait again, lowest first, and go to the next
// worker with room; a late answer of the lost worker counts once.
func TestLedgerReturnsALostWorkersUnitsAndCountsEachOnce(t *testing.T) {
	l := newLedger(4, []int{1, 2})
	assert.Equal(t, []int{0}, l.hand(0))
	assert.Equal(t, []int{1, 2}, l.hand(1))
	assert.Equal(t, []int{1, 2}, l.lose(1))
	assert.Empty(t, l.lose(1), "lost once")
	assert.Empty(t, l.hand(1), "a lost worker gets nothing")
	assert.Equal(t, 1, l.live())
	assert.True(t, l.finish(0))
	assert.Equal(t, []int{1}, l.hand(0), "the lost worker's lowest unit first")
	assert.True(t, l.finish(2), "the lost worker's answer, on its way when it was lost")
	assert.True(t, l.finish(1))
	assert.False(t, l.finish(2), "counted once")
	assert.False(t, l.finish(7), "no such unit")
	assert.Equal(t, []int{3}, l.hand(0), "unit 2 is not handed out again")
	assert.True(t, l.finish(3))
	assert.True(t, l.complete())
	assert.Empty(t, l.hand(0))
}
