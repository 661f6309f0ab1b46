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
	// output, or each node's outputs at once with fetch_per_host.
	Fetches int64
}

// Needs counts what the run holds; sums saturate instead of
// overflowing. The configuration must be valid.
func (c *Config) Needs() Needs {
	n := Needs{Nodes: c.Nodes()}
	block := max(int64(c.HDFS.BlockSize), 1)
	for _, j := range c.Jobs() {
		n.Jobs++
		maps, reduces := int64(j.MapCount(block)), int64(j.Reduces)
		n.Maps = addSat(n.Maps, maps)
		n.Reduces = addSat(n.Reduces, reduces)
		n.Replicas = addSat(n.Replicas, mulSat(maps, int64(c.HDFS.Replication)))
		sources := maps
		if c.Tasks.FetchPerHost {
			sources = min(maps, int64(n.Nodes))
		}
		n.Fetches = addSat(n.Fetches, mulSat(sources, reduces))
	}
	return n
}

func (n Needs) String() string {
	return fmt.Sprintf("%d nodes, %d jobs, %d maps and %d reduces, %d block replicas, %d shuffle fetches",
		n.Nodes, n.Jobs, n.Maps, n.Reduces, n.Replicas, n.Fetches)
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
