package qos

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

// A bucket starts full, refills at its rate from when it was last looked
// at, never beyond its capacity, and takes n tokens only when it holds
// them and n is within its capacity.
func TestBucketRefillsLazily(t *testing.T) {
	b := NewBucket(Class{Rate: 100, Capacity: 125}, time.Second)
	assert.Equal(t, 125.0, b.Tokens(time.Second))
	require.True(t, b.Take(time.Second, 100)) // 25 left
	assert.False(t, b.Take(time.Second, 50), "25 tokens do not cover 50")
	assert.InDelta(t, 25.0, b.Tokens(time.Second), 1e-9, "a refused task takes nothing")
	assert.InDelta(t, 35.0, b.Tokens(time.Second+100*ms), 1e-9, "100 tokens/s × 0.1 s")
	assert.InDelta(t, 125.0, b.Tokens(10*time.Second), 1e-9, "full at 125, not 925")
	assert.False(t, b.Take(10*time.Second, 126), "more than the capacity never conforms")
	assert.True(t, b.Take(10*time.Second, 125))
}

// α ← (α + μ)/2: from 0 at μ = 50 ms, 25, 37.5, 43.75 (notes §6.6).
func TestAlphaFollowsFeedback(t *testing.T) {
	c := NewClient(DefaultClasses(), 2, 0, RecoveryNone, 0)
	var got []float64
	for range 3 {
		c.Served(50 * ms)
		got = append(got, c.Alpha())
	}
	assert.Equal(t, []float64{25, 37.5, 43.75}, got)
}

// With constant task times D and time enough between tasks to refill
// (α = D, the bucket full), a class's task is non-conformant iff D is
// above its capacity: basic 125 ms, advanced 150 ms, premium 10 s.
// Premium and advanced then degrade one class, free; basic drops.
func TestConformanceThresholds(t *testing.T) {
	for class, c := range DefaultClasses() {
		limit := time.Duration(c.Capacity) * ms
		for _, d := range []time.Duration{limit / 2, limit, limit + ms} {
			t.Run(fmt.Sprintf("%s %v", c.Name, d), func(t *testing.T) {
				cl := NewClient(DefaultClasses(), class, Tokens(d), RecoveryNone, 0)
				at := time.Duration(0)
				for range 5 {
					v := cl.Post(at)
					cl.Served(d)
					if d <= limit {
						assert.Equal(t, Verdict{Class: class, Conformant: true, Cost: Tokens(d)}, v)
					} else if class == 2 {
						assert.Equal(t, Verdict{Class: 2, Dropped: true}, v)
					} else {
						assert.Equal(t, Verdict{Class: class + 1}, v)
						assert.True(t, v.Degraded())
					}
					at += 200 * time.Second // refills even premium's 10,000 tokens
				}
			})
		}
	}
}

// The lock-out: a basic client whose α has passed 125 drops every task,
// and dropped tasks bring no feedback, so α stays; with decay each
// silent period feeds it the declared 50 ms until a task conforms again.
func TestBasicLockOutAndDecay(t *testing.T) {
	for _, tc := range []struct {
		recovery Recovery
		want     []bool // conformant, period after period
	}{
		{RecoveryNone, []bool{false, false, false, false, false}},
		// α 200 → 125 (conforms: 125 ≤ 125, bucket full)
		{RecoveryDecay, []bool{false, true, true, true, true}},
	} {
		t.Run(string(tc.recovery), func(t *testing.T) {
			c := NewClient(DefaultClasses(), 2, 50, tc.recovery, 0)
			c.Served(350 * ms) // α = 200
			c.Silence()        // the period of that feedback
			var got []bool
			at := time.Duration(0)
			for range tc.want {
				at += 10 * time.Second
				v := c.Post(at)
				got = append(got, v.Conformant)
				if v.Conformant {
					c.Served(50 * ms)
				}
				c.Silence()
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// WRR serves at most the sum of the weights a round, highest class
// first; with every queue backlogged, 10/14, 3/14 and 1/14 of the tasks;
// an empty queue is skipped, and the round resumes where it stopped.
func TestWRRShares(t *testing.T) {
	w := NewWRR[int]([]int{10, 3, 1})
	for c := range 3 {
		for i := range 1400 {
			w.Push(c, c*10000+i)
		}
	}
	var round []int
	for range 14 {
		_, c, ok := w.Next()
		require.True(t, ok)
		round = append(round, c)
	}
	assert.Equal(t, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2}, round, "one round: ≤ 14 tasks")
	count := [3]int{}
	for range 1400 - 14 {
		_, c, _ := w.Next()
		count[c]++
	}
	assert.Equal(t, [3]int{990, 297, 99}, count, "10/14, 3/14, 1/14 of 1386")

	e := NewWRR[string]([]int{10, 3, 1})
	e.Push(2, "b1")
	e.Push(1, "a1")
	e.Push(2, "b2")
	assert.Equal(t, []string{"a1", "b1", "b2"}, drain(e), "premium's empty queue skipped; basic takes 1 a round")
	assert.Zero(t, e.Len())
}

// Remove takes tasks out of every queue, keeping the others' order.
func TestWRRRemove(t *testing.T) {
	w := NewWRR[int]([]int{1, 1})
	for i := range 6 {
		w.Push(i%2, i)
	}
	assert.Equal(t, 2, w.Remove(func(x int) bool { return x == 2 || x == 3 }))
	assert.Equal(t, []int{0, 1, 4, 5}, drain(w))
}

// drain takes every queued task in WRR order.
func drain[T any](w *WRR[T]) []T {
	var out []T
	for {
		x, _, ok := w.Next()
		if !ok {
			return out
		}
		out = append(out, x)
	}
}

// Classes with a rate, capacity or weight out of range, or a name given
// twice, are refused at their keys.
func TestValidateClasses(t *testing.T) {
	assert.Empty(t, ValidateClasses(DefaultClasses()))
	errs := ValidateClasses([]Class{
		{Name: "gold", Rate: 0, Capacity: 10, Weight: 1},
		{Name: "gold", Rate: 1, Capacity: -1, Weight: 0},
	})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"classes[0].rate = 0: must be a finite number > 0 (tokens per second; a token is 1 ms of compute)",
		`classes[1].name = "gold": names classes[0] again`,
		"classes[1].capacity = -1: must be a finite number > 0 (tokens)",
		"classes[1].weight = 0: must be a whole number in [1, 1048576] (tasks a WRR round)",
	}, got)
	assert.Len(t, ValidateClasses(nil), 1)
}
