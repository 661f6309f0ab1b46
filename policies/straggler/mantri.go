package straggler

import (
	"fmt"
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// MantriParams are "mantri"'s parameters (Ananthanarayanan's thesis
// §4.2.2, notes §2.3–2.4):
//
//	gamma = 3      # kills of one task at most (restarts and pruned copies)
//	delta = 0.25   # duplicate while tasks wait if P(t_new < c/(c+1)·t_rem) > delta
//	rho = 3        # duplicate once all started if E(t_rem − t_new) > rho·Δ
//	keep = 1       # copies of a task left after pruning
//	max_copies = 3 # running copies of one task at most
//	cap = 1.0      # copies running at once, a share of the slots
type MantriParams struct {
	Gamma     int     `toml:"gamma"`
	Delta     float64 `toml:"delta"`
	Rho       float64 `toml:"rho"`
	Keep      int     `toml:"keep"`
	MaxCopies int     `toml:"max_copies"`
	CapShare  float64 `toml:"cap"`
}

// DefaultMantriParams returns the thesis's values: γ = 3, δ = 0.25,
// ρ = 3, the fastest copy kept, at most 3 copies, no cap.
func DefaultMantriParams() *MantriParams {
	return &MantriParams{Gamma: 3, Delta: 0.25, Rho: 3, Keep: 1, MaxCopies: 3, CapShare: 1}
}

// maxCopies bounds max_copies: each is a slot.
const maxCopies = 100

// Validate implements Params.
func (p *MantriParams) Validate() error {
	var c checks
	c.check(p.Gamma < 0, "gamma", p.Gamma, "must be ≥ 0 kills of a task")
	c.share("delta", p.Delta, true)
	c.check(!(p.Rho >= 0 && p.Rho <= 1e6), "rho", p.Rho, "must be ≥ 0 report periods")
	c.check(p.MaxCopies < 1 || p.MaxCopies > maxCopies, "max_copies", p.MaxCopies, fmt.Sprintf("must be 1 … %d running copies of a task", maxCopies))
	c.check(p.Keep < 1 || p.Keep > max(p.MaxCopies, 1), "keep", p.Keep, fmt.Sprintf("must be 1 … max_copies = %d", p.MaxCopies))
	c.share("cap", p.CapShare, false)
	return c.err()
}

// Cap implements Params.
func (p *MantriParams) Cap() float64 { return p.CapShare }

// SlowNodes implements Params.
func (*MantriParams) SlowNodes() float64 { return 0 }

// mantri is Mantri's resource-aware speculation (the thesis's Pseudocode
// 5 with the notes' corrections), run per phase on each decision:
//
//   - prune: of a task's attempts that have run at least Δ, keep the keep
//     with the lowest t_rem and kill the others once a kept one has
//     caught up with them;
//   - while tasks of the phase wait for slots: kill and restart a task
//     elsewhere if t_rem > E(t_new) + Δ, at most γ times; else duplicate it if
//     P(t_new < c/(c+1)·t_rem) > δ with c its running copies, so the
//     copies use fewer slot-seconds than the task alone would;
//   - once all have started: duplicate iff E(t_rem − t_new) > ρΔ (the
//     thesis prints t_new − t_rem, which would copy tasks expected to be
//     slower: erratum 2).
//
// A task's t_rem is its copies' lowest, a copy not yet reported counting
// as E(t_new) less the lag and its time since launch. Never a copy
// expected slower than its task (E(t_new) ≥ t_rem), past max_copies, or a
// restart past γ. Starting the waiting task with the
// most data (line 8) is the coordinator's, with tasks.largest_first.
//
// t_rem = t_elapsed·(d − d_read)/d_read + t_wrapup (eq. 4.1 as remaining
// time, erratum 1), with d_read/d the share of its input the attempt has
// read (a reduce: the map outputs it copied) and t_elapsed over its last
// reports (a moving average), so an onset part-way shows; a reduce's
// reports count from its job's maps' end on, before which its read is
// held by the maps and it is not judged (readRate). t_wrapup, the
// time from all input read to the end, is the median of the phase's
// finished tasks' per input byte × d. Once the attempt has read it all,
// its remaining wrap-up is what the finished tasks had left at its score,
// per byte × d, times its pace against theirs over its latest reports
// (wrapRem), so a slowdown in the compute shows; t_wrapup less the time
// since until its reports can be paced. Not its score extrapolated to 1:
// a Hadoop reduce's score gives its compute and its write a sixth each,
// so a reduce whose compute dominates would look twice as slow as it is,
// and one with 60 times the phase's data would look more than a copy's
// t_new behind, a copy as slow as it. Nor a rate from its score alone
// before: a Hadoop reduce copies before it computes, and every fresh
// copy, racing through the copy, would look the fastest. A task silent
// for 2Δ made no progress since its last report.
//
// t_new = processRate × d + schedLag (eq. 4.2 with locationFactor 1):
// processRate takes each finished task's seconds per input byte between
// its reports (Δtime/Δdata, book.go) as a sample, d is the task's input,
// schedLag the mean delay from a copy's request or a restart to its
// launch; P and E are exact over the samples.
type mantri struct {
	book
	p MantriParams
	// Scratch space of Decide, kept to spare an allocation per task.
	alive   []*attemptState
	rems    []float64
	old     []int
	scratch []float64
}

func newMantri(p *MantriParams, s Setup) Policy {
	m := &mantri{book: newBook(s), p: *p}
	m.profiling = true
	return m
}

// Name implements Policy.
func (*mantri) Name() string { return "mantri" }

// Decide implements Policy.
func (m *mantri) Decide(now time.Duration, v View) []Action {
	var out []Action
	var want []Task
	delta := m.setup.Delta.Seconds()
	lag := m.lag().Seconds()
	for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
		p := &m.phases[kind]
		waiting := v.Waiting(kind) > 0
		for _, i := range p.live {
			t, k := &p.tasks[i], Task{kind, i}
			if !m.copyable(k, t) {
				continue
			}
			alive := t.alive(m.alive[:0])
			rems := m.rems[:0]
			for _, a := range alive {
				rems = append(rems, m.tRem(p, a, t.bytes, now))
			}
			m.alive, m.rems = alive, rems
			kills := m.prune(now, t, alive, rems, len(p.wrapups) > 0)
			for _, j := range kills {
				alive[j].killed = true
				t.kills++
				out = append(out, Action{Kind: Kill, Task: k, Attempt: alive[j].attempt,
					Reason: "mantri: a faster copy of the task runs"})
			}
			est := newEstimate(p, t.bytes, lag)
			rem, c := math.Inf(1), 0
			for j, a := range alive {
				if slices.Contains(kills, j) {
					continue
				}
				r := rems[j]
				if a.reports == 0 && est.n() > 0 {
					// Not yet reported: a copy just launched is expected to
					// take t_new, its lag behind it. Unknown, it would let
					// the next decision copy the task again before the
					// first copy has said anything.
					r = max(est.mean()-est.lag-a.elapsed(now).Seconds(), 0)
				}
				rem, c = min(rem, r), c+1
			}
			switch m.p.judge(rem, est, c, t.kills, waiting, delta) {
			case restartTask:
				out = append(out, m.restart(now, k, fmt.Sprintf("mantri: t_rem %.1fs > E(t_new) %.1fs + Δ", rem, est.mean())))
			case duplicateTask:
				want = append(want, k)
			}
		}
	}
	return append(out, m.sync(now, want, "mantri: a copy is expected to save more than it costs")...)
}

// verdict is what Mantri makes of one running task.
type verdict uint8

const (
	leaveTask verdict = iota
	restartTask
	duplicateTask
)

// judge is Mantri's rule for one task: its remaining time rem, the
// estimate of a new copy's, its running copies c and kills so far,
// whether tasks of its phase wait, and Δ in seconds.
func (p *MantriParams) judge(rem float64, est estimate, c, kills int, waiting bool, delta float64) verdict {
	if math.IsInf(rem, 1) || est.n() == 0 {
		return leaveTask // no progress to judge, or nothing to compare with
	}
	mean := est.mean()
	if waiting {
		// A restart may come on a task's first reports, seconds after its
		// launch: the thesis acts early, waits Δ only before pruning
		// copies (line 3), and t_rem is then its read over its latest
		// reports. Not a misfire: in speculation.toml at full size a 5.4
		// GB map reading at a third of a new copy's pace or less is
		// restarted 5 s in (job 64's map 12, whose restart ends 1420 s
		// before the original's projected end), and 60 of the 62
		// restarts of attempts under 10 s old beat their originals'
		// projected ends.
		if kills < p.Gamma && rem > mean+delta {
			return restartTask
		}
		if c < p.MaxCopies && mean < rem && est.below(float64(c)/float64(c+1)*rem) > p.Delta {
			return duplicateTask
		}
		return leaveTask
	}
	if c < p.MaxCopies && rem-mean > p.Rho*delta {
		return duplicateTask
	}
	return leaveTask
}

// prune picks which of a task's attempts to kill: of those that have run
// at least Δ, all but the keep with the lowest t_rem (ties: the earliest
// launched is kept), while the task has been killed fewer than γ times,
// each kill counting: "never kills a task more than γ times", which also
// ends any round of copies that each looks faster than the last. Before
// any of the phase's tasks has shown its wrap-up (wrapups false), an
// attempt still reading has no known t_wrapup and its t_rem is its read
// alone: one that has read all its input is kept before it. An attempt
// is killed only once one kept has caught up with it, its progress score
// as high: until then the kept one's lower t_rem is a forecast against a
// progress shown, its wrap-up the phase's typical one where the other's
// is measured, or its rate over its first seconds against the other's
// over a slowdown that may pass. In the thesis's example (Fig. 4.4) the
// original runs until its duplicate is done ("2t before the original
// task is killed and t for the duplicate"). Killed on the forecast, a
// 4.2 GB reduce deep in its compute, paced at 2.6 times the phase's
// wrap-up, gave way to a copy 37 s old that then ran 1,422 s past the
// original's end.
func (m *mantri) prune(now time.Duration, t *taskState, attempts []*attemptState, rems []float64, wrapups bool) []int {
	old := m.old[:0]
	for j, a := range attempts {
		if a.elapsed(now) >= m.setup.Delta {
			old = append(old, j)
		}
	}
	m.old = old
	if len(old) <= m.p.Keep {
		return nil
	}
	stage := func(j int) int {
		if wrapups || attempts[j].readAt >= 0 {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(old, func(a, b int) int {
		switch {
		case stage(a) != stage(b):
			return stage(a) - stage(b)
		case rems[a] < rems[b]:
			return -1
		case rems[a] > rems[b]:
			return 1
		}
		return 0
	})
	kept, kill := old[:m.p.Keep], old[m.p.Keep:]
	lead := 0.0
	for _, j := range kept {
		lead = max(lead, attempts[j].score)
	}
	kill = slices.DeleteFunc(kill, func(j int) bool { return attempts[j].score > lead })
	kill = kill[:min(len(kill), max(m.p.Gamma-t.kills, 0))]
	slices.Sort(kill)
	return kill
}

// tRem is an attempt's remaining time in seconds, +Inf before its first
// report or when it has made no progress.
func (m *mantri) tRem(p *phase, a *attemptState, bytes int64, now time.Duration) float64 {
	if a.reports == 0 {
		return math.Inf(1)
	}
	wrapup := 0.0
	if len(p.wrapups) > 0 {
		wrapup = median(p.wrapups) * float64(max(bytes, 1))
	}
	var rem float64
	r := a.rate()
	if a.readAt < 0 {
		var known bool
		if r, known = m.readRate(a); !known {
			return math.Inf(1) // a reduce whose read the maps still hold
		}
	}
	switch {
	case a.readAt < 0 && r <= 0:
		return math.Inf(1) // it has read nothing since its launch
	case a.readAt < 0:
		rem = (1-a.read)/r + wrapup
	case a.score < 1 && a.n >= 2:
		left, ok := m.wrapRem(p, a, bytes)
		switch {
		case ok:
			rem = left
		case len(p.wrapups) > 0:
			rem = max(wrapup-(a.at-a.readAt).Seconds(), 0)
		case r <= 0:
			return math.Inf(1)
		default:
			rem = (1 - a.score) / r // nothing finished yet to pace it by
		}
	default:
		rem = max(wrapup-(a.at-a.readAt).Seconds(), 0)
	}
	if silent := now - a.at; silent <= 2*m.setup.Delta {
		rem -= silent.Seconds() // it goes on between reports
	}
	return max(rem, 0)
}

// wrapRem is the remaining time of an attempt that has read all its
// input and reports a score below 1, from the wrap-ups of the phase's
// latest finished tasks: what they had left at its latest score, per
// byte × d (the median), times its pace against theirs, the time each of
// its latest report intervals took over the time theirs took between the
// same scores, per byte × d (each the median of the tasks' own). The
// lower median of two or three intervals: one where it waited and they
// did not (a reduce waiting for a computing slot, its score's jump from
// 1/3 to 2/3) does not count. false, and t_wrapup less the time since
// takes over, when no finished task reached its score or with fewer than
// two intervals to compare; +Inf when it made no progress over its
// latest reports.
func (m *mantri) wrapRem(p *phase, a *attemptState, bytes int64) (float64, bool) {
	d := float64(max(bytes, 1))
	last := a.hist[a.n-1].score
	left, scratch, ok := p.wrapLeft(last, 1, m.scratch)
	m.scratch = scratch
	if !ok {
		return 0, false
	}
	var paces [histLen - 1]float64
	n, moved := 0, false
	for i := 1; i < a.n; i++ {
		from, to := a.hist[i-1], a.hist[i]
		if to.score <= from.score {
			continue
		}
		moved = true
		normal, scratch, ok := p.wrapLeft(from.score, to.score, m.scratch)
		m.scratch = scratch
		if ok && normal > 0 {
			paces[n] = (to.at - from.at).Seconds() / (normal * d)
			n++
		}
	}
	switch {
	case !moved:
		return math.Inf(1), true
	case n < 2:
		return 0, false
	}
	slices.Sort(paces[:n])
	return paces[(n-1)/2] * left * d, true
}

// estimate is t_new's distribution for a task of d input bytes: the
// phase's samples of seconds per byte, sorted, × d, plus the lag.
type estimate struct {
	perByte []float64
	sum     float64
	d, lag  float64
}

func newEstimate(p *phase, bytes int64, lag float64) estimate {
	return estimate{perByte: p.perByte, sum: p.perByteSum, d: float64(max(bytes, 1)), lag: lag}
}

func (e estimate) n() int { return len(e.perByte) }

// mean is E(t_new).
func (e estimate) mean() float64 { return e.sum/float64(len(e.perByte))*e.d + e.lag }

// below is P(t_new < x), exact over the samples.
func (e estimate) below(x float64) float64 {
	i, _ := slices.BinarySearch(e.perByte, (x-e.lag)/e.d)
	return float64(i) / float64(len(e.perByte))
}

// median is the median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
