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

// cpuCluster is one node with slots map slots and the given cores running
// one map-only job of maps 1 MiB blocks at 10 s of CPU per MiB, each read
// streamed through its compute from the node's own 100 MB/s disk: alone a
// map reads at 1 MiB / 10 s ≈ 105 kB/s, far below the disk, so it is
// CPU-bound and takes its 10 s of compute.
func cpuCluster(slots, cores, maps int) Config {
	cfg := smallCluster()
	cfg.Cluster.NodesPerRack = 1
	cfg.Cluster.MapSlots, cfg.Cluster.Cores = slots, cores
	cfg.HDFS.Replication = 1
	cfg.Workload = [][]workload.JobSpec{{{
		Name: "cpu", InputBytes: int64(maps) * mib, MapCPU: workload.PerMiB(10 * time.Second),
		Model: workload.Overlapped,
	}}}
	return cfg
}

// runWith runs cfg, first sending each message to node 0 at its instant.
func runWith(t *testing.T, cfg Config, msgs map[time.Duration]any) *Report {
	t.Helper()
	c, err := Build(cfg)
	require.NoError(t, err)
	for at, m := range msgs {
		c.Runtime().Clock().At(at, c.Node(0), m)
	}
	rep, err := c.Run()
	require.NoError(t, err)
	return rep
}

// mapsHeld returns each succeeded map attempt's start and end.
func mapsHeld(t *testing.T, rep *Report) map[int32][2]time.Duration {
	t.Helper()
	out := map[int32][2]time.Duration{}
	for _, a := range rep.Records.Attempts {
		require.Equal(t, sched.Succeeded, a.Outcome, "%v: %s", a.Attempt, a.Reason)
		out[a.Attempt.Task] = [2]time.Duration{a.Start, a.End}
	}
	return out
}

// Eight CPU-bound maps on a node with eight slots and four cores launch
// together (one heartbeat fills every slot) and share the CPU's 4 cores ×
// 1e9 work/s max-min: 0.5e9 each, half a core, so each takes 2 × 10 s =
// 20 s. With eight cores each has its own and takes its 10 s.
func TestMoreRunnableTasksThanCoresSlowEachOther(t *testing.T) {
	for _, tc := range []struct {
		cores int
		want  time.Duration
	}{{4, 20 * time.Second}, {8, 10 * time.Second}} {
		held := mapsHeld(t, run(t, cpuCluster(8, tc.cores, 8)))
		require.Len(t, held, 8)
		for m, se := range held {
			assert.Equal(t, held[0][0], se[0], "map %d launched with the others", m)
			assert.Equal(t, tc.want, se[1]-se[0], "map %d on %d cores", m, tc.cores)
		}
	}
}

// Maps that compute a fixed time on a few bytes of input share the cores
// as CPU-bound maps do: eight of 10 s on a byte each, on four cores, take
// 20 s (their work a byte is far over what one byte of a streamed read
// can carry on the CPU's link, so each reads its byte and then computes).
func TestFixedTimeMapsOnAByteShareTheCores(t *testing.T) {
	for _, tc := range []struct {
		cores int
		want  time.Duration
	}{{4, 20 * time.Second}, {8, 10 * time.Second}} {
		cfg := cpuCluster(8, tc.cores, 8)
		cfg.HDFS.BlockSize = 1
		cfg.Workload[0][0].InputBytes, cfg.Workload[0][0].MapCPU = 8, 0
		cfg.Workload[0][0].MapTime = 10 * time.Second
		held := mapsHeld(t, run(t, cfg))
		require.Len(t, held, 8)
		for m, se := range held {
			assert.Equal(t, held[0][0], se[0], "map %d launched with the others", m)
			assert.InDelta(t, tc.want, se[1]-se[0], float64(time.Microsecond), "map %d on %d cores", m, tc.cores)
		}
	}
}

// Four maps on four cores, each alone on its core, launched at s < 5 s.
// At 5 s the node's speed halves: each has 10 − (5 − s) s of work left,
// which now takes twice as long, so each ends at 5 + 2 × (5 + s) =
// 15 s + 2s.
func TestHalvingANodesSpeedHalvesEveryRunningCompute(t *testing.T) {
	at := 5 * time.Second
	held := mapsHeld(t, runWith(t, cpuCluster(4, 4, 4), map[time.Duration]any{at: &actors.SetNodeSpeed{Speed: 0.5}}))
	require.Len(t, held, 4)
	for m, se := range held {
		require.Less(t, se[0], at, "map %d launched before the change", m)
		assert.Equal(t, 15*time.Second+2*se[0], se[1], "map %d", m)
	}
}

// Two maps, each on its own core, launched at s. Map 0's own speed drops
// to 1/4 once 30% of its work is done (s + 3 s): the other 7 s of work
// take 28 s, so it ends at s + 31 s. Map 1 is untouched and ends at
// s + 10 s.
func TestAnAttemptsSlowdownSetsInPartWay(t *testing.T) {
	cfg := cpuCluster(2, 2, 2)
	start := mapsHeld(t, run(t, cfg))[0][0] // the same seeds launch at the same instant
	slow := &actors.SetAttemptSpeed{Attempt: sched.Attempt{Job: 1, Kind: sched.Map, Task: 0}, Speed: 0.25}
	held := mapsHeld(t, runWith(t, cfg, map[time.Duration]any{start + 3*time.Second: slow}))
	assert.Equal(t, [2]time.Duration{start, start + 31*time.Second}, held[0])
	assert.Equal(t, [2]time.Duration{start, start + 10*time.Second}, held[1])
}

// A speed outside 0 … MaxSpeed fails the run, naming the node.
func TestABadSpeedFailsTheRun(t *testing.T) {
	c, err := Build(cpuCluster(1, 1, 1))
	require.NoError(t, err)
	c.Runtime().Clock().At(time.Second, c.Node(0), &actors.SetNodeSpeed{Speed: -1})
	_, err = c.Run()
	require.ErrorContains(t, err, "node 0: speed -1: must be 0 … 1000")
}
