package netmodel

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Epsilon is the solver's one tolerance, relative to a link's capacity: a
// link whose capacity left for unfixed flows is at most Epsilon×capacity is
// saturated, and its unfixed flows get rate 0 (they stall). It absorbs the
// rounding residue of subtracting fixed rates from a capacity, which would
// otherwise appear as a phantom sliver of bandwidth.
const Epsilon = 1e-9

// Solve performs any deferred re-solve now. Reads do it implicitly; Solve
// lets a caller choose when the cost is paid.
func (n *Network) Solve() { n.solve() }

// solve recomputes the rates of the connected components of the dirty
// links: progressive filling, class by class in priority order.
func (n *Network) solve() {
	if len(n.dirty) == 0 || n.deferred() {
		return
	}
	n.promote()
	n.solved()
	rebuild := n.bs.broken && len(n.bs.classes) <= 1
	if rebuild {
		n.invalidateAll()
	}
	if n.bs.refill {
		n.bs.refill = false
	} else if n.fastSolve() {
		n.clearDirty()
		n.resetBatch()
		n.stats.Solves++
		n.stats.Structural++
		return
	}
	if thr := n.batchThreshold(); thr == 0 || !n.collect(thr) {
		n.collect(0)
	}
	n.clearDirty()
	n.stats.Solves++
	n.stats.FlowsSolved += int64(len(n.compFlows))
	n.fillAll()
	// What the filling left of each link it re-filled is its new load
	// (direct.go), summed afresh: no rounding carries over from earlier
	// rates.
	n.takeLoads(n.compLinks)
	n.applyRates()
	if rebuild {
		n.rebuildStructure()
	} else {
		n.adopt()
	}
}

func (n *Network) clearDirty() {
	for _, l := range n.dirty {
		n.links[l].dirty = false
	}
	n.dirty = n.dirty[:0]
}

// takeLoads sets the loads of re-filled links from the capacity the
// filling left on them.
func (n *Network) takeLoads(links []LinkID) {
	for _, l := range links {
		lk := &n.links[l]
		n.loads[l] = lk.capacity - lk.rem
	}
}

// fillAll fills the gathered flows class by class.
func (n *Network) fillAll() {
	n.sortByClass()
	for start := 0; start < len(n.compFlows); {
		end := start + 1
		class := n.flows[n.compFlows[start]].class
		for end < len(n.compFlows) && n.flows[n.compFlows[end]].class == class {
			end++
		}
		n.fill(n.compFlows[start:end], class)
		start = end
	}
}

// collect gathers, from the dirty links, the links and flows to re-fill,
// and sets each link's capacity left for them. With θ = 0 that is every
// link and flow reachable through flows crossing links (the connected
// components; breadth-first over links, epoch marks, no allocation once
// the scratch slices have grown). The order in which flows are met is
// the order fill sums their weights in, so it must not change: it fixes
// the rounding. With θ > 0 the walk does not pass through flows
// below θ: they stay fixed, as background load on the links reached, and
// the parts of the component reachable only through them keep their rates
// too (their re-fill, on unchanged capacity left, would give the same).
// Meeting a flow of another class than the batch's, it gives up and
// returns false.
func (n *Network) collect(thr float64) bool {
	n.nextEpoch()
	n.compLinks, n.compFlows = n.compLinks[:0], n.compFlows[:0]
	for _, l := range n.dirty {
		n.reach(l)
	}
	for i := 0; i < len(n.compLinks); i++ {
		lk := &n.links[n.compLinks[i]]
		start := len(n.compFlows)
		if thr == 0 {
			n.compFlows = n.appendUnmarked(n.compFlows, lk.flows)
		} else if !n.appendAbove(lk, thr) {
			return false
		}
		// Reaching the new flows' links after the scan rather than during
		// it visits the same links in the same order: a link's flows are
		// distinct, and reach does not touch flows.
		for _, s := range n.compFlows[start:] {
			for _, l := range n.hops(s) {
				n.reach(l)
			}
		}
	}
	return true
}

// appendUnmarked marks the flows of a link's list not yet in the
// component and appends them to comp, in list order. It does not branch
// on the marks, whose outcome is unpredictable.
func (n *Network) appendUnmarked(comp []int32, lfs []linkFlow) []int32 {
	k := len(comp)
	comp = slices.Grow(comp, len(lfs))[:k+len(lfs)]
	flows, epoch := n.flows, n.epoch
	for _, lf := range lfs {
		f := &flows[lf.slot]
		comp[k] = lf.slot
		k += b2i(f.comp != epoch)
		f.comp = epoch
	}
	return comp[:k]
}

// appendAbove is appendUnmarked for a threshold θ > 0: flows below θ are
// frozen as background load on lk instead. Meeting a flow of another
// class than the batch's, it returns false.
func (n *Network) appendAbove(lk *link, thr float64) bool {
	for _, lf := range lk.flows {
		f := &n.flows[lf.slot]
		if f.comp == n.epoch {
			continue // met on an earlier link; it passed the tests there
		}
		if f.class != n.batchClass {
			return false
		}
		if f.rate > 0 && f.rate < thr*f.weight*thresholdSlack {
			lk.rem -= f.rate * n.useOf(lf.slot, int(lf.hop))
			f.fixed = n.epoch // background: fill must not fix it
			continue
		}
		f.comp = n.epoch
		n.compFlows = append(n.compFlows, lf.slot)
	}
	return true
}

// b2i is 1 for true and 0 for false; the compiler makes it a flag move,
// not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nextEpoch starts a new solve epoch. When the counter wraps, every mark
// is cleared, so that one left from 2³² epochs ago cannot pass for new.
func (n *Network) nextEpoch() {
	n.epoch++
	if n.epoch != 0 {
		return
	}
	for s := range n.flows {
		n.flows[s].comp, n.flows[s].fixed = 0, 0
	}
	for l := range n.links {
		n.links[l].mark = 0
	}
	for l := range n.bs.links {
		lk := &n.bs.links[l]
		lk.popAt, lk.resum, lk.rekey = 0, 0, 0
	}
	n.epoch = 1
}

// reach adds a link to the links to re-fill, once per solve.
func (n *Network) reach(l LinkID) {
	lk := &n.links[l]
	if lk.mark != n.epoch {
		lk.mark = n.epoch
		lk.rem, lk.usage, lk.unfixed = lk.capacity, 0, 0
		n.compLinks = append(n.compLinks, l)
	}
}

// sortByClass orders the component's flows by class when it holds more
// than one, so each class is filled in one contiguous run.
func (n *Network) sortByClass() (mixed bool) {
	fs := n.compFlows
	for _, s := range fs {
		if n.flows[s].class != n.flows[fs[0]].class {
			mixed = true
			break
		}
	}
	if mixed {
		slices.SortFunc(fs, n.cmpClass)
	}
	return mixed
}

func (n *Network) cmpClass(a, b int32) int {
	if c := cmp.Compare(n.flows[a].class, n.flows[b].class); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// fill runs progressive filling for one class on the capacity the lower
// classes left: all its flows rise together in proportion to their weights
// until a link saturates; the flows through it are fixed; repeat.
func (n *Network) fill(group []int32, class int32) {
	n.filled = n.filled[:0]
	for _, s := range group {
		f := &n.flows[s]
		for i, l := range n.hops(s) {
			lk := &n.links[l]
			w := f.weight
			if f.scaled {
				w *= n.states[s].use[i]
			}
			lk.usage += w
			if lk.unfixed == 0 {
				n.filled = append(n.filled, l)
			}
			lk.unfixed++
		}
	}
	// The heap is empty here (the previous fill ran it dry); the order of
	// insertion does not matter, since (level, link) is a total order.
	for _, l := range n.filled {
		lk := &n.links[l]
		lk.peak = float32(lk.usage)
		n.levels.push(int32(l), levelKey(lk))
	}
	n.levels.heapify()
	for n.levels.len() > 0 {
		if level, ok := n.nextBottleneck(); ok {
			// Fixing a flow does not change which of the link's flows
			// are unfixed but that one, so the scan can select them all
			// first, without a branch per flow, and fix them after.
			l := n.levels.pop().item
			n.fixing = n.unfixedOf(n.fixing[:0], n.links[l].flows, class)
			for _, s := range n.fixing {
				n.bs.flows[s].fixAt = l
				n.fix(s, level*n.flows[s].weight, class)
			}
			n.bs.links[l].pop, n.bs.links[l].popAt = level, n.epoch
		}
	}
}

// unfixedOf appends to out the flows of a link's list that are of the
// class and not yet fixed, in list order.
func (n *Network) unfixedOf(out []int32, lfs []linkFlow, class int32) []int32 {
	k := len(out)
	out = slices.Grow(out, len(lfs))[:k+len(lfs)]
	flows, epoch := n.flows, n.epoch
	for _, lf := range lfs {
		f := &flows[lf.slot]
		out[k] = lf.slot
		k += b2i(f.class == class && f.fixed != epoch)
	}
	return out[:k]
}

// nextBottleneck checks the heap's first link. Keys are lower bounds:
// fixing flows at the current level only raises the levels of the other
// links they cross (exactly; by rounding, at most negligibly lowers
// them), so fix does not touch the heap and a link is re-keyed only when
// it comes first. It returns the level when the first link is the
// bottleneck; otherwise it drops or re-keys the link and returns false.
func (n *Network) nextBottleneck() (float64, bool) {
	e := n.levels.min()
	lk := &n.links[e.item]
	if lk.unfixed == 0 {
		n.levels.pop()
		return 0, false
	}
	if key := levelKey(lk); key != e.key {
		if key > e.key {
			n.levels.set(e.item, key)
			return 0, false
		}
		return math.Float64frombits(key), true
	}
	return math.Float64frombits(e.key), true
}

// fix gives a flow its final rate for this solve and takes it off the
// links it crosses.
//
// Taking a flow's weight × use off a link's usage cancels: what is left
// carries the rounding of the sum it was taken from, about 1e-16 of it.
// With weights alone no term is 1e6 times another, which leaves the usage
// exact to about 1e-10; with uses a term can be 1e24 times another, so
// when the usage falls below 2⁻²⁰ of the sum it began as, it is summed
// afresh over the link's unfixed flows of the class.
func (n *Network) fix(s int32, rate float64, class int32) {
	f := &n.flows[s]
	f.newRate = rate
	f.fixed = n.epoch
	for i, l := range n.hops(s) {
		lk := &n.links[l]
		r, w := rate, f.weight
		if f.scaled {
			u := n.states[s].use[i]
			r, w = r*u, w*u
		}
		lk.rem -= r
		lk.usage -= w
		lk.unfixed--
		switch {
		case lk.unfixed == 0:
			lk.usage = 0
		case lk.usage < float64(lk.peak)*0x1p-20:
			lk.usage = n.unfixedUsage(lk, class)
			lk.peak = float32(lk.usage)
		}
	}
}

// unfixedUsage sums weight × use over a link's unfixed flows of a class.
func (n *Network) unfixedUsage(lk *link, class int32) float64 {
	sum := 0.0
	for _, lf := range lk.flows {
		if f := &n.flows[lf.slot]; f.class == class && f.fixed != n.epoch {
			sum += f.weight * n.useOf(lf.slot, int(lf.hop))
		}
	}
	return sum
}

// levelKey is the heap key of a link's level: the rate per unit weight at
// which it saturates, 0 when it is saturated within Epsilon.
func levelKey(lk *link) uint64 {
	if lk.rem <= Epsilon*lk.capacity || lk.usage <= 0 {
		return 0
	}
	return math.Float64bits(lk.rem / lk.usage)
}

// applyRates settles every re-solved flow on no clock whose rate changed
// and reschedules its completion.
func (n *Network) applyRates() {
	for _, s := range n.compFlows {
		f := &n.flows[s]
		if f.newRate == f.rate {
			continue
		}
		n.stats.RateChanges++
		if n.bs.flows[s].clk >= 0 {
			// Its clock carries its progress: adopt sets the clock's
			// level, or settles the flow and takes it off.
			f.rate = f.newRate
			continue
		}
		n.settle(s, n.now)
		f.rate = f.newRate
		n.schedule(s)
	}
}

// schedule sets a flow's completion instant: the first integer
// nanosecond at which its remaining bytes are delivered. A stalled flow
// has none, nor has a flow that would finish after the largest
// time.Duration (about 292 years).
//
// The completion heap is lazy like the level heap: an entry's key is a
// lower bound of its flow's instant. An instant that moves earlier is
// re-keyed at once; one that moves later is only recorded, and the entry
// is re-keyed if it reaches the top (see firstFinish). A flow's instant
// often moves later and back again, or several times, before it is
// anywhere near the top, and then costs no heap work at all.
func (n *Network) schedule(slot int32) {
	f, st := &n.flows[slot], &n.states[slot]
	if f.rate <= 0 {
		n.finishes.remove(slot)
		return
	}
	ns := wholeNanos((float64(st.size) - st.done) / f.rate * 1e9)
	if ns >= float64(math.MaxInt64-n.now) {
		n.finishes.remove(slot) // beyond the last representable instant: never
		return
	}
	finish := n.now + time.Duration(max(ns, 0))
	st.finish = finish
	if n.finishes.contains(slot) && n.finishes.key(slot) <= uint64(finish) {
		return // the key is still a lower bound
	}
	n.finishes.set(slot, uint64(finish))
}

// wholeNanos is the first whole nanosecond at or after q nanoseconds,
// where q carries the error of a division and a multiplication (at most
// an ulp or two): a q within 4 ulps of a whole number is that number, so
// an exact answer stays exact (67e6 B / 125e6 B/s × 1e9 is 536000000.00000006
// in float64, and 536 ms, not 536 ms + 1 ns).
func wholeNanos(q float64) float64 {
	if r := math.Round(q); math.Abs(q-r) <= 4*(math.Nextafter(q, math.Inf(1))-q) {
		return r
	}
	return math.Ceil(q)
}

// firstFinish returns the slot and instant of the flow that completes
// first, re-keying the stale entries it meets at the top; false when no
// flow is scheduled. Entries are ordered by (key, slot) and each key is at
// most its flow's instant, so the first entry whose key is its instant
// has the least instant.
func (n *Network) firstFinish() (int32, time.Duration, bool) {
	slot, at, ok := n.firstOwnFinish()
	if s, due, on := n.firstDue(); on && (!ok || due < at) {
		return s, due, true
	}
	return slot, at, ok
}

// firstOwnFinish is firstFinish among the flows on no clock.
func (n *Network) firstOwnFinish() (int32, time.Duration, bool) {
	for n.finishes.len() > 0 {
		e := n.finishes.min()
		if at := n.states[e.item].finish; uint64(at) != e.key {
			n.finishes.set(e.item, uint64(at))
			continue
		}
		return e.item, time.Duration(e.key), true
	}
	return 0, 0, false
}

// invalidateAll marks every link dirty, so the next solve is a full one:
// a filling of every component.
func (n *Network) invalidateAll() {
	for l := range n.links {
		n.markDirty(LinkID(l))
	}
	n.threshold = 0
	n.bs.refill = true
}
