package cluster

import (
	"math"
	"slices"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// PhaseResult is one phase of a job that succeeded, a job's maps or its
// reduces, as Ananthanarayanan's thesis measures phases (§1.3, notes
// §1.1). A task's duration runs from its first attempt's launch to the
// end of the attempt that finished it, so a copy or a restart that ends
// it sooner shortens it; its progress rate is its input (a map's block, a
// reduce's shuffle) over that duration.
type PhaseResult struct {
	Job   sched.JobID
	Kind  sched.TaskKind
	Tasks int
	// Duration is the phase's first launch to its last task's end.
	Duration time.Duration
	// SlowestOverMedian is the slowest task's duration over the median's
	// (Fig. 3.7); MedianOverMinRate the median task's progress rate over
	// the slowest's (Fig. 4.18), NaN when no task read anything.
	SlowestOverMedian, MedianOverMinRate float64
	// Outliers is the share of tasks that took over 1.5 times the median
	// duration, Mantri's outliers (§4.2.1).
	Outliers float64
	// Improvable is the share of tasks slower than their data explains
	// but no outliers (Fig. 4.3b): a map phase of two tasks or more, in a
	// run with mild slowdowns; NaN otherwise. A task's data explains
	// ImprovableOver times less than the compute its input asks plus the
	// phase's least other time (the least duration less compute of its
	// tasks: a task's launch and write); an improvable task took more
	// than that, and at most 1.5 times the median.
	Improvable float64
}

// ImprovableHeavy is the share of a phase's tasks that makes it one of
// the thesis's phases rich in improvable tasks: "30% of the phases … have
// over 50% of such improvable tasks" (Fig. 4.3b).
const ImprovableHeavy = 0.5

// ImprovableOver is how much slower than its data explains a task must
// run to be improvable: actors.ImprovableOver, the floor of a mild
// slowdown.
const ImprovableOver = actors.ImprovableOver

// OutlierHeavy is the share of a phase's tasks that makes it one of the
// thesis's outlier-heavy phases: "25% of phases have more than 15% of
// their tasks as outliers" (Fig. 4.2a).
const OutlierHeavy = 0.15

// phaseTally follows each running job's tasks until the job ends.
type phaseTally struct {
	jobs    map[sched.JobID]*[2]map[int32]*taskSpan
	results []PhaseResult
	byKind  bool // Records.ReducePhases
	// mapCompute, when set, gives the compute a job's map asks for its
	// input bytes, and map phases are measured for improvable tasks.
	mapCompute func(sched.JobID, int64) time.Duration
}

// taskSpan is one task: its first launch, and the end, input bytes and
// compute (< 0: not known) of the attempt that finished it (end < 0
// until one did).
type taskSpan struct {
	start, end time.Duration
	bytes      int64
	compute    time.Duration
}

// mapComputes is what each job's map computes for its bytes at full
// speed, from the jobs indexed as Config.Jobs (job ID − 1): its MapTime,
// or its MapCPU over the bytes.
func mapComputes(jobs []workload.JobSpec) func(sched.JobID, int64) time.Duration {
	return func(id sched.JobID, bytes int64) time.Duration {
		i := int(id) - 1
		if i < 0 || i >= len(jobs) {
			return -1
		}
		j := &jobs[i]
		if j.MapTime > 0 {
			return j.MapTime
		}
		return j.MapCPU.Time(bytes)
	}
}

func newPhaseTally() *phaseTally {
	return &phaseTally{jobs: make(map[sched.JobID]*[2]map[int32]*taskSpan)}
}

// ended books an attempt's end; an attempt lost before it launched held
// no slot and is not a launch.
func (p *phaseTally) ended(a actors.AttemptRecord) {
	if a.Start < 0 {
		return
	}
	kinds := p.jobs[a.Attempt.Job]
	if kinds == nil {
		kinds = &[2]map[int32]*taskSpan{{}, {}}
		p.jobs[a.Attempt.Job] = kinds
	}
	t := kinds[a.Attempt.Kind][a.Attempt.Task]
	if t == nil {
		t = &taskSpan{start: a.Start, end: -1}
		kinds[a.Attempt.Kind][a.Attempt.Task] = t
	}
	t.start = min(t.start, a.Start)
	if a.Outcome == sched.Succeeded && t.end < 0 {
		t.end, t.bytes, t.compute = a.End, a.LocalBytes+a.RemoteBytes, -1
		if p.mapCompute != nil && a.Attempt.Kind == sched.Map {
			t.compute = p.mapCompute(a.Attempt.Job, t.bytes)
		}
	}
}

// jobEnded measures a job's phases if it succeeded, and forgets it.
func (p *phaseTally) jobEnded(id sched.JobID, succeeded bool) {
	kinds := p.jobs[id]
	delete(p.jobs, id)
	if kinds == nil || !succeeded {
		return
	}
	for kind, tasks := range kinds {
		if r, ok := measurePhase(tasks); ok {
			r.Job, r.Kind = id, sched.TaskKind(kind)
			p.results = append(p.results, r)
		}
	}
}

// measurePhase measures the finished tasks of a phase; false when none
// finished.
func measurePhase(tasks map[int32]*taskSpan) (PhaseResult, bool) {
	var durations, rates []float64
	var done []*taskSpan
	first, last := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	for _, t := range tasks {
		if t.end < 0 {
			continue
		}
		first, last = min(first, t.start), max(last, t.end)
		d := (t.end - t.start).Seconds()
		durations = append(durations, d)
		done = append(done, t)
		if t.bytes > 0 && d > 0 {
			rates = append(rates, float64(t.bytes)/d)
		}
	}
	if len(durations) == 0 {
		return PhaseResult{}, false
	}
	slices.Sort(durations)
	slices.Sort(rates)
	r := PhaseResult{Tasks: len(durations), Duration: last - first, SlowestOverMedian: 1, MedianOverMinRate: math.NaN(),
		Improvable: math.NaN()}
	med := median(durations)
	if med > 0 {
		r.SlowestOverMedian = durations[len(durations)-1] / med
		over := 0
		for _, d := range durations {
			if d > 1.5*med {
				over++
			}
		}
		r.Outliers = float64(over) / float64(len(durations))
		r.Improvable = improvable(done, med)
	}
	if len(rates) > 0 {
		r.MedianOverMinRate = median(rates) / rates[0]
	}
	return r, true
}

// improvable is the share of the tasks slower than their data explains
// and no outliers (PhaseResult.Improvable); NaN for fewer than two tasks
// or one whose compute is not known. The order of the tasks does not
// matter: they are counted, and the least other time is a minimum.
func improvable(tasks []*taskSpan, med float64) float64 {
	if len(tasks) < 2 {
		return math.NaN()
	}
	other := math.Inf(1)
	for _, t := range tasks {
		if t.compute < 0 {
			return math.NaN()
		}
		other = min(other, max(0, (t.end-t.start-t.compute).Seconds()))
	}
	n := 0
	for _, t := range tasks {
		d := (t.end - t.start).Seconds()
		if d > ImprovableOver*(t.compute.Seconds()+other) && d <= 1.5*med {
			n++
		}
	}
	return float64(n) / float64(len(tasks))
}

// median is the median of sorted values, the mean of the middle two of
// an even count: with two tasks, one twice the other is an outlier.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// summarizePhases sets the phase metrics: the 50th, 75th and 95th
// percentiles over phases of their duration, slowest-over-median and
// median-over-minimum rate, and the share of outlier-heavy phases. The
// durations' percentiles weigh each phase by its lifetime, as the
// thesis's comparison of speculation policies does ("The y-axes weighs
// phases by their lifetime since improving the longer phases improves
// cluster efficiency", Fig. 4.13): the median is the duration of the
// phase in which half of all phase time is spent, not that of the
// median phase, which in a workload of mostly small jobs is a phase of a
// task or two that no speculation sees in time.
func summarizePhases(s Summary, phases []PhaseResult) {
	summarizePhasesAs(s, "phases.", phases)
}

// summarizeReducePhases sets the phase metrics of the reduce phases of
// two tasks or more under phases.reduce., as Mantri's placement is judged
// (Fig. 3.7): a phase of one task has no slowest task against its median
// one, nor a placement of its tasks against each other.
func summarizeReducePhases(s Summary, phases []PhaseResult) {
	var reduces []PhaseResult
	for _, p := range phases {
		if p.Kind == sched.Reduce && p.Tasks >= 2 {
			reduces = append(reduces, p)
		}
	}
	summarizePhasesAs(s, "phases.reduce.", reduces)
}

// summarizePhasesAs sets the phase metrics under the prefix.
func summarizePhasesAs(s Summary, prefix string, phases []PhaseResult) {
	if len(phases) == 0 {
		return
	}
	var durations, slowest, rates []float64
	heavy, measured, rich := 0, 0, 0
	for _, p := range phases {
		if !math.IsNaN(p.Improvable) {
			measured++
			if p.Improvable > ImprovableHeavy {
				rich++
			}
		}
		durations = append(durations, p.Duration.Seconds())
		slowest = append(slowest, p.SlowestOverMedian)
		if !math.IsNaN(p.MedianOverMinRate) {
			rates = append(rates, p.MedianOverMinRate)
		}
		if p.Outliers > OutlierHeavy {
			heavy++
		}
	}
	s.weightedQuantiles(prefix+"duration", durations)
	s.quantiles(prefix+"slowest_over_median", slowest)
	s.quantiles(prefix+"median_over_min_rate", rates)
	s[prefix+"outlier_heavy"] = float64(heavy) / float64(len(phases))
	if measured > 0 {
		s[prefix+"improvable_heavy"] = float64(rich) / float64(measured)
	}
}

// weightedQuantiles sets the 50th, 75th and 95th percentiles of xs
// (≥ 0) weighted by themselves under the prefix: the pth is the least x
// whose own and smaller values add up to p% of the sum. It sorts xs.
func (s Summary) weightedQuantiles(prefix string, xs []float64) {
	slices.Sort(xs)
	total := 0.0
	for _, x := range xs {
		total += x
	}
	for _, p := range []struct {
		name string
		p    float64
	}{{".p50", 50}, {".p75", 75}, {".p95", 95}} {
		sum, at := 0.0, xs[len(xs)-1]
		for _, x := range xs {
			if sum += x; sum >= p.p/100*total {
				at = x
				break
			}
		}
		s[prefix+p.name] = at
	}
}

// quantiles sets the 50th, 75th and 95th percentiles of xs under the
// prefix; it sorts xs and sets nothing for none.
func (s Summary) quantiles(prefix string, xs []float64) {
	if len(xs) == 0 {
		return
	}
	slices.Sort(xs)
	for _, p := range []struct {
		name string
		p    float64
	}{{".p50", 50}, {".p75", 75}, {".p95", 95}} {
		s[prefix+p.name] = Percentile(xs, p.p)
	}
}
