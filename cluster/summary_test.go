package cluster

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

func TestSummaryCountsEachPoolApart(t *testing.T) {
	job := func(pool string, submit, finish time.Duration, status JobOutcome) JobResult {
		return JobResult{JobRecord: actors.JobRecord{Pool: pool, Submit: submit, Finish: finish, Maps: 16}, Outcome: status}
	}
	res := &Records{Jobs: []JobResult{
		job("scan", 0, 10*time.Second, JobSucceeded),
		job("scan", 0, 30*time.Second, JobSucceeded),
		job("compute", 5*time.Second, 65*time.Second, JobSucceeded),
		job("compute", 5*time.Second, 0, JobCutOff),
		job("", 0, 20*time.Second, JobSucceeded),
	}}
	s := Summarize(res, [2]int{4, 2}, time.Minute)

	assert.Equal(t, 4.0, s["jobs.succeeded"], "every job counts once overall")
	assert.Equal(t, 2.0, s["pools.scan.jobs.succeeded"])
	assert.Equal(t, 20.0, s["pools.scan.jobs.response_time.mean"])
	assert.Equal(t, 1.0, s["pools.compute.jobs.succeeded"])
	assert.Equal(t, 1.0, s["pools.compute.jobs.cut_off"])
	assert.Equal(t, 60.0, s["pools.compute.jobs.response_time.max"])
	assert.NotContains(t, s, "pools..jobs.succeeded", "jobs without a pool are counted only overall")
	assert.Equal(t, []string{"compute", "scan"}, s.Pools())
	for _, name := range s.Names() {
		assert.True(t, ValidMetric(name), "%s is a metric an expectation may name", name)
	}
}

func TestValidMetricNamesPoolsOnlyForJobMetrics(t *testing.T) {
	assert.True(t, ValidMetric("tasks.locality.node"))
	assert.True(t, ValidMetric("pools.scan.jobs.succeeded"))
	assert.True(t, ValidMetric("pools.a.b.jobs.slowdown.p95"), "a pool's name may hold dots")
	assert.False(t, ValidMetric("pools.scan.tasks.locality.node"), "locality is not kept per pool")
	assert.False(t, ValidMetric("pools..jobs.succeeded"))
	assert.False(t, ValidMetric("pools.scan.jobs.speed"))
	assert.False(t, ValidMetric("scan.jobs.succeeded"))
}

// A kind of node's metrics are valid under any class name, as a pool's,
// and only those a kind of node has; their units are fractions but for
// the maps' mean time.
func TestValidMetricNamesHardware(t *testing.T) {
	assert.True(t, ValidMetric("hardware.old.utilisation.map"))
	assert.True(t, ValidMetric("hardware.cluster.work"))
	assert.True(t, ValidMetric("hardware.gen.2.maps.seconds.mean"), "a class's name may hold dots")
	assert.False(t, ValidMetric("hardware.old.jobs.succeeded"))
	assert.False(t, ValidMetric("hardware..work"))
	assert.ErrorContains(t, MetricError("hardware.old.speed"), "a kind of node has utilisation.map, utilisation.reduce, work, maps.seconds.mean")
	assert.Equal(t, UnitFraction, MetricUnit("hardware.old.work"))
	assert.Equal(t, UnitSeconds, MetricUnit("hardware.old.maps.seconds.mean"))
}

// The coordinator's busy share is a fraction and its mean wait a time, as
// are the jobs' waits for admission, and Scarlett's copies are bytes, so
// an [[expect]] may hold them to 0.999, "5s" or 1.5e9.
func TestMetricUnitsOfShareWaitAndCopy(t *testing.T) {
	assert.Equal(t, UnitFraction, MetricUnit("coordinator.busy"))
	assert.Equal(t, UnitSeconds, MetricUnit("coordinator.wait.mean"))
	assert.Equal(t, UnitCount, MetricUnit("coordinator.skipped"))
	assert.Equal(t, UnitSeconds, MetricUnit("jobs.admission_wait.p95"))
	assert.Equal(t, UnitBytes, MetricUnit("replication.bytes_raw"))
	assert.Equal(t, UnitBytes, MetricUnit("replication.bytes"))
}

func TestSummaryCountsTheSlotTimeLostAttemptsHeld(t *testing.T) {
	attempt := func(task int32, start, end time.Duration, outcome sched.Outcome) actors.AttemptRecord {
		return actors.AttemptRecord{Attempt: sched.Attempt{Task: task}, Start: start, End: end, Outcome: outcome}
	}
	res := &Records{Attempts: []actors.AttemptRecord{
		attempt(0, 0, 10*time.Second, sched.Killed),
		attempt(1, 5*time.Second, 8*time.Second, sched.Failed),
		attempt(2, -1, 9*time.Second, sched.Killed), // lost before it launched: held no slot
		attempt(3, 0, 20*time.Second, sched.Succeeded),
	}}
	s := Summarize(res, [2]int{4, 2}, time.Minute)
	assert.Equal(t, 2.0, s["tasks.killed"])
	assert.Equal(t, 10.0, s["tasks.killed.slot_seconds"])
	assert.Equal(t, 1.0, s["tasks.failed"])
	assert.Equal(t, 3.0, s["tasks.failed.slot_seconds"])
	assert.InDelta(t, 33.0/(4*60), s["slots.utilisation.map"], 1e-12, "lost attempts kept their slots busy too")
}

func TestSummaryBinsJobsBySize(t *testing.T) {
	// Sizes on the √10 ladder from 10 s: 5 s is bin 0, 10 s the bin of
	// 10, 31.6 s of 32 (its lower edge is 10√10), 999 s of 316. Each job's
	// slowdown is its response over its reference: bins 10 and 32 hold
	// ten jobs each (slowdowns 2 and 6: spread 3), bin 316 one job of
	// slowdown 40, too few to count in the spread.
	job := func(size float64, slowdown float64) JobResult {
		return JobResult{
			JobRecord: actors.JobRecord{Finish: time.Duration(slowdown * float64(10*time.Second))},
			Outcome:   JobSucceeded, Reference: 10 * time.Second, Size: [2]float64{size * 0.75, size * 0.25},
		}
	}
	var jobs []JobResult
	for range 10 {
		jobs = append(jobs, job(10, 2), job(10*math.Sqrt(10), 6))
	}
	jobs = append(jobs, job(5, 1), job(999, 40))
	s := Summarize(&Records{Jobs: jobs}, [2]int{4, 2}, time.Minute)
	assert.Equal(t, 1.0, s["sizes.0.jobs.succeeded"])
	assert.Equal(t, 10.0, s["sizes.10.jobs.succeeded"])
	assert.Equal(t, 10.0, s["sizes.32.jobs.succeeded"])
	assert.Equal(t, 1.0, s["sizes.316.jobs.succeeded"])
	assert.InDelta(t, 6.0, s["sizes.32.jobs.slowdown.mean"], 1e-9)
	assert.InDelta(t, 3.0, s["jobs.slowdown.bin_spread"], 1e-9)
	assert.NotContains(t, s, "sizes.100.jobs.succeeded", "an empty bin has no metrics")
	for _, name := range s.Names() {
		assert.True(t, ValidMetric(name), "%s is a metric an expectation may name", name)
	}
	assert.Equal(t, []string{"0", "10", "32", "100", "316", "1000", "3162", "10000"}, ladder(8))
	assert.Equal(t, 0, SizeBin(9.99))
	assert.Equal(t, 1, SizeBin(10))
	assert.Equal(t, 2, SizeBin(31.7))
	assert.Equal(t, 3, SizeBin(100))
}

func TestSummaryVariabilityAtEveryPercentile(t *testing.T) {
	// Slowdowns 1 … 100: nearest-rank p50 = 50, p75 = 75, p90 = 90, p95 =
	// 95, p99 = 99; V(q) = p(q) / p50.
	var jobs []JobResult
	for i := 1; i <= 100; i++ {
		jobs = append(jobs, JobResult{JobRecord: actors.JobRecord{Finish: time.Duration(i) * time.Second},
			Outcome: JobSucceeded, Reference: time.Second})
	}
	s := Summarize(&Records{Jobs: jobs}, [2]int{4, 2}, time.Minute)
	for q, want := range map[string]float64{"75": 1.5, "90": 1.8, "95": 1.9, "99": 1.98} {
		assert.InDelta(t, want, s["jobs.slowdown.v"+q], 1e-12, "V(%s)", q)
	}
	assert.Equal(t, 75.0, s["jobs.slowdown.p75"])
	assert.Equal(t, 90.0, s["jobs.slowdown.p90"])
}

func TestSummaryOfPartitionsAndLoad(t *testing.T) {
	// Two partitions of 3 + 1 and 1 + 1 slots; over a 100 s run partition
	// 1's map slots held 150 slot-seconds (50%), partition 2's 60 map and
	// 40 reduce: partition 1 did 150 of the 250 slot-seconds. Jobs of 30
	// and 10 map slot-seconds and 20 reduce arriving at 0, 10 and 20 s
	// offer (60 + 20) / (6 slots × 30 s) over every slot.
	res := &Records{
		PartitionSlots: [][2]int{{3, 1}, {1, 1}},
		Tally:          AttemptTally{Busy: [2]float64{210, 40}, Partitions: [][2]float64{{150, 0}, {60, 40}}},
		Jobs: []JobResult{
			{JobRecord: actors.JobRecord{Submit: 0}, Size: [2]float64{30, 0}},
			{JobRecord: actors.JobRecord{Submit: 10 * time.Second}, Size: [2]float64{10, 20}},
			{JobRecord: actors.JobRecord{Submit: 20 * time.Second}, Size: [2]float64{20, 0}},
		},
	}
	s := Summarize(res, [2]int{4, 2}, 100*time.Second)
	assert.InDelta(t, 0.5, s["partitions.1.utilisation.map"], 1e-12)
	assert.Zero(t, s["partitions.1.utilisation.reduce"])
	assert.InDelta(t, 0.6, s["partitions.2.utilisation.map"], 1e-12)
	assert.InDelta(t, 0.4, s["partitions.2.utilisation.reduce"], 1e-12)
	assert.InDelta(t, 0.6, s["partitions.1.work"], 1e-12)
	assert.InDelta(t, 0.4, s["partitions.2.work"], 1e-12)
	assert.InDelta(t, 80.0/(6*30), s["workload.load"], 1e-12)
	assert.InDelta(t, 60.0/(4*30), s["workload.load.map"], 1e-12)
	assert.InDelta(t, 20.0/(2*30), s["workload.load.reduce"], 1e-12)
	// On 4 containers, of which a reduce takes 2 (2 reduce slots), the
	// reduces' 20 slot-seconds take 40 container-seconds: (60 + 40) /
	// (4 × 30); no reduce was preempted.
	pooled := *res
	pooled.ReduceContainers = 2
	p := Summarize(&pooled, [2]int{4, 2}, 100*time.Second)
	assert.InDelta(t, 100.0/(4*30), p["workload.load"], 1e-12)
	assert.InDelta(t, 20.0/(2*30), p["workload.load.reduce"], 1e-12)
	assert.Equal(t, 0.0, p[actors.MetricReducesPreempted])
	assert.NotContains(t, s, actors.MetricReducesPreempted, "slots preempt no reduce for maps")
	for _, name := range s.Names() {
		assert.True(t, ValidMetric(name), "%s is a metric an expectation may name", name)
	}
	assert.False(t, ValidMetric("partitions.1.utilisation"))
	assert.False(t, ValidMetric("partitions.01.work"))
	assert.False(t, ValidMetric("sizes.33.jobs.succeeded"))
	assert.Equal(t, UnitFraction, MetricUnit("partitions.2.work"))
	assert.Equal(t, UnitRatio, MetricUnit("sizes.32.jobs.slowdown.mean"))
	assert.Equal(t, UnitCount, MetricUnit("sizes.32.jobs.succeeded"))
	assert.Equal(t, UnitRatio, MetricUnit("replication.overhead"), "copies' bytes over tasks': above 1 at times")
}

func TestSummaryDescribesTheWorkload(t *testing.T) {
	// 25 jobs: 23 of 1 slot-second (1 s alone), one of 3 and one of 100
	// (100 s alone). The largest 8% are the 2 largest: 103 of 126
	// slot-seconds. Sizes: mean 5.04, variance 375.8784 (SCV 14.80);
	// 24 of the 25 below 10 s; reference runtimes sum to 126 s.
	var jobs []JobResult
	add := func(size float64, ref time.Duration) {
		jobs = append(jobs, JobResult{JobRecord: actors.JobRecord{Finish: 2 * ref}, Outcome: JobSucceeded,
			Reference: ref, Size: [2]float64{size}})
	}
	for range 23 {
		add(1, time.Second)
	}
	add(3, 3*time.Second)
	add(100, 100*time.Second)
	s := Summarize(&Records{Jobs: jobs}, [2]int{4, 2}, time.Minute)
	assert.InDelta(t, 5.04, s["workload.size.mean"], 1e-12)
	assert.InDelta(t, 375.8784/(5.04*5.04), s["workload.size.scv"], 1e-9)
	assert.InDelta(t, s["workload.size.scv"], s["workload.reference.scv"], 1e-9)
	assert.InDelta(t, 103.0/126, s["workload.size.top_8pct"], 1e-12)
	assert.InDelta(t, 0.96, s["workload.size.below_10s"], 1e-12)
	assert.InDelta(t, 126.0, s["workload.reference.sum"], 1e-9)
	for _, name := range s.Names() {
		assert.True(t, ValidMetric(name), "%s is a metric an expectation may name", name)
	}
}

func TestSummaryOfCloningMeasuresP(t *testing.T) {
	// Of 40 attempts measured, 3 straggled: p = 3/40, as a p_period as
	// long as the run would have measured it.
	res := &Records{Phases: []PhaseResult{}, Cloning: true, Counters: map[string]int64{
		actors.MetricAttemptsMeasured: 40, actors.MetricAttemptsStraggled: 3,
	}}
	s := Summarize(res, [2]int{4, 2}, time.Minute)
	assert.InDelta(t, 0.075, s["clones.p"], 1e-12)
	assert.True(t, ValidMetric("clones.p"))
	assert.Equal(t, UnitFraction, MetricUnit("clones.p"))
	none := Summarize(&Records{Phases: []PhaseResult{}, Cloning: true}, [2]int{4, 2}, time.Minute)
	assert.Equal(t, 0.0, none["clones.p"], "none measured")
}

func TestWarmupLeavesOutItsJobsPhasesAndCloneCounts(t *testing.T) {
	// Job 1 comes in the 1-minute warm-up, job 2 after it: only job 2's
	// phases and per-job counts are measured; run counters stay whole.
	r := newRecorder()
	r.configure(&RunOptions{Warmup: units.Duration(time.Minute)})
	r.JobSubmitted(actors.JobRecord{ID: 1, Submit: 30 * time.Second, Maps: 1})
	r.JobSubmitted(actors.JobRecord{ID: 2, Submit: 90 * time.Second, Maps: 20})
	for _, c := range []struct {
		job            sched.JobID
		bin            int
		straggled, per int64
	}{{1, 1, 3, 4}, {2, 2, 2, 6}} {
		r.CountJob(c.job, actors.MetricClonedPhases, 1)
		r.CountJob(c.job, actors.MetricAttemptsMeasured, 10)
		r.CountJob(c.job, actors.MetricAttemptsStraggled, c.straggled)
		r.CountJob(c.job, fmt.Sprintf("%s%d", actors.MetricClonesChargedBin, c.bin), c.per)
	}
	r.Count(actors.MetricCloneBudgetPeak, 500_000)
	res, err := r.results(3 * time.Minute)
	assert.NoError(t, err)
	res.Cloning = true
	res.Phases = []PhaseResult{
		{Job: 1, Tasks: 1, Duration: time.Second, SlowestOverMedian: 1, MedianOverMinRate: 1},
		{Job: 2, Tasks: 20, Duration: time.Minute, SlowestOverMedian: 4, MedianOverMinRate: 5},
	}
	s := Summarize(res, [2]int{4, 2}, 3*time.Minute)
	assert.Equal(t, 1.0, s[actors.MetricClonedPhases], "job 2's phase alone")
	assert.InDelta(t, 0.2, s["clones.p"], 1e-12, "job 2's 2 of 10")
	assert.Equal(t, 1.0, s["bins.2.clones.share"], "job 2's bin holds all the measured budget")
	assert.Equal(t, 0.0, s["bins.1.clones.share"], "job 1's bin, warm-up only")
	assert.NotContains(t, s, "bins.1.jobs.submitted", "job 1's bin, warm-up only")
	assert.Equal(t, 5.0, s["phases.median_over_min_rate.p50"], "job 2's phase alone")
	assert.InDelta(t, 0.5, s["clones.budget.peak"], 1e-12, "the budget's peak counts the whole run")
}

func TestFromReferencesNamesTheMetricsReferenceRunsMeasure(t *testing.T) {
	for _, m := range []string{"jobs.slowdown.mean", "jobs.slowdown.bin_spread", "pools.scan.jobs.slowdown.p95",
		"sizes.316.jobs.response_time.mean", "workload.load.map", "workload.size.scv", "workload.reference.sum"} {
		assert.True(t, FromReferences(m), m)
	}
	for _, m := range []string{"jobs.response_time.mean", "jobs.succeeded", "pools.scan.jobs.response_time.mean",
		"slots.utilisation.map", "tasks.locality.node", "phases.duration.p50"} {
		assert.False(t, FromReferences(m), m)
	}
}
