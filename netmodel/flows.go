package netmodel

import (
	"fmt"
	"math"
	"time"
)

// Start adds a flow at instant now (≥ Now()) and returns its id. The flow
// gets its rate at the next re-solve (see Network); until then its rate is
// 0. Cost: O(len(Path)) plus, amortised, the deferred re-solve.
func (n *Network) Start(now time.Duration, spec FlowSpec) (FlowID, error) {
	weight, err := n.checkSpec(spec)
	if err != nil {
		return 0, err
	}
	if err := n.moveTo(now); err != nil {
		return 0, err
	}
	slot := n.allocSlot()
	f, st := &n.flows[slot], &n.states[slot]
	id := n.nextID
	n.nextID++
	*f = flow{weight: weight, class: int32(spec.Class)}
	*st = flowState{
		id: id, owner: spec.Owner, size: spec.Size,
		long: st.long, use: st.use, back: st.back[:0], last: now, live: true, solvable: spec.Size > 0,
	}
	n.setPath(slot, spec.Path)
	n.setUse(slot, spec.Use)
	n.index.put(id, slot)
	n.live++
	if !st.solvable {
		st.finish = now
		n.finishes.set(slot, uint64(now))
		return id, nil
	}
	n.bs.flows[slot] = sFlow{bn: -1, fixAt: -1, clk: -1}
	n.noteClassLive(f.class, 1)
	direct := n.startDirect(slot)
	switch {
	case !n.structOn() || n.bs.flows[slot].bn >= 0:
	case direct:
		n.bs.flows[slot].parked = true // alone on a link of capacity 0
	default:
		n.bs.unassigned++ // until a re-solve finds its bottleneck
	}
	if !direct {
		n.arrivals = append(n.arrivals, slot)
		n.noteClass(f.class)
	}
	for hop, l := range n.hops(slot) {
		lk := &n.links[l]
		st.back = append(st.back, int32(len(lk.flows)))
		lk.flows = append(lk.flows, linkFlow{slot: slot, hop: int32(hop)})
		if !direct {
			n.markDirty(l)
		}
	}
	if bn := n.bs.flows[slot].bn; direct && bn >= 0 {
		n.attachClock(slot, bn)
	} else if direct {
		n.schedule(slot)
	} else if n.deferred() {
		n.startProvisional(slot)
	}
	return id, nil
}

// checkSpec validates a flow and returns its effective weight.
func (n *Network) checkSpec(spec FlowSpec) (float64, error) {
	if spec.Size < 0 {
		return 0, fmt.Errorf("%w: FlowSpec.Size = %d: must be ≥ 0 bytes", ErrInvalid, spec.Size)
	}
	w := spec.Weight
	if w == 0 {
		w = 1
	} else if !(w >= MinWeight && w <= MaxWeight) {
		return 0, fmt.Errorf("%w: FlowSpec.Weight = %v: must be 0 (meaning 1) or in [%v, %v]",
			ErrInvalid, spec.Weight, MinWeight, MaxWeight)
	}
	if spec.Class < math.MinInt32 || spec.Class > math.MaxInt32 {
		return 0, fmt.Errorf("%w: FlowSpec.Class = %d: must fit in 32 bits", ErrInvalid, spec.Class)
	}
	if len(spec.Path) == 0 {
		return 0, fmt.Errorf("%w: FlowSpec.Path is empty", ErrInvalid)
	}
	if len(spec.Path) > maxHops {
		return 0, fmt.Errorf("%w: FlowSpec.Path has %d links: at most %d", ErrInvalid, len(spec.Path), maxHops)
	}
	if spec.Use != nil && len(spec.Use) != len(spec.Path) {
		return 0, fmt.Errorf("%w: FlowSpec.Use has %d entries for %d links of FlowSpec.Path", ErrInvalid, len(spec.Use), len(spec.Path))
	}
	for i, u := range spec.Use {
		if !(u >= MinUse && u <= MaxUse) {
			return 0, fmt.Errorf("%w: FlowSpec.Use[%d] = %v: must be in [%v, %v]", ErrInvalid, i, u, MinUse, MaxUse)
		}
	}
	for i, l := range spec.Path {
		if l < 0 || int(l) >= len(n.links) {
			return 0, fmt.Errorf("%w: FlowSpec.Path[%d] = %d: the network has %d links", ErrUnknownLink, i, l, len(n.links))
		}
		for j := range i {
			if spec.Path[j] == l {
				return 0, fmt.Errorf("%w: FlowSpec.Path[%d] = %d repeats FlowSpec.Path[%d]", ErrInvalid, i, l, j)
			}
		}
	}
	return w, nil
}

func (n *Network) allocSlot() int32 {
	if k := len(n.free); k > 0 {
		slot := n.free[k-1]
		n.free = n.free[:k-1]
		return slot
	}
	n.flows = append(n.flows, flow{})
	n.states = append(n.states, flowState{})
	n.finishes.grow(len(n.flows))
	n.growStructure()
	return int32(len(n.flows) - 1)
}

// Cancel aborts a flow at instant now (≥ Now()) and returns the whole bytes
// it delivered, which are credited to its links; they are less than its
// size. Cost: O(len(Path)) plus the deferred re-solve.
func (n *Network) Cancel(now time.Duration, id FlowID) (int64, error) {
	slot, err := n.lookup(id)
	if err != nil {
		return 0, err
	}
	if err := n.moveTo(now); err != nil {
		return 0, err
	}
	n.settle(slot, n.now)
	delivered := n.states[slot].wholeBytes(n.states[slot].done)
	n.credit(slot, delivered)
	n.release(slot)
	n.stats.Cancelations++
	return delivered, nil
}

// release detaches a flow from its links (marking them dirty) and frees
// its slot for reuse.
func (n *Network) release(slot int32) {
	f, st := &n.flows[slot], &n.states[slot]
	if st.solvable {
		direct := n.releaseDirect(slot)
		if !direct {
			n.noteDeparture(f)
		}
		n.structRelease(slot, !direct)
		n.addLoad(slot, -f.rate)
		for hop, l := range n.hops(slot) {
			n.unlink(l, st.back[hop])
			if len(n.links[l].flows) == 0 {
				n.loads[l] = 0 // no rounding left behind
			}
			if !direct {
				n.markDirty(l)
			}
		}
	}
	n.finishes.remove(slot)
	if n.bs.flows[slot].clk >= 0 {
		n.unclock(slot)
	}
	n.index.del(st.id)
	st.live = false
	f.rate = 0
	n.live--
	n.free = append(n.free, slot)
}

// unlink swap-removes entry i of link l's flow list.
func (n *Network) unlink(l LinkID, i int32) {
	lk := &n.links[l]
	last := int32(len(lk.flows) - 1)
	if i != last {
		moved := lk.flows[last]
		lk.flows[i] = moved
		n.states[moved.slot].back[moved.hop] = i
	}
	lk.flows = lk.flows[:last]
}

// deliveredAt returns the fractional bytes the flow in slot s has
// delivered at t ≥ last.
func (n *Network) deliveredAt(s int32, t time.Duration) float64 {
	st, rate := &n.states[s], n.flows[s].rate
	d := st.done
	if c := n.bs.flows[s].clk; c >= 0 {
		d += n.flows[s].weight * (n.bs.clockAt(c, t) - n.bs.flows[s].vA)
	} else if dt := t - st.last; dt > 0 && rate > 0 {
		d += rate * dt.Seconds()
	}
	return math.Min(d, float64(st.size))
}

// wholeBytes is the integer byte count credited for d fractional bytes of
// an incomplete flow: at most size-1, since reaching size is a completion.
func (f *flowState) wholeBytes(d float64) int64 {
	b := int64(d)
	return max(0, min(b, f.size-1))
}

// settle moves a flow's delivered bytes to t at its current rate.
func (n *Network) settle(s int32, t time.Duration) {
	st := &n.states[s]
	st.done = n.deliveredAt(s, t)
	st.last = t
	if c := n.bs.flows[s].clk; c >= 0 {
		n.bs.flows[s].vA = n.bs.clockAt(c, t)
	}
}

// credit adds the bytes a flow delivered, when it ends, to the links of
// its path. Live flows are counted by Carried as it is asked, so a rate
// change costs no per-link work.
func (n *Network) credit(s int32, delivered int64) {
	for _, l := range n.hops(s) {
		n.carried[l] += delivered
	}
}

// Rate returns a flow's current rate in bytes/s (0 while stalled), after
// any deferred re-solve.
func (n *Network) Rate(id FlowID) (float64, error) {
	slot, err := n.lookup(id)
	if err != nil {
		return 0, err
	}
	n.solve()
	return n.flows[slot].rate, nil
}

// Delivered returns the whole bytes a flow has delivered at Now(); it is
// below the flow's size until the flow completes.
func (n *Network) Delivered(id FlowID) (int64, error) {
	slot, err := n.lookup(id)
	if err != nil {
		return 0, err
	}
	return n.states[slot].wholeBytes(n.deliveredAt(slot, n.now)), nil
}

// Load returns the sum of the rates of the flows crossing a link, each
// times its use of the link, in the link's capacity units (bytes/s), after
// any deferred re-solve. O(flows on the link).
func (n *Network) Load(l LinkID) (float64, error) {
	if err := n.checkLink("link", l); err != nil {
		return 0, err
	}
	n.solve()
	sum := 0.0
	for _, lf := range n.links[l].flows {
		sum += n.flows[lf.slot].rate * n.useOf(lf.slot, int(lf.hop))
	}
	return sum, nil
}

// Utilisation returns Load/Capacity of a link, in [0, 1] up to Epsilon; 0
// for a zero-capacity link.
func (n *Network) Utilisation(l LinkID) (float64, error) {
	load, err := n.Load(l)
	if err != nil || n.links[l].capacity == 0 {
		return 0, err
	}
	return load / n.links[l].capacity, nil
}

// Carried returns the whole bytes that flows crossing a link have moved
// over it since the network was made, at Now(): completed flows count
// their size, canceled flows what Cancel returned, live flows what
// Delivered returns. O(flows on the link).
func (n *Network) Carried(l LinkID) (int64, error) {
	if err := n.checkLink("link", l); err != nil {
		return 0, err
	}
	total := n.carried[l]
	for _, lf := range n.links[l].flows {
		st := &n.states[lf.slot]
		total += st.wholeBytes(n.deliveredAt(lf.slot, n.now))
	}
	return total, nil
}
