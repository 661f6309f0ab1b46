package cluster

import (
	"clusteremu/actors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"clusteremu/policies/sched"
)

// Summary is a run's headline metrics by name, the names that scenario
// expectations use ("jobs.response_time.p95", "tasks.locality.node").
// Times are emulated seconds; fractions are in [0, 1].
type Summary map[string]float64

// MetricNames are the names a Summary may hold. Response-time and
// locality metrics are absent from runs where no job succeeded or no map
// ran; slowdowns from runs without reference runs (Config.Run.Slowdown).
var MetricNames = []string{
	"flows.aborted", "flows.abandoned_bytes", "flows.bytes", "flows.completed", "flows.cut_off",
	"jobs.cut_off", "jobs.evicted_maps", "jobs.evictions", "jobs.failed", "jobs.makespan",
	"jobs.response_time.max", "jobs.response_time.mean", "jobs.response_time.p50", "jobs.response_time.p95",
	"jobs.response_time.p99",
	"jobs.small.response_time.mean",
	"jobs.slowdown.max", "jobs.slowdown.mean", "jobs.slowdown.p50", "jobs.slowdown.p95", "jobs.slowdown.p99",
	"jobs.slowdown.v95",
	"jobs.submitted", "jobs.succeeded", "jobs.throughput", "run.end",
	"slots.utilisation.map", "slots.utilisation.reduce",
	"tasks.attempts", "tasks.failed", "tasks.failed.slot_seconds", "tasks.killed", "tasks.killed.slot_seconds",
	"tasks.locality.node", "tasks.locality.rack", "tasks.locality.remote", "tasks.locality.within_rack",
	"tasks.lost",
	// Measured when the run has stragglers, skew or speculation
	// (Config.MeasuresStragglers).
	"phases.duration.p50", "phases.duration.p75", "phases.duration.p95",
	"phases.slowest_over_median.p50", "phases.slowest_over_median.p75", "phases.slowest_over_median.p95",
	"phases.median_over_min_rate.p50", "phases.median_over_min_rate.p75", "phases.median_over_min_rate.p95",
	"phases.outlier_heavy", "tasks.slot_seconds", "tasks.speculative.per_task", "tasks.speculative.success",
	actors.MetricNodesBlacklisted,
}

// CounterNames are the metrics counted as the run goes (Records.Counters):
// faults fired by kind and what they cost. A Summary holds each, 0 when
// nothing counted it.
var CounterNames = []string{
	"faults.crash", "faults.slowdown", "faults.partition", "faults.link", "faults.coordinator",
	actors.MetricLostToCrash, actors.MetricHeldByPartition, actors.MetricStaleReports,
	actors.MetricNodesLost, actors.MetricNodesRejoined, actors.MetricMapsRerunNodeLost, actors.MetricMapsRerunFetch,
	actors.MetricDroppedByRule, actors.MetricDelayedByRule, actors.MetricBlocksReReplicated, actors.MetricBytesReReplicated,
	actors.MetricBytesRequested,
}

func init() {
	MetricNames = append(MetricNames, CounterNames...)
	slices.Sort(MetricNames)
}

// PoolMetrics prefixes the job metrics a Summary also holds for each pool
// its jobs name: "pools.scan.jobs.succeeded" is jobs.succeeded over the
// jobs of pool "scan" (Zaharia et al. report IO-rate biasing's gains for
// scan and compute jobs apart).
const PoolMetrics = "pools."

// ValidMetric reports whether a Summary may hold the name: one of
// MetricNames, or a job metric under PoolMetrics and a pool's name.
func ValidMetric(name string) bool {
	if slices.Contains(MetricNames, name) {
		return true
	}
	rest, ok := strings.CutPrefix(name, PoolMetrics)
	i := strings.LastIndex(rest, ".jobs.")
	return ok && i > 0 && strings.HasPrefix(rest[i+1:], "jobs.") && slices.Contains(MetricNames, rest[i+1:])
}

// Metric units: what a metric's value measures (MetricUnit).
const (
	UnitSeconds  = "seconds"  // emulated seconds (slot-seconds for *.slot_seconds)
	UnitFraction = "fraction" // from 0 to 1
	UnitCount    = "count"
	UnitRatio    = "ratio" // a slowdown: a time over a time
	UnitBytes    = "bytes"
	UnitPerHour  = "jobs per hour"
)

// MetricUnit is what a valid metric measures, for checking values written
// against it.
func MetricUnit(name string) string {
	if rest, ok := strings.CutPrefix(name, PoolMetrics); ok {
		name = rest[strings.LastIndex(rest, ".jobs.")+1:]
	}
	switch {
	case strings.HasPrefix(name, "jobs.response_time.") || strings.HasSuffix(name, ".response_time.mean") ||
		name == "jobs.makespan" || name == "run.end" || strings.HasSuffix(name, ".slot_seconds") ||
		strings.HasPrefix(name, "phases.duration."):
		return UnitSeconds
	case strings.HasPrefix(name, "tasks.locality.") || strings.HasPrefix(name, "slots.utilisation.") ||
		name == "phases.outlier_heavy" || name == "tasks.speculative.success":
		return UnitFraction
	case strings.HasPrefix(name, "jobs.slowdown.") || strings.HasPrefix(name, "phases.") || name == "tasks.speculative.per_task":
		return UnitRatio
	case name == "flows.bytes" || strings.HasSuffix(name, "_bytes"):
		return UnitBytes
	case name == "jobs.throughput":
		return UnitPerHour
	}
	return UnitCount
}

// Pools lists, sorted, the pools the summary holds job metrics for.
func (s Summary) Pools() []string {
	var pools []string
	for _, name := range s.Names() {
		rest, ok := strings.CutPrefix(name, PoolMetrics)
		if pool, isPool := strings.CutSuffix(rest, ".jobs.submitted"); ok && isPool {
			pools = append(pools, pool)
		}
	}
	return pools
}

// SmallJobMaps is the most maps a small job has, for
// jobs.small.response_time.mean: bins 0 and 1 of Zaharia et al.'s Table 2,
// two thirds of Facebook's jobs.
const SmallJobMaps = 50

// Names returns the metric names, sorted.
func (s Summary) Names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Summarize computes the headline metrics of a run's results. slots are
// the cluster's map and reduce slots; end is the run's emulated end.
func Summarize(res *Records, slots [2]int, end time.Duration) Summary {
	s := Summary{"run.end": end.Seconds()}
	summarizeJobs(s, "", res.Jobs)
	pools := map[string][]JobResult{}
	for _, j := range res.Jobs {
		if j.Pool != "" {
			pools[j.Pool] = append(pools[j.Pool], j)
		}
	}
	for pool, jobs := range pools {
		summarizeJobs(s, PoolMetrics+pool+".", jobs)
	}
	summarizeAttempts(s, res, slots, end)
	s["flows.completed"] = float64(res.Flows.Completed)
	s["flows.aborted"] = float64(res.Flows.Aborted)
	s["flows.bytes"] = float64(res.Flows.Delivered)
	s["flows.abandoned_bytes"] = float64(res.Flows.Abandoned())
	s["flows.cut_off"] = float64(res.Flows.CutOff)
	for _, name := range CounterNames {
		s[name] = float64(res.Counters[name])
	}
	if res.Phases != nil {
		summarizeStragglers(s, res)
	}
	return s
}

// summarizeStragglers sets the metrics of a run that measures phases
// (Config.MeasuresStragglers): the phases', the slot-seconds every
// attempt held, and what speculation launched and won.
func summarizeStragglers(s Summary, res *Records) {
	summarizePhases(s, res.Phases)
	t := &res.Tally
	held := t.Busy[sched.Map] + t.Busy[sched.Reduce]
	for _, a := range res.CutOff {
		// Running when the run ended, such as a copy whose task ended
		// with the run: it held its slot until then.
		if a.Start >= 0 {
			held += (a.End - a.Start).Seconds()
		}
	}
	s["tasks.slot_seconds"] = held
	tasks := 0
	for _, j := range res.Jobs {
		tasks += j.Maps + j.Reduces
	}
	s[actors.MetricNodesBlacklisted] = float64(res.Counters[actors.MetricNodesBlacklisted])
	launched := res.Counters[actors.MetricSpeculated]
	if tasks > 0 {
		s["tasks.speculative.per_task"] = float64(launched) / float64(tasks)
	}
	if launched > 0 {
		s["tasks.speculative.success"] = float64(res.Counters[actors.MetricSpeculationWon]) / float64(launched)
	}
}

func summarizeJobs(s Summary, prefix string, jobs []JobResult) {
	var rts, slows, small []float64
	counts := map[JobOutcome]int{}
	first, last := math.Inf(1), math.Inf(-1)
	evictions, evicted := 0, 0
	for _, j := range jobs {
		counts[j.Outcome]++
		evictions += j.Evictions
		evicted += j.EvictedMaps
		first = math.Min(first, j.Submit.Seconds())
		if j.Outcome == JobSucceeded {
			rts = append(rts, (j.Finish - j.Submit).Seconds())
			if j.Maps <= SmallJobMaps {
				small = append(small, (j.Finish - j.Submit).Seconds())
			}
			if sd := j.Slowdown(); sd > 0 {
				slows = append(slows, sd)
			}
			last = math.Max(last, j.Finish.Seconds())
		}
	}
	s[prefix+"jobs.submitted"] = float64(len(jobs))
	s[prefix+"jobs.evictions"] = float64(evictions)
	s[prefix+"jobs.evicted_maps"] = float64(evicted)
	s[prefix+"jobs.succeeded"] = float64(counts[JobSucceeded])
	s[prefix+"jobs.failed"] = float64(counts[JobFailed])
	s[prefix+"jobs.cut_off"] = float64(counts[JobCutOff])
	if len(rts) == 0 {
		return
	}
	s.distribution(prefix+"jobs.response_time", rts)
	if len(small) > 0 {
		s[prefix+"jobs.small.response_time.mean"] = Mean(small)
	}
	s[prefix+"jobs.makespan"] = last - first
	if last > first {
		// Jobs finished per emulated hour, first submission to last end.
		s[prefix+"jobs.throughput"] = float64(len(rts)) / (last - first) * 3600
	}
	if len(slows) == 0 {
		return
	}
	// Ghit & Epema's variability V(95) is the p95 slowdown over the median.
	s.distribution(prefix+"jobs.slowdown", slows)
	s[prefix+"jobs.slowdown.v95"] = s[prefix+"jobs.slowdown.p95"] / s[prefix+"jobs.slowdown.p50"]
}

// distribution sets the mean, p50, p95, p99 and max of xs under the
// prefix; it sorts xs.
func (s Summary) distribution(prefix string, xs []float64) {
	slices.Sort(xs)
	s[prefix+".mean"] = Mean(xs)
	s[prefix+".max"] = xs[len(xs)-1]
	for _, p := range []float64{50, 95, 99} {
		s[fmt.Sprintf("%s.p%.0f", prefix, p)] = Percentile(xs, p)
	}
}

func summarizeAttempts(s Summary, res *Records, slots [2]int, end time.Duration) {
	t := res.Tally
	if t.Attempts == 0 && len(res.Attempts) > 0 {
		for _, a := range res.Attempts { // records made by hand, not by a run
			t.add(a)
		}
	}
	loc := t.Locality
	s["tasks.attempts"] = float64(t.Attempts)
	s["tasks.lost"] = float64(t.Lost)
	s["tasks.killed"] = float64(t.Outcomes[sched.Killed])
	s["tasks.failed"] = float64(t.Outcomes[sched.Failed])
	// The work killed and failed attempts did is lost: their tasks run
	// again from the start (preemption's cost in Zaharia et al. §3.2).
	s["tasks.killed.slot_seconds"] = t.Held[sched.Killed]
	s["tasks.failed.slot_seconds"] = t.Held[sched.Failed]
	if maps := loc[0] + loc[1] + loc[2]; maps > 0 {
		s["tasks.locality.node"] = float64(loc[sched.NodeLocal]) / float64(maps)
		s["tasks.locality.rack"] = float64(loc[sched.RackLocal]) / float64(maps)
		s["tasks.locality.remote"] = float64(loc[sched.OffRack]) / float64(maps)
		// Node-local or rack-local: the "rack locality" papers report.
		s["tasks.locality.within_rack"] = float64(loc[sched.NodeLocal]+loc[sched.RackLocal]) / float64(maps)
	}
	if end > 0 {
		for kind, name := range []string{"slots.utilisation.map", "slots.utilisation.reduce"} {
			if slots[kind] > 0 {
				s[name] = t.Busy[kind] / (float64(slots[kind]) * end.Seconds())
			}
		}
	}
}

// AttemptTally is what the summary needs of the attempts that ended,
// counted as they end: how many, by outcome, the slot-seconds they held
// by kind and by outcome, and the locality of the maps that succeeded.
type AttemptTally struct {
	Attempts int
	Outcomes [3]int     // by sched.Outcome
	Busy     [2]float64 // slot-seconds by sched.TaskKind
	Held     [3]float64 // slot-seconds by sched.Outcome
	Locality [3]int     // succeeded maps by sched.Locality
	Lost     int        // attempts that ended lost with their node
}

func (t *AttemptTally) add(a actors.AttemptRecord) {
	t.Attempts++
	t.Outcomes[a.Outcome]++
	if a.Start >= 0 { // an attempt lost before it launched held no slot
		d := (a.End - a.Start).Seconds()
		t.Busy[a.Attempt.Kind] += d
		t.Held[a.Outcome] += d
	}
	if a.Attempt.Kind == sched.Map && a.Outcome == sched.Succeeded {
		t.Locality[a.Locality]++
	}
	if a.Reason == actors.ReasonNodeLost {
		t.Lost++
	}
}

// Mean is the mean of xs, which must not be empty.
func Mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Percentile is the nearest-rank percentile p (0–100) of sorted values.
func Percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
