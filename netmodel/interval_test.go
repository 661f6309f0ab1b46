package netmodel

import (
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSolveIntervalSteps follows a solve interval of 1 s through its
// cases: a start after a quiet interval is solved at once, a start within
// the interval takes what its link has left (nothing, then 20 of 100
// freed by a cancel), the deferred re-solve comes at the interval's end,
// and completions keep the exact instants of the rates they had.
func TestSolveIntervalSteps(t *testing.T) {
	n, err := NewNetwork(Config{SolveInterval: time.Second})
	require.NoError(t, err)
	l, _ := n.AddLink(100)
	p, _ := n.AddLink(20)
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	rate := func(id FlowID) float64 {
		r, err := n.Rate(id)
		require.NoError(t, err)
		return r
	}
	advance := func(to time.Duration) []Completed {
		done, err := n.AdvanceTo(to)
		require.NoError(t, err)
		return append([]Completed(nil), done...)
	}
	next := func() time.Duration {
		at, ok := n.NextCompletion()
		require.True(t, ok)
		return at
	}

	a, err := n.Start(0, FlowSpec{Size: 200, Path: []LinkID{l, p}})
	require.NoError(t, err)
	assert.Equal(t, 20.0, rate(a))
	advance(ms(250))
	b, err := n.Start(ms(250), FlowSpec{Size: 200, Path: []LinkID{l}})
	require.NoError(t, err)
	assert.Equal(t, 80.0, rate(b), "no re-solve in the last second: solved at once")

	advance(ms(500))
	c, err := n.Start(ms(500), FlowSpec{Size: 40, Path: []LinkID{l}})
	require.NoError(t, err)
	assert.Equal(t, 0.0, rate(c), "the link is full until the re-solve at 1.25 s")
	assert.Equal(t, 80.0, rate(b))
	assert.Equal(t, ms(1250), next(), "the deferred re-solve comes before b's end at 2.75 s")
	_, err = n.Start(ms(1300), FlowSpec{Size: 1, Path: []LinkID{l}})
	require.ErrorIs(t, err, ErrPendingFinish, "moving past a due re-solve")

	assert.Empty(t, advance(ms(1250)))
	assert.Equal(t, 20.0, rate(a))
	assert.Equal(t, 40.0, rate(b))
	assert.Equal(t, 40.0, rate(c))

	advance(ms(1500))
	_, err = n.Cancel(ms(1500), a)
	require.NoError(t, err)
	d, err := n.Start(ms(1500), FlowSpec{Size: 5, Path: []LinkID{l}})
	require.NoError(t, err)
	assert.Equal(t, 20.0, rate(d), "what a's cancel freed")
	assert.Equal(t, 40.0, rate(b), "b and c keep their rates till 2.25 s")
	assert.Equal(t, ms(1750), next())
	done := advance(ms(1750))
	require.Len(t, done, 1)
	assert.Equal(t, Completed{ID: d, Size: 5, At: ms(1750)}, done[0])

	assert.Equal(t, ms(2250), next(), "c's end and the re-solve")
	done = advance(ms(2250))
	require.Len(t, done, 1)
	assert.Equal(t, c, done[0].ID)
	assert.Equal(t, 100.0, rate(b), "b alone after the re-solve")
	delivered, err := n.Delivered(b)
	require.NoError(t, err)
	assert.Equal(t, int64(120), delivered, "80 by 1.25 s and 40 since")
	assert.Equal(t, ms(3050), next())
	done = advance(ms(3050))
	require.Len(t, done, 1)
	assert.Equal(t, b, done[0].ID)
}

// TestSolveIntervalRandom drives random networks with a solve interval:
// the allocation always fits the links, every byte is accounted for, and
// whenever no re-solve waits it is the max-min one.
func TestSolveIntervalRandom(t *testing.T) {
	deferred, solved := 0, 0
	for seed := range int64(diffSeeds(t) / 4) {
		r := rand.New(rand.NewSource(seed))
		caps := make([]float64, 1+r.Intn(10))
		for i := range caps {
			caps[i] = randCapacity(r)
		}
		cfg := Config{SolveInterval: time.Duration(1 + r.Intn(2e9))}
		d := runCase(t, seed, r, cfg, caps)
		deferred += d.deferred
		solved += d.events - d.deferred
	}
	t.Logf("%d checks while a re-solve waited, %d solved", deferred, solved)
	require.Positive(t, deferred, "no case met a deferred re-solve")
	require.Positive(t, solved)
}

// TestSolveIntervalValidate rejects a negative interval.
func TestSolveIntervalValidate(t *testing.T) {
	_, err := NewNetwork(Config{SolveInterval: -time.Second})
	require.ErrorIs(t, err, ErrInvalid)
}
