package placement

import (
	"fmt"
	"math/rand/v2"
)

// NoWriter asks for a random first replica, as for data loaded from outside
// the cluster.
const NoWriter = -1

// Topology is what placement knows of the cluster: the rack of each node,
// indexed by node ID, and which nodes are down (nil: none).
type Topology struct {
	RackOf []int32
	Down   []bool
}

func (t Topology) up(i int) bool { return t.Down == nil || !t.Down[i] }

// Live counts the nodes that are up.
func (t Topology) Live() int {
	n := 0
	for i := range t.RackOf {
		if t.up(i) {
			n++
		}
	}
	return n
}

// RackAware places replicas of one block on nodes that are up and returns
// them, first replica first. writer is the writing node, or NoWriter. It
// fails when fewer nodes are up than replicas. The expected cost is O(1) draws
// per replica when most nodes qualify, O(nodes) at worst.
func RackAware(rng *rand.Rand, topo Topology, writer int, replicas int) ([]int, error) {
	n := len(topo.RackOf)
	if replicas < 1 {
		return nil, fmt.Errorf("replication = %d: must be ≥ 1", replicas)
	}
	if live := topo.Live(); replicas > live {
		return nil, fmt.Errorf("replication = %d: must be ≤ the %d live nodes of the cluster", replicas, live)
	}
	if writer >= n || writer < NoWriter || (writer != NoWriter && !topo.up(writer)) {
		return nil, fmt.Errorf("writer = %d: no such live node", writer)
	}
	chosen := []int{}
	used := map[int]bool{}
	pick := func(ok func(int) bool) bool {
		node, found := randomNode(rng, n, func(i int) bool { return !used[i] && topo.up(i) && ok(i) })
		if found {
			chosen = append(chosen, node)
			used[node] = true
		}
		return found
	}
	if writer == NoWriter {
		pick(func(int) bool { return true })
	} else {
		chosen, used[writer] = append(chosen, writer), true
	}
	first := chosen[0]
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

// randomNode draws uniformly among the nodes that satisfy ok. It tries a
// few uniform draws first, which almost always succeed in a cluster of many
// racks, and falls back to reservoir sampling over all n nodes, so the
// result is uniform either way and found whenever a node qualifies.
func randomNode(rng *rand.Rand, n int, ok func(int) bool) (int, bool) {
	for range rejectionTries {
		if i := rng.IntN(n); ok(i) {
			return i, true
		}
	}
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

// rejectionTries bounds the uniform draws before the full scan.
const rejectionTries = 16
