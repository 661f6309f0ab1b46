package placement

import (
	"fmt"
	"math/rand/v2"
)

// NoWriter asks for a random first replica, as for data loaded from outside
// the cluster.
const NoWriter = -1

// Topology is what placement knows of the cluster: the rack of each live
// node, indexed by node ID.
type Topology struct {
	RackOf []int32
}

// RackAware places replicas of one block and returns their nodes, first
// replica first. writer is the writing node, or NoWriter. It fails when the
// cluster has fewer nodes than replicas. The cost is O(nodes) per call.
func RackAware(rng *rand.Rand, topo Topology, writer int, replicas int) ([]int, error) {
	n := len(topo.RackOf)
	if replicas < 1 {
		return nil, fmt.Errorf("replication = %d: must be ≥ 1", replicas)
	}
	if replicas > n {
		return nil, fmt.Errorf("replication = %d: must be ≤ the %d nodes of the cluster", replicas, n)
	}
	if writer >= n || writer < NoWriter {
		return nil, fmt.Errorf("writer = %d: no such node", writer)
	}
	first := writer
	if first == NoWriter {
		first = rng.IntN(n)
	}
	chosen := []int{first}
	used := map[int]bool{first: true}
	pick := func(ok func(int) bool) bool {
		node, found := randomNode(rng, n, func(i int) bool { return !used[i] && ok(i) })
		if found {
			chosen = append(chosen, node)
			used[node] = true
		}
		return found
	}
	if replicas >= 2 && !pick(func(i int) bool { return topo.RackOf[i] != topo.RackOf[first] }) {
		pick(func(int) bool { return true }) // a single rack
	}
	if replicas >= 3 && !pick(func(i int) bool { return topo.RackOf[i] == topo.RackOf[chosen[1]] }) {
		pick(func(int) bool { return true }) // the second replica's rack is full
	}
	for len(chosen) < replicas {
		pick(func(int) bool { return true })
	}
	return chosen, nil
}

// randomNode draws uniformly among the nodes that satisfy ok, by reservoir
// sampling over all n nodes, so the draw costs one pass and no allocation.
func randomNode(rng *rand.Rand, n int, ok func(int) bool) (int, bool) {
	chosen, seen := -1, 0
	for i := range n {
		if !ok(i) {
			continue
		}
		seen++
		if rng.IntN(seen) == 0 {
			chosen = i
		}
	}
	return chosen, seen > 0
}
