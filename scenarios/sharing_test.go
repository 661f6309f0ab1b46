package scenarios

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
)

// The sharing validation's jobs, replayed through ideal queues on the
// run's own arrivals and work (each job's attempts' slot-seconds over the
// node's slots), set apart what the emulator adds from the closed forms'
// sampling error. Fair sharing is compared with egalitarian processor
// sharing, FIFO with one FCFS server of the node's rate. The emulator
// gives whole slots as maps end, so a job arriving at a full node waits
// for one, holds a whole slot or none, and its last wave leaves slots idle
// when no other job is there to take them; each run's mean response is
// within a few percent of the ideal queue's (`go test -run
// TestSharingAgainstIdealQueues -v ./scenarios` prints them): over seeds
// 1-6 of 300 jobs, fair sharing adds 1.2-3.4% to PS's mean (lognormal
// sizes) and 1.4-3.3% (Pareto), FIFO 0.4-0.6% and 0.6-1.1% to FCFS's.
// The 900 jobs' 400,000 maps take a minute under the race detector, so
// make test runs this without it, as it does the reproductions.
func TestSharingAgainstIdealQueues(t *testing.T) {
	if raceEnabled {
		t.Skip("400,000 maps: make test runs this without the race detector")
	}
	for _, tc := range []struct {
		name  string
		set   []string
		ideal func(arrive, work []float64) []float64
		bound float64 // on the mean response over the ideal's, less 1
		// above: the emulator's mean cannot beat the ideal's (FCFS at
		// the node's full rate finishes every job as early as can be)
		above bool
	}{
		{"fair against PS, lognormal", nil, idealPS, 0.08, false},
		{"fair against PS, Pareto", []string{"workload.synthetic[0].sizes=pareto"}, idealPS, 0.08, false},
		{"FIFO against FCFS, Pareto", []string{"scheduler.name=fifo", "workload.synthetic[0].sizes=pareto"}, idealFCFS, 0.02, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, rec := runValidation(t, "validation/sharing.toml", 1, append(tc.set, "workload.synthetic[0].jobs=300")...)
			arrive, work, resp := sharingJobs(t, rec, sc.Config.Cluster.MapSlots)
			ideal := tc.ideal(arrive, work)
			var emu, want float64
			for i := range resp {
				emu += resp[i]
				want += ideal[i]
			}
			emu, want = emu/float64(len(resp)), want/float64(len(resp))
			t.Logf("mean response %.3f s, the ideal queue's %.3f s: %.4f of it added", emu, want, emu/want-1)
			require.Less(t, math.Abs(emu/want-1), tc.bound)
			if tc.above {
				require.GreaterOrEqual(t, emu, want)
			}
		})
	}
}

// runValidation runs a validation file with the overrides, at the seed
// unless 0 (the file's), and returns the scenario run and its records.
func runValidation(t *testing.T, file string, seed uint64, set ...string) (*Scenario, *cluster.Records) {
	t.Helper()
	sc, err := LoadFile(file)
	require.NoError(t, err)
	if seed != 0 {
		sc, err = sc.WithSeed(seed)
		require.NoError(t, err)
	}
	sc, err = sc.WithSet(set...)
	require.NoError(t, err)
	return sc, runScenario(t, sc).Records
}

// runScenario builds the scenario's cluster and runs it.
func runScenario(t *testing.T, sc *Scenario) *cluster.Report {
	t.Helper()
	c, err := cluster.Build(sc.Config)
	require.NoError(t, err)
	rep, err := c.Run()
	require.NoError(t, err)
	return rep
}

// sharingJobs returns the run's jobs in submission order: each one's
// arrival, work (its attempts' slot-seconds over the node's slots) and
// response time, in seconds.
func sharingJobs(t *testing.T, rec *cluster.Records, slots int) (arrive, work, resp []float64) {
	t.Helper()
	held := map[int64]time.Duration{}
	for _, a := range rec.Attempts {
		held[int64(a.Attempt.Job)] += a.End - a.Start
	}
	jobs := slices.Clone(rec.Jobs)
	slices.SortStableFunc(jobs, func(a, b cluster.JobResult) int { return cmp.Compare(a.Submit, b.Submit) })
	for _, j := range jobs {
		require.Equal(t, cluster.JobSucceeded, j.Outcome, "job %d", j.ID)
		arrive = append(arrive, j.Submit.Seconds())
		work = append(work, held[int64(j.ID)].Seconds()/float64(slots))
		resp = append(resp, (j.Finish - j.Submit).Seconds())
	}
	return arrive, work, resp
}

// idealFCFS returns each job's response time in one first-come,
// first-served server (Lindley's recursion), jobs in arrival order.
func idealFCFS(arrive, work []float64) []float64 {
	resp := make([]float64, len(arrive))
	free := 0.0
	for i, a := range arrive {
		free = max(free, a) + work[i]
		resp[i] = free - a
	}
	return resp
}

// idealPS returns each job's response time in one egalitarian
// processor-sharing server: the k jobs present each get 1/k of it. Jobs
// come in arrival order.
func idealPS(arrive, work []float64) []float64 {
	resp := make([]float64, len(arrive))
	left := map[int]float64{} // the work each present job has left
	now, next := 0.0, 0
	for next < len(arrive) || len(left) > 0 {
		// The present job with the least work left ends first, at
		// now + k·least, unless a job arrives before.
		least, first := math.Inf(1), -1
		for j, w := range left {
			if w < least || w == least && j < first {
				least, first = w, j
			}
		}
		k := float64(len(left))
		end := now + k*least
		if next < len(arrive) && (first < 0 || arrive[next] < end) {
			for j := range left {
				left[j] -= (arrive[next] - now) / k
			}
			now = arrive[next]
			left[next] = work[next]
			next++
			continue
		}
		for j := range left {
			left[j] -= least
		}
		now = end
		delete(left, first)
		resp[first] = now - arrive[first]
	}
	return resp
}

func TestIdealQueuesOnHandMadeArrivals(t *testing.T) {
	// Two jobs of 4 s and 1 s arriving at 0 and 1: under PS the second
	// shares from 1 to 3 (1 s of its work at half rate), so it ends at 3
	// and the first at 5; under FCFS the second waits for the first.
	arrive, work := []float64{0, 1}, []float64{4, 1}
	require.InDeltaSlice(t, []float64{5, 2}, idealPS(arrive, work), 1e-12)
	require.InDeltaSlice(t, []float64{4, 4}, idealFCFS(arrive, work), 1e-12)
	// An idle gap: each job alone.
	require.InDeltaSlice(t, []float64{1, 1}, idealPS([]float64{0, 5}, []float64{1, 1}), 1e-12)
}
