package actors

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"clusteremu/policies/placement"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// blockMap is the coordinator's NameNode: the files of the cluster, split
// into blocks, and the live nodes holding each block's replicas. Replicas
// are placed with HDFS's rack-aware policy. A file's blocks are placed
// from a stream of its own, seeded by the workload seed and the file's
// name, so a file lands on the same nodes whatever was stored before it:
// runs that differ only in policy read the same replicas, and a job's
// reference run alone places its input as the shared run did. For the
// same reason an attempt's replica choice and write pipeline draw from a
// stream keyed by the attempt.
type blockMap struct {
	blockSize   int64
	replication int
	topo        placement.Topology
	seed        uint64 // of the placement streams
	files       map[string]*file
	onNode      map[sched.NodeID][]blockRef // replicas each node holds
	// dormant are the replicas of the nodes that went down: on their
	// disks still, unless the disk is lost when they come back.
	dormant map[sched.NodeID][]blockRef
	// forgotten counts, per node, the refs in onNode[node] to forgotten
	// files, which are dropped when they are half of the list.
	forgotten map[sched.NodeID]int
	// stored is the bytes of the live replicas each node holds, held the
	// bytes of the replicas removed from the live lists that its disk
	// still holds (lazy deletion): a block written to the node overwrites
	// held bytes first, and a disk lost with its node loses them.
	stored, held []int64
	peak         int64 // the most stored + held on one node so far
	// written are the outputs under construction of the jobs whose output
	// a later job reads (workload.JobSpec.Output): each attempt's write
	// pipeline and bytes, until its job commits them or ends.
	written map[sched.JobID]map[sched.Attempt]outputWrite
}

// outputWrite is an attempt's output as written: its pipeline's nodes,
// the writer first, and its bytes.
type outputWrite struct {
	nodes []sched.NodeID
	bytes int64
}

// file is a stored file: its blocks, each with its replicas. A skewed
// file (cov > 0) has blocks of lognormal sizes: block i is the share
// [cuts[i], cuts[i+1]) of workload.Whole, which its map's spill follows.
type file struct {
	name      string
	size      int64
	blocks    []block
	forgotten bool
	cov       float64
	cuts      []uint64
	parts     []filePart // a view's files (job_input.go); nil for a stored file
}

type block struct {
	bytes    int64
	replicas []sched.NodeID
}

type blockRef struct {
	file  *file
	index int
}

// newBlockMap returns an empty block map whose placement streams derive
// from seed.
func newBlockMap(blockSize int64, replication int, rackOf []sched.RackID, seed uint64) *blockMap {
	racks := make([]int32, len(rackOf))
	for i, r := range rackOf {
		racks[i] = int32(r)
	}
	return &blockMap{
		blockSize:   blockSize,
		replication: replication,
		topo:        placement.NewTopology(racks),
		seed:        seed,
		files:       make(map[string]*file),
		onNode:      make(map[sched.NodeID][]blockRef),
		dormant:     make(map[sched.NodeID][]blockRef),
		forgotten:   make(map[sched.NodeID]int),
		stored:      make([]int64, len(rackOf)),
		held:        make([]int64, len(rackOf)),
	}
}

// ensure returns the named file, storing it first when it is new. A file
// is split into max(1, ⌈size / blockSize⌉) blocks, the last one short,
// or with cov > 0 into as many blocks of lognormal sizes with that
// coefficient of variation, summing to size exactly, some larger than
// blockSize (an unequal split, as a skewed input's splits are). A file
// read by several jobs must be the same size and skew for all of them.
// The sizes come from a stream of the file's name apart from its
// placement, so skewing a file moves none of its replicas.
func (b *blockMap) ensure(name string, size, blockSize int64, cov float64) (*file, error) {
	return b.ensureSplits(name, size, blockSize, cov, 1)
}

// ensureSplits is ensure for a file that, when empty, is stored as splits
// empty blocks: the input of a job of that many maps that reads nothing.
func (b *blockMap) ensureSplits(name string, size, blockSize int64, cov float64, splits int) (*file, error) {
	if f, ok := b.files[name]; ok {
		if f.size != size {
			return nil, fmt.Errorf("file %q is %d bytes, not %d", name, f.size, size)
		}
		if f.cov != cov {
			return nil, fmt.Errorf("file %q has input_cov %v, not %v", name, f.cov, cov)
		}
		return f, nil
	}
	n := max(1, (size+blockSize-1)/blockSize)
	if size == 0 {
		n = max(n, int64(splits))
	}
	f := &file{name: name, size: size, blocks: make([]block, n), cov: cov}
	h := fnv.New64a()
	h.Write([]byte(name))
	if cov > 0 {
		f.cuts = workload.SkewedCuts(b.stream(h.Sum64()^skewKey), int(n), cov)
	}
	rng := b.stream(h.Sum64())
	for i := range f.blocks {
		bytes := min(blockSize, size-int64(i)*blockSize)
		if f.cuts != nil {
			bytes = f.share(size, i)
		}
		nodes, err := placement.RackAware(rng, b.topo, placement.NoWriter, b.replication)
		if err != nil {
			return nil, fmt.Errorf("file %q block %d: %w", name, i, err)
		}
		f.blocks[i] = block{bytes: max(bytes, 0), replicas: make([]sched.NodeID, len(nodes))}
		for k, node := range nodes {
			f.blocks[i].replicas[k] = sched.NodeID(node)
			b.onNode[sched.NodeID(node)] = append(b.onNode[sched.NodeID(node)], blockRef{f, i})
			b.write(sched.NodeID(node), f.blocks[i].bytes)
		}
	}
	b.files[name] = f
	return f, nil
}

// skewKey sets a file's stream of block sizes apart from its placement
// stream.
const skewKey = 0x736b6577 // "skew"

// share is block i's part of total bytes: its even share, or for a
// skewed file its lognormal one (a map's spill follows its input).
func (f *file) share(total int64, i int) int64 {
	if f.cuts == nil {
		return workload.Share(total, f.count(), i)
	}
	return workload.ShareOf(total, f.cuts[i], f.cuts[i+1], workload.Whole)
}

// stream is the placement stream for a key (a file, an attempt).
func (b *blockMap) stream(key uint64) *rand.Rand {
	return rand.New(rand.NewPCG(b.seed, key))
}

// attemptStream is the stream an attempt's replica choices draw from: its
// own, so they do not depend on what other jobs drew before it.
func (b *blockMap) attemptStream(a sched.Attempt) *rand.Rand {
	return rand.New(rand.NewPCG(b.seed^attemptKey(a), uint64(a.Job)<<32|uint64(uint32(a.Task))))
}

// failureStream is the stream an attempt's injected failure is drawn
// from: keyed by the attempt like attemptStream but apart from it, so
// turning failures on moves no replica choice.
func (b *blockMap) failureStream(a sched.Attempt) *rand.Rand {
	return rand.New(rand.NewPCG(b.seed^attemptKey(a), ^(uint64(a.Job)<<32 | uint64(uint32(a.Task)))))
}

// stragglerStream is the stream an attempt's slowdown is drawn from
// ([stragglers]): keyed by the attempt apart from the other two, so
// stragglers move no replica choice and no failure, and every policy
// compared meets the same slowdown on the same attempt of a task.
func (b *blockMap) stragglerStream(a sched.Attempt) *rand.Rand {
	return rand.New(rand.NewPCG(b.seed^attemptKey(a), uint64(a.Job)<<32|uint64(uint32(a.Task))^0x5354524147474c45))
}

func attemptKey(a sched.Attempt) uint64 {
	return (uint64(a.Attempt)<<1 | uint64(a.Kind) + 1) * 0x9e3779b97f4a7c15
}

// source picks the replica a reader on node should read: its own, else one
// on its rack, else any; ties are broken with rng. It reports false when
// no live replica is left.
func (b *blockMap) source(blk *block, reader sched.NodeID, rng *rand.Rand) (sched.NodeID, sched.Locality, bool) {
	best, bestLoc, seen := sched.NodeID(-1), sched.OffRack, 0
	for _, n := range blk.replicas {
		loc := b.locality(n, reader)
		switch {
		case seen == 0 || loc < bestLoc:
			best, bestLoc, seen = n, loc, 1
		case loc == bestLoc:
			seen++
			if rng.IntN(seen) == 0 {
				best = n
			}
		}
	}
	return best, bestLoc, seen > 0
}

func (b *blockMap) locality(holder, reader sched.NodeID) sched.Locality {
	switch {
	case holder == reader:
		return sched.NodeLocal
	case b.topo.RackOf[holder] == b.topo.RackOf[reader]:
		return sched.RackLocal
	}
	return sched.OffRack
}

// pipeline places the replicas of a block written by node, writer first.
func (b *blockMap) pipeline(writer sched.NodeID, rng *rand.Rand, replication int) ([]sched.NodeID, error) {
	nodes, err := placement.RackAware(rng, b.topo, int(writer), cmp.Or(replication, b.replication))
	if err != nil {
		return nil, err
	}
	out := make([]sched.NodeID, len(nodes))
	for i, n := range nodes {
		out[i] = sched.NodeID(n)
	}
	return out, nil
}

// forget drops a file no job will read again (a job's private input once
// the job has ended), so a long run holds the blocks of the files in use,
// not of every file it ever stored. Its replicas leave the nodes' lists
// lazily: a list is compacted when half of it is forgotten, so forgetting
// costs O(1) amortised per replica.
func (b *blockMap) forget(name string) {
	f, ok := b.files[name]
	if !ok {
		return
	}
	delete(b.files, name)
	f.forgotten = true
	for _, blk := range f.blocks {
		for _, node := range blk.replicas {
			b.stored[node] -= blk.bytes
			b.forgotten[node]++
			if refs := b.onNode[node]; 2*b.forgotten[node] >= len(refs) {
				b.onNode[node] = slices.DeleteFunc(refs, func(r blockRef) bool { return r.file.forgotten })
				b.forgotten[node] = 0
			}
		}
	}
}

// nodeDown forgets every replica the node held and keeps new replicas off
// it. Blocks left without a replica stay in their files with none.
func (b *blockMap) nodeDown(node sched.NodeID) {
	b.topo.Down[node] = true
	for _, ref := range b.onNode[node] {
		if ref.file.forgotten {
			continue
		}
		blk := &ref.file.blocks[ref.index]
		for i, n := range blk.replicas {
			if n == node {
				blk.replicas = append(blk.replicas[:i], blk.replicas[i+1:]...)
				break
			}
		}
	}
	b.dormant[node] = append(b.dormant[node], b.onNode[node]...)
	delete(b.onNode, node)
	delete(b.forgotten, node)
	b.stored[node] = 0
}

// nodeUp lets new replicas onto a node that came back and, when its disk
// kept them (keep), restores the replicas it held when it went down, of
// the files still stored: its block report. It returns the replicas
// restored, in the order the node had them.
func (b *blockMap) nodeUp(node sched.NodeID, keep bool) []blockRef {
	b.topo.Down[node] = false
	refs := b.dormant[node]
	delete(b.dormant, node)
	if !keep {
		b.held[node] = 0
		return nil
	}
	var back []blockRef
	for _, ref := range refs {
		if ref.file.forgotten {
			continue
		}
		blk := &ref.file.blocks[ref.index]
		if !slices.Contains(blk.replicas, node) {
			blk.replicas = append(blk.replicas, node)
			back = append(back, ref)
			b.stored[node] += blk.bytes
		}
	}
	b.onNode[node] = append(b.onNode[node], back...)
	return back
}

// addReplica records a new replica of a block on node, unless the node
// holds one already; it reports whether it added one.
func (b *blockMap) addReplica(ref blockRef, node sched.NodeID) bool {
	blk := &ref.file.blocks[ref.index]
	if slices.Contains(blk.replicas, node) {
		return false
	}
	blk.replicas = append(blk.replicas, node)
	b.onNode[node] = append(b.onNode[node], ref)
	b.write(node, blk.bytes)
	return true
}

// removeReplica takes a replica of a block on node out of the live lists
// (the node's disk keeps its bytes until the space is wanted); it reports
// whether there was one. The cost is O(the block's replicas + the node's).
func (b *blockMap) removeReplica(ref blockRef, node sched.NodeID) bool {
	blk := &ref.file.blocks[ref.index]
	i := slices.Index(blk.replicas, node)
	if i < 0 {
		return false
	}
	blk.replicas = slices.Delete(blk.replicas, i, i+1)
	if k := slices.Index(b.onNode[node], ref); k >= 0 {
		b.onNode[node] = slices.Delete(b.onNode[node], k, k+1)
	}
	b.stored[node] -= blk.bytes
	b.held[node] += blk.bytes
	return true
}

// checkStored recounts each live node's bytes from the files' replicas
// and reports the first node whose count differs, or whose held bytes
// went negative: the invariant an epoch checks.
func (b *blockMap) checkStored() error {
	want := make([]int64, len(b.stored))
	for _, f := range b.files {
		for _, blk := range f.blocks {
			for _, n := range blk.replicas {
				want[n] += blk.bytes
			}
		}
	}
	for n := range want {
		if want[n] != b.stored[n] || b.held[n] < 0 {
			return fmt.Errorf("node %d counts %d bytes stored and %d held, its replicas hold %d", n, b.stored[n], b.held[n], want[n])
		}
	}
	return nil
}

// change is the record of a replica of the block on node added or
// removed at now.
func (r blockRef) change(now time.Duration, node sched.NodeID, added bool) ReplicaChange {
	return ReplicaChange{At: now, File: r.file.name, Block: r.index, Node: node, Bytes: r.file.blocks[r.index].bytes, Added: added}
}

// write counts a new replica of bytes on node, over held bytes first.
func (b *blockMap) write(node sched.NodeID, bytes int64) {
	b.stored[node] += bytes
	b.held[node] -= min(b.held[node], bytes)
	b.peak = max(b.peak, b.stored[node]+b.held[node])
}
