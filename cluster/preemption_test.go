package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// preemptingCluster runs FAIR with preemption on 4 map slots: a batch job
// of 8 maps of 100 s takes them all at once, and 20 s later a job in pool
// "prod", whose minimum share is 2 maps, asks for 2 maps of 10 s.
func preemptingCluster(minTimeout string) Config {
	cfg := smallCluster()
	cfg.Scheduler = "fair"
	cfg.SchedulerParams = map[string]any{
		"delay": false, "preemption": true,
		"min_share_timeout": minTimeout, "fair_share_timeout": "1h",
		"pools": []map[string]any{{"name": "prod", "min_maps": int64(2)}},
	}
	cfg.Workload = [][]workload.JobSpec{{
		{Name: "batch", Pool: "batch", InputBytes: 8 * mib, MapCPU: workload.PerMiB(100 * time.Second)},
		{Name: "prod", Pool: "prod", Submit: 20 * time.Second, InputBytes: 2 * mib, MapCPU: workload.PerMiB(10 * time.Second)},
	}}
	return cfg
}

func TestPreemptionKillsTheNewestTasksAndRerunsThemFromScratch(t *testing.T) {
	rep := run(t, preemptingCluster("30s"))
	require.Len(t, rep.Results.Jobs, 2)
	batch, prod := rep.Results.Jobs[0], rep.Results.Jobs[1]
	assert.Equal(t, JobSucceeded, batch.Status)
	assert.Equal(t, JobSucceeded, prod.Status)

	var killed []actors.AttemptRecord
	ran := map[int32][]actors.AttemptRecord{} // the batch job's map attempts by task
	for _, a := range rep.Results.Attempts {
		if a.Attempt.Job == batch.ID && a.Attempt.Kind == sched.Map {
			ran[a.Attempt.Task] = append(ran[a.Attempt.Task], a)
		}
		if a.Outcome == sched.Killed {
			killed = append(killed, a)
		}
	}
	// The prod pool is below its minimum share from 20 s; 30 s later it
	// takes the 2 slots it is owed, and no more: the batch job keeps its
	// fair share of 2.
	require.Len(t, killed, 2)
	wasted := 0.0
	for _, a := range killed {
		assert.Equal(t, batch.ID, a.Attempt.Job, "only the job over its share loses tasks")
		require.Equal(t, sched.Map, a.Attempt.Kind, "prod is owed map slots")
		assert.Contains(t, a.Reason, "below its minimum share")
		assert.GreaterOrEqual(t, a.End, 50*time.Second)
		assert.LessOrEqual(t, a.End, 50*time.Second+2*time.Second, "within a policy tick and its delivery")
		wasted += (a.End - a.Start).Seconds()

		// The task runs again from the start: its next attempt does the
		// whole 100 s.
		again := ran[a.Attempt.Task]
		last := again[len(again)-1]
		assert.Equal(t, sched.Succeeded, last.Outcome)
		assert.Greater(t, last.Attempt.Attempt, a.Attempt.Attempt)
		assert.GreaterOrEqual(t, last.End-last.Start, 100*time.Second)
	}
	assert.Less(t, prod.Finish, 100*time.Second, "prod ran on the freed slots, not after the batch job's first wave")

	s := rep.Summary
	assert.Equal(t, 2.0, s["tasks.killed"])
	assert.InDelta(t, wasted, s["tasks.killed.slot_seconds"], 1e-9)
	assert.InDelta(t, 2*50.0, s["tasks.killed.slot_seconds"], 2*3.0, "two slots' work from about 0 s to 50 s")
	assert.Zero(t, s["tasks.failed.slot_seconds"])
}

func TestNoPreemptionBeforeTheTimeout(t *testing.T) {
	// With T_min longer than the batch job's first wave, prod waits for
	// slots to free up instead, and nothing is lost.
	rep := run(t, preemptingCluster("200s"))
	for _, j := range rep.Results.Jobs {
		assert.Equal(t, JobSucceeded, j.Status)
	}
	assert.Zero(t, rep.Summary["tasks.killed"])
	assert.Zero(t, rep.Summary["tasks.killed.slot_seconds"])
	assert.Greater(t, rep.Results.Jobs[1].Finish, 100*time.Second)
}
