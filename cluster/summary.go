package cluster

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/workload"
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
	actors.MetricRackTrafficBytes, // with [rack_traffic]
	"jobs.admission_wait.max", "jobs.admission_wait.mean", "jobs.admission_wait.p50", "jobs.admission_wait.p95",
	"jobs.admission_wait.p99",
	"jobs.cut_off", "jobs.evicted_maps", "jobs.evictions", "jobs.failed", "jobs.makespan",
	"jobs.response_time.max", "jobs.response_time.mean", "jobs.response_time.p50", "jobs.response_time.p95",
	"jobs.response_time.p99",
	"jobs.small.response_time.mean",
	"jobs.slowdown.bin_spread",
	"jobs.slowdown.max", "jobs.slowdown.mean", "jobs.slowdown.p50", "jobs.slowdown.p75", "jobs.slowdown.p90",
	"jobs.slowdown.p95", "jobs.slowdown.p99",
	"jobs.slowdown.v75", "jobs.slowdown.v90", "jobs.slowdown.v95", "jobs.slowdown.v99",
	"jobs.submitted", "jobs.succeeded", "jobs.throughput", "run.end",
	"slots.utilisation.map", "slots.utilisation.reduce",
	"tasks.attempts", "tasks.failed", "tasks.failed.slot_seconds", "tasks.killed", "tasks.killed.slot_seconds",
	"tasks.locality.node", "tasks.locality.rack", "tasks.locality.remote", "tasks.locality.within_rack",
	"tasks.lost",
	// With a policy that evicts for locality (sched.Evicting).
	"tasks.evicted",
	"workload.load", "workload.load.map", "workload.load.reduce",
	"workload.reference.scv", "workload.reference.sum",
	"workload.size.below_10s", "workload.size.mean", "workload.size.scv", "workload.size.top_8pct",
	// Measured when the run has stragglers, skew or speculation
	// (Config.MeasuresStragglers).
	"phases.duration.p50", "phases.duration.p75", "phases.duration.p95",
	"phases.slowest_over_median.p50", "phases.slowest_over_median.p75", "phases.slowest_over_median.p95",
	"phases.median_over_min_rate.p50", "phases.median_over_min_rate.p75", "phases.median_over_min_rate.p95",
	"phases.outlier_heavy", "tasks.slot_seconds", "tasks.speculative.per_task", "tasks.speculative.success",
	// With stragglers.mild.
	"phases.improvable_heavy",
	// With tasks.reduce_placement named, "any" too.
	"phases.reduce.duration.p50", "phases.reduce.duration.p75", "phases.reduce.duration.p95",
	"phases.reduce.slowest_over_median.p50", "phases.reduce.slowest_over_median.p75", "phases.reduce.slowest_over_median.p95",
	"phases.reduce.median_over_min_rate.p50", "phases.reduce.median_over_min_rate.p75", "phases.reduce.median_over_min_rate.p95",
	"phases.reduce.outlier_heavy",
	actors.MetricNodesBlacklisted,
	// With [cloning].
	actors.MetricClonedPhases, actors.MetricClonesLaunched, "clones.budget.peak",
	actors.MetricClonedJobs, "clones.budget.max", actors.MetricClonesPreempted, "clones.p",
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

// CacheMetricNames are the metrics of a run with a [cache] table, its
// capacity 0 too (the run a cache is compared with); a run without one
// has none of them, nor the job metrics of its size bins (BinMetrics).
var CacheMetricNames = []string{
	"cache.hit_ratio", "jobs.all_memory_local", "tasks.locality.memory", "tasks.slot_seconds",
	actors.MetricCacheRequests, actors.MetricCachePeak, actors.MetricCacheEvictions,
	"files.top5_over_bottom75", "files.blocks_read_at_most_4", "files.single_access_jobs",
}

func init() {
	MetricNames = append(MetricNames, CounterNames...)
	MetricNames = append(MetricNames, CacheMetricNames...)
	MetricNames = append(MetricNames, ServiceMetricNames...)
	MetricNames = append(MetricNames, actors.MetricReducesPreempted)   // with cluster.containers
	MetricNames = append(MetricNames, actors.MetricAMsLost)            // with cluster.am_containers
	MetricNames = append(MetricNames, actors.MetricContainersReserved) // with cluster.containers
	MetricNames = append(MetricNames, WorkflowMetricNames...)
	slices.Sort(MetricNames)
	MetricNames = slices.Compact(MetricNames) // tasks.slot_seconds is a cache's and a straggler run's
}

// BinMetrics prefixes the job metrics a Summary holds, in a run with a
// cache, for each job-size bin of the thesis's Table 2.1, by map count:
// bins.1 (1–10 maps), bins.2 (11–50), bins.3 (51–150), bins.4 (151–500)
// and bins.5 (over 500). "bins.1.jobs.response_time.mean" is bin-1's mean
// response time. A run with [cloning] holds them too, and each bin's
// share of the cloning budget charged, "bins.1.clones.share".
const BinMetrics = "bins."

// SizeBins are Table 2.1's bins: the most maps of each, the last open.
var SizeBins = workload.SizeBins

// binOf is the Table 2.1 bin (from 1) of a job with maps maps.
func binOf(maps int) int { return workload.SizeBin(maps) }

// PoolMetrics prefixes the job metrics a Summary also holds for each pool
// its jobs name: "pools.scan.jobs.succeeded" is jobs.succeeded over the
// jobs of pool "scan" (Zaharia et al. report IO-rate biasing's gains for
// scan and compute jobs apart).
const PoolMetrics = "pools."

// SizeMetrics prefixes the job metrics a Summary holds for each job-size
// bin that has jobs (Ghit & Epema's Fig. 12): "sizes.316.jobs.slowdown.mean"
// is the mean slowdown of the jobs of 316 to 1,000 slot-seconds. The bins
// are √10 apart from 10 s (SizeBinEdge); "sizes.0." holds the jobs below
// 10 s. A job's size is the slot time it held in its reference run, so
// only runs with slowdowns have bins.
const SizeMetrics = "sizes."

// FromReferences reports whether the metric is measured from the jobs'
// reference runs (Config.Run.Slowdown), so that a run without them has
// none: slowdowns (the run's, a pool's or a size bin's), the size bins'
// metrics and the workload's sizes and load.
func FromReferences(metric string) bool {
	return strings.HasPrefix(metric, SizeMetrics) || strings.HasPrefix(metric, "workload.") ||
		strings.HasPrefix(metric, "jobs.slowdown.") || strings.HasPrefix(metric, PoolMetrics) && strings.Contains(metric, ".jobs.slowdown.")
}

// PartitionMetrics prefixes the metrics of each partition of a policy
// that splits the slots between queues (sched.Partitioned):
// partitions.<k>.utilisation.map and .reduce (the slot-seconds held in the
// partition's slots of the kind over their number × the run's length) and
// partitions.<k>.work (its share of all the slot-seconds held).
const PartitionMetrics = "partitions."

// MinBinJobs is the fewest jobs a size bin needs to count in
// jobs.slowdown.bin_spread.
const MinBinJobs = 10

// SizeBinEdge is the lower edge of size bin i ≥ 1 in slot-seconds,
// 10 × √10^(i−1): 10, 31.6, 100, 316, …; bin 0 holds the sizes below 10.
func SizeBinEdge(i int) float64 { return 10 * math.Pow(10, float64(i-1)/2) }

// SizeBinLabel is bin i's name in metrics: its lower edge rounded, 0 for
// bin 0 ("sizes.32.", "sizes.0.").
func SizeBinLabel(i int) string {
	if i == 0 {
		return "0"
	}
	return strconv.FormatFloat(math.Round(SizeBinEdge(i)), 'f', 0, 64)
}

// SizeBin is the bin of a size in slot-seconds.
func SizeBin(size float64) int {
	i := 0
	for i < 40 && size >= SizeBinEdge(i+1) {
		i++
	}
	return i
}

// sizeBinByLabel is the bin a label names, and false for a label off the
// ladder.
func sizeBinByLabel(label string) (int, bool) {
	for i := range 41 {
		if SizeBinLabel(i) == label {
			return i, true
		}
	}
	return 0, false
}

// ValidMetric reports whether a Summary may hold the name: one of
// MetricNames, a job metric under PoolMetrics and a pool's name or under
// SizeMetrics and a bin of the ladder or under BinMetrics and a bin of
// maps per job, or a partition's metric.
func ValidMetric(name string) bool {
	return MetricError(name) == nil
}

// MetricError says why a name is no metric a Summary may hold, nil when
// it is one.
func MetricError(name string) error {
	if slices.Contains(MetricNames, name) {
		return nil
	}
	if rest, ok := strings.CutPrefix(name, SizeMetrics); ok {
		label, metric, _ := strings.Cut(rest, ".")
		if _, on := sizeBinByLabel(label); !on {
			return fmt.Errorf("sizes.%s: no such size bin: the bins are 0 (below 10 s), then √10 apart from 10 s: %s, …",
				label, strings.Join(ladder(8), ", "))
		}
		if !strings.HasPrefix(metric, "jobs.") || !slices.Contains(MetricNames, metric) {
			return fmt.Errorf("%s: a size bin holds the jobs metrics (%sjobs.slowdown.mean)", name, SizeMetrics+label+".")
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(name, PartitionMetrics); ok {
		k, metric, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > sched.MaxQueues || strconv.Itoa(n) != k {
			return fmt.Errorf("partitions.%s: partitions are numbered 1 to %d", k, sched.MaxQueues)
		}
		if !slices.Contains([]string{"utilisation.map", "utilisation.reduce", "work"}, metric) {
			return fmt.Errorf("%s: a partition has utilisation.map, utilisation.reduce and work", name)
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(name, BinMetrics); ok {
		bin, metric, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(bin); err != nil || n < 1 || n > len(SizeBins) || strconv.Itoa(n) != bin {
			return fmt.Errorf("bins.%s: the bins of maps per job are numbered 1 to %d", bin, len(SizeBins))
		}
		if metric != "clones.share" && (!strings.HasPrefix(metric, "jobs.") || !slices.Contains(MetricNames, metric)) {
			return fmt.Errorf("%s: a bin holds the jobs metrics (%sjobs.response_time.mean) and, cloning, clones.share", name, BinMetrics+bin+".")
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(name, actors.QoSMetrics); ok {
		return qosMetricError(name, rest)
	}
	if rest, ok := strings.CutPrefix(name, HardwareMetrics); ok {
		return hardwareMetricError(name, rest)
	}
	rest, ok := strings.CutPrefix(name, PoolMetrics)
	i := strings.LastIndex(rest, ".jobs.")
	if ok && i > 0 && strings.HasPrefix(rest[i+1:], "jobs.") && slices.Contains(MetricNames, rest[i+1:]) {
		return nil
	}
	return fmt.Errorf("%s: no such metric", name)
}

// QoSTaskMetrics are the task metrics of each QoS class
// (classes.<class>.tasks.…): the tasks its clients posted, those
// non-conformant (degraded or dropped), degraded, dropped, and
// non-conformant over posted (the paper's "ratio of job dropping").
var QoSTaskMetrics = []string{"tasks.posted", "tasks.nonconformant", "tasks.degraded", "tasks.dropped", "tasks.nonconformant_ratio"}

// qosMetricError says why classes.<rest> is no QoS class metric.
func qosMetricError(name, rest string) error {
	for _, kind := range []string{".tasks.", ".jobs."} {
		if i := strings.LastIndex(rest, kind); i > 0 {
			metric := rest[i+1:]
			if slices.Contains(QoSTaskMetrics, metric) || kind == ".jobs." && slices.Contains(MetricNames, metric) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s: a QoS class holds %s and the jobs metrics (%s<class>.jobs.response_time.mean)",
		name, strings.Join(QoSTaskMetrics, ", "), actors.QoSMetrics)
}

// ladder lists the first n bin labels.
func ladder(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = SizeBinLabel(i)
	}
	return out
}

// jobMetric is the job metric a prefixed name holds (pools.<p>.jobs.…,
// sizes.<bin>.jobs.…, bins.<n>.jobs.…), or the name.
func jobMetric(name string) string {
	for _, prefix := range []string{PoolMetrics, SizeMetrics, BinMetrics, actors.QoSMetrics} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if i := strings.LastIndex(rest, ".jobs."); i >= 0 {
				return rest[i+1:]
			}
		}
	}
	return name
}

// Metric units: what a metric's value measures (MetricUnit).
const (
	UnitSeconds  = "seconds"  // emulated seconds (slot-seconds for *.slot_seconds)
	UnitFraction = "fraction" // from 0 to 1
	UnitCount    = "count"
	UnitRatio    = "ratio" // a slowdown (a time over a time), a load, an overhead (bytes over bytes)
	UnitBytes    = "bytes"
	UnitPerHour  = "jobs per hour"
)

// MetricUnit is what a valid metric measures, for checking values written
// against it.
func MetricUnit(name string) string {
	name = jobMetric(name)
	switch {
	case name == "cache.hit_ratio" || name == "jobs.all_memory_local" || name == "files.blocks_read_at_most_4" ||
		name == "files.single_access_jobs":
		return UnitFraction
	case name == "files.top5_over_bottom75":
		return UnitRatio
	case strings.HasPrefix(name, PartitionMetrics) || strings.HasSuffix(name, ".nonconformant_ratio") ||
		strings.HasPrefix(name, HardwareMetrics) && !strings.HasSuffix(name, ".seconds.mean"):
		return UnitFraction
	case strings.HasPrefix(name, "workload.load") || strings.HasSuffix(name, ".scv") || strings.HasSuffix(name, ".overhead"):
		return UnitRatio
	case name == "workload.size.mean" || name == "workload.reference.sum":
		return UnitSeconds
	case name == "workload.size.top_8pct" || name == "workload.size.below_10s":
		return UnitFraction
	case strings.HasPrefix(name, "jobs.response_time.") || strings.HasSuffix(name, ".response_time.mean") ||
		name == "jobs.makespan" || strings.HasPrefix(name, "workflows.makespan.") || name == "run.end" || strings.HasSuffix(name, ".slot_seconds") ||
		strings.HasPrefix(name, "phases.duration.") || strings.HasPrefix(name, "phases.reduce.duration.") ||
		strings.HasPrefix(name, HardwareMetrics) && strings.HasSuffix(name, ".seconds.mean"):
		return UnitSeconds
	case strings.HasPrefix(name, "tasks.locality.") || strings.HasPrefix(name, "slots.utilisation.") ||
		strings.HasSuffix(name, "outlier_heavy") || name == "phases.improvable_heavy" || name == "tasks.speculative.success":
		return UnitFraction
	case strings.HasPrefix(name, "jobs.slowdown.") || strings.HasPrefix(name, "phases.") || name == "tasks.speculative.per_task":
		return UnitRatio
	case name == "recompute.precision" || name == "flows.protect_share" || strings.HasSuffix(name, "clones.share") ||
		name == "clones.budget.peak" || name == "clones.p":
		return UnitFraction
	case name == "clones.budget.max":
		return UnitRatio // B_U over β·C at admissions: at most 1
	case name == "flows.bytes" || strings.HasSuffix(name, "_bytes") || strings.HasPrefix(name, "flows.bytes."):
		return UnitBytes
	case name == "jobs.throughput":
		return UnitPerHour
	case name == "coordinator.busy":
		return UnitFraction
	case name == "coordinator.wait.mean" || strings.HasPrefix(name, "jobs.admission_wait."):
		return UnitSeconds
	case name == "replication.bytes" || name == "replication.bytes_raw":
		return UnitBytes
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
	if res.Warmup > 0 {
		measured := *res
		measured.Jobs = slices.DeleteFunc(slices.Clone(res.Jobs), func(j JobResult) bool { return j.Submit < res.Warmup })
		if res.Phases != nil {
			kept := make(map[sched.JobID]bool, len(measured.Jobs))
			for _, j := range measured.Jobs {
				kept[j.ID] = true
			}
			measured.Phases = slices.DeleteFunc(slices.Clone(res.Phases), func(p PhaseResult) bool { return !kept[p.Job] })
		}
		res = &measured
	}
	summarizeJobs(s, "", res.Jobs)
	if res.Admission {
		summarizeAdmission(s, res.Jobs)
	}
	if res.Evicting {
		s["tasks.evicted"] = float64(res.Tally.Evicted)
	}
	pools := map[string][]JobResult{}
	for _, j := range res.Jobs {
		if j.Pool != "" {
			pools[j.Pool] = append(pools[j.Pool], j)
		}
	}
	for pool, jobs := range pools {
		summarizeJobs(s, PoolMetrics+pool+".", jobs)
	}
	summarizeSizes(s, res.Jobs)
	summarizeLoad(s, res.Jobs, slots, res.ReduceContainers)
	summarizeWorkload(s, res.Jobs)
	summarizeAttempts(s, res, slots, end)
	summarizePartitions(s, res, end)
	summarizeHardware(s, res, end)
	s["flows.completed"] = float64(res.Flows.Completed)
	s["flows.aborted"] = float64(res.Flows.Aborted)
	s["flows.bytes"] = float64(res.Flows.Delivered)
	s["flows.abandoned_bytes"] = float64(res.Flows.Abandoned())
	s["flows.cut_off"] = float64(res.Flows.CutOff)
	for _, name := range CounterNames {
		s[name] = float64(res.Counters[name])
	}
	if b, ok := res.Counters[actors.MetricRackTrafficBytes]; ok {
		s[actors.MetricRackTrafficBytes] = float64(b)
	}
	if res.Cache != nil {
		summarizeCache(s, res)
	}
	if res.Phases != nil {
		summarizeStragglers(s, res)
	}
	summarizeQoS(s, res)
	if res.Replication != nil {
		summarizeReplication(s, res)
	}
	if res.Recompute {
		summarizeRecomputes(s, res)
	}
	if res.Serves {
		summarizeService(s, res, end)
	}
	if res.ReduceContainers > 0 {
		s[actors.MetricReducesPreempted] = float64(res.Counters[actors.MetricReducesPreempted])
		s[actors.MetricContainersReserved] = float64(res.Counters[actors.MetricContainersReserved])
	}
	if res.AMs {
		s[actors.MetricAMsLost] = float64(res.Counters[actors.MetricAMsLost])
	}
	if res.Workflows != nil {
		summarizeWorkflows(s, res)
	}
	return s
}

// WorkflowMetricNames are the metrics of a run with workflows (jobs that
// wait for one another, Workflows): how many there are, how many
// succeeded (every job did), failed (some job did) or were cut off, and
// the makespans of those that ended, from their first job's submission
// to their last job's end.
var WorkflowMetricNames = []string{
	"workflows.submitted", "workflows.succeeded", "workflows.failed", "workflows.cut_off",
	"workflows.makespan.mean", "workflows.makespan.max",
}

// summarizeWorkflows sets the workflow metrics. A workflow whose jobs
// were not all submitted by the run's end is cut off.
func summarizeWorkflows(s Summary, res *Records) {
	byID := make(map[sched.JobID]*JobResult, len(res.Jobs))
	for i := range res.Jobs {
		byID[res.Jobs[i].ID] = &res.Jobs[i]
	}
	var spans []float64
	outcomes := map[string]int{}
	for _, w := range res.Workflows {
		first, last, outcome := math.Inf(1), 0.0, "workflows.succeeded"
		for _, id := range w {
			j, ok := byID[id]
			switch {
			case !ok || j.Outcome == JobCutOff:
				outcome = "workflows.cut_off"
			case j.Outcome != JobSucceeded && outcome == "workflows.succeeded":
				outcome = "workflows.failed"
			}
			if ok {
				first, last = min(first, j.Submit.Seconds()), max(last, j.Finish.Seconds())
			}
		}
		outcomes[outcome]++
		if outcome != "workflows.cut_off" {
			spans = append(spans, last-first)
		}
	}
	s["workflows.submitted"] = float64(len(res.Workflows))
	for _, name := range []string{"workflows.succeeded", "workflows.failed", "workflows.cut_off"} {
		s[name] = float64(outcomes[name])
	}
	if len(spans) > 0 {
		s["workflows.makespan.mean"], s["workflows.makespan.max"] = Mean(spans), slices.Max(spans)
	}
}

// ServiceMetricNames are the metrics of a run whose coordinator takes
// heartbeat.service_time over each message: the messages it served in
// turn, the share of the run it was busy, how long they waited for their
// service on the mean, the most waiting or in service at once, the jobs
// the policy looked at deciding them, and the calls skipped, their nodes
// having given them up.
var ServiceMetricNames = []string{
	actors.MetricCoordinatorRequests, "coordinator.busy", "coordinator.wait.mean", actors.MetricCoordinatorQueuePeak,
	actors.MetricCoordinatorLooked, actors.MetricCoordinatorSkipped,
}

// summarizeService sets the coordinator's queue metrics.
func summarizeService(s Summary, res *Records, end time.Duration) {
	n := res.Counters[actors.MetricCoordinatorRequests]
	s[actors.MetricCoordinatorRequests] = float64(n)
	s[actors.MetricCoordinatorQueuePeak] = float64(res.Counters[actors.MetricCoordinatorQueuePeak])
	s[actors.MetricCoordinatorLooked] = float64(res.Counters[actors.MetricCoordinatorLooked])
	if res.CallsTimeOut {
		s[actors.MetricCoordinatorSkipped] = float64(res.Counters[actors.MetricCoordinatorSkipped])
	}
	if end > 0 {
		s["coordinator.busy"] = float64(res.Counters[actors.MetricCoordinatorServiceNs]) / float64(end)
	}
	if n > 0 {
		s["coordinator.wait.mean"] = float64(res.Counters[actors.MetricCoordinatorWaitNs]) / 1e9 / float64(n)
	}
}

// summarizeQoS sets each QoS class's metrics: its tasks' counters and
// the jobs metrics of its jobs that ended, a job's response time its
// first task's post to its last task's end (a dropped task fails it).
func summarizeQoS(s Summary, res *Records) {
	jobs := map[string][]JobResult{}
	for name := range res.Counters {
		rest, ok := strings.CutPrefix(name, actors.QoSMetrics)
		if class, posted := strings.CutSuffix(rest, ".tasks.posted"); ok && posted {
			jobs[class] = nil
		}
	}
	for _, j := range res.QoSJobs {
		out := JobSucceeded
		if j.Failed {
			out = JobFailed
		}
		jobs[j.Class] = append(jobs[j.Class], JobResult{JobRecord: actors.JobRecord{Submit: j.Start, Finish: j.End, Maps: int(j.Tasks)}, Outcome: out})
	}
	for class, js := range jobs {
		prefix := actors.QoSMetrics + class + "."
		for _, m := range QoSTaskMetrics[:4] {
			s[prefix+m] = float64(res.Counters[prefix+m])
		}
		if posted := s[prefix+"tasks.posted"]; posted > 0 {
			s[prefix+"tasks.nonconformant_ratio"] = s[prefix+"tasks.nonconformant"] / posted
		}
		summarizeJobs(s, prefix, js)
	}
}

// summarizeCache adds a cached run's metrics: the hit ratio (the maps'
// input bytes read from memory), the jobs whose every map read from
// memory, memory locality, the slot-seconds every attempt held (the
// thesis's cluster efficiency, the less the better), the directory's
// counters, the job metrics of each size bin, and how popular the
// workload's files were (the calibration points of the thesis's §2.3.1).
func summarizeCache(s Summary, res *Records) {
	c := res.Cache
	if c.MapBytes > 0 {
		s["cache.hit_ratio"] = float64(c.MemoryBytes) / float64(c.MapBytes)
	}
	if c.JobsWithMaps > 0 {
		s["jobs.all_memory_local"] = float64(c.AllMemoryLocal) / float64(c.JobsWithMaps)
	}
	t := res.Tally
	loc := t.Locality
	if maps := loc[sched.MemoryLocal] + loc[sched.NodeLocal] + loc[sched.RackLocal] + loc[sched.OffRack]; maps > 0 {
		s["tasks.locality.memory"] = float64(loc[sched.MemoryLocal]) / float64(maps)
	}
	s["tasks.slot_seconds"] = slotSeconds(res)
	for _, name := range []string{actors.MetricCacheRequests, actors.MetricCachePeak, actors.MetricCacheEvictions} {
		s[name] = float64(res.Counters[name])
	}
	summarizeBins(s, res.Jobs)
	summarizePopularity(s, res.Jobs)
}

// summarizeBins sets the job metrics of each Table 2.1 bin with a job.
func summarizeBins(s Summary, all []JobResult) {
	bins := make([][]JobResult, len(SizeBins))
	for _, j := range all {
		b := binOf(j.Maps)
		bins[b-1] = append(bins[b-1], j)
	}
	for i, jobs := range bins {
		if len(jobs) > 0 {
			summarizeJobs(s, fmt.Sprintf("%s%d.", BinMetrics, i+1), jobs)
		}
	}
}

// summarizeClones sets the metrics of a run with [cloning]: what it
// cloned, the budget's peak use over the slots and over β·C, the share
// of measured attempts that straggled over the run (clones.p, 0 when
// none was measured), and each
// bin's share of the budget charged (bins.<k>.clones.share, in slots).
func summarizeClones(s Summary, res *Records) {
	s[actors.MetricClonedPhases] = float64(res.Counters[actors.MetricClonedPhases])
	s[actors.MetricClonesLaunched] = float64(res.Counters[actors.MetricClonesLaunched])
	s[actors.MetricClonedJobs] = float64(res.Counters[actors.MetricClonedJobs])
	s[actors.MetricClonesPreempted] = float64(res.Counters[actors.MetricClonesPreempted])
	s["clones.budget.peak"] = float64(res.Counters[actors.MetricCloneBudgetPeak]) / 1e6
	s["clones.budget.max"] = float64(res.Counters[actors.MetricCloneBudgetMax]) / 1e6
	s["clones.p"] = float64(res.Counters[actors.MetricAttemptsStraggled]) / float64(max(1, res.Counters[actors.MetricAttemptsMeasured]))
	total := int64(0)
	for b := range SizeBins {
		total += res.Counters[fmt.Sprintf("%s%d", actors.MetricClonesChargedBin, b+1)]
	}
	for b := range SizeBins {
		if total > 0 {
			s[fmt.Sprintf("%s%d.clones.share", BinMetrics, b+1)] =
				float64(res.Counters[fmt.Sprintf("%s%d", actors.MetricClonesChargedBin, b+1)]) / float64(total)
		}
	}
	summarizeBins(s, res.Jobs)
}

// summarizePopularity measures how the jobs' reads spread over files and
// blocks. A job reads every block of its input once, so a block's
// accesses are its file's readers: the top 5% of blocks against the
// bottom three quarters (the thesis: 7× at Facebook), the blocks read at
// most 4 times ("a majority"), and the jobs whose files no other job
// reads (11% of Facebook's).
func summarizePopularity(s Summary, jobs []JobResult) {
	readers, blocks := map[string]int{}, map[string]int{}
	for _, j := range jobs {
		for _, f := range jobFiles(j) {
			readers[f.File]++
			blocks[f.File] = max(blocks[f.File], f.Blocks)
		}
	}
	var counts []float64 // a block's accesses, one entry per block
	names := slices.Sorted(maps.Keys(readers))
	for _, f := range names {
		for range blocks[f] {
			counts = append(counts, float64(readers[f]))
		}
	}
	if len(counts) == 0 {
		return
	}
	slices.SortFunc(counts, func(a, b float64) int { return cmp.Compare(b, a) })
	top := counts[:max(1, len(counts)/20)]
	bottom := counts[len(counts)-max(1, len(counts)*3/4):]
	s["files.top5_over_bottom75"] = Mean(top) / Mean(bottom)
	few, single := 0, 0
	for _, c := range counts {
		if c <= 4 {
			few++
		}
	}
	for _, j := range jobs {
		if !slices.ContainsFunc(jobFiles(j), func(f actors.FileRead) bool { return readers[f.File] > 1 }) {
			single++
		}
	}
	s["files.blocks_read_at_most_4"] = float64(few) / float64(len(counts))
	s["files.single_access_jobs"] = float64(single) / float64(len(jobs))
}

// jobFiles lists the files a job read and its blocks of each.
func jobFiles(j JobResult) []actors.FileRead {
	if j.InputFiles != nil {
		return j.InputFiles
	}
	return []actors.FileRead{{File: j.Input, Blocks: j.Maps}}
}

// summarizeAdmission sets the distribution of the admitted jobs' waits
// for admission, submission to admission (jobs.admission_wait.*).
func summarizeAdmission(s Summary, jobs []JobResult) {
	var waits []float64
	for _, j := range jobs {
		if j.Admitted >= 0 {
			waits = append(waits, (j.Admitted - j.Submit).Seconds())
		}
	}
	if len(waits) > 0 {
		s.distribution("jobs.admission_wait", waits)
	}
}

// slotSeconds is the slot time every attempt held, those the run cut off
// included: running when the run ended, such as a copy whose task ended
// with the run, an attempt held its slot until then.
func slotSeconds(res *Records) float64 {
	held := res.Tally.Busy[sched.Map] + res.Tally.Busy[sched.Reduce]
	for _, a := range res.CutOff {
		if a.Start >= 0 {
			held += (a.End - a.Start).Seconds()
		}
	}
	return held
}

// summarizeStragglers sets the metrics of a run that measures phases
// (Config.MeasuresStragglers): the phases', the slot-seconds every
// attempt held, and what speculation launched and won.
func summarizeStragglers(s Summary, res *Records) {
	summarizePhases(s, res.Phases)
	if res.ReducePhases {
		summarizeReducePhases(s, res.Phases)
	}
	s["tasks.slot_seconds"] = slotSeconds(res)
	tasks := 0
	for _, j := range res.Jobs {
		tasks += j.Maps + j.Reduces
	}
	s[actors.MetricNodesBlacklisted] = float64(res.Counters[actors.MetricNodesBlacklisted])
	if res.Cloning {
		summarizeClones(s, res)
	}
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
	// Ghit & Epema's variability V(q) is the q-th percentile slowdown over
	// the median; V(95) their headline.
	s.distribution(prefix+"jobs.slowdown", slows, 50, 75, 90, 95, 99)
	for _, q := range []string{"75", "90", "95", "99"} {
		s[prefix+"jobs.slowdown.v"+q] = s[prefix+"jobs.slowdown.p"+q] / s[prefix+"jobs.slowdown.p50"]
	}
}

// distribution sets the mean, the percentiles (p50, p95 and p99 unless
// listed) and the max of xs under the prefix; it sorts xs.
func (s Summary) distribution(prefix string, xs []float64, percentiles ...float64) {
	if len(percentiles) == 0 {
		percentiles = []float64{50, 95, 99}
	}
	slices.Sort(xs)
	s[prefix+".mean"] = Mean(xs)
	s[prefix+".max"] = xs[len(xs)-1]
	for _, p := range percentiles {
		s[fmt.Sprintf("%s.p%.0f", prefix, p)] = Percentile(xs, p)
	}
}

// summarizeSizes sets the job metrics of each size bin that has jobs
// with a measured size, and jobs.slowdown.bin_spread: the largest mean
// slowdown of a bin over the smallest, among bins of at least MinBinJobs
// jobs with slowdowns (Ghit & Epema's Fig. 12 asks how even slowdowns are
// across sizes).
func summarizeSizes(s Summary, jobs []JobResult) {
	bins := map[int][]JobResult{}
	for _, j := range jobs {
		if size := j.TotalSize(); size > 0 {
			bins[SizeBin(size)] = append(bins[SizeBin(size)], j)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range slices.Sorted(maps.Keys(bins)) {
		prefix := SizeMetrics + SizeBinLabel(i) + "."
		summarizeJobs(s, prefix, bins[i])
		if mean, ok := s[prefix+"jobs.slowdown.mean"]; ok && countSlowdowns(bins[i]) >= MinBinJobs {
			lo, hi = math.Min(lo, mean), math.Max(hi, mean)
		}
	}
	if hi >= lo && lo > 0 {
		s["jobs.slowdown.bin_spread"] = hi / lo
	}
}

func countSlowdowns(jobs []JobResult) int {
	n := 0
	for _, j := range jobs {
		if j.Slowdown() > 0 {
			n++
		}
	}
	return n
}

// summarizeLoad sets the load the workload offered: the slot-seconds its
// jobs held alone (their sizes) over the slots × the span of the
// arrivals, n gaps for n jobs estimated as (last − first) × n / (n − 1).
// workload.load is over every slot, .map and .reduce over each kind's;
// with containers, whose map and reduce slots are the same containers
// (reduceSize > 0, the containers a reduce takes), workload.load is the
// containers the attempts take over the containers. It needs the jobs'
// sizes: runs with slowdowns only.
func summarizeLoad(s Summary, jobs []JobResult, slots [2]int, reduceSize int) {
	var held [2]float64
	first, last := time.Duration(math.MaxInt64), time.Duration(0)
	for _, j := range jobs {
		first, last = min(first, j.Submit), max(last, j.Submit)
		held[0] += j.Size[0]
		held[1] += j.Size[1]
	}
	n := float64(len(jobs))
	if n < 2 || last <= first || held[0]+held[1] <= 0 {
		return
	}
	span := (last - first).Seconds() * n / (n - 1)
	total, taken := slots[0]+slots[1], held[0]+held[1]
	if reduceSize > 0 {
		total, taken = slots[0], held[0]+float64(reduceSize)*held[1]
	}
	if total > 0 {
		s["workload.load"] = taken / (float64(total) * span)
	}
	for kind, name := range []string{"workload.load.map", "workload.load.reduce"} {
		if slots[kind] > 0 {
			s[name] = held[kind] / (float64(slots[kind]) * span)
		}
	}
}

// summarizeWorkload describes the sizes and reference runtimes of the
// jobs that have them, as Ghit & Epema describe their workload (§V-C):
// the mean size, the squared coefficient of variation (variance over the
// squared mean) of sizes and of reference runtimes, the share of all
// slot-seconds the largest 8% of jobs hold ("fewer than 8% of the jobs …
// responsible for almost half of the total load"), the sum of the
// reference runtimes in seconds, and the fraction of jobs below 10 s, the
// first edge of their size bins.
func summarizeWorkload(s Summary, jobs []JobResult) {
	var sizes, refs []float64
	for _, j := range jobs {
		if j.TotalSize() > 0 && j.Reference > 0 {
			sizes = append(sizes, j.TotalSize())
			refs = append(refs, j.Reference.Seconds())
		}
	}
	if len(sizes) == 0 {
		return
	}
	s["workload.size.mean"] = Mean(sizes)
	s["workload.size.scv"] = scv(sizes)
	s["workload.reference.scv"] = scv(refs)
	s["workload.reference.sum"] = Mean(refs) * float64(len(refs))
	slices.SortFunc(sizes, func(a, b float64) int { return cmp.Compare(b, a) })
	top := int(math.Round(0.08 * float64(len(sizes))))
	total, held, small := 0.0, 0.0, 0
	for i, x := range sizes {
		total += x
		if i < top {
			held += x
		}
		if x < SizeBinEdge(1) {
			small++
		}
	}
	s["workload.size.top_8pct"] = held / total
	s["workload.size.below_10s"] = float64(small) / float64(len(sizes))
}

// scv is the squared coefficient of variation of xs: the population
// variance over the squared mean.
func scv(xs []float64) float64 {
	m := Mean(xs)
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return v / float64(len(xs)) / (m * m)
}

// summarizePartitions sets each partition's utilisation by kind and its
// share of the slot-seconds held.
func summarizePartitions(s Summary, res *Records, end time.Duration) {
	busy := res.Tally.Partitions
	total := res.Tally.Busy[0] + res.Tally.Busy[1]
	for k, slots := range res.PartitionSlots {
		prefix := fmt.Sprintf("%s%d.", PartitionMetrics, k+1)
		var held [2]float64
		if k < len(busy) {
			held = busy[k]
		}
		for kind, name := range []string{"utilisation.map", "utilisation.reduce"} {
			if slots[kind] > 0 && end > 0 {
				s[prefix+name] = held[kind] / (float64(slots[kind]) * end.Seconds())
			}
		}
		if total > 0 {
			s[prefix+"work"] = (held[0] + held[1]) / total
		}
	}
}

func summarizeAttempts(s Summary, res *Records, slots [2]int, end time.Duration) {
	t := res.Tally
	if t.Attempts == 0 && len(res.Attempts) > 0 {
		for _, a := range res.Attempts { // records made by hand, not by a run
			t.add(a, nil)
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
	if maps := loc[sched.MemoryLocal] + loc[sched.NodeLocal] + loc[sched.RackLocal] + loc[sched.OffRack]; maps > 0 {
		s["tasks.locality.node"] = float64(loc[sched.NodeLocal]) / float64(maps)
		s["tasks.locality.rack"] = float64(loc[sched.RackLocal]) / float64(maps)
		s["tasks.locality.remote"] = float64(loc[sched.OffRack]) / float64(maps)
		// Memory-, node- or rack-local: the "rack locality" papers report.
		s["tasks.locality.within_rack"] = float64(loc[sched.MemoryLocal]+loc[sched.NodeLocal]+loc[sched.RackLocal]) / float64(maps)
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
	Outcomes [3]int                // by sched.Outcome
	Busy     [2]float64            // slot-seconds by sched.TaskKind
	Held     [3]float64            // slot-seconds by sched.Outcome
	Locality [sched.Localities]int // succeeded maps by sched.Locality
	Lost     int                   // attempts that ended lost with their node
	Evicted  int                   // attempts killed by an eviction for locality
	// Partitions are the slot-seconds held in each partition's slots by
	// sched.TaskKind, partition k at k − 1, when the policy partitions.
	Partitions [][2]float64
}

// add counts an attempt that ended; part, when not nil, is the partition
// of its slot.
func (t *AttemptTally) add(a actors.AttemptRecord, part func(actors.AttemptRecord) int) {
	t.Attempts++
	t.Outcomes[a.Outcome]++
	if a.Start >= 0 { // an attempt lost before it launched held no slot
		d := (a.End - a.Start).Seconds()
		t.Busy[a.Attempt.Kind] += d
		t.Held[a.Outcome] += d
		if part != nil {
			if k := part(a); k >= 1 && k <= len(t.Partitions) {
				t.Partitions[k-1][a.Attempt.Kind] += d
			}
		}
	}
	if a.Attempt.Kind == sched.Map && a.Outcome == sched.Succeeded {
		t.Locality[a.Locality]++
	}
	if a.Reason == actors.ReasonNodeLost {
		t.Lost++
	}
	if a.Outcome == sched.Killed && strings.HasPrefix(a.Reason, sched.EvictReason) {
		t.Evicted++
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
