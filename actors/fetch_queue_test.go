package actors

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// TestFetchQueueServesLikeOneQueue drives reducers sharing one log and,
// for each, a single queue in announcement order (what a reducer kept
// before the log) with the same random operations: announcements on
// their way to every reducer, some lost or delivered out of turn, retries,
// losses, fetches, reducers ending and new ones joining. Every fetch must
// take the same node, maps and bytes from both, and a log whose reducers
// have fetched everything must hold nothing.
func TestFetchQueueServesLikeOneQueue(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		perHost := seed%2 == 0
		perRack := 0 // racks of 2 nodes, this reducer on node 0 in rack 0
		if seed%4 == 0 {
			perRack = 2
		}
		readers := 1 + rng.IntN(logReaders)
		log := &outputLog{}
		qs := make([]fetchQueue, readers)
		refs := make([][]MapOutput, readers)
		inbox := make([][]MapOutput, readers)
		for i := range qs {
			bit, ok := log.join()
			require.True(t, ok)
			qs[i] = newFetchQueue(log, bit)
		}
		next := int32(0)
		for step := 0; step < 600; step++ {
			i := rng.IntN(readers)
			switch op := rng.IntN(20); {
			case op < 6: // an announcement, on its way to each reducer but some
				out := MapOutput{Map: next, Node: sched.NodeID(rng.IntN(6)), Bytes: rng.Int64N(1000)}
				next++
				for j := range qs {
					if rng.IntN(8) > 0 {
						inbox[j] = append(inbox[j], out)
					}
				}
			case op < 8 && len(inbox[i]) > 0: // news arrives, now and then out of its order
				k := 0
				if rng.IntN(4) == 0 {
					k = rng.IntN(len(inbox[i]))
				}
				out := inbox[i][k]
				inbox[i] = slices.Delete(inbox[i], k, k+1)
				if !slices.ContainsFunc(refs[i], func(o MapOutput) bool { return o.Map == out.Map }) {
					qs[i].push(out.Map, out.Node, out.Bytes)
					refs[i] = append(refs[i], out)
				}
			case op < 10 && next > 0: // news one reducer alone hears: a retry
				out := MapOutput{Map: rng.Int32N(next), Node: sched.NodeID(rng.IntN(6)), Bytes: rng.Int64N(1000)}
				if !slices.ContainsFunc(refs[i], func(o MapOutput) bool { return o.Map == out.Map }) {
					qs[i].push(out.Map, out.Node, out.Bytes)
					refs[i] = append(refs[i], out)
				}
			case op < 11 && next > 0:
				m := rng.Int32N(next)
				queued := slices.ContainsFunc(refs[i], func(o MapOutput) bool { return o.Map == m })
				require.Equal(t, queued, qs[i].remove(m), "seed %d: remove %d", seed, m)
				refs[i] = slices.DeleteFunc(refs[i], func(o MapOutput) bool { return o.Map == m })
			case op < 12: // the reducer ends; another takes its place
				qs[i].leave()
				bit, ok := log.join()
				require.True(t, ok)
				qs[i], refs[i], inbox[i] = newFetchQueue(log, bit), nil, nil
			case len(refs[i]) > 0:
				wantSrc, wantMaps, wantBytes := refPop(&refs[i], perHost, perRack)
				src, items, _ := qs[i].popRack(perHost, 0, perRack, nil)
				maps, bytes := mapsOf(items)
				require.Equal(t, wantSrc, src, "seed %d step %d", seed, step)
				require.Equal(t, wantMaps, maps, "seed %d step %d", seed, step)
				require.Equal(t, wantBytes, bytes, "seed %d step %d", seed, step)
			}
			for j := range qs {
				require.Equal(t, len(refs[j]), qs[j].len(), "seed %d step %d reducer %d", seed, step, j)
			}
		}
		for i := range qs {
			for qs[i].len() > 0 {
				qs[i].pop(perHost, nil)
			}
		}
		for h, hl := range log.hosts.all() {
			assert.Nil(t, hl.out, "seed %d: node %d's list after every fetch", seed, h)
		}
	}
}

func mapsOf(items []fetchItem) ([]int32, int64) {
	var maps []int32
	var bytes int64
	for _, it := range items {
		maps, bytes = append(maps, it.m), bytes+it.whole
	}
	return maps, bytes
}

// refPop is the single queue's fetch: the oldest output and, per host,
// every other on its node in announcement order; with racks of perRack
// nodes and the node in another rack than node 0's, then every output on
// the rack's other nodes, node by node.
func refPop(ref *[]MapOutput, perHost bool, perRack int) (sched.NodeID, []int32, int64) {
	first := (*ref)[0]
	maps, bytes := []int32{first.Map}, first.Bytes
	rest := (*ref)[1:]
	take := func(node sched.NodeID) {
		keep := rest[:0]
		for _, o := range rest {
			if o.Node != node {
				keep = append(keep, o)
				continue
			}
			maps, bytes = append(maps, o.Map), bytes+o.Bytes
		}
		rest = keep
	}
	if perHost {
		take(first.Node)
	}
	if rack := int(first.Node) / max(perRack, 1); perRack > 0 && rack != 0 {
		for h := rack * perRack; h < (rack+1)*perRack; h++ {
			if h != int(first.Node) {
				take(sched.NodeID(h))
			}
		}
	}
	*ref = rest
	return first.Node, maps, bytes
}

// TestRackFetchTakesTheSameOutputsAsHostFetches fills two queues alike
// with outputs on 6 nodes in 3 racks of 2, the reducer on node 0, and
// empties one host by host and the other rack by rack: the same outputs,
// each from its own node, with the same bytes, in fewer fetches. The own
// rack's nodes (0 and 1) are fetched node by node in both, and a fetch
// from another rack that finds outputs on one node alone is no rack
// fetch.
func TestRackFetchTakesTheSameOutputsAsHostFetches(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 19))
	hostQ, rackQ := newFetchQueue(&outputLog{}, 1), newFetchQueue(&outputLog{}, 1)
	for m := range int32(200) {
		node, bytes := sched.NodeID(rng.IntN(6)), rng.Int64N(1000)
		hostQ.push(m, node, bytes)
		rackQ.push(m, node, bytes)
	}
	drain := func(q *fetchQueue, perRack int) (all []fetchItem, fetches, racks int) {
		for q.len() > 0 {
			src, items, rack := q.popRack(true, 0, perRack, nil)
			require.Equal(t, src, items[0].src)
			for _, it := range items {
				require.True(t, rack || it.src == src, "a host fetch reads one node")
				require.Equal(t, int(src)/2, int(it.src)/2, "a fetch reads one rack")
			}
			if rack {
				require.NotEqual(t, 0, int(src)/2, "the own rack is fetched node by node")
				racks++
			}
			all, fetches = append(all, items...), fetches+1
		}
		return all, fetches, racks
	}
	byHost, hostFetches, hostRacks := drain(&hostQ, 0)
	byRack, rackFetches, rackRacks := drain(&rackQ, 2)
	order := func(a, b fetchItem) int { return int(a.m - b.m) }
	slices.SortFunc(byHost, order)
	slices.SortFunc(byRack, order)
	assert.Equal(t, byHost, byRack, "the same outputs, from the same nodes, of the same bytes")
	assert.Len(t, byRack, 200)
	assert.Zero(t, hostRacks)
	assert.Positive(t, rackRacks)
	assert.Less(t, rackFetches, hostFetches)

	q := newFetchQueue(&outputLog{}, 1)
	q.push(0, 4, 10)
	q.push(1, 4, 20)
	src, items, rack := q.popRack(true, 0, 2, nil)
	assert.Equal(t, sched.NodeID(4), src)
	assert.Equal(t, []fetchItem{{m: 0, src: 4, whole: 10}, {m: 1, src: 4, whole: 20}}, items)
	assert.False(t, rack, "outputs on one node of the rack alone: a host fetch")
}

func TestFetchQueueRemoveOfANodesOldestKeepsItsPlace(t *testing.T) {
	// Node 1's oldest output (map 0) is lost: node 1 now ranks by map 2,
	// after node 2's map 1.
	log := &outputLog{}
	bit, _ := log.join()
	q := newFetchQueue(log, bit)
	q.push(0, 1, 10)
	q.push(1, 2, 20)
	q.push(2, 1, 30)
	assert.True(t, q.remove(0))
	assert.False(t, q.remove(0), "already gone")
	src, items := q.pop(true, nil)
	assert.Equal(t, sched.NodeID(2), src)
	assert.Equal(t, []fetchItem{{m: 1, src: 2, whole: 20}}, items)
	src, items = q.pop(true, nil)
	assert.Equal(t, sched.NodeID(1), src)
	assert.Equal(t, []fetchItem{{m: 2, src: 1, whole: 30}}, items)
	assert.Zero(t, q.len())
}

func TestFetchQueueRemoveOfANodesOnlyOutputLeavesAStaleEntry(t *testing.T) {
	// Node 1's only output (map 0) is lost while another reducer keeps
	// it in the log: the heap's entry for node 1 is stale, with no output
	// of this reducer's left there, and is dropped at the top. Node 1's
	// next output (map 2) ranks after node 2's map 1.
	_, qs := sharedQueues(2)
	qs[1].push(0, 1, 10)
	qs[0].push(0, 1, 10)
	qs[0].push(1, 2, 20)
	assert.True(t, qs[0].remove(0))
	qs[0].push(2, 1, 30)
	src, items := qs[0].pop(true, nil)
	assert.Equal(t, sched.NodeID(2), src)
	assert.Equal(t, []fetchItem{{m: 1, src: 2, whole: 20}}, items)
	src, items = qs[0].pop(true, nil)
	assert.Equal(t, sched.NodeID(1), src)
	assert.Equal(t, []fetchItem{{m: 2, src: 1, whole: 30}}, items)
	assert.Zero(t, qs[0].len())
}

func TestFetchQueueSharesTheLogOfOneAnnouncement(t *testing.T) {
	// Two reducers hear the same news in turn: each output is logged
	// once. A third hears it in another order (its launch's list): its
	// outputs are logged anew where the order would part.
	log, qs := sharedQueues(3)
	for m := range int32(4) {
		qs[0].push(m, 1, 10)
		qs[1].push(m, 1, 10)
	}
	assert.Len(t, log.hosts.at(1).out, 4, "shared")
	qs[2].push(3, 1, 10)
	qs[2].push(2, 1, 10)
	assert.Len(t, log.hosts.at(1).out, 5, "map 2 after map 3 is logged again")
	src, items := qs[2].pop(true, nil)
	assert.Equal(t, sched.NodeID(1), src)
	maps, _ := mapsOf(items)
	assert.Equal(t, []int32{3, 2}, maps)
	qs[0].leave()
	qs[1].pop(true, nil)
	assert.Nil(t, log.hosts.at(1).out, "nothing left queued")
	assert.Zero(t, log.readers&^qs[1].bit&^qs[2].bit, "the first reducer's bit is free")
}

// sharedQueues makes n reducers' queues reading one log.
func sharedQueues(n int) (*outputLog, []fetchQueue) {
	log := &outputLog{}
	qs := make([]fetchQueue, n)
	for i := range qs {
		bit, _ := log.join()
		qs[i] = newFetchQueue(log, bit)
	}
	return log, qs
}

// Two maps share a byte of fetch states: setting one leaves the other.
func TestFetchStatesKeepEachMapsOwn(t *testing.T) {
	s := newFetchStates(5)
	assert.Equal(t, 5, s.len())
	want := make([]fetchState, 5)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m, st := rng.Int32N(5), fetchState(rng.IntN(int(fetchDone)+1))
		s.set(m, st)
		want[m] = st
		for i := range want {
			require.Equal(t, want[i], s.get(int32(i)), "map %d", i)
		}
	}
}

// A table by node id makes only the pages of the ids used and yields its
// entries in id order.
func TestByNodeMakesThePagesItUses(t *testing.T) {
	var b byNode[int32]
	*b.at(9_999) = 3
	*b.at(5) = 1
	*b.at(6) = 2
	made := 0
	for _, p := range b.pages {
		if p != nil {
			made++
		}
	}
	assert.Equal(t, 2, made, "ids 5 and 6 share a page; 9,999 has its own")
	var ids, vals []int32
	for id, v := range b.all() {
		if *v != 0 {
			ids, vals = append(ids, id), append(vals, *v)
		}
	}
	assert.Equal(t, []int32{5, 6, 9_999}, ids)
	assert.Equal(t, []int32{1, 2, 3}, vals)
	assert.Equal(t, int32(3), *b.at(9_999))
}

// refOrder is hostOrder under container/heap, the reference for its
// written-out push and pop.
type refOrder []hostHead

func (h refOrder) Len() int           { return len(h) }
func (h refOrder) Less(i, j int) bool { return h[i].seq < h[j].seq }
func (h refOrder) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refOrder) Push(x any)        { *h = append(*h, x.(hostHead)) }
func (h *refOrder) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TestHostOrderIsContainerHeap checks that hostOrder pops what
// container/heap pops, ties included, and leaves the same array.
func TestHostOrderIsContainerHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 19))
	var got hostOrder
	var want refOrder
	for step := range 20_000 {
		if len(got) == 0 || rng.IntN(100) < 55 {
			x := hostHead{seq: uint32(rng.IntN(40)), host: int32(step)} // many equal seqs
			got.push(x)
			heap.Push(&want, x)
		} else {
			require.Equal(t, heap.Pop(&want).(hostHead), got.pop(), "step %d", step)
		}
		require.Equal(t, []hostHead(want), []hostHead(got), "step %d", step)
	}
}

// TestRackFetchFailedBySourceRequeuesTheOthers runs a reducer on node 0
// in racks of 2 with outputs of maps 0 to 3 on nodes 2 and 3 (rack 1):
// one rack fetch takes all four. Node 3 crashes during it: the outputs of
// node 2 are queued again at once, not failed; those of node 3 wait to
// be retried and come back to the queue on retry. A fetch that failed
// because a node outside it crashed (the reducer's own) fails whole.
func TestRackFetchFailedBySourceRequeuesTheOthers(t *testing.T) {
	r := newRun(&LaunchTask{Attempt: sched.Attempt{Kind: sched.Reduce}, Task: TaskSpec{Maps: 4, Reduces: 1}}, 0)
	r.queue = newFetchQueue(&outputLog{}, 1)
	for m, node := range []sched.NodeID{2, 3, 2, 3} {
		r.learn(MapOutput{Map: int32(m), Node: node, Bytes: 100 * int64(m+1)})
	}
	part, src, bytes, rack := r.nextFetch(true, 0, 2)
	require.True(t, rack)
	assert.Equal(t, sched.NodeID(2), src)
	assert.Equal(t, int64(100+200+300+400), bytes)
	assert.Equal(t, []sched.NodeID{2, 3}, r.fetchSources(part))

	failed := r.spare(r.fetchFailed(part), 3)
	assert.Equal(t, []fetchItem{{m: 1, src: 3, whole: 200}, {m: 3, src: 3, whole: 400}}, failed)
	assert.Equal(t, 2, r.queue.len(), "node 2's outputs queued again")
	for m, want := range []fetchState{fetchQueued, fetchRetry, fetchQueued, fetchRetry} {
		assert.Equal(t, want, r.state.get(int32(m)), "map %d", m)
	}
	r.retry(failed)
	assert.Equal(t, 4, r.queue.len())
	part, _, bytes, rack = r.nextFetch(true, 0, 2)
	assert.True(t, rack)
	assert.Equal(t, int64(1000), bytes, "every output fetched again, in one rack fetch")

	failed = r.spare(r.fetchFailed(part), 0)
	assert.Len(t, failed, 4, "the reducer's own node crashed: the whole fetch failed")
	assert.Zero(t, r.queue.len())
}
