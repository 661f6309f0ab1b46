package cluster

import (
	"fmt"
	"math"
)

// Needs is what a run of a configuration holds, counted before the run
// from the configuration and its workload: how big a scenario is, for
// validate to print and for an engineer to size a run.
type Needs struct {
	Nodes, Jobs int
	// Maps are the input blocks, one map each; Reduces the reduce tasks.
	Maps, Reduces int64
	// Replicas are the input blocks' replicas the NameNode places.
	Replicas int64
	// Fetches are the shuffle's transfers: a reduce fetches each map's
	// output, or each node's outputs at once with fetch_per_host, or with
	// fetch_per_rack each node's of its own rack and each other rack's
	// outputs at once.
	Fetches int64
	// Memory is a floor of the bytes the run holds at its peak: every
	// node, plus the job that needs the most on its own (Largest, an index
	// into Config.Jobs), its tasks pending and as many of its reduces
	// running as the cluster has reduce slots, each tracking every map.
	// Jobs that overlap need more; this much they cannot do without.
	Memory  int64
	Largest int
}

// Bytes of the run's state, from go test -run '^$' -bench Memory
// ./cluster (live heap after a full collection, the difference between
// runs with n and 2n items): an idle node's actors, a pending task with
// its input block's replicas, and a running reduce's fetch state per map
// of its job.
const (
	idleNodeBytes    = 2900
	pendingTaskBytes = 212
	fetchStateBytes  = 1
)

// Needs counts what the run holds; sums saturate instead of
// overflowing. The configuration must be valid.
func (c *Config) Needs() Needs {
	n := Needs{Nodes: c.Nodes()}
	block := max(int64(c.HDFS.BlockSize), 1)
	reduceSlots := int64(c.Slots()[1])
	var largest int64
	for i, j := range c.Jobs() {
		n.Jobs++
		maps, reduces := int64(j.MapCount(block)), int64(j.Reduces)
		if job := addSat(mulSat(addSat(maps, reduces), pendingTaskBytes),
			mulSat(mulSat(min(reduces, reduceSlots), maps), fetchStateBytes)); job > largest {
			largest, n.Largest = job, i
		}
		n.Maps = addSat(n.Maps, maps)
		n.Reduces = addSat(n.Reduces, reduces)
		n.Replicas = addSat(n.Replicas, mulSat(maps, int64(c.HDFS.Replication)))
		sources := maps
		switch {
		case c.Tasks.FetchPerRack:
			sources = min(maps, int64(c.Cluster.NodesPerRack+c.Cluster.Racks-1))
		case c.Tasks.FetchPerHost:
			sources = min(maps, int64(n.Nodes))
		}
		n.Fetches = addSat(n.Fetches, mulSat(sources, reduces))
	}
	n.Memory = addSat(mulSat(int64(n.Nodes), idleNodeBytes), largest)
	return n
}

func (n Needs) String() string {
	return fmt.Sprintf("%s, %s, %s and %s, %s, %s, at least %v of memory",
		count(int64(n.Nodes), "node", "nodes"), count(int64(n.Jobs), "job", "jobs"), count(n.Maps, "map", "maps"),
		count(n.Reduces, "reduce", "reduces"), count(n.Replicas, "block replica", "block replicas"),
		count(n.Fetches, "shuffle fetch", "shuffle fetches"), HumanBytes(n.Memory))
}

// count is n and the noun, singular for one.
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// HumanBytes writes a byte count in MiB, or GiB from 1 GiB, one decimal.
func HumanBytes(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
