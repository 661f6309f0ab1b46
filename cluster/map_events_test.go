package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/units"
	"clusteremu/workload"
)

// eventCounts counts the deliveries of each message type to nodes.
func eventCounts(rep *Report) map[string]int {
	n := make(map[string]int)
	for _, e := range rep.End.Events {
		n[e.Type]++
	}
	return n
}

// With tasks.map_events_every a reducer that runs while maps end hears of
// them at the batch's end, one message for the node: its shuffle, and so
// its job, ends exactly the interval later when nothing else runs.
func TestMapEventsReachAReducerAtTheBatchsEnd(t *testing.T) {
	one := func(every time.Duration) *Report {
		return oneReduceJob(t, every, 0) // the reduce runs before the maps end
	}
	now, batched := one(0), one(time.Second)
	require.Len(t, now.Records.Jobs, 1)
	require.Len(t, batched.Records.Jobs, 1)
	assert.Equal(t, JobSucceeded, now.Records.Jobs[0].Outcome)
	assert.Equal(t, JobSucceeded, batched.Records.Jobs[0].Outcome)
	assert.Equal(t, now.Records.Jobs[0].Finish+time.Second, batched.Records.Jobs[0].Finish)

	// Both maps end at one instant: two MapOutputs at once, or one
	// MapEvents carrying both a second later. The reduce's launch news
	// (no output yet) goes at once either way.
	n, b := eventCounts(now), eventCounts(batched)
	assert.Equal(t, 0, n["actors.MapEvents"])
	assert.Equal(t, 1, b["actors.MapEvents"])
	assert.Equal(t, n["actors.MapOutputs"]-2, b["actors.MapOutputs"])
	assert.Equal(t, now.Summary["flows.bytes"], batched.Summary["flows.bytes"])
}

// oneReduceJob runs a job of two 10 s maps and a reduce on smallCluster.
func oneReduceJob(t *testing.T, every time.Duration, slowStart float64) *Report {
	cfg := smallCluster()
	cfg.Tasks.SlowStart = slowStart
	cfg.Tasks.MapEventsEvery = units.Duration(every)
	cfg.Run.Events = true
	cfg.Workload = [][]workload.JobSpec{{{
		Name: "j", InputBytes: 2 * mib, Reduces: 1, ShuffleBytes: 2 * mib, OutputBytes: mib,
		MapTime: 10 * time.Second, ReduceCPU: workload.PerMiB(time.Second),
	}}}
	return run(t, cfg)
}

// A reduce released after the last map hears everything at its launch, at
// once: with no reducer running, a map's end arms no batch.
func TestMapEventsWithoutReducersArmNothing(t *testing.T) {
	now, batched := oneReduceJob(t, 0, 1), oneReduceJob(t, time.Second, 1)
	n := eventCounts(batched)
	assert.Zero(t, n["actors.mapEventsDue"])
	assert.Zero(t, n["actors.MapEvents"])
	assert.Equal(t, now.End.Steps, batched.End.Steps)
	assert.Equal(t, now.Records.Jobs[0].Finish, batched.Records.Jobs[0].Finish)
}

// On a shared cluster batching changes when reducers hear, not what they
// fetch: every job succeeds, every byte moves, fewer messages are sent,
// and an ended job's batch leaves no timer for a stopped manager.
func TestMapEventsBatchAWholeRun(t *testing.T) {
	now := run(t, fourRacks())
	cfg := fourRacks()
	cfg.Tasks.MapEventsEvery = units.Duration(time.Second)
	cfg.Run.Events = true
	batched := run(t, cfg)
	require.Equal(t, len(now.Records.Jobs), len(batched.Records.Jobs))
	for i, j := range batched.Records.Jobs {
		assert.Equal(t, JobSucceeded, j.Outcome, "job %d", i)
	}
	for _, k := range []string{"flows.bytes", "flows.requested_bytes", "flows.completed"} {
		assert.Equal(t, now.Summary[k], batched.Summary[k], k)
	}
	assert.Less(t, batched.End.Steps, now.End.Steps)
	// A flush is due only when some reducer has news: each sends some.
	n := eventCounts(batched)
	assert.Positive(t, n["actors.mapEventsDue"])
	assert.LessOrEqual(t, n["actors.mapEventsDue"], n["actors.MapEvents"])
	assert.Zero(t, batched.End.Dropped)
	assert.Equal(t, now.End.DeadLetters, batched.End.DeadLetters)
}

func TestMapEventsEveryIsValidated(t *testing.T) {
	cfg := smallCluster()
	cfg.Tasks.MapEventsEvery = units.Duration(time.Microsecond)
	assert.ErrorContains(t, cfg.Validate(), "tasks.map_events_every = 1µs: must be 0")
}
