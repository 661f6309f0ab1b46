package sched

import (
	"cmp"
	"time"
)

// LAS and SRPT are Hu et al.'s baselines (§5.1): least attained service,
// and the paper's IDEAL, shortest remaining processing time from a known
// size. A free slot goes to the job with a task for it whose key is least:
// LAS's is its service (the slot time its attempts have held, running ones
// to now: serviceBook), SRPT's its size (Job.Work, the slot time it held
// alone) less that service. Ties go to the job with the fewest running
// attempts of the slot's kind, so jobs of equal service share the slots
// evenly, then to the earlier submitted. Neither preempts: a job passed
// over keeps its running attempts.
//
// Assign costs O(jobs) per slot.
type LAS struct {
	name string
	book serviceBook
	jobs map[JobID]Job
}

// LASParams are "las"'s and "srpt"'s parameters: none.
type LASParams struct {
	policy string // the policy they are for
}

// Validate implements Params.
func (*LASParams) Validate() error { return nil }

func init() {
	Register("las", func() *LASParams { return &LASParams{policy: "las"} }, func(*LASParams) (Policy, error) { return NewLAS(), nil })
	Register("srpt", func() *LASParams { return &LASParams{policy: "srpt"} }, func(*LASParams) (Policy, error) { return NewSRPT(), nil })
}

// NewLAS returns an empty least-attained-service policy.
func NewLAS() *LAS { return &LAS{name: "las", book: newServiceBook(), jobs: map[JobID]Job{}} }

// NewSRPT returns an empty shortest-remaining-processing-time policy,
// which needs each job's Work.
func NewSRPT() *LAS { l := NewLAS(); l.name = "srpt"; return l }

// Name implements Policy.
func (l *LAS) Name() string { return l.name }

// NeedsWork implements NeedsWork: SRPT ranks by the jobs' sizes.
func (l *LAS) NeedsWork() bool { return l.name == "srpt" }

// Submitted implements Policy.
func (l *LAS) Submitted(_ time.Duration, job Job) {
	l.jobs[job.ID] = job
	l.book.add(job.ID)
}

// Ended implements Policy.
func (l *LAS) Ended(_ time.Duration, id JobID) {
	delete(l.jobs, id)
	l.book.remove(id)
}

// Launched implements Policy.
func (l *LAS) Launched(now time.Duration, la Launch) { l.book.launched(now, la.Attempt) }

// Finished implements Policy.
func (l *LAS) Finished(_ time.Duration, f Finish) { l.book.finished(f) }

// Heartbeat implements Policy; the ranking is made afresh for each slot.
func (*LAS) Heartbeat(time.Duration, NodeID) {}

// key is the job's rank at now: its service, or for SRPT its size left.
func (l *LAS) key(now time.Duration, st JobStatus) time.Duration {
	s := l.book.total(now, st.ID)
	if l.name == "srpt" {
		return l.jobs[st.ID].Work - s
	}
	return s
}

// Assign gives the slot to the job of least key with a task for it.
func (l *LAS) Assign(now time.Duration, v View, s Slot) (Assignment, bool) {
	var best JobStatus
	var bestKey time.Duration
	found := false
	for st := range v.Jobs() {
		if _, ok := v.BestLocality(st.ID, s.Kind, s.Node); !ok {
			continue
		}
		k := l.key(now, st)
		if !found || cmp.Or(cmp.Compare(k, bestKey), cmp.Compare(st.Attempts(s.Kind), best.Attempts(s.Kind))) < 0 {
			best, bestKey, found = st, k, true
		}
	}
	if !found {
		return Assignment{}, false
	}
	if s.Why != nil {
		s.Why.Note(best.ID, "%s: least key %v (service %v), %d running; takes the slot for a %v",
			l.name, bestKey.Round(time.Millisecond), l.book.total(now, best.ID).Round(time.Millisecond), best.Attempts(s.Kind), s.Kind)
	}
	return Assignment{Job: best.ID, Kind: s.Kind, MaxLocality: OffRack}, true
}

// AssignContainer implements ContainerAware: the container goes to the
// job of least key with a task for the node, ties to the one holding
// fewer containers, and within it to a reduce before a map.
func (l *LAS) AssignContainer(now time.Duration, v View, s Slot) (Assignment, bool) {
	size := reduceSize(v)
	var best JobStatus
	var bestKey time.Duration
	bestKind, found := Map, false
	for st := range v.Jobs() {
		kind, ok := containerKind(v, st.ID, s.Node)
		if !ok {
			continue
		}
		k := l.key(now, st)
		held := st.MapAttempts + size*st.ReduceAttempts
		if !found || cmp.Or(cmp.Compare(k, bestKey), cmp.Compare(held, best.MapAttempts+size*best.ReduceAttempts)) < 0 {
			best, bestKey, bestKind, found = st, k, kind, true
		}
	}
	if !found {
		return Assignment{}, false
	}
	if s.Why != nil {
		s.Why.Note(best.ID, "%s: least key %v (service %v); takes the container for a %v",
			l.name, bestKey.Round(time.Millisecond), l.book.total(now, best.ID).Round(time.Millisecond), bestKind)
	}
	return Assignment{Job: best.ID, Kind: bestKind, MaxLocality: OffRack}, true
}

// Tick implements Policy; LAS and SRPT never kill.
func (*LAS) Tick(time.Duration, View) []Preemption { return nil }
