package sched

import (
	"slices"
	"strings"
	"time"
)

// fairRank keeps FAIR's order of one kind of slot from one slot offer to
// the next, with everything it was computed from: the view's active jobs
// in the view's order, each with its pool, weight, submission time and
// running attempts and pending tasks of the kind, and the kind's slots.
// The shares and the order depend on nothing else but the configured
// pools, which never change, and the pool each submitted job joined,
// which changes only when a job is submitted or ends (Fair.jobsChanged).
//
// Every offer compares the view with these inputs, O(jobs), so a change
// the policy is not told of (a task queued again after a failure or a
// lost node, reduces released at slow start, a node declared dead) is
// seen as surely as one it is told of; a view that counts its changes
// (Versioned) spares the comparison while its version and the slots stand,
// as they do on most offers of a busy cluster's heartbeats:
//
//   - nothing changed: the order stands;
//   - only running attempts changed, every job's running plus pending as
//     before (a launch takes a pending task): the demands, and so every
//     share, are as before; the jobs whose running changed, and every job
//     of a pool below its minimum share before or after (whose place
//     follows its pool's running), are placed again by merging them into
//     the others' order, O(jobs + k log k) for k of them;
//   - demands or the slots changed, the jobs as before (an attempt ended,
//     a copy launched, a task was queued, a node was lost): the shares
//     are computed again over the jobs as they were laid out by pool, and
//     the order is sorted again, O(jobs log jobs);
//   - the jobs changed (one came or went): all is laid out afresh too.
//
// Every step computes what it computes as Fair once did for every offer,
// in the same order of operations, so the shares are the same to the bit;
// and compareShares is a total order, so the order is a function of the
// shares alone: placing some jobs again, or sorting the order as it
// stands, gives what a fresh sort gives. The buffers are kept from offer
// to offer too.
type fairRank struct {
	fresh  bool // computed, and no job submitted or ended since
	slots  int
	inputs []rankInput // the view's jobs, in its order
	shares []jobShare  // by pool name, then view order
	claims []claim     // the jobs' claims, laid out as shares
	pools  []poolRank  // in the order the view first names them
	byName []int32     // pools' indices by name
	order  []*jobShare // slot order
	spare  []*jobShare // the next order, while merging
	moved  []*jobShare // jobs to place again
	// touched lists the pools whose running changed since the order was
	// made.
	touched    []int32
	poolClaims []claim   // by name
	poolShares []float64 // by name
	fair       []float64 // the jobs' fair shares, laid out as shares
	points     []float64 // room for fairSharesInto
	index      map[string]int32
	// version is the view's Version when the inputs were last compared
	// with it, if versioned.
	version   uint64
	versioned bool
}

// rankInput is what the shares read of one job.
type rankInput struct {
	id       JobID
	pool     string // as the view names it (Job.Pool)
	weight   float64
	priority Priority
	submit   time.Duration
	attempts int
	pending  int
	group    int32 // its pool in fairRank.pools
	at       int32 // its place in fairRank.shares
}

// poolRank is one pool's jobs in fairRank.shares: [lo, hi).
type poolRank struct {
	name    string
	lo, hi  int32
	touched bool
}

// rankChange is what a view changed of a kept order's inputs, least
// first.
type rankChange uint8

const (
	rankSame    rankChange = iota // nothing
	rankRunning                   // only running attempts, demands as before
	rankDemand                    // demands or slots, the same jobs as before
	rankStale                     // the jobs
)

// jobsChanged drops the kept orders: a job was submitted or ended, which
// may change the pool a job of the view is taken to belong to.
func (f *Fair) jobsChanged() {
	for k := range f.rank {
		f.rank[k].fresh = false
	}
}

// ranked is the active jobs with their shares of the kind's slots in slot
// order (order). Fair's view of the shares is kept from offer to offer
// (fairRank); the slice is valid until the next call.
func (f *Fair) ranked(v View, kind TaskKind) []*jobShare {
	r := &f.rank[kind]
	switch r.check(v, kind) {
	case rankRunning:
		r.replace()
	case rankDemand:
		r.compute(f, kind)
	case rankStale:
		r.gather(f, v, kind)
		r.compute(f, kind)
	}
	return r.order
}

// shares is every active job's fair share of the kind's slots, by pool
// name and then in view order: pools share the slots with their minimums
// and weights, and each pool's share is split among its jobs by job
// weight. The slice is valid until the next call of ranked or shares.
func (f *Fair) shares(v View, kind TaskKind) []jobShare {
	f.ranked(v, kind)
	return f.rank[kind].shares
}

// check compares the view with the kept inputs and brings them up to
// date where the same jobs are listed as before (ranked). Where only
// running attempts changed it records the jobs and pools they move.
func (r *fairRank) check(v View, kind TaskKind) rankChange {
	if !r.fresh {
		return rankStale
	}
	size := 1
	if kind == containers {
		size = reduceSize(v)
	}
	change, same := rankSame, r.sameVersion(v)
	if slots := kindSlots(v, kind); slots != r.slots {
		r.slots, change = slots, rankDemand
	}
	if same {
		return change // the jobs are as they were
	}
	r.moved, r.touched = r.moved[:0], r.touched[:0]
	i := 0
	for st := range v.Jobs() {
		if i == len(r.inputs) {
			return rankStale
		}
		in := &r.inputs[i]
		i++
		if st.ID != in.id || st.Pool != in.pool || st.Weight != in.weight || st.Priority != in.priority || st.Submit != in.submit {
			return rankStale // gather starts over: nothing recorded here counts
		}
		attempts, pending := kindAttempts(st, kind, size), kindPending(st, kind, size)
		if attempts+pending != in.attempts+in.pending {
			r.claims[in.at].demand = float64(attempts + pending)
			change = rankDemand
		}
		if attempts != in.attempts {
			r.ran(in, attempts)
			change = max(change, rankRunning)
		}
		in.attempts, in.pending = attempts, pending
	}
	if i != len(r.inputs) {
		return rankStale
	}
	return change
}

// containers is the order of containers (ContainerAware), which a task
// of either kind takes: a job's attempts and pending tasks are of both
// kinds, a pool's minimum share is its maps' and its reduces' together,
// and the slots are the containers, which View.Slots counts for each
// kind.
const containers TaskKind = 2

// kindAttempts and kindPending count a job's attempts and pending tasks
// of the kind, or with containers the containers they hold and ask for,
// a reduce size of them.
func kindAttempts(st JobStatus, kind TaskKind, size int) int {
	if kind == containers {
		return st.MapAttempts + size*st.ReduceAttempts
	}
	return st.Attempts(kind)
}

func kindPending(st JobStatus, kind TaskKind, size int) int {
	if kind == containers {
		return st.PendingMaps + size*st.PendingReduces
	}
	return st.Pending(kind)
}

func kindSlots(v View, kind TaskKind) int {
	if kind == containers {
		return v.Slots(Map)
	}
	return v.Slots(kind)
}

func kindMin(p *Pool, kind TaskKind) int {
	if kind == containers {
		return p.MinShare[Map] + p.MinShare[Reduce]
	}
	return p.MinShare[kind]
}

// sameVersion reports whether the view is versioned and at the version
// the inputs were last compared with, and records its version.
func (r *fairRank) sameVersion(v View) bool {
	vv, ok := v.(Versioned)
	if !ok {
		r.versioned = false
		return false
	}
	version := vv.Version()
	same := r.versioned && version == r.version
	r.version, r.versioned = version, true
	return same
}

// ran records a job's new running attempts.
func (r *fairRank) ran(in *rankInput, attempts int) {
	js := &r.shares[in.at]
	js.running, js.moved = float64(attempts), true
	r.moved = append(r.moved, js)
	if p := &r.pools[in.group]; !p.touched {
		p.touched = true
		r.touched = append(r.touched, in.group)
	}
}

// replace brings the touched pools' running up to date and places the
// moved jobs again.
func (r *fairRank) replace() {
	for _, g := range r.touched {
		p := &r.pools[g]
		p.touched = false
		js := r.shares[p.lo:p.hi]
		running := 0.0
		for k := range js {
			running += js[k].running
		}
		minDemand := js[0].poolMinDemand
		needy, wasNeedy := running < minDemand, js[0].needy
		for k := range js {
			j := &js[k]
			j.needy, j.poolRatio, j.poolRunning = needy, ratio(running, minDemand), running
			if (needy || wasNeedy) && !j.moved {
				j.moved = true
				r.moved = append(r.moved, j)
			}
		}
	}
	kept := r.order[:0]
	for _, j := range r.order {
		if !j.moved {
			kept = append(kept, j)
		}
	}
	slices.SortFunc(r.moved, compareShares)
	merged, k := r.spare[:0], 0
	for _, j := range r.moved {
		for k < len(kept) && compareShares(kept[k], j) < 0 {
			merged = append(merged, kept[k])
			k++
		}
		merged = append(merged, j)
		j.moved = false
	}
	merged = append(merged, kept[k:]...)
	r.order, r.spare = merged, r.order
}

// compute makes the shares afresh from the inputs gathered and sorts the
// order as it stands.
func (r *fairRank) compute(f *Fair, kind TaskKind) {
	for _, g := range r.touched {
		r.pools[g].touched = false
	}
	pools := r.poolClaims[:0]
	for _, g := range r.byName {
		p := &r.pools[g]
		c := claim{weight: 1}
		if cfg := f.pools[p.name]; cfg != nil {
			c.min, c.weight = float64(kindMin(cfg, kind)), weightOf(cfg.Weight)
		}
		for _, jc := range r.claims[p.lo:p.hi] {
			c.demand += jc.demand
		}
		pools = append(pools, c)
	}
	r.poolClaims = pools
	poolShares := slices.Grow(r.poolShares[:0], len(pools))[:len(pools)]
	r.points = fairSharesInto(poolShares, pools, float64(r.slots), r.points)
	r.poolShares = poolShares
	r.fair = slices.Grow(r.fair[:0], len(r.shares))[:len(r.shares)]
	for k, g := range r.byName {
		p := &r.pools[g]
		js, fair := r.shares[p.lo:p.hi], r.fair[p.lo:p.hi]
		r.points = fairSharesInto(fair, r.claims[p.lo:p.hi], poolShares[k], r.points)
		running := 0.0
		for i := range js {
			running += js[i].running
		}
		minDemand := min(pools[k].min, pools[k].demand)
		for i := range js {
			j := &js[i]
			j.fair, j.needy, j.poolRatio = fair[i], running < minDemand, ratio(running, minDemand)
			j.poolRunning, j.poolFair, j.poolMinDemand = running, poolShares[k], minDemand
			j.moved = false
		}
	}
	slices.SortFunc(r.order, compareShares)
	r.fresh = true
}

// gather reads the view into the inputs and lays the jobs out by pool
// name, keeping the view's order within a pool: each job's claim and the
// parts of its share that need no share computation. The order lists
// every share, in no particular order.
func (r *fairRank) gather(f *Fair, v View, kind TaskKind) {
	if r.index == nil {
		r.index = map[string]int32{}
	}
	size := 1
	if kind == containers {
		size = reduceSize(v)
	}
	clear(r.index)
	r.sameVersion(v)
	r.slots, r.inputs, r.pools, r.byName = kindSlots(v, kind), r.inputs[:0], r.pools[:0], r.byName[:0]
	r.touched = r.touched[:0]
	for st := range v.Jobs() {
		name := f.poolOf(st.Job)
		g, ok := r.index[name]
		if !ok {
			g = int32(len(r.pools))
			r.index[name] = g
			r.pools = append(r.pools, poolRank{name: name})
			r.byName = append(r.byName, g)
		}
		r.pools[g].hi++ // its number of jobs, for now
		r.inputs = append(r.inputs, rankInput{
			id: st.ID, pool: st.Pool, weight: st.Weight, priority: st.Priority, submit: st.Submit,
			attempts: kindAttempts(st, kind, size), pending: kindPending(st, kind, size), group: g,
		})
	}
	slices.SortFunc(r.byName, func(a, b int32) int { return strings.Compare(r.pools[a].name, r.pools[b].name) })
	next := int32(0)
	for _, g := range r.byName {
		p := &r.pools[g]
		p.lo, p.hi, next = next, next, next+p.hi
	}
	n := len(r.inputs)
	grown := cap(r.shares) < n
	r.shares, r.claims = slices.Grow(r.shares[:0], n)[:n], slices.Grow(r.claims[:0], n)[:n]
	if grown || len(r.order) != n { // else the order lists every share already
		r.order = r.order[:0]
		for i := range r.shares {
			r.order = append(r.order, &r.shares[i])
		}
	}
	for i := range r.inputs {
		in := &r.inputs[i]
		p := &r.pools[in.group]
		in.at = p.hi
		p.hi++
		r.claims[in.at] = claim{weight: weightOf(in.weight) * in.priority.ShareFactor(), demand: float64(in.attempts + in.pending)}
		r.shares[in.at] = jobShare{id: in.id, submit: in.submit, pool: p.name, running: float64(in.attempts)}
	}
}
