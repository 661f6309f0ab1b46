package sched

import (
	"fmt"
	"slices"
	"time"
)

// EvictReason is why a task evicted for another job's locality was
// killed (the summary's tasks.evicted counts them).
const EvictReason = "evicted for locality"

// Evicting is implemented by the parameters of a policy that may evict
// tasks for locality: a run under it reports tasks.evicted.
type Evicting interface {
	EvictsForLocality() bool
}

// EvictsForLocality implements Evicting.
func (p *FairParams) EvictsForLocality() bool { return p.EvictForLocality }

// defaultNotice is the notice an evicted task gets: Dryad's 30 s
// (Ananthanarayanan's thesis, §2.4.3).
const defaultNotice = 30 * time.Second

// evictions is Dryad's contention resolution beside FAIR's delay
// scheduling (the thesis's §2.4.3, Fig. 2.17). A job's fair share is its
// legitimate quota and what a job holds beyond it are bonus slots. Where
// delay scheduling would have a job below its share forfeit locality (it
// has waited t1 at the node-local level, and the offered node has none
// of its input), the job instead gives notice to a map of a job over its
// share running on a node that holds its input, if there is one: the job
// waits for that node, whose next free map slot is reserved for it, and
// the noticed task is killed if it still runs when the notice is up
// (checked on the policy's tick). A slot of the node that frees first
// spares the noticed task. A job with no such task to evict forfeits
// locality as delay scheduling has it. A job gives one notice at a time,
// and a task gets one.
type evictions struct {
	notice   time.Duration
	runs     map[Attempt]time.Duration // the policy's running attempts' launches
	nodes    map[Attempt]NodeID        // the nodes of running maps
	noticed  map[Attempt]evictNotice   // the tasks given notice
	reserved map[NodeID][]JobID        // the jobs a node's next map slots go to, in notice order
	waiting  map[JobID]evictNotice     // the jobs waiting for a reserved slot, with their notice
}

// evictNotice is a notice given to a task on a node for a job.
type evictNotice struct {
	job    JobID
	victim Attempt
	node   NodeID
	at     time.Duration
}

func newEvictions(cfg FairConfig, runs map[Attempt]time.Duration) *evictions {
	if !cfg.EvictForLocality {
		return nil
	}
	return &evictions{
		notice: cfg.EvictionNotice, runs: runs, nodes: map[Attempt]NodeID{}, noticed: map[Attempt]evictNotice{},
		reserved: map[NodeID][]JobID{}, waiting: map[JobID]evictNotice{},
	}
}

func (e *evictions) launched(l Launch) {
	if l.Attempt.Kind == Map {
		e.nodes[l.Attempt] = l.Node
	}
}

// finished forgets an ended task; its notice, if any, is spent: the slot
// it frees is its node's next, reserved for the noticing job.
func (e *evictions) finished(a Attempt) {
	delete(e.nodes, a)
	delete(e.noticed, a)
}

// ended withdraws an ended job's notice and reservations.
func (e *evictions) ended(id JobID) {
	if w, ok := e.waiting[id]; ok {
		delete(e.noticed, w.victim)
		delete(e.waiting, id)
	}
	e.unreserve(id)
}

// unreserve drops a job's reservations.
func (e *evictions) unreserve(id JobID) {
	for node, jobs := range e.reserved {
		if jobs = slices.DeleteFunc(jobs, func(j JobID) bool { return j == id }); len(jobs) == 0 {
			delete(e.reserved, node)
		} else {
			e.reserved[node] = jobs
		}
	}
}

// takeReserved gives a free map slot to the first job it is reserved for
// that still has a node-local map there, withdrawing that job's notice
// (the slot it waited for is this one); reservations of jobs with none
// are dropped.
func (e *evictions) takeReserved(v View, s Slot) (Assignment, bool) {
	for len(e.reserved[s.Node]) > 0 {
		id := e.reserved[s.Node][0]
		e.reserved[s.Node] = e.reserved[s.Node][1:]
		if len(e.reserved[s.Node]) == 0 {
			delete(e.reserved, s.Node)
		}
		if w, ok := e.waiting[id]; ok {
			delete(e.noticed, w.victim) // spared if another slot freed first
			delete(e.waiting, id)
		}
		if best, ok := v.BestLocality(id, Map, s.Node); ok && best <= NodeLocal {
			s.Why.Note(id, "takes the slot its eviction notice reserved on node %d", s.Node)
			return Assignment{Job: id, Kind: Map, MaxLocality: NodeLocal}, true
		}
	}
	return Assignment{}, false
}

// holds reports whether a job that delay scheduling would let forfeit
// locality on this slot waits instead: it has a notice out, or it is
// below its fair share and gives one now to a map of a job over its
// share on a node holding its input (the most recently launched such
// map, which loses the least work).
func (e *evictions) holds(now time.Duration, v View, s Slot, js *jobShare, order []*jobShare) bool {
	if w, ok := e.waiting[js.id]; ok {
		if now-w.at < 2*e.notice+time.Minute {
			s.Why.Note(js.id, "waits for the slot its eviction notice reserved on node %d", w.node)
			return true
		}
		// The node has not offered a slot since: lost, or its slots
		// held by attempts the kill did not reach. Delay scheduling
		// goes on.
		delete(e.noticed, w.victim)
		delete(e.waiting, js.id)
		e.unreserve(js.id)
	}
	if js.running >= js.fair {
		return false
	}
	over := map[JobID]bool{}
	for _, o := range order {
		if o.running > o.fair {
			over[o.id] = true
		}
	}
	var victim Attempt
	var latest time.Duration = -1
	for a, node := range e.nodes {
		if !over[a.Job] || a.Job == js.id {
			continue
		}
		if _, noticed := e.noticed[a]; noticed {
			continue
		}
		if best, ok := v.BestLocality(js.id, Map, node); !ok || best > NodeLocal {
			continue
		}
		at := e.runs[a]
		if at > latest || at == latest && CompareAttempts(a, victim) < 0 {
			victim, latest = a, at
		}
	}
	if latest < 0 {
		return false
	}
	node := e.nodes[victim]
	n := evictNotice{job: js.id, victim: victim, node: node, at: now}
	e.noticed[victim], e.waiting[js.id] = n, n
	e.reserved[node] = append(e.reserved[node], js.id)
	s.Why.Note(js.id, "gives %v on node %d, a task of a job over its share, %v notice, and waits for that node", victim, node, e.notice)
	return true
}

// expired are the noticed tasks whose notice is up, to kill, in attempt
// order.
func (e *evictions) expired(now time.Duration) []Preemption {
	var out []Preemption
	for a, n := range e.noticed {
		if now-n.at >= e.notice {
			out = append(out, Preemption{Attempt: a, Reason: fmt.Sprintf("%s: job %d's notice of %v is up", EvictReason, n.job, e.notice)})
		}
	}
	slices.SortFunc(out, func(x, y Preemption) int { return CompareAttempts(x.Attempt, y.Attempt) })
	for _, p := range out {
		delete(e.noticed, p.Attempt) // its kill ends it; the job keeps waiting for the slot
	}
	return out
}
