package actors

import (
	"fmt"
	"time"

	"clusteremu/policies/cache"
	"clusteremu/policies/sched"
)

// The cache directory's part of the coordinator (PACMan's coordinator).
// It is a role of the coordinator rather than an actor of its own: memory
// locality is needed while a heartbeat's slots are offered, the pending
// maps' memory hints must change in the same step as the directory, and
// since no actor reads another's state a separate directory would have to
// be mirrored into the coordinator by message anyway. The directory's
// state is a plain struct (cacheDirectory); this file wires it to the
// core's events:
//
//   - a launch decides the hit: a map whose block the node caches reads it
//     from memory (TaskSpec.FromMemory), pinned until the attempt ends;
//     every map launch counts as a read of its block, the job's first as
//     an access of its file;
//   - clients tell what they cache and evict (BlockCached, BlockEvicted),
//     ask what to give up when full (PickEviction, answered EvictFile) and
//     report everything they hold (CacheReported, acked);
//   - job managers report their wave-widths at their ends.
//
// A restarted coordinator's directory starts empty and refills from the
// clients' reports, as the thesis's cold standby does: no memory read is
// decided on a block until its client has reported it again.

// tellCache sends a message to a node's cache client through the node's
// rack switch.
type tellCache struct {
	node sched.NodeID
	msg  any
}

func (e *tellCache) String() string {
	switch m := e.msg.(type) {
	case *EvictFile:
		return fmt.Sprintf("cache-%d ← EvictFile %s %v", e.node, m.File, m.Blocks)
	case *CacheReportAcked:
		return fmt.Sprintf("cache-%d ← CacheReportAcked %d", e.node, m.Seq)
	}
	return fmt.Sprintf("cache-%d ← %T", e.node, e.msg)
}

// The cache's counters (Recorder.Count).
const (
	// MetricCacheRequests counts the messages the directory handled.
	MetricCacheRequests = "cache.requests"
	// MetricCachePeak is the most the directory handled in one second of
	// emulated time: the thesis's coordinator holds about 1.2 ms per
	// request up to 10,300 requests a second.
	MetricCachePeak = "cache.requests.peak_per_second"
	// MetricCacheEvictions counts the blocks clients were told to evict.
	MetricCacheEvictions = "cache.evictions"
)

// cacheRole is the coordinator's cache: the directory and the count of
// its requests per second of emulated time.
type cacheRole struct {
	cfg      *CacheConfig
	dir      *cacheDirectory
	second   time.Duration // the second being counted
	inSecond int64
	peak     int64
	// freeSlot reports whether a live node has a free map slot.
	freeSlot func(sched.NodeID) bool
}

// Preloaded is a block a client holds when the run starts ([[cache.preload]]).
type Preloaded struct {
	Node sched.NodeID
	CachedBlock
}

// setUpCache makes the directory the configuration asks for: empty but
// for the preloaded blocks, which the clients hold from the start.
func (s *coordState) setUpCache() {
	cfg := s.cfg.Cache
	if !cfg.On() {
		return
	}
	policy, err := cache.New(cfg.Policy())
	if err != nil {
		s.fail("cache: %v", err)
		return
	}
	var oracle *cacheOracle
	if cfg.Name == cache.MIN {
		oracle = newCacheOracle(s.cfg.CacheFuture, s.table.launchedMap)
	}
	s.cache = &cacheRole{cfg: cfg, dir: newCacheDirectory(policy, len(s.cfg.RackOf), oracle),
		second: -1, freeSlot: s.freeMapSlot}
}

// preload books the blocks the clients hold when the run starts.
func (s *coordState) preload(blocks []Preloaded) {
	for _, b := range blocks {
		s.cacheAdded(b.CachedBlock, b.Node)
	}
}

// cacheRequest counts a request to the directory in its second.
func (s *coordState) cacheRequest(now time.Duration) {
	c := s.cache
	s.out.counts = append(s.out.counts, count{MetricCacheRequests, 1})
	if sec := now.Truncate(time.Second); sec != c.second {
		c.second, c.inSecond = sec, 0
	}
	c.inSecond++
	if c.inSecond > c.peak {
		s.out.counts = append(s.out.counts, count{MetricCachePeak, c.inSecond - c.peak})
		c.peak = c.inSecond
	}
}

// cacheAdded books a block a client caches and lists it as a memory hint
// for the pending maps that read it.
func (s *coordState) cacheAdded(b CachedBlock, node sched.NodeID) {
	if s.cache.dir.add(b, node) {
		if f := s.blocks.files[b.File]; f != nil {
			s.table.memoryAdded(f, b.Block, node)
		}
	}
}

// blockCached handles a client's ADD.
func (s *coordState) blockCached(now time.Duration, msg *BlockCached) {
	if s.cache == nil {
		return
	}
	s.cacheRequest(now)
	s.cacheAdded(msg.CachedBlock, msg.Client)
}

// blockEvicted handles a client's REMOVE.
func (s *coordState) blockEvicted(now time.Duration, msg *BlockEvicted) {
	if s.cache == nil {
		return
	}
	s.cacheRequest(now)
	s.cache.dir.evicted(msg.File, msg.Block, msg.Client)
}

// pickEviction answers a full client with what it gives up.
func (s *coordState) pickEviction(now time.Duration, msg *PickEviction) {
	if s.cache == nil {
		return
	}
	s.cacheRequest(now)
	file, blocks, _ := s.cache.dir.pick(msg.Client, now, msg.Bytes)
	s.out.counts = append(s.out.counts, count{MetricCacheEvictions, int64(len(blocks))})
	s.emit(&tellCache{msg.Client, &EvictFile{File: file, Blocks: blocks, Seq: msg.Seq}})
}

// cacheReported takes a client's report as its blocks, and acks it.
func (s *coordState) cacheReported(now time.Duration, msg *CacheReported) {
	if s.cache == nil {
		return
	}
	s.cacheRequest(now)
	for _, b := range s.cache.dir.reported(msg.Client, msg.Blocks) {
		if f := s.blocks.files[b.File]; f != nil {
			s.table.memoryAdded(f, b.Block, msg.Client)
		}
	}
	s.emit(&tellCache{msg.Client, &CacheReportAcked{Seq: msg.Seq}})
}

// waveWidthMeasured folds a job's wave-width into its file's.
func (s *coordState) waveWidthMeasured(now time.Duration, msg *WaveWidthMeasured) {
	if s.cache == nil {
		return
	}
	s.cacheRequest(now)
	s.cache.dir.measured(msg.File, msg.Width)
}

// cacheLaunch books a map's launch: a read of its block and of its file,
// and, when it reads from memory, a pin on the block until the attempt
// ends.
func (s *coordState) cacheLaunch(now time.Duration, a sched.Attempt, node sched.NodeID, spec *TaskSpec) {
	c := s.cache
	if c == nil || a.Kind != sched.Map || spec.File == "" {
		return
	}
	f, block := c.dir.file(spec.File, spec.FileBlocks, spec.FileBytes), a.Task-spec.FileFirst
	c.dir.read(f, block, now)
	if spec.FromMemory {
		c.dir.pin(a, f, block, node)
	}
}

// cacheJobEnded ends a job's reads for MIN.
func (s *coordState) cacheJobEnded(id sched.JobID) {
	if s.cache == nil {
		return
	}
	if s.cache.dir.oracle != nil {
		s.cache.dir.oracle.jobEnded(id)
	}
}

// cacheNodeGone forgets what a node's cache held: it crashed and came
// back empty, or it was declared dead (it reports its blocks again if it
// kept them).
func (s *coordState) cacheNodeGone(node sched.NodeID) {
	if s.cache != nil {
		s.cache.dir.clear(node)
	}
}

// cached reports whether a node's cache holds a map's block: the job
// table's memory locality.
func (c *cacheRole) cached(f *file, task int32, node sched.NodeID) bool {
	g, block := f.at(task)
	return c.dir.caches(g.name, block, node)
}

// idle reports whether a node has a free map slot.
func (c *cacheRole) idle(node sched.NodeID) bool { return c.freeSlot(node) }

// freeMapSlot reports whether a live node has a map slot no attempt the
// coordinator launched, nor a QoS task, holds.
func (s *coordState) freeMapSlot(node sched.NodeID) bool {
	return s.live(node) && s.nodes[node].anyFree(sched.Map)
}

// holders lists the nodes caching a map's block.
func (c *cacheRole) holders(f *file, task int32) []sched.NodeID {
	g, block := f.at(task)
	return c.dir.holders(g.name, block)
}

// restartCache empties the directory of a restarted coordinator: it
// refills from the clients' reports. Attempts running from memory that
// the nodes report again are pinned again (cacheResynced).
func (s *coordState) restartCache() {
	if s.cache == nil {
		return
	}
	var oracle *cacheOracle
	if old := s.cache.dir.oracle; old != nil {
		oracle = newCacheOracle(old.future, s.table.launchedMap)
		oracle.ended = old.ended
	}
	s.cache.dir = newCacheDirectory(s.cache.dir.policy, len(s.cfg.RackOf), oracle)
}

// cacheResynced pins the block of an attempt a node reports reading from
// memory after a restart.
func (s *coordState) cacheResynced(r RunningAttempt, node sched.NodeID) {
	if s.cache == nil || r.Locality != sched.MemoryLocal || r.Attempt.Kind != sched.Map {
		return
	}
	job := s.jobs[r.Attempt.Job]
	if job == nil || job.input == nil {
		return
	}
	f, block := job.input.at(r.Attempt.Task)
	s.cache.dir.pin(r.Attempt, s.cache.dir.file(f.name, int32(len(f.blocks)), f.size), block, node)
}
