package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
)

// The clock's timers fire in (deadline, order set) order whatever mix of
// one-shot, periodic and cancelled timers they hold: checked against a
// plain sorted list over random workloads.
func TestTimerHeapMatchesASortedList(t *testing.T) {
	type ref struct {
		id      actors.TimerID
		at      time.Duration
		seq     int
		period  time.Duration
		stopped bool
	}
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		ts := newTimers()
		var refs []*ref
		seq := 0
		now := time.Duration(0)
		for range 200 {
			switch op := rng.IntN(10); {
			case op < 5: // a one-shot or periodic timer
				at := now + time.Duration(rng.IntN(20))*time.Millisecond
				var period time.Duration
				if op == 0 {
					period = time.Duration(1+rng.IntN(10)) * time.Millisecond
				}
				seq++
				refs = append(refs, &ref{id: ts.add(at, period, nil, nil), at: at, seq: seq, period: period})
			case op < 7 && len(refs) > 0: // cancel one
				r := refs[rng.IntN(len(refs))]
				assert.Equal(t, !r.stopped, ts.cancel(r.id), "cancel reports whether the timer was pending")
				r.stopped = true
			default: // move the clock on
				now += time.Duration(rng.IntN(8)) * time.Millisecond
				var want []actors.TimerID
				for {
					live := slices.DeleteFunc(slices.Clone(refs), func(r *ref) bool { return r.stopped || r.at > now })
					if len(live) == 0 {
						break
					}
					first := slices.MinFunc(live, func(a, b *ref) int {
						if a.at != b.at {
							return int(a.at - b.at)
						}
						return a.seq - b.seq
					})
					want = append(want, first.id)
					if first.period > 0 {
						seq++
						first.at, first.seq = first.at+first.period, seq
					} else {
						first.stopped = true
					}
				}
				var got []actors.TimerID
				ts.popDue(now, func(tm *timer) { got = append(got, tm.id) })
				require.Equal(t, want, got, "seed %d at %v", seed, now)
			}
		}
	}
}

// A burst of timers leaves at most maxFree of them kept for reuse once
// they have fired, and those are reused.
func TestTimersKeepFewEndedForReuse(t *testing.T) {
	ts := newTimers()
	var first []actors.TimerID
	for i := range 3 * maxFree {
		first = append(first, ts.add(time.Duration(i), 0, nil, nil))
	}
	fired := 0
	ts.popDue(time.Hour, func(*timer) { fired++ })
	assert.Equal(t, 3*maxFree, fired)
	assert.Len(t, ts.free, maxFree)
	ts.add(time.Hour, 0, nil, nil)
	assert.Len(t, ts.free, maxFree-1)

	// A second burst takes the places the first let go: the slab does
	// not grow, and no ID of the first burst names a timer of the second.
	var second []actors.TimerID
	for i := range 3*maxFree - 1 {
		second = append(second, ts.add(2*time.Hour+time.Duration(i), 0, nil, nil))
	}
	assert.Len(t, ts.slab, 3*maxFree)
	for _, id := range first {
		require.False(t, ts.cancel(id), "an ended timer's ID")
	}
	assert.Len(t, ts.heap, 3*maxFree, "cancelling old IDs left every new timer")
	for _, id := range second {
		require.True(t, ts.cancel(id))
	}
}
