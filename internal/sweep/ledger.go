package sweep

import "slices"

// ledger is a coordinator's account of one sweep: the units waiting to be
// handed out, the units each worker holds, the units finished. It is
// pure bookkeeping, without actors or a clock, so that its one promise
// can be tested alone: every unit is finished exactly once however
// workers are lost, and a unit a lost worker held is handed out again.
type ledger struct {
	pending []int // units not held by a live worker, ascending
	workers []holder
	done    []bool
	left    int // units not finished
}

// holder is one worker's part of the ledger.
type holder struct {
	capacity int   // units it runs at once
	held     []int // units handed to it and not yet answered
	lost     bool
}

// newLedger accounts for n units over workers of the given capacities.
func newLedger(n int, capacities []int) *ledger {
	l := &ledger{pending: make([]int, n), done: make([]bool, n), left: n}
	for i := range l.pending {
		l.pending[i] = i
	}
	for _, c := range capacities {
		l.workers = append(l.workers, holder{capacity: max(1, c)})
	}
	return l
}

// hand takes the units worker w is to run next, the lowest waiting, as
// many as it has room for, and records them as held by w. A lost worker
// gets none.
func (l *ledger) hand(w int) []int {
	h := &l.workers[w]
	if h.lost {
		return nil
	}
	n := min(h.capacity-len(h.held), len(l.pending))
	if n <= 0 {
		return nil
	}
	units := slices.Clone(l.pending[:n])
	l.pending = l.pending[n:]
	h.held = append(h.held, units...)
	return units
}

// finish records unit i's result and reports whether it is the first:
// a result of a unit already finished (run again after its worker was
// taken for lost, though its answer was on the way) is not counted
// twice. Whoever holds i is relieved of it.
func (l *ledger) finish(i int) bool {
	if i < 0 || i >= len(l.done) {
		return false
	}
	for w := range l.workers {
		l.workers[w].held = slices.DeleteFunc(l.workers[w].held, func(u int) bool { return u == i })
	}
	l.pending = slices.DeleteFunc(l.pending, func(u int) bool { return u == i })
	if l.done[i] {
		return false
	}
	l.done[i] = true
	l.left--
	return true
}

// lose records worker w as gone and returns the units it held, which
// wait again to be handed to another worker, lowest first.
func (l *ledger) lose(w int) []int {
	h := &l.workers[w]
	if h.lost {
		return nil
	}
	h.lost = true
	back := h.held
	h.held = nil
	l.pending = append(l.pending, back...)
	slices.Sort(l.pending)
	return back
}

// live is the number of workers not lost.
func (l *ledger) live() int {
	n := 0
	for _, h := range l.workers {
		if !h.lost {
			n++
		}
	}
	return n
}

// complete reports whether every unit is finished.
func (l *ledger) complete() bool { return l.left == 0 }
