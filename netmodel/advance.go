package netmodel

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// NextCompletion returns the earliest instant at which a flow completes at
// the current rates, after any deferred re-solve; false when no flow can
// complete (none, or all stalled). The instant is ≥ Now(). O(1)
// amortised plus the re-solve.
func (n *Network) NextCompletion() (time.Duration, bool) {
	n.solve()
	return n.nextEvent()
}

// AdvanceTo moves the network to instant t (≥ Now()) and returns the flows
// that completed on the way, ordered by (At, ID). Completions at one
// instant are removed together and followed by one re-solve, so N flows
// ending at once cost one solve, not N; completions at t itself leave the
// re-solve to the next query, so the flows a caller starts at t in answer
// share it. With a completion window w, the
// flows whose completion lies within w after an instant's earliest
// complete at that instant too.
//
// The returned slice is reused by the next call to AdvanceTo; copy it to
// keep it. Each flow's delivered bytes equal its size; its bytes are
// credited to every link of its path.
func (n *Network) AdvanceTo(t time.Duration) ([]Completed, error) {
	if t < n.now {
		return nil, fmt.Errorf("%w: t = %v, network is at %v", ErrTimeBackwards, t, n.now)
	}
	n.completed = n.completed[:0]
	if t == n.now && len(n.dirty) > 0 && !n.deferred() {
		// No time passes, so no byte moves: the changes made at this
		// instant wait for one re-solve at the next query, and a flow
		// due now under its rates completes then. (While the re-solve
		// waits for the solve interval, the rates are kept and a flow
		// due now completes now.)
		return n.completed, nil
	}
	for {
		at, ok := n.NextCompletion()
		if !ok || at > t {
			break
		}
		n.now = at
		n.completeBatch(at)
		if at == t {
			// No other flow can be due by t: each has bytes left at t
			// and time does not move. The re-solve waits for the
			// changes the caller makes at t, to share one.
			break
		}
	}
	n.now = t
	return n.completed, nil
}

// completeBatch removes every flow due by at plus the completion window,
// in id order, and reports them as completed at at.
func (n *Network) completeBatch(at time.Duration) {
	limit := at + n.cfg.CompletionWindow
	if limit < at { // overflow
		limit = at
	}
	n.batch = n.batch[:0]
	for {
		slot, due, ok := n.firstFinish()
		if !ok || due > limit {
			break
		}
		if n.bs.flows[slot].clk >= 0 {
			n.unclock(slot)
		} else {
			n.finishes.pop()
		}
		n.batch = append(n.batch, slot)
	}
	slices.SortFunc(n.batch, n.cmpID)
	for _, slot := range n.batch {
		st := &n.states[slot]
		st.done, st.last = float64(st.size), at
		n.credit(slot, st.size)
		n.completed = append(n.completed, Completed{ID: st.id, Owner: st.owner, Size: st.size, At: at})
		n.release(slot)
		n.stats.Completions++
	}
}

func (n *Network) cmpID(a, b int32) int {
	return cmp.Compare(n.states[a].id, n.states[b].id)
}
