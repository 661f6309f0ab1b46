package actors

import (
	"fmt"
	"slices"
	"time"

	"clusteremu/policies/cache"
	"clusteremu/units"
)

// CacheConfig is [cache]: PACMan's memory cache on every node (a cache
// client per node, the cache directory a role of the coordinator).
type CacheConfig struct {
	// Capacity is each node's cache; 0 turns the cache off (the thesis's
	// nodes cache 20 GB).
	Capacity units.Bytes `toml:"capacity"`
	// Name is the eviction policy (policies/cache): "life", "lfu-f",
	// "lru", "lfu" or "min".
	Name string `toml:"name"`
	// Sticky evicts incomplete files first (LIFE and LFU-F).
	Sticky bool `toml:"sticky"`
	// Window ages out files not read for that long, the least accessed
	// first (LIFE and LFU-F); 0 never does.
	Window units.Duration `toml:"window"`
	// Width is what LIFE ranks files by: "wave" (the measured wave-width)
	// or "size" (LIFE~).
	Width string `toml:"width"`
	// ReportInterval is the period of each client's full report of its
	// cache, from which a restarted coordinator refills its directory.
	ReportInterval units.Duration `toml:"report_interval"`
	// Timeout is how long a client waits for the coordinator's answer
	// before it takes the coordinator for unreachable and stops caching
	// and evicting until it hears from it again.
	Timeout units.Duration `toml:"timeout"`
	// MemoryFirst has a node take a memory-local task before any other of
	// a job's; false takes tasks in their usual order, reading from memory
	// the ones that happen to be cached (the thesis's Fig. 2.2, random).
	MemoryFirst bool `toml:"memory_first"`
	// Preload caches blocks before the run starts.
	Preload []CachePreload `toml:"preload"`
}

// CachePreload caches Blocks blocks of File before the run: the first
// ones (Pick "first", the default), or a seeded random choice ("random"),
// placed round-robin over Nodes (every node when empty), the first block
// on the first of them.
type CachePreload struct {
	File   string `toml:"file"`
	Blocks int    `toml:"blocks"`
	Pick   string `toml:"pick"`
	Nodes  []int  `toml:"nodes"`
}

// Preload picks.
const (
	PickFirst  = "first"
	PickRandom = "random"
)

// DefaultCacheConfig is [cache] with every default: off (capacity 0),
// LIFE, sticky, aged after 6 h, reports every 10 s, a 1 s timeout,
// memory-local tasks first.
func DefaultCacheConfig() CacheConfig {
	return CacheConfig{
		Name: cache.LIFE, Sticky: true, Window: units.Duration(6 * time.Hour), Width: cache.WidthWave,
		ReportInterval: units.Duration(10 * time.Second), Timeout: units.Duration(time.Second), MemoryFirst: true,
	}
}

// SetDefaults fills a zero table with DefaultCacheConfig, for a [cache]
// a scenario creates with --set.
func (c *CacheConfig) SetDefaults() { *c = DefaultCacheConfig() }

// On reports whether the cache runs: a table with a capacity.
func (c *CacheConfig) On() bool { return c != nil && c.Capacity > 0 }

// Policy is the eviction policy's configuration.
func (c *CacheConfig) Policy() cache.Config {
	return cache.Config{Name: c.Name, Sticky: c.Sticky, Window: c.Window.Std(), Width: c.Width}
}

// Validate checks [cache] on a cluster; the preloads' files are the
// workload's to check (ValidatePreload).
func (c *CacheConfig) Validate(errs *Checks, cl *ClusterConfig) {
	errs.Check(c.Capacity < 0, "cache.capacity", c.Capacity, "must be ≥ 0 (0: no cache)")
	errs.Check(c.Capacity > 0 && cl.Memory <= 0, "cache.capacity", c.Capacity,
		"needs cluster.memory, the nodes' memory bandwidth that cached blocks are read at (e.g. 4GB/s)")
	own := cl.own()
	for k := range cl.Classes {
		class := &cl.Classes[k]
		key := fmt.Sprintf("cluster.class[%d].", k)
		if class.Cache != nil {
			errs.Check(c.Capacity <= 0 && *class.Cache > 0, key+"cache", *class.Cache,
				"needs cache.capacity > 0 ([cache]'s, the other nodes' cache; \"0B\" on the classes that cache nothing): the cache runs with a [cache] capacity")
		}
		hw := class.apply(own)
		caches := c.Capacity > 0 && (class.Cache == nil || *class.Cache > 0)
		// A class without memory of its own inherits [cluster]'s, reported there.
		errs.Check(caches && hw.Memory <= 0 && own.Memory > 0, key+"memory", hw.Memory,
			"must be > 0 where the nodes cache: they read their cached blocks at their memory bandwidth")
	}
	errs.Check(!slices.Contains(cache.Names, c.Name), "cache.name", c.Name, fmt.Sprintf("must be one of %q", cache.Names))
	errs.Check(c.Width != cache.WidthWave && c.Width != cache.WidthSize, "cache.width", c.Width,
		fmt.Sprintf("must be %q (the measured wave-width) or %q (LIFE~: the file's size)", cache.WidthWave, cache.WidthSize))
	errs.Check(c.Window < 0, "cache.window", c.Window, "must be ≥ 0 (0: no aging)")
	errs.Check(c.ReportInterval < MinPeriod, "cache.report_interval", c.ReportInterval, fmt.Sprintf("must be at least %v", MinPeriod))
	errs.Check(c.Timeout < MinPeriod, "cache.timeout", c.Timeout, fmt.Sprintf("must be at least %v", MinPeriod))
	for i, p := range c.Preload {
		key := fmt.Sprintf("cache.preload[%d]", i)
		errs.Check(c.Capacity <= 0, key+".file", p.File, "a preload needs cache.capacity > 0")
		errs.Check(p.Blocks < 0, key+".blocks", p.Blocks, "must be ≥ 0")
		errs.Check(p.Pick != "" && p.Pick != PickFirst && p.Pick != PickRandom, key+".pick", p.Pick, fmt.Sprintf("must be %q or %q", PickFirst, PickRandom))
		for k, n := range p.Nodes {
			errs.Check(n < 0 || n >= cl.Nodes(), fmt.Sprintf("%s.nodes[%d]", key, k), n, fmt.Sprintf("must be a node, 0 … %d", cl.Nodes()-1))
		}
	}
}

// ValidatePreload checks the preloads against the workload's input
// files: blocksOf gives a file's block count and whether a job reads it.
// A node's preloaded blocks must fit its cache, capacity(node) (each block
// a whole blockSize at most): the first preload that overfills a node is
// named.
func (c *CacheConfig) ValidatePreload(errs *Checks, nodes int, blockSize int64, capacity func(node int) units.Bytes, blocksOf func(string) (int, bool)) {
	perNode := make([]int64, nodes)
	full := false
	for i, p := range c.Preload {
		key := fmt.Sprintf("cache.preload[%d]", i)
		n, ok := blocksOf(p.File)
		errs.Check(!ok, key+".file", p.File, "no job reads this file: name an input_file of the workload, or a synthetic stream's file, s0-file1 …")
		if !ok {
			continue
		}
		errs.Check(p.Blocks > n, key+".blocks", p.Blocks, fmt.Sprintf("must be at most the file's %d blocks", n))
		if full || c.Capacity <= 0 {
			continue
		}
		on := p.Nodes
		if len(on) == 0 {
			on = nil
			for k := range nodes {
				on = append(on, k)
			}
		}
		for b := range min(p.Blocks, n) {
			if node := on[b%len(on)]; node >= 0 && node < nodes {
				perNode[node] += blockSize
			}
		}
		for node, used := range perNode {
			if limit := capacity(node); used > int64(limit) {
				errs.Check(true, key+".blocks", p.Blocks, fmt.Sprintf("brings node %d's preloaded blocks to %v (%v each), more than its cache of %v",
					node, units.Bytes(used), units.Bytes(blockSize), limit))
				full = true
				break
			}
		}
	}
}
