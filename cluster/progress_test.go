package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// reportsByAttempt groups a run's progress reports by attempt, in the
// order they arrived.
func reportsByAttempt(rep *Report) map[sched.Attempt][]actors.AttemptProgress {
	out := map[sched.Attempt][]actors.AttemptProgress{}
	for _, p := range rep.Records.Progress {
		out[p.Attempt] = append(out[p.Attempt], p)
	}
	return out
}

// A CPU-bound map streams 1 MiB through 10 s of compute on its own core,
// at 1 MiB / 10 s. With 10 s reports, Δ = min(10 s, a phase so far / 8)
// but at least 1 s: the node reports at 1, 2, …, 9 s after the launch (an
// eighth of 9 s is 1.125 s, past the map's end), each score the input
// read so far, k/10 to within a byte, and the job manager records 1 at
// the end, 10 s in. Reports cross the rack switch, here with no latency.
func TestAMapReportsItsInputReadEverySecond(t *testing.T) {
	cfg := cpuCluster(1, 1, 1)
	cfg.Tasks.ProgressInterval = units.Duration(10 * time.Second)
	rep := run(t, cfg)
	reports := reportsByAttempt(rep)
	require.Len(t, reports, 1)
	a := sched.Attempt{Job: 1, Kind: sched.Map}
	got := reports[a]
	require.Len(t, got, 10)
	start := got[0].Start
	for k, p := range got {
		at := time.Duration(k+1) * time.Second
		assert.Equal(t, start+at, p.At, "report %d", k)
		assert.InDelta(t, float64(k+1)/10, p.Score, 1.0/mib, "report %d", k)
		assert.InDelta(t, p.Score/at.Seconds(), p.Rate, 1e-12, "report %d", k)
	}
	assert.Equal(t, 1.0, got[9].Score)
	assert.Equal(t, rep.Records.Attempts[0].End, got[9].At, "the last is the attempt's end")
}

// A job of maps and a reduce with copy-compute splitting: every attempt's
// reports rise (phases in order, scores never falling) and end at 1, and
// no two come closer than a tenth of the interval or further apart than
// the interval.
func TestProgressReportsRiseAndEndAtOne(t *testing.T) {
	cfg := cpuCluster(2, 0, 4)
	cfg.Cluster.NodesPerRack = 2
	cfg.Tasks.CopyCompute = true
	cfg.Tasks.ProgressInterval = units.Duration(5 * time.Second)
	cfg.Cluster.DiskRead = units.Rate(mib) // slow enough for the reads to report
	cfg.Workload = [][]workload.JobSpec{{{
		Name: "mr", InputBytes: 4 * mib, MapCPU: workload.PerMiB(3 * time.Second), Model: workload.Sequential,
		Reduces: 2, ShuffleBytes: 4 * mib, ReduceCPU: workload.PerMiB(time.Second), OutputBytes: 8 * mib,
	}}}
	rep := run(t, cfg)
	reports := reportsByAttempt(rep)
	require.Len(t, reports, 6, "4 maps and 2 reduces")
	kinds := map[sched.TaskKind]int{}
	phases := map[actors.ProgressPhase]bool{}
	for a, ps := range reports {
		kinds[a.Kind]++
		for _, p := range ps {
			phases[p.Phase] = true
		}
		require.Equal(t, 1.0, ps[len(ps)-1].Score, "%v ends at 1", a)
		for i := 1; i < len(ps); i++ {
			assert.GreaterOrEqual(t, ps[i].Score, ps[i-1].Score, "%v report %d", a, i)
			assert.GreaterOrEqual(t, ps[i].Phase, ps[i-1].Phase, "%v report %d", a, i)
			gap := ps[i].At - ps[i-1].At
			assert.LessOrEqual(t, gap, 5*time.Second, "%v report %d", a, i)
			if i < len(ps)-1 { // the last is the job manager's at the end
				assert.GreaterOrEqual(t, gap, 500*time.Millisecond, "%v report %d", a, i)
			}
		}
		if a.Kind == sched.Reduce {
			assert.Equal(t, actors.PhaseReduce, ps[len(ps)-2].Phase, "%v ends reducing", a)
		}
	}
	assert.Equal(t, map[sched.TaskKind]int{sched.Map: 4, sched.Reduce: 2}, kinds)
	for _, ph := range []actors.ProgressPhase{actors.PhaseRead, actors.PhaseCompute, actors.PhaseCopy, actors.PhaseReduce} {
		assert.True(t, phases[ph], "some attempt reported from its %v phase", ph)
	}
}

// Without tasks.progress_interval no attempt reports.
func TestNoReportsByDefault(t *testing.T) {
	assert.Empty(t, run(t, cpuCluster(1, 1, 1)).Records.Progress)
}

// Sampling links adds no message and changes no record; the windows
// follow each other, each at least the sampling period long but the last,
// which ends with the run, and each link's utilisation in each is within
// its capacity.
func TestLinkSamplesChangeNothing(t *testing.T) {
	cfg := fourRacks()
	cfg.Run.Slowdown = false
	plain := run(t, cfg)
	cfg.Run.LinkSamples = 10 * time.Second
	sampled := run(t, cfg)
	assert.Equal(t, plain.Records.Attempts, sampled.Records.Attempts)
	assert.Equal(t, plain.Records.Jobs, sampled.Records.Jobs)
	assert.Equal(t, plain.End.Steps, sampled.End.Steps, "the same messages")
	assert.Empty(t, plain.Records.Links.Samples)

	links := sampled.Records.Links
	require.NotEmpty(t, links.Samples)
	require.Len(t, links.Names, len(links.Samples[0].Carried))
	busy := 0.0
	for i, s := range links.Samples {
		if i < len(links.Samples)-1 { // the last ends with the run
			assert.GreaterOrEqual(t, s.To-s.From, 10*time.Second, "window %d", i)
		}
		if i > 0 {
			assert.Equal(t, links.Samples[i-1].To, s.From, "windows follow each other")
		}
		for l := range s.Carried {
			u := links.Utilisation(i, l)
			assert.LessOrEqual(t, u, 1+1e-6, "%s in window %d", links.Names[l], i)
			busy = max(busy, u)
		}
	}
	assert.Greater(t, busy, 0.5, "some link was busy")
	assert.Contains(t, links.Names, "rack 0 uplink")
}
