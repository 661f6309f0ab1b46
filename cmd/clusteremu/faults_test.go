package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// soakFaults are random faults over the default scenario's first seven
// minutes, drawn from each run's workload seed: node crashes that restart
// (some with their disks lost), rack partitions longer and shorter than
// the 30 s after which a silent node is declared dead, cut rack uplinks,
// slowed nodes, and a message rule that drops a few TaskFinished
// messages.
const soakFaults = `
[[fault]]
kind = "crash"
rate = 20
window = ["0s", "7m"]
restart_after = "90s"

[[fault]]
kind = "crash"
rate = 5
window = ["0s", "7m"]
restart_after = "3m"
disk_lost = true

[[fault]]
kind = "partition"
rate = 10
window = ["0s", "7m"]
for = "45s"

[[fault]]
kind = "partition"
rate = 10
window = ["0s", "7m"]
for = "10s"

[[fault]]
kind = "link"
link = "rack 1 uplink"
rate = 10
window = ["0s", "7m"]
for = "20s"
factor = 0

[[fault]]
kind = "slowdown"
rate = 20
window = ["0s", "7m"]
for = "1m"
cpu = 0.3
disk = 0.5

[[fault]]
kind = "message"
from = "node-*"
to = "job-*"
message = "TaskFinished"
action = "drop"
probability = 0.02
`

// TestFaultSoak runs the default scenario under random faults from many
// workload seeds: every run ends with no invariant broken (a broken one,
// bytes that do not add up among them, fails the run), every job
// accounted for, and faults that fired.
func TestFaultSoak(t *testing.T) {
	seeds := 50
	if raceEnabled || testing.Short() {
		seeds = 4 // make test runs all 50 without the race detector
	}
	text := append(append([]byte{}, scenarios.DefaultScenario...), soakFaults...)
	fired := 0.0
	for seed := 1; seed <= seeds; seed++ {
		rep := soakRun(t, text, seed)
		s := rep.Summary
		msg := fmt.Sprintf("seed %d: %v", seed, s)
		assert.Zero(t, s["jobs.cut_off"], msg)
		for _, j := range rep.Records.Jobs {
			if j.Outcome == cluster.JobFailed {
				assert.NotEmpty(t, j.Reason, "seed %d: job %d failed without a reason", seed, j.ID)
			}
		}
		f := rep.Records.Flows
		assert.Equal(t, int64(s["flows.requested_bytes"]), f.Bytes+f.AbortedDue+f.CutOffDue, msg)
		fired += s["faults.crash"] + s["faults.partition"] + s["faults.link"] + s["faults.slowdown"]
	}
	assert.Greater(t, fired, float64(5*seeds), "the faults fire")
}

// cacheDrops are a message rule that drops some of what the cache
// clients send the coordinator, and cacheCrash a coordinator crash whose
// restart empties the directory until the clients report again.
const (
	cacheDrops = `
[cache]
name = "life"

[[fault]]
kind = "message"
from = "cache-*"
to = "coordinator"
message = "*"
action = "drop"
probability = 0.05
`
	cacheCrash = `
[cache]
name = "life"

[[fault]]
kind = "coordinator"
at = "2m"
restart_after = "20s"
`
)

// TestCacheFaultSoak runs cached clusters from several workload seeds:
// the default scenario's stream reading 30 popular files, each node
// caching four blocks under LIFE, under the soak's faults with lost cache
// messages, and under a coordinator crash. No memory read misses its block
// (a client that lacks one fails the run), every job ends, and the caches
// serve reads and evict.
func TestCacheFaultSoak(t *testing.T) {
	seeds := 6
	if raceEnabled || testing.Short() {
		seeds = 1
	}
	for _, faults := range []string{soakFaults + cacheDrops, cacheCrash} {
		text := append(append([]byte{}, scenarios.DefaultScenario...), faults...)
		hits, evicted := 0.0, 0.0
		for seed := 1; seed <= seeds; seed++ {
			s := soakRun(t, text, seed, "workload.synthetic[0].files=30", "cluster.memory=4GB/s", "cache.capacity=512MiB").Summary
			hits += s["cache.hit_ratio"]
			evicted += s["cache.evictions"]
		}
		assert.Greater(t, hits/float64(seeds), 0.2, "the caches serve reads")
		assert.Greater(t, evicted, 0.0, "the caches evict")
	}
}

// soakRun runs a soak's scenario text from a workload seed, with the
// overrides given and without reference runs, and checks that the run
// ended and every job succeeded or failed.
func soakRun(t *testing.T, text []byte, seed int, set ...string) *cluster.Report {
	t.Helper()
	sc, err := scenarios.Load("default.toml", text, ".")
	require.NoError(t, err)
	sc, err = sc.WithSeed(uint64(seed))
	require.NoError(t, err)
	if len(set) > 0 {
		sc, err = sc.WithSet(set...)
		require.NoError(t, err)
	}
	cfg := sc.Config
	cfg.Run.Slowdown = false
	c, err := cluster.Build(cfg)
	require.NoError(t, err, "seed %d", seed)
	rep, err := c.Run()
	require.NoError(t, err, "seed %d", seed)
	s := rep.Summary
	msg := fmt.Sprintf("seed %d: %v", seed, s)
	assert.Equal(t, cluster.EndDone, rep.End.Reason, msg)
	assert.Equal(t, s["jobs.submitted"], s["jobs.succeeded"]+s["jobs.failed"], msg)
	return rep
}
