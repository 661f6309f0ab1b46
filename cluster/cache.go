package cluster

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/cache"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// preloaded places the [[cache.preload]] blocks: each entry's blocks (its
// file's first ones, or a random choice drawn from the workload seed and
// the entry's place) round-robin over its nodes, the first block on the
// first node. Block sizes are the file's as HDFS splits it.
func (c *Config) preloaded() []actors.Preloaded {
	if !c.Cache.On() || len(c.Cache.Preload) == 0 {
		return nil
	}
	sizes := map[string]int64{}
	for _, j := range c.Jobs() {
		if j.InputFile != "" {
			sizes[j.InputFile] = j.InputBytes
		}
		for _, f := range j.InputFiles {
			sizes[f.File] = f.Bytes
		}
	}
	blockSize := int64(c.HDFS.BlockSize)
	var out []actors.Preloaded
	for i, p := range c.Cache.Preload {
		size, ok := sizes[p.File]
		if !ok {
			continue // refused by ValidateWorkload
		}
		blocks := int32((&workload.JobSpec{InputBytes: size}).MapCount(blockSize))
		picked := make([]int32, min(int32(p.Blocks), blocks))
		for k := range picked {
			picked[k] = int32(k)
		}
		if p.Pick == actors.PickRandom {
			h := fnv.New64a()
			h.Write([]byte(p.File))
			rng := rand.New(rand.NewPCG(c.Run.Seed^uint64(i+1), h.Sum64()))
			for k, b := range rng.Perm(int(blocks))[:len(picked)] {
				picked[k] = int32(b)
			}
		}
		nodes := p.Nodes
		if len(nodes) == 0 {
			for n := range c.Nodes() {
				nodes = append(nodes, n)
			}
		}
		for k, b := range picked {
			bytes := min(blockSize, size-int64(b)*blockSize)
			out = append(out, actors.Preloaded{Node: sched.NodeID(nodes[k%len(nodes)]), CachedBlock: actors.CachedBlock{
				File: p.File, Block: b, Bytes: bytes, FileBlocks: blocks, FileBytes: size}})
		}
	}
	return out
}

// futureReads is MIN's oracle: the open streams' jobs by the file they
// read, in submission order (ties by ID), each with the instants its maps
// read their blocks in the trace; nil for other policies. The trace is a
// run of the same configuration without caches, as the thesis's MIN
// replayed a trace recorded without them: a block's next read is when
// that run read it, interleaved with every other job's reads.
func (c *Config) futureReads() (map[string][]actors.FutureRead, error) {
	if !c.Cache.On() || c.Cache.Name != cache.MIN {
		return nil, nil
	}
	trace, err := c.traceReads()
	if err != nil {
		return nil, fmt.Errorf("MIN's trace (the run without caches): %w", err)
	}
	out := map[string][]actors.FutureRead{}
	id := max(1, c.firstJob)
	for _, stream := range c.Workload {
		for _, j := range stream {
			reads := trace[id]
			for b, at := range reads {
				if at < 0 { // not read in the trace: at the submission
					reads[b] = j.Submit
				}
			}
			if j.InputFile != "" {
				out[j.InputFile] = append(out[j.InputFile], actors.FutureRead{Job: id, Submit: j.Submit, Reads: reads})
			}
			first := 0
			for _, f := range j.InputFiles { // a map a block of each file, in order
				n := (&workload.JobSpec{InputBytes: f.Bytes}).MapCount(int64(c.HDFS.BlockSize))
				var part []time.Duration
				if first+n <= len(reads) {
					part = reads[first : first+n]
				}
				out[f.File] = append(out[f.File], actors.FutureRead{Job: id, Submit: j.Submit, Reads: part, First: int32(first)})
				first += n
			}
			id++
		}
	}
	for _, reads := range out {
		slices.SortFunc(reads, func(a, b actors.FutureRead) int {
			return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.Job, b.Job))
		})
	}
	return out, nil
}

// traceReads runs the configuration without caches and returns, by job
// and map, when the map's first attempt started (-1 for a map that never
// did). The run keeps the seeds, faults and rules, and none of the run's
// own options (decisions, outputs), which name instants of the cached run.
func (c *Config) traceReads() (map[sched.JobID][]time.Duration, error) {
	ref := *c
	ref.Cache = nil
	ref.Run = RunOptions{Seed: c.Run.Seed, ScheduleSeed: c.Run.ScheduleSeed, StallAfter: c.Run.StallAfter, Until: c.Run.Until}
	cl, err := Build(ref)
	if err != nil {
		return nil, err
	}
	rep, err := cl.Run()
	if err != nil {
		return nil, err
	}
	maps := map[sched.JobID]int{}
	for _, j := range rep.Records.Jobs {
		maps[j.ID] = j.Maps
	}
	out := map[sched.JobID][]time.Duration{}
	for _, a := range rep.Records.Attempts {
		id := a.Attempt
		if id.Kind != sched.Map || int(id.Task) >= maps[id.Job] {
			continue
		}
		reads := out[id.Job]
		if reads == nil {
			reads = make([]time.Duration, maps[id.Job])
			for i := range reads {
				reads[i] = -1
			}
			out[id.Job] = reads
		}
		if reads[id.Task] < 0 || a.Start < reads[id.Task] {
			reads[id.Task] = a.Start
		}
	}
	return out, nil
}
