package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

func TestAJobAloneHasSlowdownOne(t *testing.T) {
	// The reference run of a job that was alone anyway is the same run:
	// same submission offset, same heartbeat phases, same block placement.
	cfg := smallCluster()
	cfg.Run.Slowdown = true
	cfg.Workload = [][]workload.JobSpec{{{
		Name: "alone", Submit: 7 * time.Second, InputBytes: 8 * mib, Reduces: 1, ShuffleBytes: mib,
		MapCPU: workload.PerMiB(10 * time.Second), ReduceCPU: workload.PerMiB(5 * time.Second),
	}}}
	rep := run(t, cfg)
	job := rep.Records.Jobs[0]
	assert.Equal(t, job.Finish-job.Submit, job.Reference)
	assert.InDelta(t, 1.0, job.Slowdown(), 1e-12)
	assert.InDelta(t, 1.0, rep.Summary["jobs.slowdown.p50"], 1e-12)
	assert.InDelta(t, 1.0, rep.Summary["jobs.slowdown.v95"], 1e-12)
}

func TestContendingJobsSlowEachOtherDown(t *testing.T) {
	// Two equal jobs of 8 maps × 60 s submitted together on 4 map slots:
	// alone, one takes two waves (≈ 120 s); together, FIFO runs the first
	// as alone and the second after it, so the second's slowdown is ≈ 2.
	// Both read one file, so they share one reference run.
	cfg := smallCluster()
	cfg.Run.Slowdown = true
	job := workload.JobSpec{InputFile: "logs", InputBytes: 8 * mib, MapCPU: workload.PerMiB(60 * time.Second)}
	first, second := job, job
	first.Name, second.Name = "first", "second"
	cfg.Workload = [][]workload.JobSpec{{first, second}}
	rep := run(t, cfg)
	jobs := rep.Records.Jobs
	require.Len(t, jobs, 2)
	assert.Equal(t, jobs[0].Reference, jobs[1].Reference)
	assert.GreaterOrEqual(t, jobs[0].Reference, 120*time.Second)
	assert.InDelta(t, 1.0, jobs[0].Slowdown(), 0.05)
	assert.InDelta(t, 2.0, jobs[1].Slowdown(), 0.1)
	assert.InDelta(t, jobs[1].Slowdown()/jobs[0].Slowdown(), rep.Summary["jobs.slowdown.v95"], 1e-12)
	assert.Equal(t, jobs[1].Slowdown(), rep.Summary["jobs.slowdown.max"])
	assert.Equal(t, (jobs[1].Finish - jobs[1].Submit).Seconds(), rep.Summary["jobs.response_time.max"])
}

func TestReferenceRunsKeepTheHeartbeatOffset(t *testing.T) {
	// A job submitted n heartbeats later meets the same heartbeat phases,
	// so its reference is the same as the job's submitted within the
	// first interval.
	cfg := smallCluster()
	job := workload.JobSpec{InputFile: "logs", InputBytes: 4 * mib, MapCPU: workload.PerMiB(20 * time.Second)}
	early, late := job, job
	early.Submit = 1500 * time.Millisecond
	late.Submit = early.Submit + 100*cfg.Heartbeat.Interval.Std()
	cfg.Workload = [][]workload.JobSpec{{early}, {late}}
	refs, err := ReferenceRuntimes(cfg, 2)
	require.NoError(t, err)
	require.Len(t, refs, 2)
	assert.Positive(t, refs[0])
	assert.Equal(t, refs[0], refs[1])
}

func TestWithoutSlowdownNoReferenceRuns(t *testing.T) {
	cfg := smallCluster()
	cfg.Workload = [][]workload.JobSpec{{{Name: "j", InputBytes: mib, MapCPU: workload.PerMiB(time.Second)}}}
	rep := run(t, cfg)
	assert.Zero(t, rep.Records.Jobs[0].Reference)
	assert.Zero(t, rep.ReferenceWall)
	assert.NotContains(t, rep.Summary, "jobs.slowdown.p50")
}

func TestReferenceRunsUnderDefaultParamsAreOneRun(t *testing.T) {
	// A reference_scheduler drops the run's parameters (nil: the
	// policy's defaults), so a variant running that policy at its
	// defaults asks for the same runs, and makes none again; other
	// parameters are other runs.
	defer func(m *soloMemo) { soloCache = m }(soloCache)
	soloCache = &soloMemo{runs: map[[32]byte]*soloEntry{}}
	cfg := smallCluster()
	cfg.Run.ReferenceScheduler = "fifo"
	cfg.Workload = [][]workload.JobSpec{{{Name: "j", Submit: time.Second, InputBytes: 4 * mib, MapCPU: workload.PerMiB(time.Second)}}}
	subs := []soloJob{{index: 0, at: time.Second}}
	refs := map[string][]Solo{}
	for _, name := range []string{"fbq", "fifo", "fifo with delay"} {
		variant := cfg
		variant.Scheduler.Name = name
		if name != "fbq" {
			variant.Scheduler.Name = "fifo"
			params := sched.DefaultFIFOParams()
			params.Delay = name != "fifo"
			variant.Scheduler.Params = params
		}
		got, err := referenceRuns(variant, subs, 1)
		require.NoError(t, err)
		refs[name] = got
	}
	assert.Len(t, soloCache.runs, 2, "fbq's references (fifo's defaults) and fifo's at its defaults are one run; with delay another")
	assert.Equal(t, refs["fbq"], refs["fifo"])
	assert.Positive(t, refs["fifo"][0].Runtime)
}
