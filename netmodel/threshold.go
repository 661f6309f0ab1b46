package netmodel

import (
	"math"
	"slices"
)

// The rate-threshold rule. Progressive filling fixes flows in increasing
// order of rate per weight. If no link on the path of a changed flow can
// saturate below some level θ, the filling below θ is the same before and
// after the change, so every flow whose rate per weight was below θ keeps
// its rate. For a departing flow θ is its rate per weight; for an arriving
// flow, any link l of its path has level at least capacity(l) / Σ weight × use
// of the flows on l, and the minimum over its path bounds θ. A re-solve
// then freezes the flows below the batch's θ (the minimum over its
// changes) as background load and re-fills only the rest (see collect). Flows at rate 0
// are always re-filled: they may have been starved by a class that left.
// Capacity changes, components with several classes, and batches whose
// flows are of another class than the component's use θ = 0: a full
// re-solve of the component.

// thresholdSlack keeps flows within a relative 1e-9 of θ in the re-fill,
// so rounding cannot freeze a flow that sits exactly at θ.
const thresholdSlack = 1 - 1e-9

// noteDeparture lowers the batch's θ to a leaving flow's rate per weight.
func (n *Network) noteDeparture(f *flow) {
	n.threshold = math.Min(n.threshold, f.rate/f.weight)
	n.noteClass(f.class)
}

// noteClass records the class of a flow that arrives or leaves.
func (n *Network) noteClass(c int32) {
	if n.batchClasses == 0 {
		n.batchClass = c
	}
	if n.batchClass != c {
		n.threshold = 0
	}
	n.batchClasses++
}

// batchThreshold returns the batch's θ, with the arrivals' bounds taken
// on the links as they are now, after every change of the batch.
//
// Arrivals share links (a batch of a second's fetches crosses the same
// rack uplinks hundreds of times), so each link is summed once.
func (n *Network) batchThreshold() float64 {
	thr := n.threshold
	links := n.thrLinks[:0]
	for _, slot := range n.arrivals {
		if n.states[slot].live {
			links = append(links, n.hops(slot)...)
		}
	}
	slices.Sort(links)
	for _, l := range slices.Compact(links) {
		weights := 0.0
		for _, lf := range n.links[l].flows {
			weights += n.flows[lf.slot].weight * n.useOf(lf.slot, int(lf.hop))
		}
		thr = math.Min(thr, n.links[l].capacity/weights)
	}
	n.thrLinks = links[:0]
	n.resetBatch()
	if math.IsInf(thr, 1) {
		return 0
	}
	return thr
}

// resetBatch forgets the batch's arrivals, θ and classes once it is
// solved.
func (n *Network) resetBatch() {
	n.arrivals = n.arrivals[:0]
	n.threshold = math.Inf(1)
	n.batchClasses = 0
}
