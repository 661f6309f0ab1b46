package sched

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freshShares is FAIR's shares computed from nothing but the view, as
// Fair computed them on every slot offer before it kept its order
// (fairRank): the reference the kept order must equal.
func freshShares(f *Fair, v View, kind TaskKind) []jobShare {
	byPool := map[string][]JobStatus{}
	for st := range v.Jobs() {
		pool := f.poolOf(st.Job)
		byPool[pool] = append(byPool[pool], st)
	}
	names := slices.Sorted(maps.Keys(byPool))
	pools := make([]claim, len(names))
	for i, name := range names {
		pools[i] = freshPoolClaim(f, name, byPool[name], kind)
	}
	poolShares := fairShares(pools, float64(v.Slots(kind)))
	var out []jobShare
	for i, name := range names {
		jobs := byPool[name]
		claims := make([]claim, len(jobs))
		running := 0.0
		for k, st := range jobs {
			claims[k] = claim{weight: weightOf(st.Weight) * st.Priority.ShareFactor(), demand: float64(st.Attempts(kind) + st.Pending(kind))}
			running += float64(st.Attempts(kind))
		}
		jobShares := fairShares(claims, poolShares[i])
		minDemand := min(pools[i].min, pools[i].demand)
		for k, st := range jobs {
			out = append(out, jobShare{
				id: st.ID, submit: st.Submit, pool: name, fair: jobShares[k], running: float64(st.Attempts(kind)),
				needy: running < minDemand, poolRatio: ratio(running, minDemand),
				poolRunning: running, poolFair: poolShares[i], poolMinDemand: minDemand,
			})
		}
	}
	return out
}

func freshPoolClaim(f *Fair, name string, jobs []JobStatus, kind TaskKind) claim {
	c := claim{weight: 1}
	if p := f.pools[name]; p != nil {
		c.min, c.weight = float64(p.MinShare[kind]), weightOf(p.Weight)
	}
	for _, st := range jobs {
		c.demand += float64(st.Attempts(kind) + st.Pending(kind))
	}
	return c
}

// freshRanked is freshShares in slot order.
func freshRanked(f *Fair, v View, kind TaskKind) []*jobShare {
	js := freshShares(f, v, kind)
	ptrs := make([]*jobShare, len(js))
	for i := range js {
		ptrs[i] = &js[i]
	}
	slices.SortFunc(ptrs, compareShares)
	return ptrs
}

// sameShare reports how two shares differ, to the bit, or "".
func sameShare(a, b *jobShare) string {
	floats := [][2]float64{
		{a.fair, b.fair}, {a.poolRatio, b.poolRatio}, {a.running, b.running},
		{a.poolRunning, b.poolRunning}, {a.poolFair, b.poolFair}, {a.poolMinDemand, b.poolMinDemand},
	}
	for i, p := range floats {
		if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
			return fmt.Sprintf("job %d: field %d is %v, fresh %v", a.id, i, p[0], p[1])
		}
	}
	if a.id != b.id || a.submit != b.submit || a.pool != b.pool || a.needy != b.needy || a.moved {
		return fmt.Sprintf("%+v, fresh %+v", *a, *b)
	}
	return ""
}

// fairTwins runs one FAIR scheduler that keeps its order (kept) and one
// that computes it afresh for every offer (fresh) through the same
// events on one view, and fails the test at the first answer in which
// they differ. The kept one sees the view through kv: the view itself,
// or the view counting its changes.
type fairTwins struct {
	t           *testing.T
	kept, fresh *Fair
	v           *fakeView
	kv          View
	step        string // the event being applied, for failures
}

// countingView is a fakeView that counts its changes (Versioned), as the
// coordinator's job table does, by comparing its jobs with those it saw
// when last asked.
type countingView struct {
	*fakeView
	seen    []JobStatus
	version uint64
}

func (v *countingView) Version() uint64 {
	if !slices.EqualFunc(v.seen, v.jobs, func(a JobStatus, b *JobStatus) bool { return a == *b }) {
		v.version++
		v.seen = v.seen[:0]
		for _, j := range v.jobs {
			v.seen = append(v.seen, *j)
		}
	}
	return v.version
}

func (w *fairTwins) assign(now time.Duration, s Slot) (Assignment, bool) {
	ks, fs := s, s
	ks.Why, fs.Why = &Explanation{}, &Explanation{}
	ka, kok := w.kept.Assign(now, w.kv, ks)
	order := freshRanked(w.fresh, w.v, s.Kind)
	fa, fok := w.fresh.assign(now, w.v, fs, order)
	require.Equal(w.t, fok, kok, w.step)
	require.Equal(w.t, fa, ka, w.step)
	require.Equal(w.t, fs.Why.Notes, ks.Why.Notes, w.step)
	// The order Assign went by, every share in it to the bit.
	kept := w.kept.rank[s.Kind].order
	require.Len(w.t, kept, len(order), w.step)
	for i := range order {
		require.Empty(w.t, sameShare(kept[i], order[i]), "%s: place %d", w.step, i)
	}
	return ka, kok
}

func (w *fairTwins) tick(now time.Duration) []Preemption {
	kp := w.kept.Tick(now, w.kv)
	var fp []Preemption
	if w.fresh.cfg.Preempt {
		for _, kind := range []TaskKind{Map, Reduce} {
			fp = append(fp, w.fresh.preempt(now, kind, freshShares(w.fresh, w.v, kind), 1)...)
		}
	}
	require.Equal(w.t, fp, kp, w.step)
	return kp
}

func (w *fairTwins) both(do func(f *Fair)) {
	do(w.kept)
	do(w.fresh)
}

// rankWorld is a random cluster's jobs as the coordinator keeps them,
// changed by random events: some of which the policies are told of and
// some, as in the coordinator, not.
type rankWorld struct {
	*fairTwins
	rng  *rand.Rand
	now  time.Duration
	next JobID
	live []Attempt
	seq  int32 // attempts launched, which numbers them apart
}

func (w *rankWorld) job(id JobID) *JobStatus { return w.v.status(id) }

func (w *rankWorld) pick() *JobStatus {
	if len(w.v.jobs) == 0 {
		return nil
	}
	return w.v.jobs[w.rng.IntN(len(w.v.jobs))]
}

func (w *rankWorld) submit() {
	pools := []string{"", "", "p", "q", "r", "x"}
	weights := []float64{0, 1, 1, 0.5, 2, 3}
	st := &JobStatus{Job: Job{
		ID: w.next, Pool: pools[w.rng.IntN(len(pools))], Weight: weights[w.rng.IntN(len(weights))],
		Priority: []Priority{Normal, Normal, High, VeryLow}[w.rng.IntN(4)], Submit: w.now, Maps: 1 + w.rng.IntN(8), Reduces: w.rng.IntN(4),
	}}
	w.next++
	if w.rng.IntN(4) == 0 && w.now > 0 { // submitted earlier, told late: it sorts before others
		st.Submit = time.Duration(w.rng.Int64N(int64(w.now)))
	}
	st.PendingMaps = st.Maps
	i, _ := slices.BinarySearchFunc(w.v.jobs, st, func(a, b *JobStatus) int {
		if submittedFirst(a.Job, b.Job) {
			return -1
		}
		return 1
	})
	w.v.jobs = slices.Insert(w.v.jobs, i, st)
	if w.rng.IntN(20) != 0 { // now and then a job the policy is not told of
		w.both(func(f *Fair) { f.Submitted(w.now, st.Job) })
	}
}

func submittedFirst(a, b Job) bool {
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	return a.ID < b.ID
}

func (w *rankWorld) end() {
	st := w.pick()
	if st == nil {
		return
	}
	w.v.jobs = slices.DeleteFunc(w.v.jobs, func(o *JobStatus) bool { return o == st })
	w.live = slices.DeleteFunc(w.live, func(a Attempt) bool { return a.Job == st.ID })
	w.both(func(f *Fair) { f.Ended(w.now, st.ID) })
}

// heartbeat offers a node's free slots of both kinds until one is
// declined; a launch takes a pending task, or now and then runs a copy
// (the coordinator prefers a copy its job manager queued).
func (w *rankWorld) heartbeat() {
	node := NodeID(w.rng.IntN(6))
	w.both(func(f *Fair) { f.Heartbeat(w.now, node) })
	for _, kind := range []TaskKind{Map, Reduce} {
		for slot := range 1 + w.rng.IntN(4) {
			w.step = fmt.Sprintf("offer of %v slot %d on node %d at %v", kind, slot, node, w.now)
			a, ok := w.assign(w.now, Slot{Node: node, Kind: kind, Index: slot})
			if !ok {
				break
			}
			w.launch(a.Job, kind, node, w.rng.IntN(6) == 0)
		}
	}
}

func (w *rankWorld) launch(id JobID, kind TaskKind, node NodeID, copied bool) {
	st := w.job(id)
	loc, _ := w.v.BestLocality(id, kind, node)
	counts := countsIn(st, kind)
	if !copied || *counts.attempts == 0 {
		copied = false
		*counts.pending--
	}
	*counts.attempts++
	w.seq++
	a := Attempt{Job: id, Kind: kind, Task: int32(w.rng.IntN(100)), Attempt: w.seq}
	w.live = append(w.live, a)
	w.both(func(f *Fair) { f.Launched(w.now, Launch{Attempt: a, Node: node, Locality: loc}) })
}

// finish ends a running attempt: it succeeds, or fails and its task is
// queued again now or later (the job manager's re-queue, which the policy
// is not told of).
func (w *rankWorld) finish(outcome Outcome) {
	if len(w.live) == 0 {
		return
	}
	i := w.rng.IntN(len(w.live))
	a := w.live[i]
	w.live = slices.Delete(w.live, i, i+1)
	w.ended(a, outcome)
}

func (w *rankWorld) ended(a Attempt, outcome Outcome) {
	st := w.job(a.Job)
	*countsIn(st, a.Kind).attempts--
	if outcome != Succeeded && w.rng.IntN(2) == 0 {
		*countsIn(st, a.Kind).pending++
	}
	w.both(func(f *Fair) { f.Finished(w.now, Finish{Attempt: a, Outcome: outcome, At: w.now}) })
}

// unseen changes the view as the coordinator does without telling the
// policy: a task queued again, reduces released at slow start, a node
// lost or registered, a map's locality on a node; and as it never does,
// so that every input the kept order is checked by is seen to count: a
// job's weight, pool or submission time rewritten, two jobs swapped, a
// job gone unsaid.
func (w *rankWorld) unseen() {
	st := w.pick()
	switch w.rng.IntN(8) {
	case 0:
		if st != nil {
			st.PendingMaps++
		}
	case 1:
		if st != nil {
			st.PendingReduces += 1 + w.rng.IntN(3)
		}
	case 2:
		w.v.slots[Map] = w.rng.IntN(16) // 0 too: every node lost
	case 3:
		w.v.slots[Reduce] = w.rng.IntN(8)
	case 4:
		if st != nil {
			if w.v.local[st.ID] == nil {
				w.v.local[st.ID] = map[NodeID]Locality{}
			}
			w.v.local[st.ID][NodeID(w.rng.IntN(6))] = Locality(w.rng.IntN(Localities))
		}
	case 5:
		if st != nil && w.rng.IntN(4) == 0 {
			st.Weight = float64(w.rng.IntN(4))
		} else if st != nil && w.rng.IntN(4) == 0 {
			st.Priority = Priority(w.rng.IntN(5))
		}
	case 6:
		if st != nil && w.rng.IntN(4) == 0 {
			if w.rng.IntN(2) == 0 {
				st.Pool = []string{"", "p", "x"}[w.rng.IntN(3)]
			} else {
				st.Submit -= time.Duration(w.rng.IntN(2)) * time.Second
			}
		}
	case 7:
		if st == nil || w.rng.IntN(4) > 0 {
			return
		}
		if i := w.rng.IntN(len(w.v.jobs)); w.rng.IntN(2) == 0 && i > 0 {
			a, b := w.v.jobs[i-1], w.v.jobs[i]
			b.Submit = a.Submit // so that only their IDs tell them apart
			w.v.jobs[i-1], w.v.jobs[i] = b, a
			return
		}
		w.v.jobs = slices.DeleteFunc(w.v.jobs, func(o *JobStatus) bool { return o == st })
		w.live = slices.DeleteFunc(w.live, func(a Attempt) bool { return a.Job == st.ID })
	}
}

func (w *rankWorld) preempt() {
	w.step = fmt.Sprintf("tick at %v", w.now)
	for _, p := range w.tick(w.now) {
		if i := slices.Index(w.live, p.Attempt); i >= 0 {
			w.live = slices.Delete(w.live, i, i+1)
			w.ended(p.Attempt, Killed)
		}
	}
}

func countsIn(st *JobStatus, kind TaskKind) kindCountsOf {
	if kind == Map {
		return kindCountsOf{&st.PendingMaps, &st.MapAttempts}
	}
	return kindCountsOf{&st.PendingReduces, &st.ReduceAttempts}
}

type kindCountsOf struct{ pending, attempts *int }

func (w *rankWorld) event() {
	w.now += time.Duration(w.rng.IntN(3000)) * time.Millisecond
	w.step = fmt.Sprintf("event at %v", w.now)
	switch r := w.rng.IntN(100); {
	case r < 8:
		w.submit()
	case r < 12:
		w.end()
	case r < 55:
		w.heartbeat()
	case r < 75:
		w.finish(Outcome(w.rng.IntN(3)))
	case r < 90:
		w.unseen()
	default:
		w.preempt()
	}
}

func randomFairConfig(rng *rand.Rand) FairConfig {
	cfg := DefaultFairConfig()
	cfg.Delay = Waits{Enabled: rng.IntN(3) > 0, T1: 5 * time.Second, T2: 10 * time.Second}
	cfg.PoolPerJob = rng.IntN(2) == 0
	cfg.Preempt, cfg.MinTimeout, cfg.FairTimeout = rng.IntN(2) == 0, 20*time.Second, 40*time.Second
	cfg.Fraction = []float64{1, 0.5}[rng.IntN(2)]
	zero := Waits{Enabled: true}
	cfg.Pools = []Pool{
		{Name: "p", MinShare: [2]int{rng.IntN(6), rng.IntN(3)}, Weight: 1},
		{Name: "q", MinShare: [2]int{rng.IntN(4), 0}, Weight: 2},
		{Name: "r", Weight: 0.5, Waits: &zero},
	}
	return cfg
}

func TestFairKeptOrderIsTheFreshOne(t *testing.T) {
	// Random event sequences on small clusters, where pools fall below
	// their minimums, jobs tie, shares are cut to the slots and nodes are
	// lost: at every offer the kept order, its every share to the bit,
	// the answer and its notes are the fresh computation's, and so are
	// the preemptions at every tick. Every other sequence the kept order
	// is given a view that counts its changes.
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 2009))
		cfg := randomFairConfig(rng)
		v := fairView()
		v.slots[Map], v.slots[Reduce] = 1+rng.IntN(12), 1+rng.IntN(6)
		var kv View = v
		if seed%2 == 1 {
			kv = &countingView{fakeView: v}
		}
		w := &rankWorld{
			fairTwins: &fairTwins{t: t, kept: NewFair(cfg), fresh: NewFair(cfg), v: v, kv: kv},
			rng:       rng, next: 1,
		}
		for range 1 + rng.IntN(6) {
			w.submit()
		}
		for range 300 {
			w.event()
		}
	}
}

func TestFairKeptOrderFollowsJobsNotPlaces(t *testing.T) {
	// Jobs 1 and 2 alike but in what runs: job 1 runs one map of its two,
	// job 2 none. Were a view to list them the other way round, with the
	// same demands place by place, the kept order must still give each
	// job its own running count: job 2, running none, goes first.
	f := NewFair(FairConfig{})
	j1, j2 := pooled(1, "", 1, 1), pooled(2, "", 0, 2)
	f.Submitted(0, j1.Job)
	f.Submitted(0, j2.Job)
	assert.Equal(t, []JobID{2, 1}, f.order(fairView(j1, j2), Map))
	assert.Equal(t, []JobID{2, 1}, f.order(fairView(j2, j1), Map))
}

func TestFairKeptOrderTrustsAVersionOnlyFromItsView(t *testing.T) {
	// A counting view at some version, a view of other jobs that counts
	// nothing, then the counting view again, unchanged at its version:
	// the order kept from the other view is not its order.
	f := NewFair(FairConfig{})
	counted := &countingView{fakeView: fairView(pooled(1, "", 0, 5), pooled(2, "", 3, 5))}
	other := fairView(pooled(3, "", 0, 5))
	assert.Equal(t, []JobID{1, 2}, f.order(counted, Map))
	assert.Equal(t, []JobID{3}, f.order(other, Map))
	assert.Equal(t, []JobID{1, 2}, f.order(counted, Map))
}
