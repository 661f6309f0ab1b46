package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// fig22 is the thesis's Fig. 2.2 cluster: 10 nodes of one map slot, a job
// of 50 maps of 60 MB, every block on every node (no read contends with
// another), pure I/O: a map reads its block from disk in T = 20 s (3 MB/s)
// or from memory in μT = 2 s (30 MB/s). Out-of-band heartbeats offer a
// freed slot at once, 5 ms a control hop; k blocks are preloaded
// round-robin, the first k, and memory-local maps go first.
func fig22(k int) Config {
	cfg := DefaultConfig()
	cfg.Cluster.Racks, cfg.Cluster.NodesPerRack, cfg.Cluster.MapSlots, cfg.Cluster.ReduceSlots = 1, 10, 1, 1
	cfg.Cluster.DiskRead, cfg.Cluster.Memory = 3e6, 30e6
	cfg.HDFS.BlockSize, cfg.HDFS.Replication = 60e6, 10
	cfg.Heartbeat.Interval = units.Duration(10 * time.Millisecond)
	cfg.Heartbeat.ControlLatency = units.Duration(5 * time.Millisecond)
	cfg.Heartbeat.OutOfBand = true
	cfg.Run.StallAfter = units.Duration(time.Hour)
	c := actors.DefaultCacheConfig()
	c.Capacity = 6e9
	c.Preload = []actors.CachePreload{{File: "input", Blocks: k, Pick: actors.PickFirst}}
	cfg.Cache = &c
	cfg.Workload = [][]workload.JobSpec{{{Name: "scan", InputFile: "input", InputBytes: 3000e6}}}
	return cfg
}

// Fig. 2.2, the all-or-nothing property: with 10 slots a 50-map job runs
// in 5 waves, and only a wave whose every map reads from memory is faster.
// With k blocks cached and their maps taken first the job takes
// (5 − ⌊k/10⌋)·T + ⌊k/10⌋·μT: k = 5 and 9 gain nothing, k = 15 no more
// than k = 10. Each of a slot's 5 maps launches two control hops (10 ms)
// after its slot freed, the out-of-band heartbeat and the launch; the
// first waits for its node's first heartbeat (within 10 ms) and the job
// ends when its last map's report reaches its job manager (5 ms): the
// job takes 55 to 65 ms longer than the formula.
func TestAllOrNothing(t *testing.T) {
	const T, muT = 20 * time.Second, 2 * time.Second
	for _, k := range []int{0, 5, 9, 10, 15, 20, 50} {
		t.Run(fmt.Sprint("k=", k), func(t *testing.T) {
			rep := run(t, fig22(k))
			waves := 5 - k/10
			want := time.Duration(waves)*T + time.Duration(k/10)*muT
			j := rep.Records.Jobs[0]
			got := j.Finish - j.Submit
			assert.GreaterOrEqual(t, got, want+55*time.Millisecond)
			assert.LessOrEqual(t, got, want+65*time.Millisecond, "k = %d", k)
			memory := rep.Records.Tally.Locality[sched.MemoryLocal]
			assert.Equal(t, k, memory, "every cached block read from memory")
			assert.InDelta(t, float64(k)/50, rep.Summary["cache.hit_ratio"], 1e-9)
			assert.Equal(t, map[bool]float64{true: 1, false: 0}[k == 50], rep.Summary["jobs.all_memory_local"])
		})
	}
}

// MIN's oracle is the trace of the run without caches: Fig. 2.2's job
// alone, no block preloaded, reads its first wave of 10 blocks at once
// and each later wave a disk read (T = 20 s) after the one before, so a
// block's next read is its own wave's instant, not the job's submission.
func TestMINsOracleReadsTheTrace(t *testing.T) {
	cfg := fig22(0)
	cfg.Cache.Name = "min"
	future, err := cfg.futureReads()
	if !assert.NoError(t, err) {
		return
	}
	reads := future["input"]
	if !assert.Len(t, reads, 1) || !assert.Len(t, reads[0].Reads, 50) {
		return
	}
	r := reads[0].Reads
	for b := 10; b < 50; b += 10 {
		assert.InDelta(t, 20, (r[b] - r[b-10]).Seconds(), 0.1, "block %d a wave after block %d", b, b-10)
	}
	assert.Less(t, r[9]-r[0], time.Second, "the first wave at once")
	none := cfg
	none.Cache = nil
	future, err = none.futureReads()
	assert.NoError(t, err)
	assert.Nil(t, future, "no oracle but MIN's")
}

// severalFiles is fig22's job reading two files, a of 30 blocks and b of
// 20, k of b's first blocks preloaded: its maps 30 … 49 read b.
func severalFiles(k int) Config {
	cfg := fig22(0)
	cfg.Cache.Preload = []actors.CachePreload{{File: "b", Blocks: k, Pick: actors.PickFirst}}
	cfg.Workload = [][]workload.JobSpec{{{Name: "scan", InputBytes: 3000e6,
		InputFiles: []workload.FilePart{{File: "a", Bytes: 1800e6}, {File: "b", Bytes: 1200e6}}}}}
	return cfg
}

// A job over two files is all-or-nothing over both: 10 of b's blocks
// cached (the second file's, maps 30 … 39) make one wave of ten
// memory-local maps, and the job takes 4T + μT as Fig. 2.2's with k = 10
// (the bounds of TestAllOrNothing). A memory read of the wrong block
// would fail the run (the client lacks it).
func TestAllOrNothingOverSeveralFiles(t *testing.T) {
	const T, muT = 20 * time.Second, 2 * time.Second
	rep := run(t, severalFiles(10))
	j := rep.Records.Jobs[0]
	got := j.Finish - j.Submit
	assert.GreaterOrEqual(t, got, 4*T+muT+55*time.Millisecond)
	assert.LessOrEqual(t, got, 4*T+muT+65*time.Millisecond)
	assert.Equal(t, 10, rep.Records.Tally.Locality[sched.MemoryLocal])
	assert.Equal(t, []actors.FileRead{{File: "a", Blocks: 30}, {File: "b", Blocks: 20}}, j.InputFiles)
	assert.InDelta(t, 1, rep.Summary["files.single_access_jobs"], 1e-9, "no other job reads a or b")
}

// MIN's oracle splits a job over several files by file: b's reads are the
// trace's maps 30 … 49, and b's block i was read by map 30 + i.
func TestMINsOracleSplitsSeveralFiles(t *testing.T) {
	cfg := severalFiles(0)
	cfg.Cache.Name = "min"
	future, err := cfg.futureReads()
	if !assert.NoError(t, err) || !assert.Len(t, future["a"], 1) || !assert.Len(t, future["b"], 1) {
		return
	}
	a, b := future["a"][0], future["b"][0]
	assert.Equal(t, int32(0), a.First)
	assert.Equal(t, int32(30), b.First)
	assert.Len(t, a.Reads, 30)
	assert.Len(t, b.Reads, 20)
	assert.InDelta(t, 60, b.Reads[0].Seconds(), 0.5, "map 30, the fourth wave: three disk reads (T = 20 s) in")
}
