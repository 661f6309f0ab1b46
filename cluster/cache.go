package cluster

import (
	"cmp"
	"hash/fnv"
	"math/rand/v2"
	"slices"

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
// read, in submission order (ties by ID); nil for other policies.
func (c *Config) futureReads() map[string][]actors.FutureRead {
	if !c.Cache.On() || c.Cache.Name != cache.MIN {
		return nil
	}
	out := map[string][]actors.FutureRead{}
	id := max(1, c.firstJob)
	for _, stream := range c.Workload {
		for _, j := range stream {
			if j.InputFile != "" {
				out[j.InputFile] = append(out[j.InputFile], actors.FutureRead{Job: id, Submit: j.Submit})
			}
			id++
		}
	}
	for _, reads := range out {
		slices.SortFunc(reads, func(a, b actors.FutureRead) int {
			return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.Job, b.Job))
		})
	}
	return out
}
