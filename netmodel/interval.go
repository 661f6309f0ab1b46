package netmodel

import (
	"math"
	"time"
)

// Solve interval. Config.SolveInterval Δ > 0 trades exactness for speed
// where every change re-solves a large coupled component (all-to-all
// shuffles over saturated rack links, thousands of flows): the changes
// made within Δ of a re-solve wait for one re-solve at the end of that Δ,
// instead of each instant re-solving its own.
//
// Between two re-solves:
//   - the flows that were solved keep their rates (the allocation of the
//     last re-solve, less the flows that ended since), and complete at
//     the exact instants those rates give;
//   - a flow that starts takes, at once and until the next re-solve, the
//     capacity its path has left: min over its links of (capacity − load)
//     / use, the load counting every flow on the link, provisional ones
//     included. Weights and classes are not looked at;
//   - capacity a flow frees by ending or being canceled goes to the flows
//     that start after it, and to no solved flow.
//
// The allocation is therefore always feasible (no link carries more than
// its capacity, up to rounding), is the max-min one at every re-solve,
// and is never more than Δ old. A flow whose rate drops at a re-solve
// loses nothing it delivered; a flow that starts where nothing is left
// waits at rate 0 for the re-solve, at most Δ. The error on a completion
// instant is not bounded by Δ alone (a freed link's capacity sits idle up
// to Δ, and max-min shares are not monotone); docs/performance.md measures
// it against exact runs. SetCapacity and SetMaxRate-style capacity changes
// are not deferred: the next query re-solves, so a cut link stops its flows
// at once.
//
// With Δ = 0 (the default) every instant's changes are re-solved at that
// instant, exactly.

// deferred reports whether a re-solve pending now waits for the interval.
func (n *Network) deferred() bool {
	return n.cfg.SolveInterval > 0 && n.now < n.nextSolve
}

// solved notes that a re-solve was made now.
func (n *Network) solved() {
	if n.cfg.SolveInterval > 0 {
		n.nextSolve = n.now + n.cfg.SolveInterval
	}
}

// startProvisional gives a flow that arrived while its re-solve is
// deferred the capacity its path has left, until the re-solve.
func (n *Network) startProvisional(slot int32) {
	rate := math.Inf(1)
	for i, l := range n.hops(slot) {
		u := n.useOf(slot, i)
		left := max(n.links[l].capacity-n.loads[l], 0)
		rate = min(rate, left/u)
	}
	n.flows[slot].rate = rate // finite: a path has a link
	n.addLoad(slot, rate)
	n.schedule(slot)
	n.provisional = append(n.provisional, provisional{slot: slot, id: n.states[slot].id})
}

// provisional is a flow started while a re-solve was deferred.
type provisional struct {
	slot int32
	id   FlowID
}

// promote makes the provisional flows plain arrivals of the re-solve about
// to run: their bytes so far are settled and their rates taken back.
func (n *Network) promote() {
	for _, p := range n.provisional {
		st := &n.states[p.slot]
		if !st.live || st.id != p.id {
			continue // ended before the re-solve
		}
		n.settle(p.slot, n.now)
		n.addLoad(p.slot, -n.flows[p.slot].rate)
		n.flows[p.slot].rate = 0
		n.finishes.remove(p.slot)
	}
	n.provisional = n.provisional[:0]
}

// nextEvent is the earliest of the next completion and, while a re-solve
// waits, the instant it is due.
func (n *Network) nextEvent() (time.Duration, bool) {
	_, at, ok := n.firstFinish()
	if len(n.dirty) > 0 && n.deferred() && (!ok || n.nextSolve < at) {
		return n.nextSolve, true
	}
	return at, ok
}
