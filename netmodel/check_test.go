package netmodel

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// checkTol is the tests' tolerance, relative to a link's capacity: far
// looser than Epsilon, far tighter than any real unfairness.
const checkTol = 1e-6

// liveSlots returns the slots of live flows that take bandwidth, in id
// order.
func liveSlots(n *Network) []int32 {
	var out []int32
	for s := range n.states {
		if st := &n.states[s]; st.live && st.solvable {
			out = append(out, int32(s))
		}
	}
	slices.SortFunc(out, n.cmpID)
	return out
}

// flowView is what the checks read of a flow.
type flowView struct {
	id     FlowID
	class  int32
	weight float64
	rate   float64
	path   []LinkID
	use    []float64 // per hop
}

// liveFlows returns views of the live flows that take bandwidth, in id
// order.
func liveFlows(n *Network) []*flowView {
	var out []*flowView
	for _, s := range liveSlots(n) {
		f := &n.flows[s]
		v := &flowView{id: n.states[s].id, class: f.class, weight: f.weight, rate: f.rate, path: n.hops(s)}
		for i := range v.path {
			v.use = append(v.use, n.useOf(s, i))
		}
		out = append(out, v)
	}
	return out
}

// checkInvariants re-solves n and checks the allocation: rates finite and
// non-negative, no link over capacity, and every flow with a bottleneck:
// a link saturated, on the capacity the lower classes leave, on which no
// flow of its class has a higher rate per weight. A stalled flow (rate 0)
// needs the same, which here means a link with nothing left for its class.
func checkInvariants(n *Network) error {
	n.Solve()
	type lc struct {
		l     LinkID
		class int32
	}
	upTo := map[lc]float64{}   // load of classes ≤ class on link
	maxPer := map[lc]float64{} // highest rate/weight of class on link
	classes := map[int32]bool{}
	flows := liveFlows(n)
	for _, f := range flows {
		if math.IsNaN(f.rate) || math.IsInf(f.rate, 0) || f.rate < 0 {
			return fmt.Errorf("flow %d: rate %v", f.id, f.rate)
		}
		classes[f.class] = true
		for _, l := range f.path {
			k := lc{l, f.class}
			maxPer[k] = math.Max(maxPer[k], f.rate/f.weight)
		}
	}
	for _, f := range flows {
		for i, l := range f.path {
			for c := range classes {
				if c >= f.class {
					upTo[lc{l, c}] += f.rate * f.use[i]
				}
			}
		}
	}
	for l := range n.links {
		for c := range classes {
			capa := n.links[l].capacity
			if load := upTo[lc{LinkID(l), c}]; load > capa*(1+checkTol)+1e-9 {
				return fmt.Errorf("link %d: load %v over capacity %v", l, load, capa)
			}
		}
	}
	for _, f := range flows {
		if !hasBottleneck(n, f, func(l LinkID) (float64, float64) {
			return upTo[lc{l, f.class}], maxPer[lc{l, f.class}]
		}) {
			return fmt.Errorf("flow %d (class %d, weight %v, rate %v, path %v): no bottleneck", f.id, f.class, f.weight, f.rate, f.path)
		}
	}
	return nil
}

func hasBottleneck(n *Network, f *flowView, at func(LinkID) (load, maxPer float64)) bool {
	for i, l := range f.path {
		capa := n.links[l].capacity
		load, maxPer := at(l)
		saturated := capa-load <= checkTol*capa
		highest := maxPer*f.weight <= f.rate+checkTol*capa/f.use[i]
		if saturated && highest {
			return true
		}
	}
	return false
}

// referenceRates is the slow, obviously correct allocation: for each class
// in order, repeatedly scan every link for the lowest level (capacity left
// over the weight of its unfixed flows of the class) and fix the unfixed
// flows crossing that link at level × weight. It shares nothing with the
// solver but Epsilon.
func referenceRates(n *Network) map[FlowID]float64 {
	flows := liveFlows(n)
	used := make([]float64, len(n.links))
	rates := map[FlowID]float64{}
	classSet := map[int32]bool{}
	for _, f := range flows {
		classSet[f.class] = true
	}
	var classes []int32
	for c := range classSet {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		var unfixed []*flowView
		for _, f := range flows {
			if f.class == c {
				unfixed = append(unfixed, f)
			}
		}
		for len(unfixed) > 0 {
			l, level := lowestLevel(n, used, unfixed)
			var rest []*flowView
			for _, f := range unfixed {
				if !slices.Contains(f.path, l) {
					rest = append(rest, f)
					continue
				}
				rates[f.id] = level * f.weight
				for i, pl := range f.path {
					used[pl] += level * f.weight * f.use[i]
				}
			}
			unfixed = rest
		}
	}
	return rates
}

func lowestLevel(n *Network, used []float64, unfixed []*flowView) (LinkID, float64) {
	weights := make([]float64, len(n.links))
	for _, f := range unfixed {
		for i, l := range f.path {
			weights[l] += f.weight * f.use[i]
		}
	}
	best, bestLevel := LinkID(-1), math.Inf(1)
	for l, w := range weights {
		if w == 0 {
			continue
		}
		capa := n.links[l].capacity
		level := 0.0
		if rem := capa - used[l]; rem > Epsilon*capa {
			level = rem / w
		}
		if level < bestLevel {
			best, bestLevel = LinkID(l), level
		}
	}
	return best, bestLevel
}

// compareWithReference checks every live flow's rate against
// referenceRates, within checkTol of its path's largest capacity.
func compareWithReference(n *Network) error {
	n.Solve()
	want := referenceRates(n)
	for _, f := range liveFlows(n) {
		scale := 0.0
		for i, l := range f.path {
			scale = math.Max(scale, n.links[l].capacity/f.use[i]) // the link's capacity in the flow's units
		}
		if math.Abs(f.rate-want[f.id]) > checkTol*scale+1e-9 {
			return fmt.Errorf("flow %d (class %d, weight %v, path %v): rate %v, reference %v",
				f.id, f.class, f.weight, f.path, f.rate, want[f.id])
		}
	}
	return nil
}

// checkStructure re-solves n and checks the bottleneck structure (structure.go) and the
// clocks (clock.go) against the flows: each flow with a bottleneck is in
// that link's list and on its clock, at the link's level times its
// weight; W and every term of M are the sums they stand for; each clock's
// flows have the remaining bytes their targets say, and the clock is
// keyed by the instant its first flow finishes.
func checkStructure(n *Network) error {
	n.Solve()
	bs := &n.bs
	if bs.broken {
		for s := range bs.flows {
			if bs.flows[s].clk >= 0 {
				return fmt.Errorf("slot %d on clock %d while the structure is off", s, bs.flows[s].clk)
			}
		}
		return nil
	}
	w := make([]float64, len(n.links))
	terms := map[[2]int32]float64{}
	counts := map[[2]int32]int32{}
	unassigned := 0
	for _, s := range liveSlots(n) {
		sf, f := &bs.flows[s], &n.flows[s]
		if sf.bn < 0 {
			if !sf.parked {
				unassigned++
			} else if !n.crossesCut(s) || f.rate != 0 {
				return fmt.Errorf("slot %d: parked at rate %v", s, f.rate)
			}
			if sf.clk >= 0 {
				return fmt.Errorf("slot %d: on clock %d with no bottleneck", s, sf.clk)
			}
			continue
		}
		lk := &bs.links[sf.bn]
		if int(sf.ownAt) >= len(lk.own) || lk.own[sf.ownAt] != s {
			return fmt.Errorf("slot %d: not in its bottleneck %d's list", s, sf.bn)
		}
		if sf.clk != sf.bn {
			return fmt.Errorf("slot %d: bottleneck %d, clock %d", s, sf.bn, sf.clk)
		}
		if lvl := bs.hot[sf.bn].lvl; lvl*f.weight != f.rate {
			return fmt.Errorf("slot %d: rate %v, level %v × weight %v", s, f.rate, lvl, f.weight)
		}
		for i, l := range n.hops(s) {
			wu := f.weight * n.useOf(s, i)
			if int32(l) == sf.bn {
				w[l] += wu
			} else {
				terms[[2]int32{int32(l), sf.bn}] += wu
				counts[[2]int32{int32(l), sf.bn}]++
			}
		}
	}
	if unassigned != bs.unassigned && len(n.arrivals) == 0 {
		return fmt.Errorf("%d flows with no bottleneck, counted %d", unassigned, bs.unassigned)
	}
	for l := range bs.links {
		if lk := &bs.links[l]; math.Abs(lk.w-w[l]) > 1e-9*w[l] {
			return fmt.Errorf("link %d: W %v, sum %v", l, lk.w, w[l])
		}
		if got, want := bs.hot[l].nOwn, len(bs.links[l].own); int(got) != want {
			return fmt.Errorf("link %d: %d flows bottlenecked, counted %d", l, want, got)
		}
	}
	for l := range bs.links {
		if bs.isB(int32(l)) || len(bs.links[l].row) == 0 {
			continue
		}
		b := bs.hot[l].b
		if sum, c := bs.rowLoad(int32(l)), n.links[l].capacity; math.Abs(b-sum) > 1e-9*c+1e-12*sum {
			return fmt.Errorf("link %d: carried load %v, sum %v, capacity %v", l, b, sum, c)
		}
	}
	for key, sum := range terms {
		i, ok := bs.index.get(entryKey(key[0], key[1]))
		if !ok {
			return fmt.Errorf("term M(%d, %d): not in the index", key[0], key[1])
		}
		e := &bs.entries[i]
		if e.l != key[0] || e.m != key[1] {
			return fmt.Errorf("term M(%d, %d): the index names M(%d, %d)", key[0], key[1], e.l, e.m)
		}
		coef := bs.links[e.l].row[e.rowAt].coef
		if e.cnt != counts[key] || math.Abs(coef-sum) > 1e-9*sum {
			return fmt.Errorf("term M(%d, %d): %v over %d flows, sum %v over %d", key[0], key[1], coef, e.cnt, sum, counts[key])
		}
	}
	if bs.index.len() != len(terms) {
		return fmt.Errorf("%d terms, %d sums", bs.index.len(), len(terms))
	}
	if err := checkRowsCols(bs); err != nil {
		return err
	}
	return checkClocks(n)
}

// checkRowsCols checks that every term is on its row and its column once,
// at the index its entry records, with one coefficient, and counts the
// holes.
func checkRowsCols(bs *structure) error {
	onRow, onCol := 0, 0
	for l := range bs.links {
		lk := &bs.links[l]
		holes := 0
		for i, it := range lk.row {
			if it.m < 0 {
				holes++
				continue
			}
			onRow++
			e := &bs.entries[it.e]
			if e.l != int32(l) || e.m != it.m || e.rowAt != int32(i) {
				return fmt.Errorf("row %d: item %d names M(%d, %d), its entry M(%d, %d) at %d", l, i, l, it.m, e.l, e.m, e.rowAt)
			}
			if c := bs.links[e.m].col[e.colAt]; c.l != e.l || c.e != it.e || c.coef != it.coef {
				return fmt.Errorf("term M(%d, %d): %v on its row, %v on its column", e.l, e.m, it.coef, c.coef)
			}
		}
		if holes != int(lk.rowHoles) || len(lk.row) > 0 && lk.row[len(lk.row)-1].m < 0 {
			return fmt.Errorf("row %d: %d holes, counted %d, or one at its end", l, holes, lk.rowHoles)
		}
		holes = 0
		for i, it := range lk.col {
			if it.l < 0 {
				holes++
				continue
			}
			onCol++
			if e := &bs.entries[it.e]; e.m != int32(l) || e.l != it.l || e.colAt != int32(i) {
				return fmt.Errorf("column %d: item %d names M(%d, %d), its entry M(%d, %d) at %d", l, i, it.l, l, e.l, e.m, e.colAt)
			}
		}
		if holes != int(lk.colHoles) || len(lk.col) > 0 && lk.col[len(lk.col)-1].l < 0 {
			return fmt.Errorf("column %d: %d holes, counted %d, or one at its end", l, holes, lk.colHoles)
		}
	}
	if onRow != bs.index.len() || onCol != bs.index.len() {
		return fmt.Errorf("%d terms on rows, %d on columns, %d in the index", onRow, onCol, bs.index.len())
	}
	return nil
}

// checkClocks checks every clock's flows and its key among the clocks.
func checkClocks(n *Network) error {
	bs := &n.bs
	for l := range bs.links {
		lk := &bs.links[l]
		for i, e := range lk.clk.es {
			s := e.item
			if bs.flows[s].clk != int32(l) || bs.cpos[s] != int32(i) {
				return fmt.Errorf("clock %d: slot %d says clock %d, index %d", l, s, bs.flows[s].clk, bs.cpos[s])
			}
			if n.finishes.contains(s) {
				return fmt.Errorf("clock %d: slot %d also in the completion heap", l, s)
			}
			if i > 0 && lk.clk.es[i].before(lk.clk.es[(i-1)/2]) {
				return fmt.Errorf("clock %d: heap order broken at %d", l, i)
			}
			st := &n.states[s]
			left := float64(st.size) - n.deliveredAt(s, n.now)
			byClock := (math.Float64frombits(e.key) - bs.clockAt(int32(l), n.now)) * n.flows[s].weight
			if math.Abs(left-byClock) > 1e-6*float64(st.size)+1 {
				return fmt.Errorf("clock %d: slot %d has %v bytes left, %v by its target", l, s, left, byClock)
			}
		}
		if len(lk.clk.es) == 0 {
			if bs.due.contains(int32(l)) {
				return fmt.Errorf("clock %d: empty but due", l)
			}
			continue
		}
		lvl := bs.hot[l].lvl
		ns := wholeNanos((math.Float64frombits(lk.clk.es[0].key) - lk.V) / lvl * 1e9)
		if !(lvl > 0) || ns >= float64(math.MaxInt64-lk.T) {
			if bs.due.contains(int32(l)) {
				return fmt.Errorf("clock %d: due, but its first flow never finishes", l)
			}
			continue
		}
		want := max(lk.T+time.Duration(ns), n.now)
		if !bs.due.contains(int32(l)) || time.Duration(bs.due.key(int32(l))) != want {
			return fmt.Errorf("clock %d: not due at %v", l, want)
		}
	}
	return nil
}
