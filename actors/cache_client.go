package actors

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// CacheClientConfig describes one node's cache client.
type CacheClientConfig struct {
	Node  sched.NodeID
	Cache CacheConfig
	// Switch is the node's rack switch, which the client's messages to
	// the coordinator cross.
	Switch      *actor.PID
	Coordinator *actor.PID
	// Preloaded are the blocks it holds when the run starts.
	Preloaded []CachedBlock
}

// CacheClient is a node's memory cache of input blocks (PACMan's client,
// the thesis's §2.3.2). Its node offers it each block a map read from a
// disk (CacheBlock); with room it keeps the block and tells the
// coordinator (BlockCached); when full it asks the coordinator what to
// give up (PickEviction), drops the blocks of the answer (EvictFile,
// BlockEvicted) and then keeps the new block. Every report_interval it
// reports all it holds (CacheReported). It evicts only when the
// coordinator says so, and the coordinator decides every memory read, so
// a map sent to read a block from memory finds it (ReadCachedBlock); a
// client that lacks one fails the run.
//
// With no answer from the coordinator within timeout the client takes it
// for unreachable (crashed, or cut off by a partition or a message rule)
// and, as the thesis's clients do when the coordinator is down, neither
// caches nor evicts until it hears from it again: it drops what it was
// offered meanwhile. The blocks it holds it keeps.
type CacheClient struct {
	cfg    CacheClientConfig
	deps   Deps
	self   *actor.PID
	blocks map[blockName]CachedBlock
	used   int64
	// pending are blocks offered while the client waits for room: an
	// ask (PickEviction numbered askSeq) is out.
	pending []CachedBlock
	asking  bool
	askSeq  int64
	// reportSeq numbers the reports; awaited is the report whose ack is
	// due, 0 when none.
	reportSeq, awaited int64
	reachable          bool
	down               bool
	tick               TimerID
}

// blockName names a block in a cache.
type blockName struct {
	file  string
	block int32
}

// cacheReportTick fires a client's periodic report.
type cacheReportTick struct{}

// cacheTimeout fires when a report's ack or an ask's answer is late.
type cacheTimeout struct {
	report bool
	seq    int64
}

// NewCacheClient returns a cache client's state.
func NewCacheClient(cfg CacheClientConfig, deps Deps) *CacheClient {
	c := &CacheClient{cfg: cfg, deps: deps, blocks: make(map[blockName]CachedBlock), reachable: true}
	for _, b := range cfg.Preloaded {
		c.keep(b)
	}
	return c
}

// Receive implements actor.Actor.
func (c *CacheClient) Receive(ctx actor.Context) {
	if c.down {
		c.receiveDown(ctx)
		return
	}
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		c.self = ctx.Self()
		c.startReports()
	case *CacheBlock:
		c.handleCacheBlock(ctx, msg)
	case *ReadCachedBlock:
		c.handleRead(msg)
	case *EvictFile:
		c.handleEvict(ctx, msg)
	case *CacheReportAcked:
		c.heard()
		if msg.Seq >= c.awaited {
			c.awaited = 0
		}
	case *cacheReportTick:
		c.report(ctx)
	case *cacheTimeout:
		c.handleTimeout(msg)
	case *CrashCache:
		c.crash()
	case *RestartCache:
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		c.deps.Fail(fmt.Errorf("cache %d: unhandled message %T", c.cfg.Node, msg))
	}
}

// receiveDown handles a message reaching the client of a crashed node:
// its restart, or nothing.
func (c *CacheClient) receiveDown(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *RestartCache:
		c.down, c.reachable = false, true
		c.startReports()
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *cacheReportTick, *cacheTimeout, *CrashCache:
	default:
		c.deps.Metrics.Count(MetricLostToCrash, 1)
	}
}

// startReports reports every report_interval from a random phase, so the
// clients' reports spread over the interval.
func (c *CacheClient) startReports() {
	every := c.cfg.Cache.ReportInterval.Std()
	phase := time.Duration(c.deps.Rand.Int64N(int64(every)))
	c.tick = c.deps.Clock.Every(c.deps.Clock.Now()+phase, every, c.self, &cacheReportTick{})
}

// crash loses everything the client held, with its node.
func (c *CacheClient) crash() {
	c.down = true
	c.deps.Clock.Cancel(c.tick)
	clear(c.blocks)
	c.used, c.pending, c.asking, c.awaited = 0, nil, false, 0
}

// send relays a message to the coordinator through the node's switch.
func (c *CacheClient) send(ctx actor.Context, msg any) {
	ctx.Send(c.cfg.Switch, &Relay{From: c.self, To: c.cfg.Coordinator, Msg: msg})
}

// heard marks the coordinator reachable: it answered.
func (c *CacheClient) heard() { c.reachable = true }

func (c *CacheClient) keep(b CachedBlock) {
	c.blocks[blockName{b.File, b.Block}] = b
	c.used += b.Bytes
}

func (c *CacheClient) fits(b CachedBlock) bool {
	return c.used+b.Bytes <= int64(c.cfg.Cache.Capacity)
}

// handleCacheBlock keeps a block the node read from disk, after asking
// what to give up when full.
func (c *CacheClient) handleCacheBlock(ctx actor.Context, msg *CacheBlock) {
	b := msg.CachedBlock
	name := blockName{b.File, b.Block}
	if _, held := c.blocks[name]; held || !c.reachable || b.Bytes > int64(c.cfg.Cache.Capacity) ||
		slices.ContainsFunc(c.pending, func(p CachedBlock) bool { return p.File == b.File && p.Block == b.Block }) {
		return
	}
	if !c.asking && c.fits(b) {
		c.keep(b)
		c.send(ctx, &BlockCached{Client: c.cfg.Node, CachedBlock: b})
		return
	}
	c.pending = append(c.pending, b)
	if !c.asking {
		c.ask(ctx)
	}
}

// ask asks the coordinator what to give up for the pending blocks.
func (c *CacheClient) ask(ctx actor.Context) {
	need := -int64(c.cfg.Cache.Capacity) + c.used
	for _, b := range c.pending {
		need += b.Bytes
	}
	c.askSeq++
	c.asking = true
	c.send(ctx, &PickEviction{Client: c.cfg.Node, Bytes: max(need, 1), Seq: c.askSeq})
	c.deps.Clock.After(c.cfg.Cache.Timeout.Std(), c.self, &cacheTimeout{seq: c.askSeq})
}

// handleEvict drops what the coordinator took out of its view, whenever
// the answer comes, then keeps what pending blocks now fit; with more
// pending it asks again, unless nothing could go.
func (c *CacheClient) handleEvict(ctx actor.Context, msg *EvictFile) {
	c.heard()
	for _, blk := range msg.Blocks {
		name := blockName{msg.File, blk}
		if b, held := c.blocks[name]; held {
			delete(c.blocks, name)
			c.used -= b.Bytes
			c.send(ctx, &BlockEvicted{Client: c.cfg.Node, File: msg.File, Block: blk})
		}
	}
	if !c.asking || msg.Seq != c.askSeq {
		return // an answer the client stopped waiting for
	}
	c.asking = false
	for len(c.pending) > 0 && c.fits(c.pending[0]) {
		b := c.pending[0]
		c.pending = c.pending[1:]
		c.keep(b)
		c.send(ctx, &BlockCached{Client: c.cfg.Node, CachedBlock: b})
	}
	switch {
	case len(c.pending) == 0:
	case len(msg.Blocks) == 0:
		c.pending = nil // everything held is being read: the blocks go uncached
	default:
		c.ask(ctx)
	}
}

// report sends every block the client holds, in a stable order, and
// waits for the ack.
func (c *CacheClient) report(ctx actor.Context) {
	blocks := make([]CachedBlock, 0, len(c.blocks))
	for _, b := range c.blocks {
		blocks = append(blocks, b)
	}
	slices.SortFunc(blocks, func(a, b CachedBlock) int { return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Block, b.Block)) })
	c.reportSeq++
	c.send(ctx, &CacheReported{Client: c.cfg.Node, Seq: c.reportSeq, Blocks: blocks})
	if c.awaited == 0 {
		c.awaited = c.reportSeq
		c.deps.Clock.After(c.cfg.Cache.Timeout.Std(), c.self, &cacheTimeout{report: true, seq: c.reportSeq})
	}
}

// handleTimeout takes the coordinator for unreachable when the answer it
// waits for is late: the pending blocks go uncached.
func (c *CacheClient) handleTimeout(msg *cacheTimeout) {
	late := msg.report && c.awaited == msg.seq || !msg.report && c.asking && c.askSeq == msg.seq
	if !late {
		return
	}
	c.reachable = false
	if msg.report {
		c.awaited = 0
	} else {
		c.asking, c.pending = false, nil
	}
}

// handleRead checks that a block the directory decided to read from
// memory is here.
func (c *CacheClient) handleRead(msg *ReadCachedBlock) {
	if _, held := c.blocks[blockName{msg.File, msg.Block}]; !held {
		c.deps.Fail(fmt.Errorf("cache %d: %v reads block %d of %q from memory, which the cache does not hold",
			c.cfg.Node, msg.Attempt, msg.Block, msg.File))
	}
}
