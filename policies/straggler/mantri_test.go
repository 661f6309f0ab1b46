package straggler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// samples is t_new's distribution with every sample given, for a task of
// one byte and no lag.
func samples(xs ...float64) estimate {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return estimate{perByte: xs, sum: sum, d: 1}
}

// The thesis's example (notes §2.3): t_rem 5, every t_new sample 4.
func TestMantriOnTheThesisNumbers(t *testing.T) {
	p := DefaultMantriParams()
	est := samples(4, 4, 4, 4)
	for _, tc := range []struct {
		name    string
		waiting bool
		delta   float64
		want    verdict
	}{
		{"a task waits, Δ = 2: no restart (5 < 4 + 2), no duplicate (P(4 < 2.5) = 0 ≤ δ): the waiting task starts", true, 2, leaveTask},
		{"a task waits, Δ = 0.5: restart (5 > 4 + 0.5)", true, 0.5, restartTask},
		{"none waits, Δ = 0.25: duplicate (5 − 4 = 1 > ρΔ = 0.75)", false, 0.25, duplicateTask},
		{"none waits, Δ = 0.5: nothing (1 < ρΔ = 1.5)", false, 0.5, leaveTask},
	} {
		assert.Equal(t, tc.want, p.judge(5, est, 1, 0, tc.waiting, tc.delta), tc.name)
	}
}

// Never a copy expected slower (erratum 2), never past max_copies, never
// a restart past γ; a duplicate while tasks wait needs P(t_new <
// c/(c+1)·t_rem) > δ.
func TestMantriKeepsItsBounds(t *testing.T) {
	p := DefaultMantriParams()
	// Two of three samples are fast, so P(t_new < 2.5) = 2/3 > δ, but
	// E(t_new) = 34 > t_rem = 5: the copy is expected slower.
	skewed := samples(1, 1, 100)
	assert.Equal(t, leaveTask, p.judge(5, skewed, 1, 3, true, 0.25), "waiting")
	assert.Equal(t, leaveTask, p.judge(5, skewed, 1, 0, false, 0.25), "none waiting: E(t_rem − t_new) < 0")

	fast := samples(1, 1, 1, 1)
	assert.Equal(t, duplicateTask, p.judge(10, fast, 1, 3, true, 20), "γ restarts done: P(1 < 5) = 1 > δ duplicates")
	assert.Equal(t, restartTask, p.judge(10, fast, 1, 2, true, 1), "the third restart")
	assert.Equal(t, leaveTask, p.judge(10, fast, 3, 3, true, 20), "3 copies run: max_copies")
	assert.Equal(t, leaveTask, p.judge(10, fast, 3, 0, false, 0.1), "3 copies run, none waiting")
	assert.Equal(t, duplicateTask, p.judge(10, fast, 2, 3, false, 0.1), "2 copies run")
	// With c copies a duplicate needs t_new < c/(c+1)·t_rem: 2 copies and
	// t_rem 1.4 need t_new < 0.93, which no sample 1 is.
	assert.Equal(t, leaveTask, p.judge(1.4, fast, 2, 3, true, 20))
	assert.Equal(t, duplicateTask, p.judge(1.6, fast, 2, 3, true, 20))
	assert.Equal(t, leaveTask, p.judge(10, samples(), 1, 0, true, 1), "no sample: nothing to compare with")
}

// fakeView is a View with fixed waiting counts.
type fakeView [2]int

func (v fakeView) Waiting(k sched.TaskKind) int { return v[k] }

// rep is a report of a map that reads as it computes (overlapped), so
// the share of its input read is its score.
func rep(a sched.Attempt, score float64, start, now time.Duration) Report {
	return Report{Attempt: a, Score: score, Read: score, Start: start, At: now}
}

func at(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func mapAttempt(task, n int32) sched.Attempt {
	return sched.Attempt{Job: 1, Kind: sched.Map, Task: task, Attempt: n}
}

// phaseOf builds a policy over a job of maps, the first finished ones
// each taking 10 s for 100 bytes (0.1 s a byte), reporting half read at
// 5 s and all of it at 10 s, as they end.
func phaseOf(t *testing.T, name string, maps, finished int, delta time.Duration) Policy {
	t.Helper()
	p, err := New(name, nil, Setup{Tasks: [2]int{maps, 0}, Delta: delta})
	require.NoError(t, err)
	for i := range int32(finished) {
		p.Launched(0, Launch{Attempt: mapAttempt(i, 0), Bytes: 100})
		p.Progressed(at(5), rep(mapAttempt(i, 0), 0.5, 0, at(5)))
		p.Progressed(at(10), rep(mapAttempt(i, 0), 1, 0, at(10)))
		p.Ended(at(10), End{Attempt: mapAttempt(i, 0), Outcome: sched.Succeeded})
	}
	return p
}

// A running map whose rate over its last reports makes t_rem far above
// the 10 s a new copy would take is restarted while maps wait, and
// duplicated once none does; a map keeping pace is left alone.
func TestMantriRestartsWhileTasksWaitAndDuplicatesAfter(t *testing.T) {
	for _, waiting := range []bool{true, false} {
		p := phaseOf(t, "mantri", 6, 4, 2*time.Second)
		for _, m := range []int32{4, 5} {
			p.Launched(at(10), Launch{Attempt: mapAttempt(m, 0), Bytes: 100})
		}
		// Map 4 keeps pace (0.6 in 6 s: t_rem 4 s); map 5 went from 0.2
		// at 12 s to 0.22 at 16 s, 0.22 in 6 s since its launch, so its
		// t_rem is 0.78 / (0.22 / 6) = 21.3 s: over E(t_new) + Δ = 12 s,
		// and over t_new by more than ρΔ = 6 s.
		for _, r := range []Report{
			rep(mapAttempt(4, 0), 0.2, at(10), at(12)), rep(mapAttempt(4, 0), 0.6, at(10), at(16)),
			rep(mapAttempt(5, 0), 0.2, at(10), at(12)), rep(mapAttempt(5, 0), 0.22, at(10), at(16)),
		} {
			p.Progressed(r.At, r)
		}
		v := fakeView{1, 0}
		want := Restart
		if !waiting {
			v, want = fakeView{}, Duplicate
		}
		acts := p.Decide(at(16), v)
		require.Len(t, acts, 1, "waiting %v: %v", waiting, acts)
		assert.Equal(t, want, acts[0].Kind)
		assert.Equal(t, Task{sched.Map, 5}, acts[0].Task)
		assert.Empty(t, p.Decide(at(17), v), "asked once")
	}
}

// Pruning: of a task's copies that have run Δ, the one with the lowest
// t_rem stays; a copy younger than Δ is not judged.
func TestMantriPruningKeepsTheLowestTRem(t *testing.T) {
	p := phaseOf(t, "mantri", 2, 1, 2*time.Second)
	task := int32(1)
	for n, start := range []float64{10, 11, 12, 19} {
		p.Launched(at(start), Launch{Attempt: mapAttempt(task, int32(n)), Bytes: 100, Copy: n > 0})
	}
	// At 20 s: attempt 0 at 0.5 after 10 s, attempt 1 at 0.8 after 9 s,
	// attempt 2 at 0.2 after 8 s; attempt 3 launched 1 s ago.
	p.Progressed(at(20), rep(mapAttempt(task, 0), 0.5, at(10), at(20)))
	p.Progressed(at(20), rep(mapAttempt(task, 1), 0.8, at(11), at(20)))
	p.Progressed(at(20), rep(mapAttempt(task, 2), 0.2, at(12), at(20)))
	acts := p.Decide(at(20), fakeView{})
	var killed []sched.Attempt
	for _, a := range acts {
		if a.Kind == Kill {
			killed = append(killed, a.Attempt)
		}
	}
	assert.Equal(t, []sched.Attempt{mapAttempt(task, 0), mapAttempt(task, 2)}, killed)
	assert.Empty(t, p.Decide(at(20.5), fakeView{}), "each killed once")
}

// Pruning kills an attempt only once a kept one has caught up with it.
// Map 2's original has read 0.54 of its input by 28 s, its latest
// reports slowed (0.24 in 15 s: t_rem 29 s); a copy launched at 28 s has
// read 0.3 by 30.5 s, 2.5 s in (t_rem 6 s). The copy's t_rem is lower,
// but it is a forecast from its first seconds against the original's
// progress shown: both run on. Once the copy has read 0.6, past the
// original's 0.55, the original is killed.
func TestMantriPrunesOnlyAnAttemptCaughtUpWith(t *testing.T) {
	p := phaseOf(t, "mantri", 3, 2, 2*time.Second)
	orig, cp := mapAttempt(2, 0), mapAttempt(2, 1)
	p.Launched(at(10), Launch{Attempt: orig, Bytes: 100})
	for _, r := range []Report{rep(orig, 0.3, at(10), at(13)), rep(orig, 0.5, at(10), at(16)),
		rep(orig, 0.52, at(10), at(22)), rep(orig, 0.54, at(10), at(28))} {
		p.Progressed(r.At, r)
	}
	p.Launched(at(28), Launch{Attempt: cp, Bytes: 100, Copy: true})
	p.Progressed(at(29), rep(cp, 0.15, at(28), at(29)))
	p.Progressed(at(30.5), rep(cp, 0.3, at(28), at(30.5)))
	assert.Empty(t, p.Decide(at(30.5), fakeView{}), "the copy has not caught up")
	p.Progressed(at(32), rep(orig, 0.55, at(10), at(32)))
	p.Progressed(at(33), rep(cp, 0.6, at(28), at(33)))
	acts := p.Decide(at(33), fakeView{})
	require.Len(t, acts, 1, "%v", acts)
	assert.Equal(t, Action{Kind: Kill, Task: Task{sched.Map, 2}, Attempt: orig, Reason: acts[0].Reason}, acts[0])
}

// A task silent for 2Δ made no progress since its last report: its
// t_rem stops falling.
func TestMantriSilentTaskMadeNoProgress(t *testing.T) {
	p := phaseOf(t, "mantri", 2, 1, 2*time.Second).(*mantri)
	p.Launched(at(10), Launch{Attempt: mapAttempt(1, 0), Bytes: 100})
	p.Progressed(at(15), rep(mapAttempt(1, 0), 0.5, at(10), at(15)))
	a := p.phases[sched.Map].tasks[1].attempts[0]
	ph := &p.phases[sched.Map]
	assert.InDelta(t, 5, p.tRem(ph, a, 100, at(15)), 1e-9, "0.1 a second, half left")
	assert.InDelta(t, 2, p.tRem(ph, a, 100, at(18)), 1e-9, "3 s later, within 2Δ")
	assert.InDelta(t, 5, p.tRem(ph, a, 100, at(20)), 1e-9, "silent for 5 s > 2Δ: as at its report")
}

// The lag from a copy's request to its launch is measured and joins
// t_new; a copy no longer wanted is withdrawn, also when its task ends.
func TestBookMeasuresLagAndWithdraws(t *testing.T) {
	p := phaseOf(t, "mantri", 3, 2, 2*time.Second).(*mantri)
	assert.Equal(t, time.Duration(0), p.lag())
	p.Launched(at(10), Launch{Attempt: mapAttempt(2, 0), Bytes: 100})
	p.Progressed(at(12), rep(mapAttempt(2, 0), 0.01, at(10), at(12)))
	acts := p.Decide(at(12), fakeView{})
	require.Equal(t, []Action{{Kind: Duplicate, Task: Task{sched.Map, 2}, Reason: acts[0].Reason}}, acts)
	p.Launched(at(15), Launch{Attempt: mapAttempt(2, 1), Bytes: 100, Copy: true})
	assert.Equal(t, 3*time.Second, p.lag())
	p.Ended(at(20), End{Attempt: mapAttempt(2, 1), Outcome: sched.Succeeded})
	assert.Empty(t, p.Decide(at(20), fakeView{}))

	q := phaseOf(t, "mantri", 3, 2, 2*time.Second)
	q.Launched(at(10), Launch{Attempt: mapAttempt(2, 0), Bytes: 100})
	q.Progressed(at(12), rep(mapAttempt(2, 0), 0.01, at(10), at(12)))
	require.Len(t, q.Decide(at(12), fakeView{}), 1)
	q.Ended(at(13), End{Attempt: mapAttempt(2, 0), Outcome: sched.Succeeded})
	assert.Equal(t, []Action{{Kind: Withdraw, Task: Task{sched.Map, 2}, Reason: "no longer wanted"}}, q.Decide(at(13), fakeView{}))
}

func reduceAttempt(task, n int32) sched.Attempt {
	return sched.Attempt{Job: 1, Kind: sched.Reduce, Task: task, Attempt: n}
}

// A Hadoop reduce copies, then computes: a fresh copy races through its
// copy, so its score rises fast, but its t_rem still holds the phase's
// wrap-up, the time the finished reduces took from copied to done (15 s
// of 20 here, for the same 100 bytes). The original, deep in its compute
// at a steady pace, is the one pruning keeps.
func TestMantriJudgesAReduceByItsWrapUp(t *testing.T) {
	p, err := New("mantri", nil, Setup{Tasks: [2]int{0, 3}, Delta: 2 * time.Second})
	require.NoError(t, err)
	for i := range int32(2) {
		p.Launched(0, Launch{Attempt: reduceAttempt(i, 0), Bytes: 100})
		p.Progressed(at(2.5), Report{Attempt: reduceAttempt(i, 0), Score: 1.0 / 6, Read: 0.5, At: at(2.5)})
		p.Progressed(at(5), Report{Attempt: reduceAttempt(i, 0), Score: 1.0 / 3, Read: 1, At: at(5)})
		p.Ended(at(20), End{Attempt: reduceAttempt(i, 0), Outcome: sched.Succeeded})
	}
	orig, fresh := reduceAttempt(2, 0), reduceAttempt(2, 1)
	p.Launched(0, Launch{Attempt: orig, Bytes: 100})
	for _, r := range []Report{
		{Attempt: orig, Score: 1.0 / 3, Read: 1, At: at(5)},
		{Attempt: orig, Score: 2.0 / 3, Read: 1, At: at(12)},
		{Attempt: orig, Score: 0.8, Read: 1, At: at(16)},
	} {
		p.Progressed(r.At, r)
	}
	p.Launched(at(14), Launch{Attempt: fresh, Bytes: 100, Copy: true})
	p.Progressed(at(17), Report{Attempt: fresh, Score: 0.3, Read: 0.9, Start: at(14), At: at(17)})
	// The original: (1 − 0.8) / ((0.8 − 1/3) / 11 s) = 4.7 s left at 16 s;
	// the copy: 0.1 / 0.3 a second + 15 s of wrap-up = 15.3 s.
	acts := p.Decide(at(17), fakeView{})
	require.Len(t, acts, 1)
	assert.Equal(t, Action{Kind: Kill, Task: Task{sched.Reduce, 2}, Attempt: fresh, Reason: acts[0].Reason}, acts[0])
}

// reducePhase builds a policy over a job of reduces, the first finished
// ones each of 100 bytes: copied in 5 s (half at 2.5 s), then a 12 s
// compute (score 2/3 to 5/6) and a 3 s write (5/6 to 1), reporting every
// 6 s or so: 15 s of wrap-up, and 0.2 s a byte in all (t_new = 20 s).
// The last late of them have 50 bytes, so twice the seconds per byte,
// and first report their read's end 2.4 s into their compute, at score
// 0.7.
func reducePhase(t *testing.T, reduces, finished, late int, delta time.Duration) Policy {
	t.Helper()
	p, err := New("mantri", nil, Setup{Tasks: [2]int{0, reduces}, Delta: delta})
	require.NoError(t, err)
	for i := range int32(finished) {
		a, bytes := reduceAttempt(i, 0), int64(100)
		read := Report{Attempt: a, Score: 2.0 / 3, Read: 1, At: at(5)}
		if int(i) >= finished-late {
			bytes, read = 50, Report{Attempt: a, Score: 0.7, Read: 1, At: at(7.4)}
		}
		p.Launched(0, Launch{Attempt: a, Bytes: bytes})
		for _, r := range []Report{
			{Attempt: a, Score: 1.0 / 6, Read: 0.5, At: at(2.5)},
			read,
			{Attempt: a, Score: 0.75, Read: 1, At: at(11)},
			{Attempt: a, Score: 5.0 / 6, Read: 1, At: at(17)},
			{Attempt: a, Score: 11.0 / 12, Read: 1, At: at(18.5)},
		} {
			p.Progressed(r.At, r)
		}
		p.Ended(at(20), End{Attempt: a, Outcome: sched.Succeeded})
	}
	return p
}

// A reduce with 60 times the phase's data (partition skew) is as slow
// as its data says: a copy of it would take t_new = 0.2 s × 6000 = 1200
// s, and its own wrap-up, 900 s, 720 of compute then 180 of write, is
// on pace. 100 s into its compute, 800 s are left. Its score, 2/3 to 5/6
// over the compute and 5/6 to 1 over the write, rises at 1/4320 a
// second, which extrapolated to 1 would say 1340 s: more than t_new +
// Δ, so it would be restarted while reduces wait and copied once none
// does (1340 − 1200 > ρΔ = 30 s), each time throwing work away for a
// copy no faster. Paced against the phase's finished wrap-ups, score by
// score, it is left alone; slowed three times in its compute, it is
// still a straggler. Finished tasks that first reported their read's end
// past its score (their wrap-ups seen from 0.7 on, at twice the seconds
// per byte) do not pace it: only those that reached its score do.
func TestMantriLeavesASkewedTaskOnPace(t *testing.T) {
	const d, readFor, compute = 6000, 300, 720 // bytes, seconds, seconds
	for _, tc := range []struct {
		name    string
		slow    float64 // its compute's slowdown
		late    int     // of the 5 finished tasks, those first seen at 0.7
		waiting bool
		rem     float64 // its t_rem: the wrap-up left at its score × its pace
		want    []ActionKind
	}{
		{"on pace, none waiting: no copy", 1, 0, false, 800, nil},
		{"on pace, reduces waiting: no restart", 1, 0, true, 800, nil},
		{"on pace, 3 finished tasks first seen at 0.7: no copy", 1, 3, false, 800, nil},
		{"slowed 3× in its compute, none waiting: a copy", 3, 0, false, 3 * (900 - 100.0/3), []ActionKind{Duplicate}},
		{"slowed 3× in its compute, reduces waiting: a restart", 3, 0, true, 3 * (900 - 100.0/3), []ActionKind{Restart}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := reducePhase(t, 6, 5, tc.late, 10*time.Second)
			a, launch := reduceAttempt(5, 0), 100.0
			p.Launched(at(launch), Launch{Attempt: a, Bytes: d})
			p.Progressed(at(launch+readFor/2), Report{Attempt: a, Score: 1.0 / 6, Read: 0.5, Start: at(launch), At: at(launch + readFor/2)})
			read := launch + readFor
			for s := 0.0; s <= 100; s += 10 {
				score := 2.0/3 + s/(compute*tc.slow)/6
				p.Progressed(at(read+s), Report{Attempt: a, Score: score, Read: 1, Start: at(launch), At: at(read + s)})
			}
			v := fakeView{}
			if tc.waiting {
				v = fakeView{0, 1}
			}
			m := p.(*mantri)
			ph := &m.phases[sched.Reduce]
			assert.InDelta(t, tc.rem, m.tRem(ph, ph.tasks[5].attempts[0], d, at(read+100)), 1e-6)
			var got []ActionKind
			for _, act := range p.Decide(at(read+100), v) {
				got = append(got, act.Kind)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// A copy launched and not yet reported is expected to take t_new: the
// task's t_rem is no longer its slow original's, so the next decision
// neither copies it again nor, while maps wait, restarts it, killing
// the copy with the original.
func TestMantriCountsAFreshCopyAsTNew(t *testing.T) {
	for _, waiting := range []bool{false, true} {
		p := phaseOf(t, "mantri", 3, 2, 2*time.Second)
		orig, cp := mapAttempt(2, 0), mapAttempt(2, 1)
		p.Launched(at(10), Launch{Attempt: orig, Bytes: 100})
		p.Progressed(at(12), rep(orig, 0.01, at(10), at(12)))
		acts := p.Decide(at(12), fakeView{})
		require.Len(t, acts, 1)
		require.Equal(t, Duplicate, acts[0].Kind)
		p.Launched(at(15), Launch{Attempt: cp, Bytes: 100, Copy: true})
		// The original: 0.02 in 6 s, 294 s left; the copy, 1 s old, is
		// expected to end in t_new = 10 s + the 3 s lag, less the lag
		// and the second behind it: 9 s.
		p.Progressed(at(16), rep(orig, 0.02, at(10), at(16)))
		v := fakeView{}
		if waiting {
			v = fakeView{1, 0}
		}
		assert.Empty(t, p.Decide(at(16), v), "waiting %v", waiting)
	}
}

// A reduce launched before its job's maps all finished reads their
// outputs as they come: its read lasts as long as the maps do, not as
// long as a copy's would. Reduce 0 launches at 0 beside the job's one
// map, has copied 10% of its 100 bytes at 2 s, and the rest only once
// the map ends at 100 s, reporting all read at 102 s and ending at 110 s.
// A copy launched now would read it all at once: t_new is its 2 s of read
// after the map's end and its 8 s of wrap-up, 10 s, not (102 − 2) / 0.9
// + 8 = 119 s. Reduce 1, on the same 100 bytes, crawls through its
// compute, 90 s or so from its end: 80 s more than a copy would take,
// over ρΔ = 6 s, it is copied.
func TestMantriTNewOfAReduceHeldByTheMaps(t *testing.T) {
	p, err := New("mantri", nil, Setup{Tasks: [2]int{1, 2}, Delta: 2 * time.Second})
	require.NoError(t, err)
	m := mapAttempt(0, 0)
	p.Launched(0, Launch{Attempt: m, Bytes: 1000})
	for i := range int32(2) {
		p.Launched(0, Launch{Attempt: reduceAttempt(i, 0), Bytes: 100})
		p.Progressed(at(2), Report{Attempt: reduceAttempt(i, 0), Score: 0.1 / 3, Read: 0.1, At: at(2)})
	}
	p.Progressed(at(99), rep(m, 0.99, 0, at(99)))
	p.Ended(at(100), End{Attempt: m, Outcome: sched.Succeeded})
	r0, r1 := reduceAttempt(0, 0), reduceAttempt(1, 0)
	for _, r := range []Report{
		{Attempt: r0, Score: 1.0 / 3, Read: 1, At: at(102)},
		{Attempt: r0, Score: 2.0 / 3, Read: 1, At: at(105)},
		{Attempt: r1, Score: 1.0 / 3, Read: 1, At: at(102)},
	} {
		p.Progressed(r.At, r)
	}
	p.Ended(at(110), End{Attempt: r0, Outcome: sched.Succeeded})
	for _, r := range []Report{
		{Attempt: r1, Score: 0.4, Read: 1, At: at(110)},
		{Attempt: r1, Score: 0.45, Read: 1, At: at(118)},
	} {
		p.Progressed(r.At, r)
	}
	mt := p.(*mantri)
	ph := &mt.phases[sched.Reduce]
	assert.InDelta(t, 10, newEstimate(ph, 100, 0).mean(), 1e-9, "t_new: 2 s of read after the map's end, 8 s of wrap-up")
	assert.Greater(t, mt.tRem(ph, ph.tasks[1].attempts[0], 100, at(118)), 60.0)
	acts := p.Decide(at(118), fakeView{})
	require.Len(t, acts, 1, "%v", acts)
	assert.Equal(t, Action{Kind: Duplicate, Task: Task{sched.Reduce, 1}, Reason: acts[0].Reason}, acts[0])
}

// A map reads its block as it computes, up to its last half second of
// write, so with reports every 10 s a report seldom falls after its read
// and before its end. Such maps still give t_new its samples: maps 0 and
// 1 read half their 100 bytes by 5 s and end at 10 s, no report saying
// they had read it all, 0.1 s a byte; map 2, at 0.1 after 20 s, has
// t_rem 0.9 / 0.005 = 180 s, more than E(t_new) = 10 s by over ρΔ, and
// is duplicated once every map has started.
func TestMantriSamplesMapsNoReportSawPastTheirRead(t *testing.T) {
	p, err := New("mantri", nil, Setup{Tasks: [2]int{3, 0}, Delta: 2 * time.Second})
	require.NoError(t, err)
	for i := range int32(3) {
		p.Launched(0, Launch{Attempt: mapAttempt(i, 0), Bytes: 100})
	}
	for i := range int32(2) {
		p.Progressed(at(5), rep(mapAttempt(i, 0), 0.5, 0, at(5)))
		p.Ended(at(10), End{Attempt: mapAttempt(i, 0), Outcome: sched.Succeeded})
	}
	p.Progressed(at(10), rep(mapAttempt(2, 0), 0.05, 0, at(10)))
	p.Progressed(at(20), rep(mapAttempt(2, 0), 0.1, 0, at(20)))
	ph := &p.(*mantri).phases[sched.Map]
	require.Equal(t, 2, newEstimate(ph, 100, 0).n(), "a sample from each finished map")
	assert.InDelta(t, 10, newEstimate(ph, 100, 0).mean(), 1e-9)
	acts := p.Decide(at(20), fakeView{})
	require.Len(t, acts, 1, "%v", acts)
	assert.Equal(t, Duplicate, acts[0].Kind)
	assert.Equal(t, Task{sched.Map, 2}, acts[0].Task)
}

// A reduce launched before its job's maps all finished reads their
// outputs as they come, so its read over its latest reports is the maps'
// pace, not its own; a copy would wait for the same maps. Reduce 1 has
// copied 14% of its input by 90 s, while the job's one map runs to 100 s;
// at 112 s, its first report since, it has copied 30%. Over its latest
// reports (2 s to 112 s) that is 0.2 in 110 s, t_rem 393 s against a
// copy's 10 s: it would be copied for having waited. It is judged only by
// its reports from the maps' end on: left alone until it has two, then
// copied only if it reads slowly itself.
func TestMantriJudgesAReducesReadFromItsMapsEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		next Report // its second report since the maps' end
		want []ActionKind
	}{
		{"it reads the rest in a second: on pace", Report{Score: 0.9 / 3, Read: 0.9, At: at(113)}, nil},
		{"0.02 in 8 s: t_rem 272 s, a copy", Report{Score: 0.32 / 3, Read: 0.32, At: at(120)}, []ActionKind{Duplicate}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New("mantri", nil, Setup{Tasks: [2]int{1, 2}, Delta: 2 * time.Second})
			require.NoError(t, err)
			m, r0, r1 := mapAttempt(0, 0), reduceAttempt(0, 0), reduceAttempt(1, 0)
			p.Launched(0, Launch{Attempt: m, Bytes: 1000})
			p.Launched(0, Launch{Attempt: r0, Bytes: 100})
			p.Launched(0, Launch{Attempt: r1, Bytes: 100})
			for _, r := range []Report{
				{Attempt: r0, Score: 0.1 / 3, Read: 0.1, At: at(2)},
				{Attempt: r1, Score: 0.1 / 3, Read: 0.1, At: at(2)},
				{Attempt: r1, Score: 0.12 / 3, Read: 0.12, At: at(60)},
				{Attempt: r1, Score: 0.14 / 3, Read: 0.14, At: at(90)},
			} {
				p.Progressed(r.At, r)
			}
			p.Progressed(at(99), rep(m, 0.99, 0, at(99)))
			p.Ended(at(100), End{Attempt: m, Outcome: sched.Succeeded})
			p.Progressed(at(102), Report{Attempt: r0, Score: 1.0 / 3, Read: 1, At: at(102)})
			p.Ended(at(110), End{Attempt: r0, Outcome: sched.Succeeded})
			p.Progressed(at(112), Report{Attempt: r1, Score: 0.3 / 3, Read: 0.3, At: at(112)})
			assert.Empty(t, p.Decide(at(112), fakeView{}), "one report since the maps' end")
			next := tc.next
			next.Attempt = r1
			p.Progressed(next.At, next)
			var got []ActionKind
			for _, act := range p.Decide(next.At, fakeView{}) {
				got = append(got, act.Kind)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
