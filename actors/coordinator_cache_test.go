package actors

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/cache"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

// cacheCore is testCore with a cache of two 100-byte blocks a node under
// sticky LIFE, memory-local maps first.
func cacheCore(t *testing.T) *coordState {
	t.Helper()
	s, _ := testCore(func(cfg *CoordinatorConfig) {
		c := DefaultCacheConfig()
		c.Capacity = units.Bytes(200)
		cfg.Cache = &c
	})
	require.NotNil(t, s.cache)
	return s
}

// cached books block b of a 3-block file on a client.
func cached(s *coordState, node sched.NodeID, file string, b int32) {
	s.blockCached(0, &BlockCached{Client: node, CachedBlock: CachedBlock{File: file, Block: b, Bytes: 100, FileBlocks: 3, FileBytes: 300}})
}

// A map whose block its node caches reads it from memory, decided at
// launch; the block is pinned while the attempt runs, and no eviction
// takes it: a full client is told to give up another block, or none.
func TestAHitIsDecidedAndPinnedAtLaunch(t *testing.T) {
	s := cacheCore(t)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2}, []sched.NodeID{0, 3}, []sched.NodeID{1, 3})
	cached(s, 0, "input-1", 2) // map 2's block, stored on nodes 1 and 3
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{
		"launch j1-map2.0 on node 0 map slot 0, memory, reads node 0",
		"launch j1-map0.0 on node 0 map slot 1, node, reads node 0",
	}, said(s), "the memory-local map first")
	s.pickEviction(2*time.Second, &PickEviction{Client: 0, Bytes: 100, Seq: 1})
	assert.Equal(t, []string{"cache-0 ← EvictFile  []"}, said(s), "the only block is being read")

	cached(s, 0, "input-1", 1)
	s.pickEviction(3*time.Second, &PickEviction{Client: 0, Bytes: 100, Seq: 2})
	assert.Equal(t, []string{"cache-0 ← EvictFile input-1 [1]"}, said(s), "the unpinned block goes")
	assert.False(t, s.cache.dir.caches("input-1", 1, 0), "out of the view at once")

	s.heartbeat(4*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{2, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 2, 0), sched.Succeeded, 3500*time.Millisecond)}})
	said(s)
	s.pickEviction(5*time.Second, &PickEviction{Client: 0, Bytes: 100, Seq: 3})
	assert.Equal(t, []string{"cache-0 ← EvictFile input-1 [2]"}, said(s), "unpinned when its reader ended")
}

// A report the client sent before it heard it should evict a block does
// not bring the block back; once the client confirms, a later report of
// the block (cached again) does.
func TestAStaleReportDoesNotBringBackAnEvictedBlock(t *testing.T) {
	s := cacheCore(t)
	cached(s, 0, "f", 0)
	s.pickEviction(time.Second, &PickEviction{Client: 0, Bytes: 100, Seq: 1})
	assert.Equal(t, []string{"cache-0 ← EvictFile f [0]"}, said(s))
	report := &CacheReported{Client: 0, Seq: 1, Blocks: []CachedBlock{{File: "f", Block: 0, Bytes: 100, FileBlocks: 3, FileBytes: 300}}}
	s.cacheReported(2*time.Second, report)
	assert.Equal(t, []string{"cache-0 ← CacheReportAcked 1"}, said(s))
	assert.False(t, s.cache.dir.caches("f", 0, 0))
	s.blockEvicted(3*time.Second, &BlockEvicted{Client: 0, File: "f", Block: 0})
	report.Seq = 2
	s.cacheReported(4*time.Second, report)
	said(s)
	assert.True(t, s.cache.dir.caches("f", 0, 0))
	// A report is the client's whole cache: what it leaves out is gone.
	s.cacheReported(5*time.Second, &CacheReported{Client: 0, Seq: 3})
	said(s)
	assert.False(t, s.cache.dir.caches("f", 0, 0))
}

// A block cached after its map was queued makes the map memory-local on
// that node; another node leaves the map to it while it has other maps,
// though the map comes first in its own list.
func TestMemoryHintsAndSparedMaps(t *testing.T) {
	s := cacheCore(t)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1}, []sched.NodeID{0, 1}, []sched.NodeID{0, 1})
	cached(s, 2, "input-1", 0)
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{
		"launch j1-map1.0 on node 0 map slot 0, node, reads node 0",
		"launch j1-map2.0 on node 0 map slot 1, node, reads node 0",
	}, said(s), "map 0 is left for node 2, which caches its block")
	s.heartbeat(2*time.Second, &Heartbeat{Node: 2})
	assert.Equal(t, []string{"launch j1-map0.0 on node 2 map slot 0, memory, reads node 2"}, said(s))
}

// A restarted coordinator's directory is empty until the clients report:
// no map reads from memory meanwhile.
func TestARestartEmptiesTheDirectory(t *testing.T) {
	s := cacheCore(t)
	cached(s, 0, "input-1", 0)
	s.restart(time.Second, &scriptPolicy{FIFO: sched.NewFIFO()}, false)
	said(s)
	assert.False(t, s.cache.dir.caches("input-1", 0, 0))
	s.cacheReported(2*time.Second, &CacheReported{Client: 0, Seq: 1, Blocks: []CachedBlock{
		{File: "input-1", Block: 0, Bytes: 100, FileBlocks: 3, FileBytes: 300}}})
	assert.True(t, s.cache.dir.caches("input-1", 0, 0))
}

// The wave-width is Σ w·t(w) over the map phase, exactly: two maps from
// 0 s, one ending at 10 s and the other at 20 s, hold 2 slots for half
// the phase and 1 for the other half: 1.5.
func TestWaveWidthIsExact(t *testing.T) {
	w := &waveWidth{first: -1}
	w.change(0, 1)
	w.change(0, 1)
	w.change(10*time.Second, -1)
	w.change(20*time.Second, -1)
	assert.InDelta(t, 1.5, w.width(), 1e-12)
	assert.Zero(t, (&waveWidth{first: -1}).width(), "nothing ran")
}

// A file's wave-width is an even running average over its jobs; before
// any, LIFE ranks it by its block count.
func TestFileWaveWidthAveragesJobs(t *testing.T) {
	s := cacheCore(t)
	cached(s, 0, "f", 0)
	f := s.cache.dir.files["f"]
	assert.False(t, f.measured)
	s.waveWidthMeasured(0, &WaveWidthMeasured{File: "f", Width: 4})
	s.waveWidthMeasured(0, &WaveWidthMeasured{File: "f", Width: 2})
	assert.InDelta(t, 3, f.width, 1e-12)
}

// A map another node caches is left to that node while it has a free
// slot: its next heartbeat reads the block from memory. Once that node's
// slots are taken, any node reads it from disk rather than wait.
func TestAMapIsLeftToAnIdleNodeThatCachesIt(t *testing.T) {
	s := cacheCore(t)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1})
	cached(s, 2, "input-1", 0)
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Empty(t, said(s), "node 2 has free slots: the map waits for it")
	submitMaps(t, s, 0, 2, 0, []sched.NodeID{2, 3}, []sched.NodeID{2, 3})
	s.heartbeat(2*time.Second, &Heartbeat{Node: 3})
	said(s)
	busy := s.nodes[2].busy[sched.Map]
	for i := range busy {
		busy[i] = true // node 2 runs other maps
	}
	s.heartbeat(3*time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, node, reads node 0"}, said(s))
}

// MIN evicts the block read again furthest ahead, block by block: a
// two-wave job over "big" reads its blocks 0 and 1 at 10 s and 2 and 3 at
// 40 s in the trace, and a job over "small", submitted later, reads its
// block at 20 s. A client holding big's blocks 0 and 3 and small's block
// gives up big's block 3 first, then small's, and keeps big's first wave:
// the order of the reads, not of the jobs' submissions.
func TestMINEvictsTheBlockReadFurthestAheadInTheTrace(t *testing.T) {
	none := func(sched.JobID, int32) bool { return false }
	oracle := newCacheOracle(map[string][]FutureRead{
		"big":   {{Job: 1, Submit: 5 * time.Second, Reads: []time.Duration{10 * time.Second, 10 * time.Second, 40 * time.Second, 40 * time.Second}}},
		"small": {{Job: 2, Submit: 15 * time.Second, Reads: []time.Duration{20 * time.Second}}},
	}, none)
	policy, err := cache.New(cache.Config{Name: cache.MIN})
	require.NoError(t, err)
	d := newCacheDirectory(policy, 1, oracle)
	for _, b := range []CachedBlock{
		{File: "big", Block: 0, Bytes: 100, FileBlocks: 4, FileBytes: 400},
		{File: "big", Block: 3, Bytes: 100, FileBlocks: 4, FileBytes: 400},
		{File: "small", Block: 0, Bytes: 100, FileBlocks: 1, FileBytes: 100},
	} {
		require.True(t, d.add(b, 0))
	}
	var order []string
	for range 3 {
		name, blocks, ok := d.pick(0, time.Second, 100)
		require.True(t, ok)
		order = append(order, fmt.Sprint(name, blocks))
	}
	assert.Equal(t, []string{"big[3]", "small[0]", "big[0]"}, order)
}

// A job that launched a block's map has read it: the next read is the
// next job's, and a block no job reads again is never read.
func TestMINsNextReadSkipsLaunchedReads(t *testing.T) {
	launched := map[sched.JobID]bool{1: true}
	oracle := newCacheOracle(map[string][]FutureRead{
		"f": {{Job: 1, Submit: 0, Reads: []time.Duration{time.Second}}, {Job: 2, Submit: 50 * time.Second}},
	}, func(j sched.JobID, _ int32) bool { return launched[j] })
	assert.Equal(t, cache.Ahead{At: 50 * time.Second, Index: 0, Job: 2}, oracle.next("f", 0), "job 2 reads at its submission")
	oracle.jobEnded(2)
	assert.Equal(t, cache.NeverAgain, oracle.next("f", 0))
}

// A file's accesses count the reads of its blocks, every map launched to
// read one, from memory or disk (the thesis's ADD counts one a block
// cached), not the jobs: a job's three maps are three accesses.
func TestAccessesCountEveryRead(t *testing.T) {
	s := cacheCore(t)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1}, []sched.NodeID{0, 1}, []sched.NodeID{1, 2})
	cached(s, 2, "input-1", 2)
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	s.heartbeat(time.Second, &Heartbeat{Node: 2})
	assert.Len(t, said(s), 3, "two maps from disk on node 0, one from memory on node 2")
	assert.Equal(t, 3, s.cache.dir.files["input-1"].accesses)
}

// A full client gives up as many blocks of the file LIFE names as it
// needs, not the whole file (the thesis's FILETOEVICT is asked "to evict
// a block"): the file, now incomplete, is named again at the next ask,
// before the complete smaller file, until it is gone.
func TestAnEvictionTakesTheBytesItNeeds(t *testing.T) {
	policy, err := cache.New(cache.Config{Name: cache.LIFE, Sticky: true})
	require.NoError(t, err)
	d := newCacheDirectory(policy, 1, nil)
	for b := range int32(4) {
		require.True(t, d.add(CachedBlock{File: "wide", Block: b, Bytes: 100, FileBlocks: 4, FileBytes: 400}, 0))
	}
	require.True(t, d.add(CachedBlock{File: "narrow", Block: 0, Bytes: 100, FileBlocks: 1, FileBytes: 100}, 0))
	var order []string
	for _, need := range []int64{100, 150, 1, 1000} {
		name, blocks, ok := d.pick(0, time.Second, need)
		require.True(t, ok)
		order = append(order, fmt.Sprint(name, blocks))
	}
	assert.Equal(t, []string{"wide[3]", "wide[1 2]", "wide[0]", "narrow[0]"}, order)
}

// The coordinator takes the room a client's ask names: one 100-byte block
// for 100 bytes, though the client holds two blocks of the file.
func TestPickEvictionTakesTheAsksBytes(t *testing.T) {
	s := cacheCore(t)
	cached(s, 0, "input-1", 1)
	cached(s, 0, "input-1", 2)
	s.pickEviction(time.Second, &PickEviction{Client: 0, Bytes: 100, Seq: 1})
	assert.Equal(t, []string{"cache-0 ← EvictFile input-1 [2]"}, said(s))
	s.pickEviction(2*time.Second, &PickEviction{Client: 0, Bytes: 100, Seq: 2})
	assert.Equal(t, []string{"cache-0 ← EvictFile input-1 [1]"}, said(s))
}
