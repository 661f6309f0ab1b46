package placement

import (
	"fmt"
	"math/rand/v2"
)

// NoWriter asks for a random first replica, as for data loaded from outside
// the cluster.
const NoWriter = -1

// Topology is what placement knows of the cluster: the rack of each node,
// indexed by node ID, and which nodes are down (nil: none). Members, when
// set, lists each rack's nodes in ascending order (NewTopology fills it):
// a draw within one rack then scans the rack, not the cluster, and draws
// exactly what the scan of the cluster would.
type Topology struct {
	RackOf  []int32
	Down    []bool
	Members [][]int32
}

// NewTopology returns the topology of nodes in racks rackOf (rack IDs
// from 0), none down, with its racks' members listed.
func NewTopology(rackOf []int32) Topology {
	t := Topology{RackOf: rackOf, Down: make([]bool, len(rackOf))}
	for i, r := range rackOf {
		for int(r) >= len(t.Members) {
			t.Members = append(t.Members, nil)
		}
		t.Members[r] = append(t.Members[r], int32(i))
	}
	return t
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

// liveAtLeast reports whether k nodes are up, scanning only until it
// finds them.
func (t Topology) liveAtLeast(k int) bool {
	for i := range t.RackOf {
		if k <= 0 {
			break
		}
		if t.up(i) {
			k--
		}
	}
	return k <= 0
}

// rack returns the nodes of rack r in ascending order, or nil (every
// node) when the topology does not list them.
func (t Topology) rack(r int32) []int32 {
	if int(r) < len(t.Members) {
		return t.Members[r]
	}
	return nil
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
	if !topo.liveAtLeast(replicas) {
		return nil, fmt.Errorf("replication = %d: must be ≤ the %d live nodes of the cluster", replicas, topo.Live())
	}
	if writer >= n || writer < NoWriter || (writer != NoWriter && !topo.up(writer)) {
		return nil, fmt.Errorf("writer = %d: no such live node", writer)
	}
	chosen := []int{}
	used := map[int]bool{}
	pick := func(among []int32, ok func(int) bool) bool {
		node, found := randomNode(rng, n, among, func(i int) bool { return !used[i] && topo.up(i) && ok(i) })
		if found {
			chosen = append(chosen, node)
			used[node] = true
		}
		return found
	}
	if writer == NoWriter {
		pick(nil, func(int) bool { return true })
	} else {
		chosen, used[writer] = append(chosen, writer), true
	}
	first := chosen[0]
	if replicas >= 2 && !pick(nil, func(i int) bool { return topo.RackOf[i] != topo.RackOf[first] }) {
		pick(nil, func(int) bool { return true }) // a single rack
	}
	if replicas >= 3 {
		second := topo.RackOf[chosen[1]]
		if !pick(topo.rack(second), func(i int) bool { return topo.RackOf[i] == second }) {
			pick(nil, func(int) bool { return true }) // the second replica's rack is full
		}
	}
	for len(chosen) < replicas {
		pick(nil, func(int) bool { return true })
	}
	return chosen, nil
}

// randomNode draws uniformly among the nodes that satisfy ok. It tries a
// few uniform draws first, which almost always succeed in a cluster of many
// racks, and falls back to reservoir sampling over the nodes, so the
// result is uniform either way and found whenever a node qualifies. among,
// when not nil, holds in ascending order every node that may satisfy ok:
// the sampling visits the qualifying nodes in the same order, so it draws
// the same node from the same stream as a scan of all n.
func randomNode(rng *rand.Rand, n int, among []int32, ok func(int) bool) (int, bool) {
	for range rejectionTries {
		if i := rng.IntN(n); ok(i) {
			return i, true
		}
	}
	chosen, seen := -1, 0
	visit := func(i int) {
		if !ok(i) {
			return
		}
		seen++
		if rng.IntN(seen) == 0 {
			chosen = i
		}
	}
	if among == nil {
		for i := range n {
			visit(i)
		}
	} else {
		for _, i := range among {
			visit(int(i))
		}
	}
	return chosen, seen > 0
}

// rejectionTries bounds the uniform draws before the full scan.
const rejectionTries = 16
