// Package placement decides where the replicas of a block go. It is pure:
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
package placement
