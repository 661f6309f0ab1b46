package netmodel

import (
	"math"
	"slices"
	"time"
)

// The bottleneck structure. In the max-min allocation of one class every
// flow f that moves has a bottleneck b(f): a saturated link on which no
// flow has a higher rate per weight, so f's rate is λ(b)·weight(f), λ(b)
// the link's level. The network keeps that structure between re-solves:
// each flow's bottleneck and, per link l,
//
//	W(l)    = Σ weight × use over the flows bottlenecked at l,
//	M(l, m) = Σ weight × use on l over the flows bottlenecked at m ≠ l,
//
// so a bottleneck's level is λ(l) = (capacity(l) − Σ_m M(l, m)·λ(m)) / W(l)
// and a link that is no flow's bottleneck carries Σ_m M(l, m)·λ(m). The
// entries of M are kept in a sparse matrix with a list per row (the
// bottlenecks of the flows crossing l) and per column (the links the
// flows bottlenecked at m cross).
//
// A re-solve whose changes are flows arriving and leaving and capacities
// changing then works on links, not flows (fastSolve): it updates the
// terms of the flows that changed, guesses each arrival's bottleneck (the
// link of its path whose level would be lowest with it added) and
// recomputes, lowest level first, the bottlenecks whose equation changed
// and every bottleneck whose row holds a level that changed (a triangular
// solve; relevel). When a flow crossing a bottleneck l has a higher level
// than l's new one, the bundle of such flows bottlenecked at the same
// link moves to l and l's level is found again before any other link
// reads it; when a link that is no bottleneck would carry more than its
// capacity, the bundle on it with the highest level moves to it, which
// makes it a bottleneck. What is left is checked: every bottleneck keeps
// more than Epsilon of its capacity for its flows, no flow crossing it
// has a higher level, and every other link the changes reached is within
// its capacity. These are the max-min conditions, and the max-min
// allocation is unique, so an allocation that passes them is the one
// progressive filling computes, up to rounding. Only the flows of the
// bottlenecks whose level changed, and those that moved or arrived, get
// new rates.
//
// The fast path gives up, undoing its levels, loads and moves, on a
// stall, after structMaxMoves moves or structBudget recomputations (a
// cycle of moves), or while several priority classes are live; the
// component is then filled. The filling records the link each flow was
// fixed at, and adopt moves the re-filled flows' terms to their new
// bottlenecks, so the next re-solve can take the fast path again.
//
// Rounding: λ(l) is recomputed from its row every time it is needed, and
// the terms of W and M are sums of weight × use, updated by += and −= as
// flows come and go; a term whose last flow leaves is reset to 0, and a
// term that cancels to below 2⁻²⁰ of its peak is summed afresh (as fix
// does). The load of a link that is no bottleneck is carried from one
// re-solve to the next by adding M(l, m)·Δλ(m), unless that change is
// larger than the capacity (where the sum would cancel), and is summed
// afresh from its row before it is judged within structLoadSlack of the
// capacity.

// structTieTol is how far, relative to a bottleneck's level, a level in
// its row may exceed it and still pass: the rounding of two levels that
// are equal in exact arithmetic (a tie between two bottlenecks), far
// below Epsilon.
const structTieTol = 1e-12

// sEntry is one term M(l, m): the number of flows summed in it, its
// peak, and where its coefficient is kept in the row of l and the column
// of m.
type sEntry struct {
	l, m         int32
	cnt          int32
	rowAt, colAt int32 // index in links[l].row and links[m].col
	peak         float64
}

// rItem is a term on its row: M(l, m) = coef, l the row's link. A row
// keeps its terms in the order they were added (its walks go from the
// last to the first, newest first); a term taken off stays as a hole,
// m = -1, until the row is compacted.
type rItem struct {
	m, e int32 // e: the term's sEntry
	coef float64
}

// cItem is a term on its column, like rItem: l = -1 for a hole. Its coef
// is the row's, copied, so that a walk over a column reads the column's
// items in a row and nothing else but the links they name.
type cItem struct {
	l, e int32
	coef float64
}

// sHot is the part of a link's structure that the walks over rows and
// columns read for every link they meet, in a dense array of its own:
// 32 bytes a link, so a column's links cost one cache line each (often
// shared) instead of the two or three lines of an sLink, and the whole
// array of a fabric of a few thousand links stays in the cache.
type sHot struct {
	lvl   float64 // level, when some flow is bottlenecked here
	b     float64 // when no flow is bottlenecked here: Σ_m M(l, m)·λ(m)
	nOwn  int32   // len(sLink.own): the link is a bottleneck when > 0
	mark  uint32  // fastSolve epoch at which lvl or b was saved for undo
	chk   uint32  // fastSolve epoch at which the link joined the checks
	stale uint32  // fastSolve epoch at which b stopped carrying the changes
}

// sLink is the rest of a link's part of the structure.
type sLink struct {
	w                  float64 // W(l)
	wPeak              float64
	own                []int32 // flows bottlenecked here
	row                []rItem // the terms M(l, ·), in the order they were added
	col                []cItem // the terms M(·, l), in the order they were added
	rowHoles, colHoles int32
	chg                uint32  // fastSolve epoch at which the link joined changed
	done               uint32  // fastSolve epoch at which the level was recomputed
	pop                float64 // level at which the filling of epoch popAt fixed flows here
	popAt              uint32
	load               float64 // scratch: load found by the last recompute
	resum              uint32  // filling epoch at which adopt sums the load afresh
	rekey              uint32  // filling epoch at which adopt keys the clock again
	V                  float64 // the clock (clock.go) at instant T
	T                  time.Duration
	clk                clockHeap
}

// sFlow is a flow's part of the structure.
type sFlow struct {
	bn    int32 // bottleneck link, -1 when none (stalled or not solved yet)
	ownAt int32 // index in links[bn].own
	fixAt int32 // the link the last filling fixed the flow at
	clk   int32 // the link whose clock carries the flow, -1 if none
	// parked: stalled by a link of capacity 0 on its path. Such a flow
	// loads nothing and stays stalled until that capacity changes, so it
	// does not stop the fast path.
	parked bool
	vA     float64 // that clock's value at the flow's anchor
}

type sMove struct {
	slot, from int32
}

type sUndo struct {
	l      int32
	lvl, b float64
}

// structure is the network's bottleneck structure (see above).
type structure struct {
	hot        []sHot // by link
	links      []sLink
	flows      []sFlow
	entries    []sEntry
	free       []int32
	index      termIndex
	broken     bool // terms are not kept: rebuild at the next single-class solve
	classes    map[int32]int
	unassigned int // live solvable flows with no bottleneck, but the parked
	epoch      uint32
	seeds      []int32 // links whose level must be recomputed at the next solve
	capChanged []LinkID
	checks     []int32
	undo       []sUndo
	changed    []int32
	popped     []int32
	colB, colN []int32     // relevel's scratch: a column's bottlenecks, and its other links' items
	cpos       []int32     // per slot: index in its clock's heap
	due        indexedHeap // clocks by the instant their first flow finishes
	moved      []sMove
	moves      int
	solving    bool // in fastSolve: a level set joins changed
	refill     bool // the next solve fills every component (invalidateAll)
	stats      structStats
}

// structStats counts the fast path's outcomes, for tuning: re-solves it
// did, gave up on (and why) or did not try, and rebuilds after several
// classes.
type structStats struct {
	fast, fallback, rebuild int64
	skipped                 int64 // several classes, or flows left with no bottleneck
	cut                     int64 // a capacity set to 0
	guess                   int64 // no bottleneck to guess for an arrival
	stall                   int64 // a bottleneck left with nothing for its flows
	moves                   int64 // structMaxMoves moves
	budget                  int64 // structBudget recomputations
	overload                int64 // a link over capacity with nothing to move to it
}

func (bs *structure) isB(l int32) bool { return bs.hot[l].nOwn > 0 }

func (n *Network) growStructure() {
	bs := &n.bs
	for len(bs.links) < len(n.links) {
		bs.links = append(bs.links, sLink{})
		bs.hot = append(bs.hot, sHot{})
	}
	bs.due.grow(len(n.links))
	for len(bs.flows) < len(n.flows) {
		bs.flows = append(bs.flows, sFlow{bn: -1, fixAt: -1, clk: -1})
		bs.cpos = append(bs.cpos, 0)
	}
}

func entryKey(l, m int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(m)) }

// addTerm adds d (one flow's weight × use on l) to M(l, m).
func (bs *structure) addTerm(l, m int32, d float64) {
	k := entryKey(l, m)
	i, ok := bs.index.get(k)
	if !ok {
		if f := len(bs.free); f > 0 {
			i = bs.free[f-1]
			bs.free = bs.free[:f-1]
		} else {
			bs.entries = append(bs.entries, sEntry{})
			i = int32(len(bs.entries) - 1)
		}
		lk, mk := &bs.links[l], &bs.links[m]
		bs.entries[i] = sEntry{l: l, m: m, rowAt: int32(len(lk.row)), colAt: int32(len(mk.col))}
		lk.row = append(lk.row, rItem{m: m, e: i})
		mk.col = append(mk.col, cItem{l: l, e: i})
		bs.index.put(k, i)
	}
	e := &bs.entries[i]
	e.cnt++
	ri := &bs.links[l].row[e.rowAt]
	ri.coef += d
	bs.links[m].col[e.colAt].coef = ri.coef
	e.peak = math.Max(e.peak, ri.coef)
}

// subTerm takes d off M(l, m), dropping the entry with its last flow. It
// returns true when the rest cancelled and must be summed afresh.
func (bs *structure) subTerm(l, m int32, d float64) bool {
	k := entryKey(l, m)
	i, _ := bs.index.get(k)
	e := &bs.entries[i]
	e.cnt--
	lk, mk := &bs.links[l], &bs.links[m]
	if e.cnt > 0 {
		ri := &lk.row[e.rowAt]
		ri.coef -= d
		mk.col[e.colAt].coef = ri.coef
		return ri.coef < e.peak*0x1p-20
	}
	lk.row[e.rowAt].m = -1
	lk.rowHoles++
	bs.packRow(lk)
	mk.col[e.colAt].l = -1
	mk.colHoles++
	bs.packCol(mk)
	bs.index.del(k)
	bs.free = append(bs.free, i)
	return false
}

// packRow drops the holes at the end of a row, and compacts it, keeping
// its order, once holes are half of it.
func (bs *structure) packRow(lk *sLink) {
	lk.row = pack(lk.row, &lk.rowHoles, func(it rItem) bool { return it.m < 0 },
		func(it rItem, k int) { bs.entries[it.e].rowAt = int32(k) })
}

// packCol is packRow for a column.
func (bs *structure) packCol(mk *sLink) {
	mk.col = pack(mk.col, &mk.colHoles, func(it cItem) bool { return it.l < 0 },
		func(it cItem, k int) { bs.entries[it.e].colAt = int32(k) })
}

// pack drops a row's or column's trailing holes, counted in holes, and
// once holes are half of what is left moves the terms down over them in
// order, telling each its new place.
func pack[T rItem | cItem](list []T, holes *int32, hole func(T) bool, moved func(T, int)) []T {
	for len(list) > 0 && hole(list[len(list)-1]) {
		list = list[:len(list)-1]
		*holes--
	}
	if 2*int(*holes) <= len(list) {
		return list
	}
	k := 0
	for _, it := range list {
		if !hole(it) {
			list[k] = it
			moved(it, k)
			k++
		}
	}
	*holes = 0
	return list[:k]
}

// resumTerm sums M(l, m) afresh over the flows of link l.
func (n *Network) resumTerm(l, m int32) {
	bs := &n.bs
	sum := 0.0
	for _, lf := range n.links[l].flows {
		if bs.flows[lf.slot].bn == m {
			sum += n.flows[lf.slot].weight * n.useOf(lf.slot, int(lf.hop))
		}
	}
	i, _ := bs.index.get(entryKey(l, m))
	e := &bs.entries[i]
	e.peak = sum
	bs.links[l].row[e.rowAt].coef = sum
	bs.links[m].col[e.colAt].coef = sum
}

// rowLoad is Σ_m M(l, m)·λ(m) over a link's row.
func (bs *structure) rowLoad(l int32) float64 {
	sum := 0.0
	row := bs.links[l].row
	for i := len(row) - 1; i >= 0; i-- {
		if it := &row[i]; it.m >= 0 {
			sum += it.coef * bs.hot[it.m].lvl
		}
	}
	return sum
}

// attach makes link bn the bottleneck of slot s, adding its terms. With
// push, the loads of the other links of its path that are no bottleneck
// take its rate at λ(bn).
func (n *Network) attach(s int32, bn int32, push bool) {
	bs := &n.bs
	f := &n.flows[s]
	sf := &bs.flows[s]
	sf.bn = bn
	hops := n.hops(s)
	for i, l := range hops {
		wu := f.weight * n.useOf(s, i)
		if int32(l) == bn {
			bl := &bs.links[bn]
			sf.ownAt = int32(len(bl.own))
			bl.own = append(bl.own, s)
			bs.hot[bn].nOwn = int32(len(bl.own))
			bl.w += wu
			bl.wPeak = math.Max(bl.wPeak, bl.w)
			continue
		}
		bs.addTerm(int32(l), bn, wu)
	}
	if push {
		lvl := bs.hot[bn].lvl
		for i, l := range hops {
			if int32(l) != bn && !bs.isB(int32(l)) {
				bs.hot[l].b += lvl * f.weight * n.useOf(s, i)
			}
		}
	}
}

// detach takes slot s off its bottleneck's terms. With push, the loads of
// the links of its path that are no bottleneck lose its rate. A link left
// with no flow bottlenecked at it gets its load summed from its row.
func (n *Network) detach(s int32, push bool) {
	bs := &n.bs
	f := &n.flows[s]
	sf := &bs.flows[s]
	bn := sf.bn
	sf.bn = -1
	bl := &bs.links[bn]
	lvl := bs.hot[bn].lvl
	hops := n.hops(s)
	for i, l := range hops {
		wu := f.weight * n.useOf(s, i)
		if int32(l) == bn {
			last := int32(len(bl.own) - 1)
			if sf.ownAt != last {
				moved := bl.own[last]
				bl.own[sf.ownAt] = moved
				bs.flows[moved].ownAt = sf.ownAt
			}
			bl.own = bl.own[:last]
			bs.hot[bn].nOwn = last
			switch {
			case last == 0:
				bl.w, bl.wPeak = 0, 0
			default:
				bl.w -= wu
				if bl.w < bl.wPeak*0x1p-20 {
					sum := 0.0
					for _, o := range bl.own {
						sum += n.flows[o].weight * n.useOf(o, n.hopOf(o, LinkID(bn)))
					}
					bl.w, bl.wPeak = sum, sum
				}
			}
			continue
		}
		if bs.subTerm(int32(l), bn, wu) {
			n.resumTerm(int32(l), bn)
		}
		if push && !bs.isB(int32(l)) {
			bs.hot[l].b -= lvl * wu
		}
	}
	if len(bl.own) == 0 {
		bs.hot[bn].b = bs.rowLoad(bn)
	}
}

// hopOf is the index of link l in slot s's path.
func (n *Network) hopOf(s int32, l LinkID) int {
	for i, h := range n.hops(s) {
		if h == l {
			return i
		}
	}
	return -1
}

// structOn reports whether the structure's terms are kept.
func (n *Network) structOn() bool { return !n.bs.broken }

// noteClassLive counts live solvable flows per class; a second class
// stops the structure until the network is back to one.
func (n *Network) noteClassLive(c int32, d int) {
	bs := &n.bs
	if bs.classes == nil {
		bs.classes = map[int32]int{}
	}
	bs.classes[c] += d
	if bs.classes[c] == 0 {
		delete(bs.classes, c)
	}
	if len(bs.classes) > 1 && !bs.broken {
		n.dropStructure()
	}
}

// dropStructure forgets every term; the next solve with one class
// rebuilds them from a full filling.
func (n *Network) dropStructure() {
	bs := &n.bs
	bs.broken = true
	for s := range bs.flows {
		if bs.flows[s].clk >= 0 {
			n.detachClock(int32(s))
			n.schedule(int32(s))
		}
	}
	for i := range bs.links {
		lk := &bs.links[i]
		*lk = sLink{own: lk.own[:0], row: lk.row[:0], col: lk.col[:0], clk: lk.clk}
		bs.hot[i] = sHot{}
	}
	for i := range bs.flows {
		bs.flows[i].bn, bs.flows[i].parked = -1, false
	}
	bs.entries, bs.free = bs.entries[:0], bs.free[:0]
	bs.index.clear()
	bs.unassigned = 0
	bs.seeds, bs.capChanged = bs.seeds[:0], bs.capChanged[:0]
}

// structRelease takes a leaving flow out of the structure; with seed, the
// levels its terms entered are recomputed at the next solve.
func (n *Network) structRelease(s int32, seed bool) {
	bs := &n.bs
	if n.structOn() {
		bn := bs.flows[s].bn
		if bn < 0 {
			bs.unassign(s)
		} else {
			n.detach(s, true)
			if seed {
				for _, l := range n.hops(s) {
					if bs.isB(int32(l)) {
						bs.seeds = append(bs.seeds, int32(l))
					}
				}
			}
		}
	}
	bs.flows[s].bn = -1
	n.noteClassLive(n.flows[s].class, -1)
}

// unassign forgets a flow that had no bottleneck.
func (bs *structure) unassign(s int32) {
	if bs.flows[s].parked {
		bs.flows[s].parked = false
	} else {
		bs.unassigned--
	}
}

// crossesCut reports whether a flow's path has a link of capacity 0.
func (n *Network) crossesCut(s int32) bool {
	for _, l := range n.hops(s) {
		if n.links[l].capacity == 0 {
			return true
		}
	}
	return false
}

// saveLink records a link's level and load for undo, once per fastSolve.
func (bs *structure) saveLink(l int32) {
	lk := &bs.hot[l]
	if lk.mark != bs.epoch {
		lk.mark = bs.epoch
		bs.undo = append(bs.undo, sUndo{l: l, lvl: lk.lvl, b: lk.b})
	}
}

// check adds a link that is no bottleneck to the links whose load is
// judged at the end of fastSolve, saving it for undo.
func (bs *structure) check(l int32) {
	lk := &bs.hot[l]
	if lk.chk != bs.epoch {
		lk.chk = bs.epoch
		bs.saveLink(l)
		bs.checks = append(bs.checks, l)
	}
}

// fastSolve re-solves the pending changes on the structure. It returns
// false, with every level and load as before, when the fallback must run;
// the arrivals then keep the bottlenecks it guessed until adopt moves
// them.
func (n *Network) fastSolve() bool {
	bs := &n.bs
	live := 0
	for _, s := range n.arrivals {
		if n.states[s].live && n.states[s].solvable {
			live++
		}
	}
	if bs.broken || len(bs.classes) > 1 || bs.unassigned != live {
		bs.stats.skipped++
		return false
	}
	bs.epoch++
	if bs.epoch == 0 {
		for i := range bs.links {
			bs.hot[i].mark, bs.links[i].done = 0, 0
		}
		bs.epoch = 1
	}
	bs.undo, bs.checks, bs.changed, bs.popped = bs.undo[:0], bs.checks[:0], bs.changed[:0], bs.popped[:0]
	bs.moved, bs.moves = bs.moved[:0], 0
	bs.solving = true
	ok := n.fastSolveTry()
	bs.solving = false
	if !ok {
		for i := len(bs.moved) - 1; i >= 0; i-- {
			mv := bs.moved[i]
			n.detach(mv.slot, false)
			n.attach(mv.slot, mv.from, false)
		}
		for i := len(bs.undo) - 1; i >= 0; i-- {
			u := &bs.undo[i]
			n.setLevel(u.l, u.lvl)
			bs.hot[u.l].b = u.b
		}
		n.levels.clear()
		bs.stats.fallback++
	}
	return ok
}

func (n *Network) fastSolveTry() bool {
	bs := &n.bs
	for _, l := range bs.capChanged {
		if n.links[l].capacity <= 0 {
			bs.stats.cut++
			return false
		}
		for _, lf := range n.links[l].flows {
			if bs.flows[lf.slot].parked {
				bs.stats.cut++
				return false // it may move again
			}
		}
		if bs.isB(int32(l)) {
			bs.seeds = append(bs.seeds, int32(l))
		} else {
			// The carried load's rounding was judged against the old
			// capacity: sum it afresh.
			bs.check(int32(l))
			bs.hot[l].stale = bs.epoch
		}
	}
	for _, s := range n.arrivals {
		if st := &n.states[s]; !st.live || !st.solvable || bs.flows[s].bn >= 0 {
			continue
		}
		if !n.guessArrival(s) {
			bs.stats.guess++
			return false
		}
	}
	h := &n.levels
	for _, l := range bs.seeds {
		bs.queue(h, l)
	}
	budget := structBudget + 2*len(n.links)
	for {
		for h.len() > 0 {
			if budget--; budget < 0 {
				bs.stats.budget++
				return false
			}
			if !n.relevel(h.pop().item) {
				return false
			}
		}
		// Every bottleneck meets its equation and no flow crossing it has
		// a higher level. Now the other links the changes reached.
		repaired := false
		for _, t := range bs.checks {
			tk := &bs.hot[t]
			if bs.isB(t) {
				continue
			}
			c := n.links[t].capacity
			if tk.stale != bs.epoch && tk.b < c*(1-structLoadSlack) {
				continue
			}
			if tk.b, tk.stale = bs.rowLoad(t), 0; tk.b <= c {
				continue
			}
			// t saturates: the flows of its row with the highest level
			// are bottlenecked at t now.
			e := bs.topEntry(t)
			if e < 0 {
				bs.stats.overload++
				return false
			}
			en := bs.links[t].row[e]
			lvl := (c - (tk.b - en.coef*bs.hot[en.m].lvl)) / en.coef
			if !(lvl > 0) {
				bs.stats.overload++
				return false
			}
			n.moveEntry(t, en.m, lvl)
			repaired = true
			break
		}
		if !repaired {
			break
		}
	}
	n.commitFast()
	return true
}

// queue puts a bottleneck on the heap of levels to recompute, keyed by
// its current level.
func (bs *structure) queue(h *indexedHeap, l int32) {
	if bs.isB(l) && !h.contains(l) {
		h.set(l, math.Float64bits(bs.hot[l].lvl))
	}
}

// topEntry is the index in a link's row of the term with the highest
// level (the newest of equals), -1 if the row is empty.
func (bs *structure) topEntry(l int32) int32 {
	best, top := int32(-1), -1.0
	row := bs.links[l].row
	for i := len(row) - 1; i >= 0; i-- {
		if m := row[i].m; m >= 0 {
			if lv := bs.hot[m].lvl; lv > top {
				best, top = int32(i), lv
			}
		}
	}
	return best
}

// relevel recomputes bottleneck l's level from its row. A flow crossing l
// at a higher level is moved to l, and l is queued again; a change of
// level queues the bottlenecks of l's column and carries the change to
// the loads of its other links. It returns false when the fast path must
// give up.
func (n *Network) relevel(l int32) bool {
	bs := &n.bs
	lk, hk := &bs.links[l], &bs.hot[l]
	if !bs.isB(l) {
		return true // its last flows moved away
	}
	var sum, lvl float64
	for {
		top, topM := 0.0, int32(-1)
		sum = 0
		row := lk.row
		for i := len(row) - 1; i >= 0; i-- {
			it := &row[i]
			if it.m < 0 {
				continue
			}
			lv := bs.hot[it.m].lvl
			sum += it.coef * lv
			if lv > top {
				top, topM = lv, it.m
			}
		}
		c := n.links[l].capacity
		rem := c - sum
		if !(rem > Epsilon*c) {
			bs.stats.stall++
			return false // stalls its flows
		}
		lvl = rem / lk.w
		if top <= lvl*(1+structTieTol) {
			break
		}
		if topM < 0 || bs.moves >= structMaxMoves {
			bs.stats.moves++
			return false
		}
		// The flows crossing l at a higher level are bottlenecked at l
		// now; the level is found again without them in the row.
		n.moveEntry(l, topM, hk.lvl)
	}
	lk.load = sum + lk.w*lvl
	if lk.done != bs.epoch {
		lk.done = bs.epoch
		bs.popped = append(bs.popped, l)
	}
	old := hk.lvl
	if lvl == old {
		return true
	}
	bs.saveLink(l)
	n.setLevel(l, lvl)
	d := lvl - old
	// The column's bottlenecks and other links come mixed in no order a
	// branch predicts, so the column is first split without branching on
	// which is which. Queueing the bottlenecks after the loads have moved
	// changes nothing: the loads are no level, and the heap pops by
	// (level, link) whatever the order of insertion.
	col := lk.col
	bq := slices.Grow(bs.colB[:0], len(col))[:len(col)]
	nq := slices.Grow(bs.colN[:0], len(col))[:len(col)]
	kb, kn := 0, 0
	for i := len(col) - 1; i >= 0; i-- {
		t := col[i].l
		if t < 0 {
			continue
		}
		bq[kb], nq[kn] = t, int32(i)
		isB := b2i(bs.hot[t].nOwn > 0)
		kb += isB
		kn += 1 - isB
	}
	bs.colB, bs.colN = bq, nq
	for _, i := range nq[:kn] {
		e := &col[i]
		t := e.l
		bs.check(t)
		tk := &bs.hot[t]
		// The load carries the change unless it is larger than the
		// capacity, where the sum would cancel: then it is summed afresh.
		if delta := e.coef * d; math.Abs(delta) <= n.links[t].capacity {
			tk.b += delta
		} else {
			tk.stale = bs.epoch
		}
	}
	for _, t := range bq[:kb] {
		if !n.levels.contains(t) {
			n.levels.set(t, math.Float64bits(bs.hot[t].lvl))
		}
	}
	return true
}

// structLoadSlack is how close to its capacity the carried load of a link
// that is no bottleneck may come before it is summed afresh from its row
// to be judged: far above the rounding the carried sums gather (about
// 1e-16 of the capacity per change).
const structLoadSlack = 1e-6

// structBudget, plus twice the number of links, bounds the
// recomputations of levels in one fastSolve: a change can move every
// level of its component, and a level is recomputed again when one in
// its row moves after it.
const structBudget = 1024

// structMaxMoves bounds the bundles of flows one fastSolve moves to a new
// bottleneck before it gives up.
const structMaxMoves = 256

// moveEntry makes link l the bottleneck of the flows crossing it that are
// bottlenecked at m. When l had no flow bottlenecked at it, lvl is its
// estimated level. The bottlenecks whose terms change are queued, the
// other links of the moved flows' paths checked.
func (n *Network) moveEntry(l, m int32, lvl float64) {
	bs := &n.bs
	bs.moves++
	if !bs.isB(l) {
		bs.saveLink(l)
		n.setLevel(l, lvl)
	}
	for _, lf := range n.links[l].flows {
		s := lf.slot
		if bs.flows[s].bn != m {
			continue
		}
		for _, k := range n.hops(s) {
			bs.saveLink(int32(k))
		}
		n.detach(s, true)
		n.attach(s, l, true)
		bs.moved = append(bs.moved, sMove{slot: s, from: m})
		for _, k := range n.hops(s) {
			if bs.isB(int32(k)) {
				bs.queue(&n.levels, int32(k))
			} else {
				bs.check(int32(k))
			}
		}
	}
}

// guessArrival gives a new flow the bottleneck whose level would be
// lowest with it added, and adds its terms.
func (n *Network) guessArrival(s int32) bool {
	bs := &n.bs
	f := &n.flows[s]
	best, bestLvl := int32(-1), math.Inf(1)
	for i, l := range n.hops(s) {
		lk := &bs.links[l]
		wu := f.weight * n.useOf(s, i)
		var est float64
		if bs.isB(int32(l)) {
			est = bs.hot[l].lvl * lk.w / (lk.w + wu)
		} else {
			c := n.links[l].capacity
			if rem := c - bs.hot[l].b; rem > Epsilon*c {
				est = rem / wu
			} else if e := bs.topEntry(int32(l)); e >= 0 {
				// Saturated by flows bottlenecked elsewhere: with the
				// arrival it is a bottleneck at a level no higher than
				// theirs.
				est = bs.hot[bs.links[l].row[e].m].lvl
			} else {
				return false
			}
		}
		if est < bestLvl {
			best, bestLvl = int32(l), est
		}
	}
	if best < 0 || !(bestLvl > 0) {
		return false
	}
	for _, l := range n.hops(s) {
		bs.saveLink(int32(l))
	}
	if !bs.isB(best) {
		n.setLevel(best, bestLvl)
	}
	n.attach(s, best, true)
	bs.unassigned--
	for _, l := range n.hops(s) {
		if bs.isB(int32(l)) {
			bs.seeds = append(bs.seeds, int32(l))
		} else {
			bs.check(int32(l))
		}
	}
	return true
}

// commitFast gives the flows of every bottleneck whose level changed
// their new rates, and the links their new loads.
func (n *Network) commitFast() {
	bs := &n.bs
	for _, mv := range bs.moved {
		n.reclock(mv.slot)
	}
	for _, s := range n.arrivals {
		if st := &n.states[s]; st.live && st.solvable {
			n.reclock(s)
		}
	}
	for _, l := range bs.popped {
		n.stats.FlowsSolved += int64(len(bs.links[l].own))
	}
	for _, l := range bs.changed {
		lvl := bs.hot[l].lvl
		for _, s := range bs.links[l].own {
			f := &n.flows[s]
			if r := lvl * f.weight; r != f.rate {
				n.stats.RateChanges++
				f.rate = r
			}
			if bs.flows[s].clk != l {
				n.reclock(s)
			}
		}
		n.clockDue(l)
	}
	for _, l := range bs.popped {
		if bs.isB(l) {
			n.loads[l] = bs.links[l].load
		}
	}
	for _, l := range bs.checks {
		if !bs.isB(l) {
			n.loads[l] = bs.hot[l].b
		}
	}
	bs.seeds, bs.capChanged = bs.seeds[:0], bs.capChanged[:0]
	bs.stats.fast++
}

// reclock puts a flow whose bottleneck changed on its bottleneck's
// clock, settled at its old rate, with its new rate.
func (n *Network) reclock(s int32) {
	bs := &n.bs
	sf := &bs.flows[s]
	f := &n.flows[s]
	r := bs.hot[sf.bn].lvl * f.weight
	if sf.clk == sf.bn {
		if r != f.rate {
			n.stats.RateChanges++
			f.rate = r
		}
		return
	}
	if sf.clk >= 0 {
		n.detachClock(s)
	} else {
		n.settle(s, n.now)
	}
	if r != f.rate {
		n.stats.RateChanges++
		f.rate = r
	}
	n.attachClock(s, sf.bn)
}

// adopt moves the terms of the flows the filling just fixed to the links
// it fixed them at, takes the levels of those links from the filling and
// sums the loads of the other links it reached afresh.
func (n *Network) adopt() {
	bs := &n.bs
	bs.seeds, bs.capChanged = bs.seeds[:0], bs.capChanged[:0]
	if bs.broken {
		return
	}
	// Flows leaving their clock are settled on it before any level moves.
	for _, s := range n.compFlows {
		sf := &bs.flows[s]
		if sf.clk >= 0 && (sf.clk != sf.fixAt || n.flows[s].rate <= 0) {
			n.detachClock(s)
			n.schedule(s)
		}
	}
	for _, s := range n.compFlows {
		sf := &bs.flows[s]
		bn := sf.fixAt
		if n.flows[s].rate <= 0 {
			bn = -1
		}
		if bn >= 0 && bn == sf.bn {
			continue
		}
		if sf.bn >= 0 {
			n.detach(s, false)
		} else {
			bs.unassign(s)
		}
		if bn >= 0 {
			n.attach(s, bn, false)
		} else if n.crossesCut(s) {
			sf.parked = true
		} else {
			bs.unassigned++
		}
		n.markResum(s)
	}
	for _, l := range n.compLinks {
		lk := &bs.links[l]
		if !bs.isB(int32(l)) || lk.popAt != n.epoch {
			continue
		}
		for _, o := range lk.own {
			if n.flows[o].comp != n.epoch {
				// A flow kept as background is bottlenecked at a link
				// the filling gave a higher level: rounding at the
				// threshold. Start over.
				n.dropStructure()
				return
			}
		}
		if lk.pop == bs.hot[l].lvl {
			continue
		}
		n.setLevel(int32(l), lk.pop)
		lk.rekey = n.epoch // its clock's first finish moved
		for _, it := range lk.col {
			if it.l >= 0 {
				bs.links[it.l].resum = n.epoch
			}
		}
	}
	for _, s := range n.compFlows {
		if sf := &bs.flows[s]; sf.bn >= 0 && sf.clk != sf.bn {
			n.markResum(s) // an arrival the filling gave its guessed bottleneck
			n.attachClock(s, sf.bn)
		}
	}
	// The loads of the links that are no bottleneck and whose terms or
	// levels moved, summed afresh; the clocks whose level moved, keyed
	// again.
	for _, l := range n.compLinks {
		lk := &bs.links[l]
		if lk.resum == n.epoch && !bs.isB(int32(l)) {
			bs.hot[l].b = bs.rowLoad(int32(l))
		}
		if lk.rekey == n.epoch {
			n.clockDue(int32(l))
		}
	}
}

// markResum marks the links of a flow whose terms moved for adopt to sum
// their loads afresh.
func (n *Network) markResum(s int32) {
	for _, l := range n.hops(s) {
		n.bs.links[l].resum = n.epoch
	}
}

// rebuildStructure builds the terms afresh from a filling that re-filled
// every live flow.
func (n *Network) rebuildStructure() {
	bs := &n.bs
	bs.broken = false
	bs.stats.rebuild++
	for s := range n.flows {
		if st := &n.states[s]; st.live && st.solvable {
			bs.flows[s].bn = -1
			bs.unassigned++
		}
	}
	n.adopt()
}
