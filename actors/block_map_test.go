package actors

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

func fourRacksOfTen() []sched.RackID {
	rackOf := make([]sched.RackID, 40)
	for i := range rackOf {
		rackOf[i] = sched.RackID(i / 10)
	}
	return rackOf
}

func TestBlockMapSplitsAndPlaces(t *testing.T) {
	rackOf := fourRacksOfTen()
	b := newBlockMap(128, 3, rackOf, 1)
	f, err := b.ensure("logs", 1000, 128, 0) // 7 blocks of 128 and one of 104
	require.NoError(t, err)
	require.Len(t, f.blocks, 8)
	var total int64
	for _, blk := range f.blocks {
		total += blk.bytes
		require.Len(t, blk.replicas, 3)
		racks := map[sched.RackID]bool{}
		for _, n := range blk.replicas {
			racks[rackOf[n]] = true
		}
		assert.Len(t, racks, 2, "three replicas on exactly two racks")
	}
	assert.Equal(t, int64(1000), total)
	assert.Equal(t, int64(104), f.blocks[7].bytes)

	again, err := b.ensure("logs", 1000, 128, 0)
	require.NoError(t, err)
	assert.Same(t, f, again, "jobs reading one file share its blocks")
	_, err = b.ensure("logs", 999, 128, 0)
	assert.EqualError(t, err, `file "logs" is 1000 bytes, not 999`)

	empty, err := b.ensure("empty", 0, 128, 0)
	require.NoError(t, err)
	assert.Len(t, empty.blocks, 1)
	// A job of 40 maps that reads nothing gets 40 empty splits, each
	// placed as a block is.
	splits, err := b.ensureSplits("splits", 0, 128, 0, 40)
	require.NoError(t, err)
	require.Len(t, splits.blocks, 40)
	for _, blk := range splits.blocks {
		assert.Zero(t, blk.bytes)
		assert.Len(t, blk.replicas, 3)
	}
	some, err := b.ensureSplits("some", 1000, 128, 0, 40)
	require.NoError(t, err)
	assert.Len(t, some.blocks, 8, "a file with bytes splits by its blocks")
}

func TestBlockMapSourcePrefersClosest(t *testing.T) {
	b := newBlockMap(128, 3, fourRacksOfTen(), 2)
	rng := rand.New(rand.NewPCG(9, 9)) // the attempt's stream
	blk := &block{bytes: 128, replicas: []sched.NodeID{3, 25, 27}}
	tests := []struct {
		reader sched.NodeID
		want   []sched.NodeID
		loc    sched.Locality
	}{
		{3, []sched.NodeID{3}, sched.NodeLocal},
		{7, []sched.NodeID{3}, sched.RackLocal},
		{21, []sched.NodeID{25, 27}, sched.RackLocal},
		{35, []sched.NodeID{3, 25, 27}, sched.OffRack},
	}
	for _, tt := range tests {
		seen := map[sched.NodeID]bool{}
		for range 100 {
			n, loc, ok := b.source(blk, tt.reader, rng)
			require.True(t, ok)
			assert.Equal(t, tt.loc, loc)
			seen[n] = true
		}
		var got []sched.NodeID
		for _, n := range tt.want {
			if seen[n] {
				got = append(got, n)
			}
		}
		assert.Equal(t, tt.want, got, "reader %d spreads over every closest replica", tt.reader)
		assert.Len(t, seen, len(tt.want))
	}
}

func TestBlockMapNodeDown(t *testing.T) {
	b := newBlockMap(100, 3, fourRacksOfTen(), 3)
	rng := rand.New(rand.NewPCG(9, 9)) // the attempt's stream
	f, err := b.ensure("in", 5000, 100, 0)
	require.NoError(t, err)
	victim := f.blocks[0].replicas[0]
	b.nodeDown(victim)
	for _, blk := range f.blocks {
		assert.NotContains(t, blk.replicas, victim)
	}
	assert.Len(t, f.blocks[0].replicas, 2)
	for range 50 {
		nodes, err := b.pipeline(sched.NodeID((victim+1)%40), rng, 0)
		require.NoError(t, err)
		assert.NotContains(t, nodes, victim)
	}
	lonely := &block{replicas: nil}
	_, _, ok := b.source(lonely, 0, rng)
	assert.False(t, ok)
}

func TestBlockMapForgetsFilesAndCompactsNodeLists(t *testing.T) {
	b := newBlockMap(128, 3, fourRacksOfTen(), 3)
	keep, err := b.ensure("keep", 128*40, 128, 0)
	require.NoError(t, err)
	for i := range 50 {
		_, err := b.ensure(fmt.Sprintf("input-%d", i), 128*40, 128, 0)
		require.NoError(t, err)
		b.forget(fmt.Sprintf("input-%d", i))
	}
	b.forget("never stored") // a no-op
	require.Len(t, b.files, 1)
	refs := 0
	for node, list := range b.onNode {
		live := 0
		for _, r := range list {
			if !r.file.forgotten {
				live++
			}
		}
		assert.LessOrEqual(t, len(list)-live, live+1, "node %d: forgotten refs outnumber live ones", node)
		refs += live
	}
	assert.Equal(t, 40*3, refs, "every replica of the kept file is still listed")

	again, err := b.ensure("input-7", 128*40, 128, 0)
	require.NoError(t, err, "a forgotten name can be stored afresh")
	assert.False(t, again.forgotten)

	// A node going down drops its replicas of live files only.
	b.nodeDown(keep.blocks[0].replicas[0])
	assert.Len(t, keep.blocks[0].replicas, 2)
}

// addReplica and removeReplica keep a block's live list and the node's
// index in step, and add no second replica to a node.
func TestAddAndRemoveReplica(t *testing.T) {
	b := newBlockMap(100, 2, []sched.RackID{0, 0, 1, 1}, 1)
	f, err := b.ensure("f", 100, 100, 0)
	require.NoError(t, err)
	ref := blockRef{f, 0}
	held := slices.Clone(f.blocks[0].replicas)
	var spare sched.NodeID
	for n := range sched.NodeID(4) {
		if !slices.Contains(held, n) {
			spare = n
		}
	}
	assert.True(t, b.addReplica(ref, spare))
	assert.False(t, b.addReplica(ref, spare))
	assert.Equal(t, append(slices.Clone(held), spare), f.blocks[0].replicas)
	assert.Contains(t, b.onNode[spare], ref)
	assert.True(t, b.removeReplica(ref, held[0]))
	assert.False(t, b.removeReplica(ref, held[0]))
	assert.NotContains(t, f.blocks[0].replicas, held[0])
	assert.NotContains(t, b.onNode[held[0]], ref)
}

// Each node's stored bytes are those of the live replicas it holds,
// whatever the order of stores, copies, removals, forgets and failures:
// checked against a recount from the files after every step.
func TestBlockMapCountsTheBytesEachNodeStores(t *testing.T) {
	rackOf := []sched.RackID{0, 0, 0, 1, 1, 1}
	b := newBlockMap(100, 3, rackOf, 7)
	rng := rand.New(rand.NewPCG(3, 4))
	var names []string
	var peak int64
	recount := func() []int64 {
		want := make([]int64, len(rackOf))
		for _, f := range b.files {
			for _, blk := range f.blocks {
				for _, n := range blk.replicas {
					want[n] += blk.bytes
				}
			}
		}
		return want
	}
	for step := range 2000 {
		node := sched.NodeID(rng.IntN(len(rackOf)))
		switch op := rng.IntN(6); {
		case (op == 0 || len(names) == 0) && countLive(b) >= 3:
			name := fmt.Sprintf("f%d", step)
			_, err := b.ensure(name, 1+rng.Int64N(450), 100, 0)
			require.NoError(t, err)
			names = append(names, name)
		case op == 1 && len(names) > 0:
			k := rng.IntN(len(names))
			b.forget(names[k])
			names = slices.Delete(names, k, k+1)
		case op == 2 && len(names) > 0 && !b.topo.Down[node]:
			f := b.files[names[rng.IntN(len(names))]]
			b.addReplica(blockRef{f, rng.IntN(len(f.blocks))}, node)
		case op == 3 && len(names) > 0:
			f := b.files[names[rng.IntN(len(names))]]
			b.removeReplica(blockRef{f, rng.IntN(len(f.blocks))}, node)
		case op == 4 && !b.topo.Down[node]:
			b.nodeDown(node)
		case op == 5 && b.topo.Down[node]:
			b.nodeUp(node, rng.IntN(2) == 0)
		}
		require.Equal(t, recount(), b.stored, "step %d", step)
		require.NoError(t, b.checkStored())
		for n := range rackOf {
			require.GreaterOrEqual(t, b.held[n], int64(0))
			peak = max(peak, b.stored[n]+b.held[n])
		}
		require.Equal(t, peak, b.peak, "step %d: the fullest disk so far", step)
	}
	assert.Positive(t, peak)
	b.stored[0]++
	assert.ErrorContains(t, b.checkStored(), "node 0 counts", "a count off by a byte")
}

func countLive(b *blockMap) int {
	live := 0
	for _, down := range b.topo.Down {
		if !down {
			live++
		}
	}
	return live
}

// A removed replica's bytes stay on its node's disk (held) until a new
// replica there overwrites them, or the disk is lost; a disk kept over a
// failure keeps them.
func TestRemovedReplicasAreHeldUntilOverwritten(t *testing.T) {
	b := newBlockMap(100, 1, []sched.RackID{0, 1}, 1)
	big, err := b.ensure("big", 300, 100, 0)
	require.NoError(t, err)
	small, err := b.ensure("small", 60, 100, 0)
	require.NoError(t, err)
	for _, f := range []*file{big, small} {
		for i := range f.blocks {
			require.True(t, b.removeReplica(blockRef{f, i}, f.blocks[i].replicas[0]))
		}
	}
	assert.Equal(t, []int64{0, 0}, b.stored)
	assert.Equal(t, int64(360), b.held[0]+b.held[1], "every removed byte is held")
	on := sched.NodeID(0)
	if b.held[1] > b.held[0] {
		on = 1
	}
	peak, held := b.peak, b.held[on]

	require.True(t, b.addReplica(blockRef{small, 0}, on))
	assert.Equal(t, held-60, b.held[on], "a new replica overwrites held bytes first")
	assert.Equal(t, peak, b.peak, "and takes no new space")
	b.nodeDown(on)
	b.nodeUp(on, true)
	assert.Equal(t, held-60, b.held[on], "a disk kept over a failure keeps them")
	assert.Equal(t, int64(60), b.stored[on])
	b.nodeDown(on)
	b.nodeUp(on, false)
	assert.Zero(t, b.held[on], "a lost disk loses them")
	assert.Zero(t, b.stored[on])
}

// A committed output is stored as parts on its attempts' write pipelines,
// a block or more each; a pipeline node down at the commit keeps its
// replica on its disk, back when the node is; what was not committed is
// never stored.
func TestCommittedOutputIsStoredWhereItWasWritten(t *testing.T) {
	b := newBlockMap(100, 3, fourRacksOfTen(), 4)
	job := sched.JobID(7)
	r0 := sched.Attempt{Job: job, Kind: sched.Reduce, Task: 0, Attempt: 1}
	r0first := sched.Attempt{Job: job, Kind: sched.Reduce, Task: 0}
	r1 := sched.Attempt{Job: job, Kind: sched.Reduce, Task: 1}
	b.writing(r0first, []sched.NodeID{1, 2, 15}, 250) // a copy that lost
	b.writing(r0, []sched.NodeID{3, 4, 25}, 250)
	b.writing(r1, []sched.NodeID{5, 6, 35}, 40)
	b.nodeDown(6)
	require.NoError(t, b.commit(job, "j0/etl", false, []sched.Attempt{r0, r1}))

	part := b.files["j0/etl/part-r-00000"]
	require.NotNil(t, part)
	assert.Equal(t, int64(250), part.size)
	require.Len(t, part.blocks, 3)
	for i, want := range []int64{100, 100, 50} {
		assert.Equal(t, want, part.blocks[i].bytes)
		assert.Equal(t, []sched.NodeID{3, 4, 25}, part.blocks[i].replicas)
	}
	assert.Equal(t, int64(250), b.stored[3])
	assert.Zero(t, b.stored[1], "the losing copy's write was never committed")
	other := b.files["j0/etl/part-r-00001"]
	require.NotNil(t, other)
	assert.Equal(t, []sched.NodeID{5, 35}, other.blocks[0].replicas, "node 6 is down")
	assert.Equal(t, []blockRef{{other, 0}}, b.nodeUp(6, true))
	assert.Equal(t, []sched.NodeID{5, 35, 6}, other.blocks[0].replicas)
	assert.Empty(t, b.written, "the job's writes are forgotten once committed")

	err := b.commit(job, "j0/etl", false, []sched.Attempt{r1})
	assert.ErrorContains(t, err, "no write of it was recorded")

	// A job reading the parts reads them as stored; one never committed
	// is an error, not a file placed afresh.
	v, err := b.view("input-8", []workload.FilePart{{File: "j0/etl/part-r-00000", Bytes: 250}, {File: "j0/etl/part-r-00001", Bytes: 40}}, 100, true)
	require.NoError(t, err)
	assert.Equal(t, 4, v.count())
	assert.Same(t, part, v.parts[0].file)
	_, err = b.view("input-9", []workload.FilePart{{File: "j0/etl/part-r-00002", Bytes: 40}}, 100, true)
	assert.ErrorContains(t, err, `input "j0/etl/part-r-00002" was never committed`)
	assert.NotContains(t, b.files, "j0/etl/part-r-00002")
}

// A write pipeline has the file's replicas when it names them, the
// writer first, else the cluster's.
func TestPipelineOfAFilesReplication(t *testing.T) {
	b := newBlockMap(100, 3, fourRacksOfTen(), 5)
	rng := b.attemptStream(sched.Attempt{Job: 1})
	one, err := b.pipeline(7, rng, 1)
	require.NoError(t, err)
	assert.Equal(t, []sched.NodeID{7}, one)
	three, err := b.pipeline(7, rng, 0)
	require.NoError(t, err)
	assert.Len(t, three, 3)
	assert.Equal(t, sched.NodeID(7), three[0])
}
