package cluster

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// A hand-made map phase of five tasks, each 100 bytes: durations 10, 10,
// 12, 16 and 40 s (task 4's first attempt ran 0–20 s and was killed, a
// copy finished it at 40 s; task 3 has an empty input). The median is
// 12 s: the slowest over it is 40/12; only 40 s is over 1.5 × 12 = 18 s,
// one outlier in five, 20%, which makes the phase outlier-heavy. Rates are 10, 10, 8.33 and 2.5 bytes/s (task 3 has
// none): median 9.17 over the minimum 2.5. The phase ran 0–40 s.
func TestAPhaseIsMeasuredFromItsTasks(t *testing.T) {
	p := newPhaseTally()
	end := func(task, n int32, start, end time.Duration, bytes int64, o sched.Outcome) {
		p.ended(actors.AttemptRecord{Attempt: sched.Attempt{Job: 1, Task: task, Attempt: n}, Start: start, End: end,
			LocalBytes: bytes / 2, RemoteBytes: bytes - bytes/2, Outcome: o})
	}
	s := time.Second
	end(0, 0, 0, 10*s, 100, sched.Succeeded)
	end(1, 0, 0, 10*s, 100, sched.Succeeded)
	end(2, 0, 0, 12*s, 100, sched.Succeeded)
	end(3, 0, 0, 16*s, 0, sched.Succeeded)
	end(4, 0, 0, 20*s, 50, sched.Killed)
	end(4, 1, 15*s, 40*s, 100, sched.Succeeded)
	end(4, 2, 30*s, 41*s, 80, sched.Killed) // a copy that lost: it moves nothing
	p.ended(actors.AttemptRecord{Attempt: sched.Attempt{Job: 2}, Start: -1, End: s, Outcome: sched.Killed})
	p.jobEnded(2, true) // nothing of job 2 ever launched
	p.jobEnded(1, true)
	require.Len(t, p.results, 1)
	r := p.results[0]
	assert.Equal(t, 5, r.Tasks)
	assert.Equal(t, 40*s, r.Duration)
	assert.InDelta(t, 40.0/12, r.SlowestOverMedian, 1e-12)
	assert.InDelta(t, 0.2, r.Outliers, 1e-12)
	assert.InDelta(t, (10+100.0/12)/2/2.5, r.MedianOverMinRate, 1e-12)
	assert.Empty(t, p.jobs, "an ended job is forgotten")

	sum := Summary{}
	summarizePhases(sum, append(p.results, PhaseResult{Duration: 10 * s, SlowestOverMedian: 1, MedianOverMinRate: math.NaN()}))
	assert.Equal(t, 0.5, sum["phases.outlier_heavy"])
	assert.Equal(t, 40.0, sum["phases.duration.p50"], "weighted by lifetime: 40 of the 50 phase-seconds are the 40 s phase's")
	assert.Equal(t, 40.0, sum["phases.duration.p95"])
	assert.InDelta(t, (10+100.0/12)/2/2.5, sum["phases.median_over_min_rate.p50"], 1e-12, "a phase that read nothing has no rate")

	// Four phases of 10, 10, 10 and 70 s: the median phase is 10 s, but
	// half the phase time is spent in the 70 s one.
	sum = Summary{}
	summarizePhases(sum, []PhaseResult{{Duration: 10 * s}, {Duration: 70 * s}, {Duration: 10 * s}, {Duration: 10 * s}})
	assert.Equal(t, 70.0, sum["phases.duration.p50"])
	assert.Equal(t, 0.0, sum["phases.outlier_heavy"])
}

// A failed job's phases are not measured; a run without stragglers,
// skew or speculation has no phase metric at all.
func TestPhasesOnlyOfJobsThatSucceededAndRunsThatMeasureThem(t *testing.T) {
	p := newPhaseTally()
	p.ended(actors.AttemptRecord{Attempt: sched.Attempt{Job: 1}, Start: 0, End: time.Second, Outcome: sched.Succeeded})
	p.jobEnded(1, false)
	assert.Empty(t, p.results)

	plain := run(t, cpuCluster(2, 2, 2))
	assert.Nil(t, plain.Records.Phases)
	assert.NotContains(t, plain.Summary, "phases.duration.p50")
	assert.NotContains(t, plain.Summary, "tasks.slot_seconds")
	cfg := cpuCluster(2, 2, 2)
	cfg.Tasks.LargestFirst = true
	measured := run(t, cfg)
	require.Len(t, measured.Records.Phases, 1)
	assert.Equal(t, 10.0, measured.Summary["phases.duration.p50"], "two 10 s maps side by side")
	assert.Equal(t, 20.0, measured.Summary["tasks.slot_seconds"])
	for _, name := range measured.Summary.Names() {
		assert.True(t, ValidMetric(name), name)
	}
}

// A map phase of four tasks, each computing 10 s for its bytes at full
// speed (MapCPU): durations 12, 14, 13 and 25 s. The least other time is
// 12 − 10 = 2 s, so the data explains 12 s of each and improvable is over
// 1.2 × 12 = 14.4 s; the median is 13.5 s, so at most 1.5 × 13.5 = 20.25
// s. Only... none of 12, 14, 13 passes 14.4, 25 is an outlier: 0. With a
// fifth task of 16 s (median 14 s, ceiling 21 s): one in five. A phase of
// 17, 17, 18 s and a lone 12 s task has three in four: improvable-heavy.
// A phase of one task, and reduces, are not measured.
func TestImprovableTasksAreSlowerThanTheirData(t *testing.T) {
	jobs := []workload.JobSpec{{MapCPU: workload.CPUCost(1e-7)}, {MapCPU: workload.CPUCost(1e-7)}, {MapTime: 10 * time.Second}}
	p := newPhaseTally()
	p.mapCompute = mapComputes(jobs)
	s := time.Second
	end := func(job sched.JobID, kind sched.TaskKind, task int32, d time.Duration) {
		p.ended(actors.AttemptRecord{Attempt: sched.Attempt{Job: job, Kind: kind, Task: task}, Start: 0, End: d,
			LocalBytes: 100_000_000, Outcome: sched.Succeeded}) // 10 s at 1e-7 s a byte
	}
	for i, d := range []time.Duration{12, 14, 13, 25} {
		end(1, sched.Map, int32(i), d*s)
		end(1, sched.Reduce, int32(i), d*s)
	}
	for i, d := range []time.Duration{17, 17, 18, 12} {
		end(2, sched.Map, int32(i), d*s)
	}
	end(3, sched.Map, 0, 30*s)
	p.jobEnded(1, true)
	p.jobEnded(2, true)
	p.jobEnded(3, true)
	require.Len(t, p.results, 4)
	assert.Equal(t, 0.0, p.results[0].Improvable)
	assert.True(t, math.IsNaN(p.results[1].Improvable), "reduces are not measured")
	assert.Equal(t, 0.75, p.results[2].Improvable)
	assert.True(t, math.IsNaN(p.results[3].Improvable), "a phase of one task is not measured")
	sum := Summary{}
	summarizePhases(sum, p.results)
	assert.Equal(t, 0.5, sum["phases.improvable_heavy"], "one of the two measured phases")

	p = newPhaseTally()
	p.mapCompute = mapComputes(jobs)
	for i, d := range []time.Duration{12, 14, 13, 25, 16} {
		end(1, sched.Map, int32(i), d*s)
	}
	p.jobEnded(1, true)
	assert.Equal(t, 0.2, p.results[0].Improvable)

	p = newPhaseTally() // without mild slowdowns: not measured
	end(1, sched.Map, 0, 12*s)
	end(1, sched.Map, 1, 17*s)
	p.jobEnded(1, true)
	sum = Summary{}
	summarizePhases(sum, p.results)
	assert.NotContains(t, sum, "phases.improvable_heavy")
}
