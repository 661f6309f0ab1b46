package netmodel

// Direct updates. Most flows of a data-analytics cluster are bounded by a
// resource of their own (a compute by its core, a map's streamed read by
// the compute it feeds), while the links they share (disks, NICs, rack
// links) keep spare capacity. A change that saturates no shared link
// leaves every other flow's bottleneck where it was, so the max-min
// allocation after it is the one before with the flow added at its own
// bound, or removed; nothing else moves, and a re-solve of the connected
// component would compute the same rates. Such a change is applied at once
// in O(path), without marking links dirty:
//
//   - an arrival whose path has a link no other flow crosses: its rate is
//     the lowest level of those links, computed as the filling would
//     (capacity / (weight × use), times weight), provided every shared
//     link of its path keeps spare capacity with it added;
//   - a departure when every link of its path that another flow crosses
//     has spare capacity.
//
// Proof: in the allocation after the change every flow still has a
// saturated bottleneck on which no flow of its class has a higher rate per
// weight. An old flow's bottleneck was saturated, so the changed flow does
// not cross it (it crosses only links with spare capacity) and it is
// unchanged; an arrival's bottleneck is its lone link, saturated by it
// alone. The max-min allocation is unique, so this is it.
//
// Only when no re-solve is pending (the rates are current) is a change
// applied directly; otherwise, or when a shared link would be left within
// directSlack of its capacity, the change waits for the solver as before.
// Spare capacity is judged on each link's load (Σ rate × use of its flows),
// kept up to date as rates change; directSlack, far above the rounding of
// those sums, keeps the judgement safe.

// directSlack is the spare capacity, relative to a link's capacity, that a
// shared link must keep for a change across it to be applied directly.
const directSlack = 1e-6

// spare reports whether link l keeps more than directSlack of its capacity
// with extra more load on it.
func (n *Network) spare(l LinkID, extra float64) bool {
	c := n.links[l].capacity
	return n.loads[l]+extra < c*(1-directSlack)
}

// startDirect gives a new flow its rate at once when its path has a link
// of its own and its rate there leaves every shared link spare capacity.
// It reports false, changing nothing, when the flow must wait for a
// re-solve.
func (n *Network) startDirect(slot int32) bool {
	if len(n.dirty) > 0 {
		return false
	}
	f := &n.flows[slot]
	level, alone, bottleneck := 0.0, false, LinkID(0)
	for i, l := range n.hops(slot) {
		if len(n.links[l].flows) > 0 {
			continue
		}
		// The filling's arithmetic: level = rem / usage, rem the capacity.
		w := f.weight * n.useOf(slot, i)
		lv := 0.0
		if lk := &n.links[l]; lk.capacity > Epsilon*lk.capacity && w > 0 {
			lv = lk.capacity / w
		}
		if !alone || lv < level {
			level, alone, bottleneck = lv, true, l
		}
	}
	if !alone {
		return false
	}
	rate := level * f.weight
	for i, l := range n.hops(slot) {
		if len(n.links[l].flows) > 0 && (!n.spare(l, rate*n.useOf(slot, i)) || n.structOn() && n.bs.isB(int32(l))) {
			return false
		}
	}
	f.rate = rate
	n.addLoad(slot, rate)
	if n.structOn() && level > 0 {
		// The lone link with the lowest level (the first of them) is the
		// flow's bottleneck.
		n.setLevel(int32(bottleneck), level)
		n.attach(slot, int32(bottleneck), true)
	}
	n.stats.Direct++
	return true
}

// releaseDirect reports whether a departing flow leaves the others' rates
// as they are: nothing is pending and every link it shares has spare
// capacity.
func (n *Network) releaseDirect(slot int32) bool {
	if len(n.dirty) > 0 {
		return false
	}
	bn := LinkID(n.bs.flows[slot].bn)
	for _, l := range n.hops(slot) {
		if len(n.links[l].flows) > 1 && !n.spare(l, 0) {
			return false
		}
		if n.structOn() && (l == bn && len(n.links[l].flows) > 1 || l != bn && n.bs.isB(int32(l))) {
			return false
		}
	}
	n.stats.Direct++
	return true
}

// addLoad adds a flow's rate change d to the loads of its links.
func (n *Network) addLoad(slot int32, d float64) {
	if d == 0 {
		return
	}
	for i, l := range n.hops(slot) {
		n.loads[l] += d * n.useOf(slot, i)
	}
}
