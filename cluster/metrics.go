package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/sched"
)

// JobOutcome is how a job ended: succeeded, failed with a reason, or cut
// off by the run's deadline while it was still running.
type JobOutcome string

// Job outcomes.
const (
	JobSucceeded JobOutcome = "succeeded"
	JobFailed    JobOutcome = "failed"
	JobCutOff    JobOutcome = "cut-off"
)

// JobResult is one job's line in the records.
type JobResult struct {
	actors.JobRecord
	Outcome JobOutcome
	// Reference is the job's response time alone on the empty cluster
	// (Config.Run.Slowdown); 0 when not measured or when it failed alone.
	Reference time.Duration
}

// Slowdown is the job's response time over its reference runtime, 0 when
// either is missing.
func (j *JobResult) Slowdown() float64 {
	if j.Outcome != JobSucceeded || j.Reference <= 0 {
		return 0
	}
	return float64(j.Finish-j.Submit) / float64(j.Reference)
}

// Records are a run's records, sorted: jobs by ID, attempts by attempt.
// Attempts are those that ended; CutOff those still running when the run
// ended, each with End at the run's end (they count in no metric).
type Records struct {
	Jobs     []JobResult
	Attempts []actors.AttemptRecord // empty when the run tallied them (RunOptions.TallyAttempts)
	CutOff   []actors.AttemptRecord
	// Tally counts the attempts that ended, in the order they ended.
	Tally AttemptTally
	Flows FlowTotals
	// Progress holds the attempts' progress reports (tasks.progress_interval)
	// in attempt order, each attempt's in the order they arrived.
	Progress []actors.AttemptProgress
	// Links is what each link carried over time (RunOptions.LinkSamples).
	Links LinkSeries
	// Notes are what happened to nodes, in the order it happened.
	Notes []actors.Note
	// Offers are the slot offers the policy looked at jobs for, in order,
	// when the run explains them (RunOptions.Explain).
	Offers []actors.OfferRecord
	// FlowList is every flow's record, in the order they ended, when the
	// run kept them (RunOptions.KeepFlows).
	FlowList []actors.FlowRecord
	// Faults are the scripted faults as they took effect and ended.
	Faults []actors.FaultEvent
	// Counters are the run's counters by metric name (actors.Metric…).
	Counters map[string]int64
	// Phases are the phases of the jobs that succeeded, in job order,
	// maps first, when the run measures them (Config.MeasuresStragglers);
	// nil otherwise.
	Phases []PhaseResult
}

// LinkSeries is what the topology's links carried, window by window:
// Samples[i].Carried[l] is link l's bytes (CPU work, for a CPU link) over
// the i-th window, Names[l] and Capacity[l] its name and capacity.
type LinkSeries struct {
	Names    []string
	Capacity []float64
	Samples  []actors.LinkSample
}

// Utilisation is link l's mean utilisation over sample i: what it carried
// over what its capacity could have.
func (s *LinkSeries) Utilisation(i, l int) float64 {
	w := s.Samples[i]
	if s.Capacity[l] <= 0 || w.To <= w.From {
		return 0
	}
	return float64(w.Carried[l]) / (s.Capacity[l] * (w.To - w.From).Seconds())
}

// FlowTotals accounts for every byte the fabric carried.
type FlowTotals struct {
	Completed, Aborted, CutOff int
	Bytes                      int64 // sizes of completed flows
	Delivered                  int64 // bytes carried by all flows
	AbortedBytes, AbortedDue   int64 // carried by aborted flows, and their sizes
	CutOffBytes, CutOffDue     int64 // carried by flows running at the run's end, and their sizes
}

// Abandoned is the bytes aborted flows were asked for and never carried.
func (t FlowTotals) Abandoned() int64 { return t.AbortedDue - t.AbortedBytes }

// recorder collects records from the actors (actors.Recorder). It checks
// the run's record invariants as they arrive: an attempt ends once, a job
// ends once, a completed flow delivered exactly its size.
type recorder struct {
	mu        sync.Mutex
	submitted map[sched.JobID]actors.JobRecord
	updated   map[sched.JobID]actors.JobRecord
	jobs      map[sched.JobID]actors.JobRecord
	running   map[sched.Attempt]actors.AttemptRecord
	attempts  map[sched.Attempt]actors.AttemptRecord
	flows     FlowTotals
	progress  []actors.AttemptProgress
	links     LinkSeries
	notes     []actors.Note
	keepFlows bool
	tallyOnly bool // RunOptions.TallyAttempts
	tally     AttemptTally
	offers    []actors.OfferRecord
	flowList  []actors.FlowRecord
	faults    []actors.FaultEvent
	counters  map[string]int64
	// lost are the attempts booked as lost with their node (or reported by
	// a node before it was), when the run has faults: the other report
	// of such an attempt is stale, not a second end. A run that keeps its
	// attempt records finds them there instead.
	lost map[sched.Attempt]bool
	// phases follows each job's tasks, when the run measures phases.
	phases *phaseTally
	errs   []error
}

func newRecorder() *recorder {
	return &recorder{
		submitted: make(map[sched.JobID]actors.JobRecord),
		updated:   make(map[sched.JobID]actors.JobRecord),
		jobs:      make(map[sched.JobID]actors.JobRecord),
		running:   make(map[sched.Attempt]actors.AttemptRecord),
		attempts:  make(map[sched.Attempt]actors.AttemptRecord),
		counters:  make(map[string]int64),
	}
}

func (r *recorder) violate(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// JobSubmitted implements actors.Recorder.
func (r *recorder) JobSubmitted(rec actors.JobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	putOnce(r, r.submitted, rec.ID, rec, "job %d submitted twice")
}

// putOnce stores v at k; k there already breaks an invariant.
func putOnce[K comparable, V any](r *recorder, m map[K]V, k K, v V, twice string) {
	if _, dup := m[k]; dup {
		r.violate(twice, k)
	}
	m[k] = v
}

// JobUpdated implements actors.Recorder.
func (r *recorder) JobUpdated(rec actors.JobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updated[rec.ID] = rec
}

// AttemptStarted implements actors.Recorder.
func (r *recorder) AttemptStarted(rec actors.AttemptRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	putOnce(r, r.running, rec.Attempt, rec, "attempt %v started twice")
}

// JobEnded implements actors.Recorder.
func (r *recorder) JobEnded(rec actors.JobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.jobs[rec.ID]; dup {
		r.violate("job %d ended twice", rec.ID)
	}
	if _, ok := r.submitted[rec.ID]; !ok {
		r.violate("job %d ended but was never submitted", rec.ID)
	}
	r.jobs[rec.ID] = rec
	if r.phases != nil {
		r.phases.jobEnded(rec.ID, rec.Succeeded)
	}
}

// AttemptEnded implements actors.Recorder. An attempt ends once; but one
// whose node was declared dead ends twice when the node was only cut off
// and records it later (or recorded it before the news of its loss
// reached its job manager): whichever record comes second is stale and
// dropped. (Its job manager counts the stale report, MetricStaleReports.)
func (r *recorder) AttemptEnded(rec actors.AttemptRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	started, running := r.running[rec.Attempt]
	if running && rec.Start < 0 {
		// Booked lost by its job manager, which never heard when it began.
		rec.Node, rec.Slot, rec.Locality, rec.Start = started.Node, started.Slot, started.Locality, started.Start
	}
	lost := rec.Reason == actors.ReasonNodeLost
	if prev, dup := r.attempts[rec.Attempt]; dup {
		if lost || prev.Reason == actors.ReasonNodeLost {
			return
		}
		r.violate("attempt %v ended twice (%v at %v, then %v at %v)", rec.Attempt, prev.Outcome, prev.End, rec.Outcome, rec.End)
	}
	if r.lost != nil {
		if prevLost, seen := r.lost[rec.Attempt]; seen {
			if !prevLost && !lost {
				r.violate("attempt %v ended twice (then %v at %v)", rec.Attempt, rec.Outcome, rec.End)
			}
			delete(r.lost, rec.Attempt)
			return
		}
		if r.tallyOnly {
			// Either report may come first; the other finds this mark.
			r.lost[rec.Attempt] = lost
		}
	}
	if !running && r.tallyOnly && rec.Start >= 0 {
		r.violate("attempt %v ended twice, or never started", rec.Attempt)
	}
	r.tally.add(rec)
	if r.phases != nil {
		r.phases.ended(rec)
	}
	if !r.tallyOnly {
		r.attempts[rec.Attempt] = rec
	}
	delete(r.running, rec.Attempt)
}

// FaultFired implements actors.Recorder.
func (r *recorder) FaultFired(e actors.FaultEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, e)
	if !e.End {
		r.counters["faults."+string(e.Kind)]++
	}
}

// Count implements actors.Recorder.
func (r *recorder) Count(metric string, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters[metric] += n
}

// AttemptProgressed implements actors.Recorder.
func (r *recorder) AttemptProgressed(p actors.AttemptProgress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !(p.Score >= 0 && p.Score <= 1 && p.Fraction >= 0 && p.Fraction <= 1) {
		r.violate("%v reported progress %v (%v of its %v phase)", p.Attempt, p.Score, p.Fraction, p.Phase)
	}
	r.progress = append(r.progress, p)
}

// Offered implements actors.Recorder.
func (r *recorder) Offered(o actors.OfferRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.offers = append(r.offers, o)
}

// Noted implements actors.Recorder.
func (r *recorder) Noted(n actors.Note) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, n)
}

// LinksSampled implements actors.Recorder.
func (r *recorder) LinksSampled(s actors.LinkSample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.links.Samples = append(r.links.Samples, s)
}

// FlowEnded implements actors.Recorder.
func (r *recorder) FlowEnded(rec actors.FlowRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keepFlows {
		r.flowList = append(r.flowList, rec)
	}
	r.flows.Delivered += rec.Delivered
	if rec.CutOff {
		r.flows.CutOff++
		r.flows.CutOffBytes += rec.Delivered
		r.flows.CutOffDue += rec.Bytes
		return
	}
	if rec.Completed {
		r.flows.Completed++
		r.flows.Bytes += rec.Bytes
		if rec.Delivered != rec.Bytes {
			r.violate("flow %v completed with %d of %d bytes", rec.Key, rec.Delivered, rec.Bytes)
		}
		return
	}
	r.flows.Aborted++
	r.flows.AbortedBytes += rec.Delivered
	r.flows.AbortedDue += rec.Bytes
	if rec.Delivered < 0 || rec.Delivered > rec.Bytes {
		r.violate("flow %v aborted with %d of %d bytes", rec.Key, rec.Delivered, rec.Bytes)
	}
}

// counts returns how many jobs were submitted and have ended so far.
func (r *recorder) counts() (submitted, ended int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.submitted), len(r.jobs)
}

// results assembles the sorted records; jobs submitted but not ended by
// the run's end are cut off at end.
func (r *recorder) results(end time.Duration) (*Records, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &Records{Flows: r.flows, Tally: r.tally}
	// Conservation: every byte asked of the fabric was delivered by a flow
	// that completed, or belongs to one aborted or cut off (carried in
	// part, the rest abandoned).
	if req, f := r.counters[actors.MetricBytesRequested], r.flows; req != f.Bytes+f.AbortedDue+f.CutOffDue {
		r.violate("bytes: %d requested, but %d completed + %d aborted (%d carried, %d abandoned) + %d cut off",
			req, f.Bytes, f.AbortedDue, f.AbortedBytes, f.Abandoned(), f.CutOffDue)
	}
	for id, sub := range r.submitted {
		rec, ok := r.jobs[id]
		status := JobCutOff
		switch {
		case !ok:
			rec = sub
			if last, updated := r.updated[id]; updated {
				rec = last
			}
			rec.Finish = end
		case rec.Succeeded:
			status = JobSucceeded
		default:
			status = JobFailed
		}
		res.Jobs = append(res.Jobs, JobResult{JobRecord: rec, Outcome: status})
	}
	slices.SortFunc(res.Jobs, func(a, b JobResult) int { return int(a.ID - b.ID) })
	for _, a := range r.attempts {
		res.Attempts = append(res.Attempts, a)
	}
	for _, a := range r.running {
		a.End = end
		res.CutOff = append(res.CutOff, a)
	}
	byAttempt := func(a, b actors.AttemptRecord) int { return sched.CompareAttempts(a.Attempt, b.Attempt) }
	slices.SortFunc(res.Attempts, byAttempt)
	slices.SortFunc(res.CutOff, byAttempt)
	res.Progress = slices.Clone(r.progress)
	res.Links = r.links
	res.Notes = slices.Clone(r.notes)
	res.FlowList = slices.Clone(r.flowList)
	res.Offers = slices.Clone(r.offers)
	res.Faults = slices.Clone(r.faults)
	res.Counters = maps.Clone(r.counters)
	if r.phases != nil {
		res.Phases = slices.Clone(r.phases.results)
		slices.SortFunc(res.Phases, func(a, b PhaseResult) int { return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Kind, b.Kind)) })
		if res.Phases == nil {
			res.Phases = []PhaseResult{}
		}
	}
	slices.SortStableFunc(res.Progress, func(a, b actors.AttemptProgress) int { return sched.CompareAttempts(a.Attempt, b.Attempt) })
	return res, errors.Join(r.errs...)
}
