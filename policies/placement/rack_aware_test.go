package placement

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func racks(racks, perRack int) Topology {
	var t Topology
	for r := range racks {
		for range perRack {
			t.RackOf = append(t.RackOf, int32(r))
		}
	}
	return t
}

func TestRackAwareSpansTwoRacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	topo := racks(4, 10)
	firstRacks := make(map[int32]int)
	for range 2000 {
		nodes, err := RackAware(rng, topo, NoWriter, 3)
		require.NoError(t, err)
		require.Len(t, nodes, 3)
		assert.NotEqual(t, nodes[0], nodes[1])
		assert.NotEqual(t, nodes[1], nodes[2])
		assert.NotEqual(t, nodes[0], nodes[2])
		r0, r1, r2 := topo.RackOf[nodes[0]], topo.RackOf[nodes[1]], topo.RackOf[nodes[2]]
		assert.NotEqual(t, r0, r1, "second replica on another rack")
		assert.Equal(t, r1, r2, "third replica on the second's rack")
		firstRacks[r0]++
	}
	// The first replica is uniform over the 4 racks: each gets 500 ± 100
	// of 2000 draws (more than 4 standard deviations of the binomial).
	for r := range int32(4) {
		assert.InDelta(t, 500, firstRacks[r], 100, "rack %d", r)
	}
}

func TestRackAwareWriterFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	nodes, err := RackAware(rng, racks(2, 3), 4, 3)
	require.NoError(t, err)
	assert.Equal(t, 4, nodes[0])
	assert.Equal(t, int32(0), racks(2, 3).RackOf[nodes[1]])
}

func TestRackAwareSmallClusters(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// One rack: three distinct nodes of it.
	nodes, err := RackAware(rng, racks(1, 3), NoWriter, 3)
	require.NoError(t, err)
	assert.ElementsMatch(t, []int{0, 1, 2}, nodes)
	// More replicas than nodes.
	_, err = RackAware(rng, racks(2, 1), NoWriter, 3)
	assert.EqualError(t, err, "replication = 3: must be ≤ the 2 live nodes of the cluster")
	// Rack 1 has a single node: once it holds the second replica, the third
	// goes to the one node of rack 0 not yet used.
	lopsided := Topology{RackOf: []int32{0, 0, 1}}
	nodes, err = RackAware(rng, lopsided, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 1}, nodes)
	// Five replicas on 2 racks of 3: all distinct.
	nodes, err = RackAware(rng, racks(2, 3), NoWriter, 5)
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, n := range nodes {
		seen[n] = true
	}
	assert.Len(t, seen, 5)
}

func TestRackAwareBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	_, err := RackAware(rng, racks(2, 2), NoWriter, 0)
	assert.EqualError(t, err, "replication = 0: must be ≥ 1")
	_, err = RackAware(rng, racks(2, 2), 9, 2)
	assert.EqualError(t, err, "writer = 9: no such live node")
}

func TestRackAwareSkipsDownNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	topo := racks(2, 3)
	topo.Down = []bool{true, false, true, true, false, false}
	for range 200 {
		nodes, err := RackAware(rng, topo, NoWriter, 3)
		require.NoError(t, err)
		assert.ElementsMatch(t, []int{1, 4, 5}, nodes)
	}
	_, err := RackAware(rng, topo, 0, 2)
	assert.EqualError(t, err, "writer = 0: no such live node")
	_, err = RackAware(rng, topo, NoWriter, 4)
	assert.EqualError(t, err, "replication = 4: must be ≤ the 3 live nodes of the cluster")
}

func TestRackAwareIsSeeded(t *testing.T) {
	draw := func() []int {
		rng := rand.New(rand.NewPCG(42, 0))
		var all []int
		for range 50 {
			nodes, err := RackAware(rng, racks(5, 8), NoWriter, 3)
			require.NoError(t, err)
			all = append(all, nodes...)
		}
		return all
	}
	assert.Equal(t, draw(), draw())
}

// Listing the racks' members changes no placement: the same stream gives
// the same replicas, block after block, with nodes down and racks of
// unequal sizes, as scanning the whole cluster does.
func TestRackMembersPlaceAsTheScan(t *testing.T) {
	rackOf := make([]int32, 997)
	for i := range rackOf {
		rackOf[i] = int32((i * 7919) % 41) // members interleaved across IDs
	}
	listed := NewTopology(rackOf)
	for i := 0; i < len(rackOf); i += 13 {
		listed.Down[i] = true
	}
	scanned := Topology{RackOf: rackOf, Down: listed.Down}
	a, b := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	for block := range 5000 {
		writer := NoWriter
		if block%3 == 0 {
			writer = (block * 31) % len(rackOf)
			if listed.Down[writer] {
				writer = NoWriter
			}
		}
		got, err := RackAware(a, listed, writer, 3)
		require.NoError(t, err)
		want, err := RackAware(b, scanned, writer, 3)
		require.NoError(t, err)
		require.Equal(t, want, got, "block %d", block)
		assert.Equal(t, rackOf[got[1]], rackOf[got[2]], "block %d: the third replica shares the second's rack", block)
	}
}
