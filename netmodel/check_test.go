package netmodel

import (
	"fmt"
	"math"
	"slices"
	"testing"

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
