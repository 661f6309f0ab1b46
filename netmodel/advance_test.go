package netmodel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newLinks(t *testing.T, cfg Config, caps ...float64) *Network {
	t.Helper()
	n, err := NewNetwork(cfg)
	require.NoError(t, err)
	for _, c := range caps {
		_, err := n.AddLink(c)
		require.NoError(t, err)
	}
	return n
}

func start(t *testing.T, n *Network, spec FlowSpec) FlowID {
	t.Helper()
	id, err := n.Start(n.Now(), spec)
	require.NoError(t, err)
	return id
}

func advance(t *testing.T, n *Network, to time.Duration) []Completed {
	t.Helper()
	done, err := n.AdvanceTo(to)
	require.NoError(t, err)
	require.NoError(t, checkInvariants(n))
	return append([]Completed(nil), done...)
}

// TestCompletionTimesAndBytes is the package example: 250 MB and 125 MB
// share one 125 MB/s link, 62.5 MB/s each. The small flow ends at
// 125/62.5 = 2 s; the big one has 250 − 125 = 125 MB left, gets 125 MB/s
// and ends at 3 s. At 1 s each has delivered 62.5 MB; at 2.5 s the big
// one has 125 + 0.5 × 125 = 187.5 MB. The link carried 375 MB in all.
func TestCompletionTimesAndBytes(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 125e6)
	big := start(t, n, FlowSpec{Size: 250e6, Path: []LinkID{0}, Owner: 7})
	small := start(t, n, FlowSpec{Size: 125e6, Path: []LinkID{0}, Owner: 8})
	at, ok := n.NextCompletion()
	require.True(t, ok)
	assert.Equal(t, 2*time.Second, at)

	assert.Empty(t, advance(t, n, time.Second))
	for _, id := range []FlowID{big, small} {
		got, _ := n.Delivered(id)
		assert.Equal(t, int64(62.5e6), got)
	}
	carried, _ := n.Carried(0)
	assert.Equal(t, int64(125e6), carried)

	done := advance(t, n, 2500*time.Millisecond)
	assert.Equal(t, []Completed{{ID: small, Owner: 8, Size: 125e6, At: 2 * time.Second}}, done)
	got, _ := n.Delivered(big)
	assert.Equal(t, int64(187.5e6), got)
	rate, _ := n.Rate(big)
	assert.Equal(t, 125e6, rate)

	done = advance(t, n, time.Hour)
	assert.Equal(t, []Completed{{ID: big, Owner: 7, Size: 250e6, At: 3 * time.Second}}, done)
	carried, _ = n.Carried(0)
	assert.Equal(t, int64(375e6), carried)
	assert.Equal(t, time.Hour, n.Now())
	_, err := n.Rate(big)
	assert.ErrorIs(t, err, ErrUnknownFlow)
}

// TestSimultaneousCompletions: three 100-byte flows on a 300 B/s link
// get 100 B/s each and all end at 1 s; they are reported together in id
// order after one re-solve for the batch.
func TestSimultaneousCompletions(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 300)
	var ids []FlowID
	for range 3 {
		ids = append(ids, start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}}))
	}
	n.Solve()
	solves := n.Stats().Solves
	done := advance(t, n, 5*time.Second)
	require.Len(t, done, 3)
	for i, c := range done {
		assert.Equal(t, ids[i], c.ID)
		assert.Equal(t, time.Second, c.At)
	}
	assert.Equal(t, solves+1, n.Stats().Solves)
}

// TestCancelMidFlow: two flows of 1000 B share 100 B/s, 50 B/s each. At
// 3.5 s one is canceled having delivered 175 B; the other has 825 B left
// at 100 B/s and ends at 3.5 + 8.25 = 11.75 s. The link carried
// 175 + 1000 = 1175 B.
func TestCancelMidFlow(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 100)
	a := start(t, n, FlowSpec{Size: 1000, Path: []LinkID{0}})
	b := start(t, n, FlowSpec{Size: 1000, Path: []LinkID{0}})
	advance(t, n, 3500*time.Millisecond)
	got, err := n.Cancel(n.Now(), a)
	require.NoError(t, err)
	assert.Equal(t, int64(175), got)
	at, _ := n.NextCompletion()
	assert.Equal(t, 11750*time.Millisecond, at)
	done := advance(t, n, at)
	assert.Equal(t, []Completed{{ID: b, Size: 1000, At: at}}, done)
	carried, _ := n.Carried(0)
	assert.Equal(t, int64(1175), carried)
	_, err = n.Cancel(n.Now(), a)
	assert.ErrorIs(t, err, ErrUnknownFlow)
	assert.Equal(t, int64(1), n.Stats().Cancelations)
}

// TestZeroCapacityStallAndResume: 100 B over a link cut to 0 stalls (no
// completion is scheduled); at 5 s the link comes back at 50 B/s and the
// flow ends at 5 + 100/50 = 7 s. A cut mid-flow keeps what was sent: at
// 25 B/s for 2 s, 50 B, then cut for 10 s, then 50 B more at 25 B/s.
func TestZeroCapacityStallAndResume(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 0)
	id := start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}})
	_, ok := n.NextCompletion()
	assert.False(t, ok)
	advance(t, n, 5*time.Second)
	require.NoError(t, n.SetCapacity(n.Now(), 0, 50))
	assert.Equal(t, []Completed{{ID: id, Size: 100, At: 7 * time.Second}}, advance(t, n, 10*time.Second))

	id = start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}})
	require.NoError(t, n.SetCapacity(n.Now(), 0, 25))
	advance(t, n, 12*time.Second)
	require.NoError(t, n.SetCapacity(n.Now(), 0, 0))
	rate, _ := n.Rate(id)
	assert.Zero(t, rate)
	advance(t, n, 22*time.Second)
	got, _ := n.Delivered(id)
	assert.Equal(t, int64(50), got)
	require.NoError(t, n.SetCapacity(n.Now(), 0, 25))
	assert.Equal(t, []Completed{{ID: id, Size: 100, At: 24 * time.Second}}, advance(t, n, time.Minute))
}

// TestResizingAnIdleLink costs no re-solve, and a flow started on the link
// afterwards gets the new capacity: 100 B at 50 B/s = 2 s.
func TestResizingAnIdleLink(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 10, 10)
	start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}})
	n.Solve()
	solves := n.Stats().Solves
	require.NoError(t, n.SetCapacity(n.Now(), 1, 50))
	n.Solve()
	assert.Equal(t, solves, n.Stats().Solves)
	id := start(t, n, FlowSpec{Size: 100, Path: []LinkID{1}})
	rate, err := n.Rate(id)
	require.NoError(t, err)
	assert.InDelta(t, 50.0, rate, 1e-9)
	assert.Contains(t, advance(t, n, time.Minute), Completed{ID: id, Size: 100, At: 2 * time.Second})
}

// TestZeroSizeFlow completes at the instant it starts, even on a cut link.
func TestZeroSizeFlow(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 0)
	advance(t, n, time.Second)
	id := start(t, n, FlowSpec{Size: 0, Path: []LinkID{0}, Owner: 3})
	at, ok := n.NextCompletion()
	require.True(t, ok)
	assert.Equal(t, time.Second, at)
	assert.Equal(t, []Completed{{ID: id, Owner: 3, At: time.Second}}, advance(t, n, time.Second))
}

// TestCompletionWindow: 2048 B and 2049 B on separate 2048 B/s links end
// at 1 s and 2049/2048 s = 1.00048828125 s, i.e. 1,000,488,282 ns after
// rounding up. With w = 1 ms both complete at 1 s in one batch (the second
// 0.49 ms early, its last byte delivered instantly); with w = 0 apart.
func TestCompletionWindow(t *testing.T) {
	for _, tc := range []struct {
		window time.Duration
		want   []time.Duration
	}{{0, []time.Duration{time.Second, 1000488282}}, {time.Millisecond, []time.Duration{time.Second, time.Second}}} {
		n := newLinks(t, Config{CompletionWindow: tc.window}, 2048, 2048)
		start(t, n, FlowSpec{Size: 2048, Path: []LinkID{0}})
		start(t, n, FlowSpec{Size: 2049, Path: []LinkID{1}})
		done := advance(t, n, 2*time.Second)
		require.Len(t, done, 2)
		assert.Equal(t, tc.want, []time.Duration{done[0].At, done[1].At}, "window %v", tc.window)
		carried, _ := n.Carried(1)
		assert.Equal(t, int64(2049), carried)
	}
}

// TestChangesAfterPendingCompletion: a change at an instant past a
// pending completion is refused, so no completion is skipped.
func TestChangesAfterPendingCompletion(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 100)
	start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}})
	_, err := n.Start(2*time.Second, FlowSpec{Size: 1, Path: []LinkID{0}})
	assert.ErrorIs(t, err, ErrPendingFinish)
	_, err = n.Start(500*time.Millisecond, FlowSpec{Size: 1, Path: []LinkID{0}})
	assert.NoError(t, err)
	_, err = n.AdvanceTo(0)
	assert.ErrorIs(t, err, ErrTimeBackwards)
	assert.ErrorIs(t, n.SetCapacity(0, 0, 1), ErrTimeBackwards)
}

// TestBatchedChangesShareOneSolve: a hundred starts and a capacity change
// at one instant cost one re-solve.
func TestBatchedChangesShareOneSolve(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 1000, 1000)
	for i := range 100 {
		start(t, n, FlowSpec{Size: 10, Path: []LinkID{LinkID(i % 2)}})
	}
	require.NoError(t, n.SetCapacity(0, 1, 500))
	assert.Zero(t, n.Stats().Solves)
	_, _ = n.NextCompletion()
	_, _ = n.NextCompletion()
	assert.Equal(t, int64(1), n.Stats().Solves)
	assert.Equal(t, int64(100), n.Stats().FlowsSolved)
}

// TestOnlyTheTouchedComponentIsSolved: two disjoint links; a change on
// one re-solves its 3 flows only.
func TestOnlyTheTouchedComponentIsSolved(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 100, 100)
	for i := range 6 {
		start(t, n, FlowSpec{Size: 100, Path: []LinkID{LinkID(i % 2)}})
	}
	n.Solve()
	before := n.Stats().FlowsSolved
	start(t, n, FlowSpec{Size: 100, Path: []LinkID{1}})
	n.Solve()
	assert.Equal(t, before+4, n.Stats().FlowsSolved)
}

// A flow whose exact finish is a whole nanosecond finishes at that
// nanosecond: 67 MB at 125 MB/s is 67/125 = 0.536 s, though 67e6/125e6
// in floating point is a hair above 0.536 and its ceiling in nanoseconds
// would be 536000001. The same holds for sizes and rates whose quotient
// is not exact in binary: 3 bytes at 7 B/s is 3/7 s = 428571428.57… ns,
// reported at the next whole nanosecond, 428571429.
func TestWholeNanosecondFinishesStayWhole(t *testing.T) {
	for _, tc := range []struct {
		size int64
		rate float64
		want time.Duration
	}{
		{67e6, 125e6, 536 * time.Millisecond},
		{1e6, 125e6, 8 * time.Millisecond},
		{3, 7, 428571429},
		{128 << 20, 100e6, 1342177280},
		{1, 1e9, 1},
	} {
		n := newLinks(t, DefaultConfig(), tc.rate)
		start(t, n, FlowSpec{Size: tc.size, Path: []LinkID{0}})
		at, ok := n.NextCompletion()
		require.True(t, ok)
		assert.Equal(t, tc.want, at, "%d B at %g B/s", tc.size, tc.rate)
		done := advance(t, n, time.Hour)
		require.Len(t, done, 1)
		assert.Equal(t, tc.want, done[0].At)
	}
}

// A completion and the starts that follow it at the same instant share
// one re-solve: 100 B and 200 B share 100 B/s (50 each), so the small flow
// ends at 2 s; advancing to exactly 2 s and starting a flow there costs one
// solve, after which the big flow (100 B left) and the new one (100 B)
// share the link and both end at 4 s.
func TestCompletionAndStartAtOneInstantShareOneSolve(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 100)
	start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}})
	start(t, n, FlowSpec{Size: 200, Path: []LinkID{0}})
	at, ok := n.NextCompletion()
	require.True(t, ok)
	require.Equal(t, 2*time.Second, at)
	solves := n.Stats().Solves
	done, err := n.AdvanceTo(at) // not advance: its invariant check solves
	require.NoError(t, err)
	require.Len(t, done, 1)
	start(t, n, FlowSpec{Size: 100, Path: []LinkID{0}})
	next, ok := n.NextCompletion()
	require.True(t, ok)
	assert.Equal(t, 4*time.Second, next)
	assert.Equal(t, solves+1, n.Stats().Solves, "the completion and the start are re-solved together")
	assert.Len(t, advance(t, n, time.Hour), 2)
}
