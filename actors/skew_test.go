package actors

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// A 10,000-block file at CoV 0.34 keeps its block count and sums to its
// size exactly; its blocks' CoV is within 3% of 0.34; its replicas are
// where the even split puts them; a job reading it with another CoV is
// refused.
func TestASkewedFileSplitsUnevenlyAndExactly(t *testing.T) {
	const n, blockSize = 10_000, 128 << 20
	size := int64(n)*blockSize - 12345
	even, err := newBlockMap(blockSize, 3, fourRacksOfTen(), 5).ensure("logs", size, blockSize, 0)
	require.NoError(t, err)
	b := newBlockMap(blockSize, 3, fourRacksOfTen(), 5)
	f, err := b.ensure("logs", size, blockSize, 0.34)
	require.NoError(t, err)
	require.Len(t, f.blocks, n)
	var sum int64
	var sq float64
	mean := float64(size) / n
	bigger := 0
	for i, blk := range f.blocks {
		sum += blk.bytes
		sq += (float64(blk.bytes) - mean) * (float64(blk.bytes) - mean)
		if blk.bytes > blockSize {
			bigger++
		}
		require.Equal(t, even.blocks[i].replicas, blk.replicas, "block %d placed as without skew", i)
	}
	assert.Equal(t, size, sum)
	assert.InEpsilon(t, 0.34, math.Sqrt(sq/n)/mean, 0.03)
	assert.Greater(t, bigger, n/4, "an unequal split: many blocks exceed the block size")

	_, err = b.ensure("logs", size, blockSize, 3.1)
	assert.EqualError(t, err, `file "logs" has input_cov 0.34, not 3.1`)
}

// Each map's spill follows its block, and the spills and the reduces'
// skewed partitions of every map output sum exactly.
func TestSpillFollowsInputAndPartitionsSumExactly(t *testing.T) {
	s, _ := testCore(nil)
	spec := workload.JobSpec{Name: "skew", InputBytes: 1000, Reduces: 7, ShuffleBytes: 777_777, OutputBytes: 5_555,
		InputCoV: 1, PartitionCoV: 2}
	s.submit(0, 0, 1, spec)
	said(s)
	job := s.jobs[1]
	require.Len(t, job.input.blocks, 10)
	var spills, outputs int64
	for m := range int32(10) {
		ts, err := s.taskSpec(job, attempt(1, sched.Map, m, 0), 0, sched.OffRack)
		require.NoError(t, err)
		assert.InDelta(t, float64(ts.InputBytes)*777.777, float64(ts.SpillBytes), 778, "map %d", m)
		spills += ts.SpillBytes
	}
	assert.Equal(t, spec.ShuffleBytes, spills)
	for _, bytes := range []int64{0, 1, 999, 1 << 40} {
		var parts int64
		sizes := map[int64]bool{}
		for r := range int32(7) {
			ts, err := s.taskSpec(job, attempt(1, sched.Reduce, r, 0), 0, sched.OffRack)
			require.NoError(t, err)
			p := ts.partition(bytes, int(r))
			parts += p
			sizes[p] = true
			if bytes == 0 {
				outputs += ts.OutputBytes
			}
		}
		assert.Equal(t, bytes, parts)
		if bytes == 1<<40 {
			assert.Len(t, sizes, 7, "seven different shares")
		}
	}
	assert.Equal(t, spec.OutputBytes, outputs)
}

// With tasks.largest_first a job's maps are handed out by descending
// block and its reduces by descending partition; a map queued again
// still goes first. Every block is on rack 1 and the maps are taken on
// node 0, so locality sets no order.
func TestLargestFirstQueuesByDescendingInput(t *testing.T) {
	s, _ := testCore(func(c *CoordinatorConfig) { c.Tasks.LargestFirst = true })
	spec := workload.JobSpec{Name: "lpt", InputBytes: 1000, Reduces: 5, ShuffleBytes: 1000, InputCoV: 1, PartitionCoV: 1}
	s.submit(0, 0, 1, spec)
	said(s)
	job := s.jobs[1]
	all := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, m := range all {
		pin(s.blocks, job.input, int(m), []sched.NodeID{2, 3})
	}
	s.requeue(&RequeueTasks{Job: 1, Maps: all, Reduces: []int32{0, 1, 2, 3, 4}})
	var sizes []int64
	for range 10 {
		task, _, ok := s.table.take(1, sched.Map, 0, sched.OffRack)
		require.True(t, ok)
		sizes = append(sizes, job.input.blocks[task].bytes)
	}
	assert.True(t, slices.IsSortedFunc(sizes, func(a, b int64) int { return int(b - a) }), "maps by descending block: %v", sizes)
	var parts []uint64
	for range 5 {
		task, _, ok := s.table.take(1, sched.Reduce, 0, sched.OffRack)
		require.True(t, ok)
		parts = append(parts, job.parts[task+1]-job.parts[task])
	}
	assert.True(t, slices.IsSortedFunc(parts, func(a, b uint64) int { return int(int64(b) - int64(a)) }), "reduces by descending partition: %v", parts)

	// Two maps lost their output: they go ahead of the others, the
	// larger first.
	s.requeue(&RequeueTasks{Job: 1, Maps: []int32{3, 7}})
	first, _, _ := s.table.take(1, sched.Map, 0, sched.OffRack)
	second, _, _ := s.table.take(1, sched.Map, 0, sched.OffRack)
	assert.ElementsMatch(t, []int32{3, 7}, []int32{first, second})
	assert.GreaterOrEqual(t, job.input.blocks[first].bytes, job.input.blocks[second].bytes)
}
