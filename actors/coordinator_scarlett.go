package actors

import (
	"maps"
	"slices"
	"time"

	"clusteremu/policies/replication"
	"clusteremu/policies/sched"
)

// Scarlett's role in the coordinator, beside the NameNode's
// re-replication (coordinator_replication.go): files replicated by their
// observed concurrency (the thesis's §2.4). The coordinator keeps c_f
// exactly from the maps it launches and sees end: the most jobs with
// maps running on a file at once within the last T_L. Every T_R it hands
// the files, their live replicas and the nodes to
// policies/replication.Rearrange. A replica the plan removes leaves the
// block's live list at once (lazy deletion: a map listed under it finds
// the node no longer holds the block when it is taken, and reads
// elsewhere). The replicas the plan adds are copied block by block in
// doubling steps: ReplicateBlock to each step's sources, the next step
// when the last copy of this one has landed or failed. A copy becomes a
// replica only when BlockReplicated arrives, and the maps pending on its
// block find it at once (jobTable.replicaAdded). A block with copies
// still running at an epoch goes on with its last plan's steps and gets
// no new copies: the plan counts only live replicas, so its removals never
// leave a block below r_f on the strength of copies that may yet fail,
// and an overshoot is removed at the next epoch. A step's copies left over from two epochs ago (their
// messages lost) are abandoned.
type scarlettRole struct {
	cfg   *ReplicationConfig
	codec replication.Codec
	conc  *replication.Concurrency
	// copies are the running copies by ID; each knows its block's plan.
	copies map[int64]*scarlettCopy
	next   int64
	// epoch is when the last rearrangement ran, prev the one before.
	epoch, prev time.Duration
	// stored, extra, held and peak are the last values the storage
	// gauges reported.
	stored, extra, held, peak int64
	// factors are the last epoch's r_f above the base, by file: what
	// re-replication restores a block of the file to.
	factors map[*file]int
}

// scarlettCopy is one running copy.
type scarlettCopy struct {
	ref      blockRef
	src, dst sched.NodeID
	plan     *blockPlan
	started  time.Duration
}

// blockPlan is a block's copies still to land: the running step's, and
// the steps after it.
type blockPlan struct {
	ref     blockRef
	steps   [][]replication.Copy
	running int
}

// setUpScarlett makes the role when [replication] is on.
func (s *coordState) setUpScarlett() {
	r := s.cfg.Replication
	if r == nil {
		return
	}
	codec, _ := replication.CodecNamed(r.Compression)
	s.scarlett = &scarlettRole{cfg: r, codec: codec, conc: replication.NewConcurrency(r.Learn.Std()),
		copies: make(map[int64]*scarlettCopy), factors: make(map[*file]int)}
}

// wanted is the replicas a block of f should have: hdfs.replication, or
// the factor Scarlett's last epoch gave f.
func (s *coordState) wanted(f *file) int {
	if s.scarlett != nil {
		if r, ok := s.scarlett.factors[f]; ok {
			return r
		}
	}
	return s.blocks.replication
}

// scarlettLaunched counts a map's launch toward its file's concurrency.
func (s *coordState) scarlettLaunched(now time.Duration, a sched.Attempt) {
	if s.scarlett == nil || a.Kind != sched.Map {
		return
	}
	if j := s.jobs[a.Job]; j != nil && j.input != nil {
		f, _ := j.input.at(a.Task)
		s.scarlett.conc.Launch(now, f.name, int64(a.Job))
	}
}

// scarlettEnded counts a map's end.
func (s *coordState) scarlettEnded(now time.Duration, a sched.Attempt) {
	if s.scarlett == nil || a.Kind != sched.Map {
		return
	}
	if j := s.jobs[a.Job]; j != nil && j.input != nil {
		f, _ := j.input.at(a.Task)
		s.scarlett.conc.End(now, f.name, int64(a.Job))
	}
}

// scarlettJobEnded ends whatever maps of the job were still counted.
func (s *coordState) scarlettJobEnded(now time.Duration, id sched.JobID) {
	if s.scarlett == nil {
		return
	}
	if j := s.jobs[id]; j != nil && j.input != nil {
		for _, p := range j.input.stored() {
			s.scarlett.conc.EndJob(now, p.file.name, int64(id))
		}
	}
}

// rearrange is an epoch: the plan over every stored file, its removals at
// once, its additions as doubling copies.
func (s *coordState) rearrange(now time.Duration) {
	sc := s.scarlett
	sc.prev, sc.epoch = sc.epoch, now
	if err := s.blocks.checkStored(); err != nil {
		s.fail("block map at the epoch: %v", err)
	}
	sc.conc.Prune(now)
	s.abandonStale()
	names := slices.Sorted(maps.Keys(s.blocks.files))
	files := make([]replication.File, len(names))
	stored := make([]*file, len(names))
	var bytes int64
	for i, name := range names {
		f := s.blocks.files[name]
		stored[i] = f
		files[i] = replication.File{Name: name, Size: f.size, Concurrency: sc.conc.Max(now, name), Blocks: holders(f)}
		bytes += f.size * int64(s.blocks.replication)
	}
	nodes := make([]replication.Node, len(s.nodes))
	for i := range nodes {
		n := sched.NodeID(i)
		nodes[i] = replication.Node{Rack: int(s.cfg.RackOf[i]), Down: !s.live(n) || s.nodes[i].resync}
	}
	replication.Loads(files, nodes)
	plan := replication.Rearrange(files, nodes, sc.cfg.Params(s.blocks.replication, bytes))
	s.storageGauges(files, plan.Factors, bytes)
	clear(sc.factors)
	for i, r := range plan.Factors {
		if r > s.blocks.replication {
			sc.factors[stored[i]] = r
		}
	}
	for _, r := range plan.Remove {
		s.removeReplica(now, blockRef{stored[r.File], r.Block}, sched.NodeID(r.Node))
	}
	s.heldGauge()
	s.planCopies(stored, plan.Add)
}

// holders are a file's live replicas for the plan, as node indices.
func holders(f *file) [][]int {
	out := make([][]int, len(f.blocks))
	for b := range f.blocks {
		for _, n := range f.blocks[b].replicas {
			out[b] = append(out[b], int(n))
		}
	}
	return out
}

// storageGauges reports the stored bytes at base replication and the
// extra replicas' bytes the plan's factors keep.
func (s *coordState) storageGauges(files []replication.File, factors []int, stored int64) {
	sc := s.scarlett
	var extra int64
	for i, f := range files {
		extra += f.Size * int64(factors[i]-s.blocks.replication)
	}
	s.out.counts = append(s.out.counts, count{MetricStoredBytes, stored - sc.stored}, count{MetricExtraBytes, extra - sc.extra})
	sc.stored, sc.extra = stored, extra
}

// heldGauge reports the bytes of removed replicas the disks still hold.
func (s *coordState) heldGauge() {
	var held int64
	for _, h := range s.blocks.held {
		held += h
	}
	if sc := s.scarlett; held != sc.held {
		s.out.counts = append(s.out.counts, count{MetricHeldBytes, held - sc.held})
		sc.held = held
	}
}

// peakGauge reports a new peak of the bytes one node's disk holds.
func (s *coordState) peakGauge() {
	if sc := s.scarlett; s.blocks.peak > sc.peak {
		s.out.counts = append(s.out.counts, count{MetricNodePeakBytes, s.blocks.peak - sc.peak})
		sc.peak = s.blocks.peak
	}
}

// removeReplica takes a replica out of the block's live list (lazily: the
// node's disk keeps it until the space is wanted).
func (s *coordState) removeReplica(now time.Duration, ref blockRef, node sched.NodeID) {
	if s.blocks.removeReplica(ref, node) {
		s.out.counts = append(s.out.counts, count{MetricReplicasRemoved, 1})
		s.out.replicas = append(s.out.replicas, ref.change(now, node, false))
	}
}

// planCopies turns the plan's additions into each block's doubling steps,
// block by block in the order they were placed, and starts each block's
// first step. A block with copies running is left to them.
func (s *coordState) planCopies(stored []*file, add []replication.Replica) {
	busy := map[blockRef]bool{}
	for _, c := range s.scarlett.copies {
		busy[c.ref] = true
	}
	byBlock := map[blockRef]*blockPlan{}
	targets := map[blockRef][]int{}
	var order []*blockPlan
	for _, r := range add {
		ref := blockRef{stored[r.File], r.Block}
		if busy[ref] {
			continue
		}
		if byBlock[ref] == nil {
			byBlock[ref] = &blockPlan{ref: ref}
			order = append(order, byBlock[ref])
		}
		targets[ref] = append(targets[ref], r.Node)
	}
	for _, p := range order {
		var sources []int
		for _, n := range p.ref.file.blocks[p.ref.index].replicas {
			sources = append(sources, int(n))
		}
		p.steps = replication.Steps(sources, targets[p.ref])
		s.nextStep(p)
	}
}

// nextStep starts a block's next step: each copy from its planned source,
// or another live holder not feeding this step when that one is gone.
// A step with no copy it can start is skipped.
func (s *coordState) nextStep(p *blockPlan) {
	sc := s.scarlett
	for p.running == 0 && len(p.steps) > 0 {
		step := p.steps[0]
		p.steps = p.steps[1:]
		blk := &p.ref.file.blocks[p.ref.index]
		if p.ref.file.forgotten {
			return
		}
		var feeding []sched.NodeID
		for _, c := range step {
			src, ok := s.copySource(blk, sched.NodeID(c.Src), feeding)
			dst := sched.NodeID(c.Dst)
			if !ok || !s.live(dst) || slices.Contains(blk.replicas, dst) {
				continue
			}
			feeding = append(feeding, src)
			id := sc.next
			sc.next++
			sc.copies[id] = &scarlettCopy{ref: p.ref, src: src, dst: dst, plan: p, started: sc.epoch}
			p.running++
			raw := blk.bytes
			s.emit(&tellNode{src, &ReplicateBlock{Copy: id, File: p.ref.file.name, Block: int32(p.ref.index),
				Bytes: raw, Wire: sc.codec.Wire(raw), To: dst,
				Compress: sc.codec.CompressTime(raw), Decompress: sc.codec.DecompressTime(raw)}})
		}
	}
}

// copySource is the planned source when it still holds the block live,
// else the first live holder not feeding the step already.
func (s *coordState) copySource(blk *block, planned sched.NodeID, feeding []sched.NodeID) (sched.NodeID, bool) {
	if slices.Contains(blk.replicas, planned) && s.live(planned) && !slices.Contains(feeding, planned) {
		return planned, true
	}
	for _, n := range blk.replicas {
		if s.live(n) && !slices.Contains(feeding, n) {
			return n, true
		}
	}
	return 0, false
}

// blockReplicated books a copy that landed: a replica now, unless the
// block's file is gone or the node is.
func (s *coordState) blockReplicated(now time.Duration, msg *BlockReplicated) {
	c := s.endScarlettCopy(msg.Copy)
	if c == nil {
		return
	}
	s.out.counts = append(s.out.counts, count{MetricReplicationBytes, msg.Wire}, count{MetricReplicationBytesRaw, msg.Bytes})
	if !c.ref.file.forgotten && s.live(c.dst) && s.blocks.addReplica(c.ref, c.dst) {
		s.table.replicaAdded(c.ref.file, c.ref.index, c.dst)
		s.out.counts = append(s.out.counts, count{MetricReplicasAdded, 1})
		s.out.replicas = append(s.out.replicas, c.ref.change(now, c.dst, true))
	}
	s.nextStep(c.plan)
}

// replicationFailed books a copy that did not land; its block's steps go on.
func (s *coordState) replicationFailed(msg *ReplicationFailed) {
	if c := s.endScarlettCopy(msg.Copy); c != nil {
		s.nextStep(c.plan)
	}
}

func (s *coordState) endScarlettCopy(id int64) *scarlettCopy {
	if s.scarlett == nil {
		return nil
	}
	c := s.scarlett.copies[id]
	if c != nil {
		delete(s.scarlett.copies, id)
		c.plan.running--
	}
	return c
}

// scarlettNodeDead fails the copies from or to a node declared dead: the
// node will not report them.
func (s *coordState) scarlettNodeDead(node sched.NodeID) {
	if s.scarlett == nil {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(s.scarlett.copies)) {
		if c := s.scarlett.copies[id]; c.src == node || c.dst == node {
			s.replicationFailed(&ReplicationFailed{Copy: id, Reason: "node lost"})
		}
	}
}

// abandonStale forgets the copies started before the last epoch: their
// messages were lost, as no copy outlives a whole epoch otherwise.
func (s *coordState) abandonStale() {
	sc := s.scarlett
	for _, id := range slices.Sorted(maps.Keys(sc.copies)) {
		if c := sc.copies[id]; c.started < sc.prev {
			delete(sc.copies, id)
		}
	}
}
