// Package placement decides where the replicas of a block go, and which
// racks a reduce phase runs in. It is pure:
// randomness comes from the *rand.Rand the caller passes, which the caller
// derives from the run's workload seed.
//
// RackAware is HDFS's default policy: the first replica on the writer's
// node (or a random node when the writer is outside the cluster), the second
// on a node of another rack, the third on another node of the second's rack,
// and any further replicas on random nodes not yet used. Every block of
// three replicas therefore spans exactly two racks when there are at least
// two racks.
//
//	topo := placement.Topology{RackOf: []int32{0, 0, 1, 1}} // 4 nodes, 2 racks
//	nodes, err := placement.RackAware(rng, topo, placement.NoWriter, 3)
//
// MantriShares is Mantri's network-aware placement of a reduce phase: the
// share of its reduces each rack runs so that the slowest rack link ends
// the shuffle soonest, and LargestRemainder turns shares into task
// counts. Three racks holding 3 bytes each behind 1 B/s links spread
// their reduces evenly, and the shuffle takes 2 s where two of three
// reduces in one rack take 4 s:
//
//	shares, secs, err := placement.MantriShares(
//		[]float64{3, 3, 3}, []float64{1, 1, 1}, []float64{1, 1, 1}) // ⅓ each, 2
//	counts := placement.LargestRemainder(shares, 3, 0)             // 1, 1, 1
package placement
