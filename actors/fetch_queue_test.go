package actors

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// TestFetchQueueServesLikeOneQueue drives the per-node queue and a single
// queue in announcement order (what a reducer kept before) with the same
// random announcements, losses and fetches, and checks every fetch takes
// the same node, maps and bytes from both.
func TestFetchQueueServesLikeOneQueue(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		perHost := seed%2 == 0
		var q fetchQueue
		var ref []MapOutput
		next := int32(0)
		for step := 0; step < 400; step++ {
			switch op := rng.IntN(10); {
			case op < 5:
				out := MapOutput{Map: next, Node: sched.NodeID(rng.IntN(6)), Bytes: rng.Int64N(1000)}
				next++
				q.push(out.Map, out.Node, out.Bytes)
				ref = append(ref, out)
			case op < 6 && next > 0:
				m := rng.Int32N(next)
				queued := slices.ContainsFunc(ref, func(o MapOutput) bool { return o.Map == m })
				require.Equal(t, queued, q.remove(m), "seed %d: remove %d", seed, m)
				ref = slices.DeleteFunc(ref, func(o MapOutput) bool { return o.Map == m })
			case len(ref) > 0:
				wantSrc, wantMaps, wantBytes := refPop(&ref, perHost)
				src, items, bytes := q.pop(perHost, nil)
				maps := mapsOf(items)
				require.Equal(t, wantSrc, src, "seed %d step %d", seed, step)
				require.Equal(t, wantMaps, maps, "seed %d step %d", seed, step)
				require.Equal(t, wantBytes, bytes, "seed %d step %d", seed, step)
			}
			require.Equal(t, len(ref), q.len(), "seed %d step %d", seed, step)
		}
	}
}

func mapsOf(items []fetchItem) []int32 {
	var maps []int32
	for _, it := range items {
		maps = append(maps, it.m)
	}
	return maps
}

// refPop is the single queue's fetch: the oldest output and, per host,
// every other on its node in announcement order.
func refPop(ref *[]MapOutput, perHost bool) (sched.NodeID, []int32, int64) {
	first := (*ref)[0]
	maps, bytes := []int32{first.Map}, first.Bytes
	rest := (*ref)[1:]
	if perHost {
		keep := rest[:0]
		for _, o := range rest {
			if o.Node != first.Node {
				keep = append(keep, o)
				continue
			}
			maps, bytes = append(maps, o.Map), bytes+o.Bytes
		}
		rest = keep
	}
	*ref = rest
	return first.Node, maps, bytes
}

func TestFetchQueueRemoveOfANodesOldestKeepsItsPlace(t *testing.T) {
	// Node 1's oldest output (map 0) is lost: node 1 now ranks by map 2,
	// after node 2's map 1.
	var q fetchQueue
	q.push(0, 1, 10)
	q.push(1, 2, 20)
	q.push(2, 1, 30)
	assert.True(t, q.remove(0))
	assert.False(t, q.remove(0), "already gone")
	src, items, bytes := q.pop(true, nil)
	assert.Equal(t, sched.NodeID(2), src)
	assert.Equal(t, []fetchItem{{1, 20}}, items)
	assert.Equal(t, int64(20), bytes)
	src, items, bytes = q.pop(true, nil)
	assert.Equal(t, sched.NodeID(1), src)
	assert.Equal(t, []fetchItem{{2, 30}}, items)
	assert.Equal(t, int64(30), bytes)
	assert.Zero(t, q.len())
}
