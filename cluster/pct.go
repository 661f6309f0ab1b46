package cluster

import (
	"math/rand/v2"
	"slices"
)

// pctState orders a deterministic run's same-instant messages by
// probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi and
// Nagarakatte, ASPLOS 2010). Its threads are the actors: each gets a
// random priority the first time it matters, above d − 1; among the
// mailboxes ready at an instant the highest priority goes first; and
// at the d − 1 change points, steps drawn uniformly from [1, k] with k
// the run's expected length in deliveries, the actor that made that
// step drops to priority i, below every drawn one (i = 1 for the first
// change, so the later changes stay above the earlier). A bug that needs
// d orderings in a run of k steps among n actors is then found with
// probability at least 1/(n·k^(d−1)) per run, where a uniform draw at
// every choice gives no such bound.
//
// The mapping: a "step" is a delivery (system messages included, as
// events.jsonl numbers them); only mailboxes ready at the current
// instant compete, so a low priority delays an actor within an instant,
// never past one; timers and [chaos] delays are drawn as in a random run,
// from their own streams.
type pctState struct {
	rng     *rand.Rand
	depth   int
	changes []uint64 // the change points, ascending
	next    int      // the next change point's index
}

func newPCT(opts RunOptions) *pctState {
	if opts.Strategy != PCT {
		return nil
	}
	p := &pctState{rng: rand.New(rand.NewPCG(opts.ScheduleSeed, 0x706374)), depth: opts.PCTDepth}
	for range opts.PCTDepth - 1 {
		p.changes = append(p.changes, 1+p.rng.Uint64N(opts.PCTSteps))
	}
	slices.Sort(p.changes)
	return p
}

// priority is m's priority, drawn the first time it is asked for: above
// every change point's, and distinct from the others but by a 2^-50
// chance, which the name breaks.
func (p *pctState) priority(m *mailbox) uint64 {
	if m.prio == 0 {
		m.prio = uint64(p.depth) + 1 + p.rng.Uint64N(1<<60)
	}
	return m.prio
}

// choose returns the ready mailbox of the highest priority.
func (p *pctState) choose(ready []*mailbox) *mailbox {
	best := ready[0]
	for _, m := range ready[1:] {
		if pm, pb := p.priority(m), p.priority(best); pm > pb || pm == pb && m.name < best.name {
			best = m
		}
	}
	return best
}

// stepped lowers the priority of m, which made the step, at a change
// point.
func (p *pctState) stepped(step uint64, m *mailbox) {
	for p.next < len(p.changes) && p.changes[p.next] <= step {
		p.next++
		m.prio = uint64(p.next)
	}
}
