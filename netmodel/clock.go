package netmodel

import (
	"math"
	"time"
)

// Progress by bottleneck. Every flow bottlenecked at link b moves at
// λ(b)·weight, so the bytes it delivers between two instants are its
// weight times the growth of one clock per bottleneck, V(b), which
// advances at λ(b) (bytes per unit of weight). A flow on a clock keeps
// its delivered bytes at an anchor (flowState.done) with the clock's
// value there (sFlow.vA), and its finish as a target on the clock,
// τ = vA + (size − done)/weight; each clock keeps its flows in a heap by
// target, and the network keeps the clocks in a heap by the instant their
// first flow finishes. A change of level then costs the clock's heap
// entry, not a settlement and a rescheduling per flow.
//
// The instant a clock's first flow finishes is computed as a flow's is
// (see schedule): the remaining bytes over the rate from the instant the
// level was last set, rounded up to a whole nanosecond with the same
// allowance for an exact answer. Flows with no bottleneck in the
// structure (stalled, or several classes live) keep their own
// completions in Network.finishes.
//
// A clock's value grows without bound while flows keep it busy, and the
// larger it is the coarser its rounding; when it passes clockRebase it is
// moved back to 0, with every target and anchor on it.

// clockRebase is the value past which a clock is moved back to 0: about
// a gibibyte per unit of weight, where float64 resolves 2.4e-7 bytes.
const clockRebase = 1 << 30

// clockHeap is one clock's flows by target; positions are in
// structure.cpos, shared by all clocks (a flow is on one clock at most).
type clockHeap struct {
	es []heapEntry
}

func (h *clockHeap) up(pos []int32, i int) {
	e := h.es[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(h.es[p]) {
			break
		}
		h.es[i] = h.es[p]
		pos[h.es[i].item] = int32(i)
		i = p
	}
	h.es[i] = e
	pos[e.item] = int32(i)
}

func (h *clockHeap) down(pos []int32, i int) {
	e := h.es[i]
	n := len(h.es)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.es[c+1].before(h.es[c]) {
			c++
		}
		if !h.es[c].before(e) {
			break
		}
		h.es[i] = h.es[c]
		pos[h.es[i].item] = int32(i)
		i = c
	}
	h.es[i] = e
	pos[e.item] = int32(i)
}

func (h *clockHeap) push(pos []int32, item int32, key uint64) {
	h.es = append(h.es, heapEntry{key: key, item: item})
	h.up(pos, len(h.es)-1)
}

func (h *clockHeap) remove(pos []int32, item int32) {
	i := int(pos[item])
	last := len(h.es) - 1
	moved := h.es[last]
	h.es = h.es[:last]
	if i == last {
		return
	}
	h.es[i] = moved
	pos[moved.item] = int32(i)
	h.up(pos, i)
	h.down(pos, int(pos[moved.item]))
}

// clockAt is link l's clock at instant t ≥ its last setting.
func (bs *structure) clockAt(l int32, t time.Duration) float64 {
	lk := &bs.links[l]
	if t == lk.T {
		return lk.V
	}
	return lk.V + bs.hot[l].lvl*(t-lk.T).Seconds()
}

// setLevel changes a link's level at Now(), advancing its clock to Now()
// at the old level first.
func (n *Network) setLevel(l int32, lvl float64) {
	bs := &n.bs
	lk := &bs.links[l]
	if lk.T != n.now {
		lk.V = bs.clockAt(l, n.now)
		lk.T = n.now
	}
	if bs.solving && lk.chg != bs.epoch && lvl != bs.hot[l].lvl {
		lk.chg = bs.epoch
		bs.changed = append(bs.changed, l)
	}
	bs.hot[l].lvl = lvl
}

// attachClock puts slot s, settled at Now(), on link l's clock, taking it
// out of Network.finishes.
func (n *Network) attachClock(s, l int32) {
	bs := &n.bs
	lk := &bs.links[l]
	n.settle(s, n.now)
	n.finishes.remove(s)
	if len(lk.clk.es) == 0 {
		lk.V, lk.T = 0, n.now
	} else if lk.T != n.now {
		lk.V = bs.clockAt(l, n.now)
		lk.T = n.now
	}
	sf := &bs.flows[s]
	st := &n.states[s]
	sf.clk, sf.vA = l, lk.V
	tau := lk.V + (float64(st.size)-st.done)/n.flows[s].weight
	lk.clk.push(bs.cpos, s, math.Float64bits(math.Max(tau, 0)))
	if lk.V > clockRebase {
		n.rebaseClock(l)
	}
	n.clockDue(l)
}

// detachClock settles slot s at Now() and takes it off its clock; the
// caller schedules it, or releases it.
func (n *Network) detachClock(s int32) {
	n.settle(s, n.now)
	n.unclock(s)
}

// unclock takes slot s off its clock without settling it.
func (n *Network) unclock(s int32) {
	bs := &n.bs
	l := bs.flows[s].clk
	bs.links[l].clk.remove(bs.cpos, s)
	bs.flows[s].clk = -1
	n.clockDue(l)
}

// rebaseClock moves link l's clock back to 0 with its targets and
// anchors.
func (n *Network) rebaseClock(l int32) {
	bs := &n.bs
	lk := &bs.links[l]
	base := lk.V
	for i := range lk.clk.es {
		e := &lk.clk.es[i]
		e.key = math.Float64bits(math.Max(math.Float64frombits(e.key)-base, 0))
		bs.flows[e.item].vA -= base
	}
	lk.V = 0
	// Subtracting can make two targets equal; the order by slot then
	// decides, so the heap is rebuilt.
	for i := len(lk.clk.es)/2 - 1; i >= 0; i-- {
		lk.clk.down(bs.cpos, i)
	}
}

// clockDue keys link l in the heap of clocks by the instant its first
// flow finishes, or takes it out when it has none or that is beyond the
// last representable instant.
func (n *Network) clockDue(l int32) {
	bs := &n.bs
	lk := &bs.links[l]
	lvl := bs.hot[l].lvl
	if len(lk.clk.es) == 0 || !(lvl > 0) {
		bs.due.remove(l)
		return
	}
	tau := math.Float64frombits(lk.clk.es[0].key)
	ns := wholeNanos((tau - lk.V) / lvl * 1e9)
	if ns >= float64(math.MaxInt64-lk.T) {
		bs.due.remove(l)
		return
	}
	finish := max(lk.T+time.Duration(max(ns, 0)), n.now)
	bs.due.set(l, uint64(finish))
}

// firstDue is the clock whose first flow finishes first: that flow's
// slot and instant; false when no clock has one.
func (n *Network) firstDue() (int32, time.Duration, bool) {
	bs := &n.bs
	if bs.due.len() == 0 {
		return 0, 0, false
	}
	e := bs.due.min()
	return bs.links[e.item].clk.es[0].item, time.Duration(e.key), true
}
