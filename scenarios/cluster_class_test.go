package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A [[cluster.class]]'s mistakes are refused at their keys, in file
// order: a rack or node the cluster lacks, a node claimed by two
// classes, a name missing, taken or the one the metrics give [cluster]'s
// own nodes, a class naming no node, and a key out of the range
// [cluster]'s own is held to.
func TestClassErrorsAtTheirKeys(t *testing.T) {
	text := `[cluster]
racks = 2
nodes_per_rack = 2
[[cluster.class]]
name = "old"
racks = [1, 5]
speed = 0
[[cluster.class]]
name = "old"
nodes = [2, 9]
map_slots = 2000
[[cluster.class]]
name = ""
[[cluster.class]]
name = "cluster"
nodes = [0]
`
	_, err := Load("c.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		"c.toml:6:1: cluster.class[0].racks = 5: must be a rack of the cluster, 0 … 1",
		"c.toml:7:1: cluster.class[0].speed = 0: must be > 0 and at most 1000 (1: the speed the jobs' CPU costs are for)",
		`c.toml:9:1: cluster.class[1].name = "old": must differ from every other class's name`,
		`c.toml:10:1: cluster.class[1].nodes = 2: node 2 is in class "old" already (cluster.class[0]): a node is in one class at most`,
		"c.toml:10:1: cluster.class[1].nodes = 9: must be a node of the cluster, 0 … 3 (rack × nodes_per_rack + position)",
		"c.toml:11:1: cluster.class[1].map_slots = 2000: must be 0 … 1024",
		`c.toml:12:11: cluster.class[2] = "": must name its nodes: racks = [...] or nodes = [...]`,
		`c.toml:13:1: cluster.class[2].name = "": must name the class (run's header and report.html show it)`,
		`c.toml:15:1: cluster.class[3].name = "cluster": must not be "cluster", which names the nodes of no class in the hardware.<class>. metrics`,
	}, strings.Split(err.Error(), "\n"))
}

// A class sets only the keys it names; the rest are [cluster]'s, and
// the cluster's slots, over which a synthetic stream's load is offered,
// add up node by node.
func TestClassKeepsWhatItDoesNotSet(t *testing.T) {
	sc, err := Load("c.toml", []byte(`[cluster]
racks = 2
nodes_per_rack = 3
map_slots = 4
reduce_slots = 2
speed = 2
[[cluster.class]]
name = "old"
racks = [0]
nodes = [5]
map_slots = 1
nic = "100MB/s"
[[workload.synthetic]]
jobs = 3
load = 0.5
`), ".")
	require.NoError(t, err)
	c := sc.Config.Cluster
	for n, want := range []int{1, 1, 1, 4, 4, 1} {
		hw := c.ForNode(n)
		assert.Equal(t, want, hw.MapSlots, "node %d", n)
		assert.Equal(t, 2, hw.ReduceSlots, "node %d", n)
		assert.Equal(t, 2.0, hw.Speed, "node %d", n)
		assert.Empty(t, hw.Classes)
	}
	assert.Equal(t, 100e6, float64(c.ForNode(5).NIC))
	assert.Equal(t, float64(c.NIC), float64(c.ForNode(4).NIC))
	assert.Equal(t, [2]int{12, 12}, sc.Config.Slots())
	assert.Equal(t, "2 racks × 3 nodes, 4 map + 2 reduce slots each but 4 old (map_slots 1, nic 100MB/s)", c.Describe())
}

// --set on a class's key changes the copy alone: compare's variants each
// start from the file, so one variant's class never leaks into another's.
func TestSetOnAClassLeavesTheFileAlone(t *testing.T) {
	sc, err := Load("c.toml", []byte(`[cluster]
racks = 2
nodes_per_rack = 2
[[cluster.class]]
name = "old"
racks = [1]
speed = 0.5
[run]
until = "1m"
`), ".")
	require.NoError(t, err)
	fast, err := sc.WithSet("cluster.class[0].speed=1")
	require.NoError(t, err)
	slow, err := sc.WithSet("cluster.class[0].speed=0.1", "cluster.class[0].racks=[0]")
	require.NoError(t, err)
	assert.Equal(t, 0.5, sc.Config.Cluster.ForNode(2).Speed)
	assert.Equal(t, 1.0, fast.Config.Cluster.ForNode(2).Speed)
	assert.Equal(t, 0.1, slow.Config.Cluster.ForNode(0).Speed)
	assert.Equal(t, 1.0, slow.Config.Cluster.ForNode(2).Speed, "rack 1 is [cluster]'s in this copy")
	assert.Equal(t, []int{1}, sc.Config.Cluster.Classes[0].Racks)
}

// A key a class leaves out is [cluster]'s: an invalid one is reported
// there once, not again under each class.
func TestClassInheritsABadKeyWithoutRepeatingIt(t *testing.T) {
	_, err := Load("c.toml", []byte(`[cluster]
racks = 2
nodes_per_rack = 2
speed = 0
[[cluster.class]]
name = "old"
racks = [1]
map_slots = 1
[run]
until = "1m"
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		"c.toml:4:1: cluster.speed = 0: must be > 0 and at most 1000 (1: the speed the jobs' CPU costs are for)",
	}, strings.Split(err.Error(), "\n"))
}

// oldRackWithoutMemory is a cluster whose second rack, of the class
// "old", has no memory bandwidth, its class table open for more keys.
const oldRackWithoutMemory = `[cluster]
racks = 2
nodes_per_rack = 2
memory = "4GB/s"
[[cluster.class]]
name = "old"
racks = [1]
memory = "0B/s"
`

// What a feature needs of every node it needs of each class: a cache,
// memory bandwidth; QoS clients, map slots. A class that takes it away
// is refused under its own key.
func TestClassKeepsWhatFeaturesNeedOfEveryNode(t *testing.T) {
	_, err := Load("c.toml", []byte(oldRackWithoutMemory+`map_slots = 0
[cache]
capacity = "1GB"
[[workload.qos]]
clients = 1
[run]
until = "1m"
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`c.toml:8:1: cluster.class[0].memory = "0B/s": must be > 0 where the nodes cache: they read their cached blocks at their memory bandwidth`,
		"c.toml:9:1: cluster.class[0].map_slots = 0: must be ≥ 1: QoS tasks run in map slots on every node",
	}, strings.Split(err.Error(), "\n"))
}

// A class's cache is its nodes' own: one that caches nothing needs no
// memory bandwidth, one that caches needs [cache] to run, and a preload
// must fit the cache of each node it names.
func TestClassCache(t *testing.T) {
	const base = oldRackWithoutMemory + `cache = "0B"
[cache]
capacity = "1GB"
[[workload.jobs]]
job = [{ name = "a", input_file = "f", input_bytes = "512MiB" }]
`
	sc, err := Load("c.toml", []byte(base), ".")
	require.NoError(t, err, "the class caches nothing: it needs no memory link")
	assert.Equal(t, "0B", sc.Config.Cluster.CacheCapacity(2, sc.Config.Cache.Capacity).String())
	assert.Equal(t, "1GB", sc.Config.Cluster.CacheCapacity(1, sc.Config.Cache.Capacity).String())
	_, err = sc.WithSet("cluster.class[0].cache=2GB")
	assert.EqualError(t, err, `--set cluster.class[0].cache=2GB: cluster.class[0].memory = "0B/s": must be > 0 where the nodes cache: `+
		`they read their cached blocks at their memory bandwidth`)
	_, err = sc.WithSet("cache.capacity=0B", "cluster.class[0].cache=2GB", "cluster.class[0].memory=4GB/s")
	assert.ErrorContains(t, err, `cluster.class[0].cache = "2GB": needs cache.capacity > 0`)
	_, err = Load("c.toml", []byte(strings.NewReplacer(`cache = "0B"`, `cache = "200MiB"`, `memory = "0B/s"`, `memory = "4GB/s"`).Replace(base)+
		"[[cache.preload]]\nfile = \"f\"\nblocks = 4\nnodes = [1, 2]\n"), ".")
	assert.ErrorContains(t, err, "c.toml:16:1: cache.preload[0].blocks = 4: brings node 2's preloaded blocks to 256MiB (128MiB each), more than its cache of 200MiB")
}
