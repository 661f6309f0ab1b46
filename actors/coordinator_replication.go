package actors

import (
	"fmt"
	"slices"

	"clusteremu/policies/sched"
)

// The NameNode's re-replication: a node declared dead takes its replicas
// with it, and each block it leaves with fewer live replicas than
// hdfs.replication, or its file's factor Scarlett's last epoch set (but at
// least one), is copied from a live replica to a
// node that has none, as a background flow from disk to disk, so task
// traffic goes first. A source serves at most hdfs.replication_streams
// copies at once (HDFS's replication streams per datanode); the other
// blocks wait their turn, in the order their nodes were lost. A target is
// a live node on another rack than the replicas left when they are all on
// one rack (HDFS's rack rule), else on any; it is drawn from the block
// map's streams, keyed by the copy. A copy whose source or target fails
// is queued again. A block with no live replica left is lost: the jobs
// that read it fail when they try to (coordinator_namenode.go).

// reReplication is the NameNode's work queue and its running copies.
type reReplication struct {
	queue   []blockRef
	copies  map[int64]*blockCopy // running, by flow ID
	streams map[sched.NodeID]int // running copies per source
	next    int64                // the next copy's flow ID
}

// blockCopy is one running copy.
type blockCopy struct {
	ref      blockRef
	src, dst sched.NodeID
}

// startCopy asks the fabric for a copy's flow, owned by the coordinator.
type startCopy struct {
	id       int64
	src, dst sched.NodeID
	bytes    int64
}

func (e *startCopy) String() string {
	return fmt.Sprintf("copy %d B from node %d to node %d (re-replication %d)", e.bytes, e.src, e.dst, e.id)
}

// underReplicated queues the blocks a lost node held that have fewer live
// replicas than wanted, and starts what copies it may.
func (s *coordState) underReplicated(refs []blockRef) {
	for _, ref := range refs {
		if n := len(ref.file.blocks[ref.index].replicas); !ref.file.forgotten && n > 0 && n < s.wanted(ref.file) {
			s.rerepl.queue = append(s.rerepl.queue, ref)
		}
	}
	s.pumpCopies()
}

// pumpCopies starts the queued copies whose sources have a free stream,
// in queue order; a block no longer short, forgotten or with no replica
// left leaves the queue.
func (s *coordState) pumpCopies() {
	r := &s.rerepl
	limit := s.cfg.HDFS.ReplicationStreams
	keep := r.queue[:0]
	for _, ref := range r.queue {
		blk := &ref.file.blocks[ref.index]
		if ref.file.forgotten || len(blk.replicas) == 0 || len(blk.replicas)+s.copying(ref) >= s.wanted(ref.file) {
			continue
		}
		src := sched.NodeID(-1)
		for _, n := range blk.replicas {
			if r.streams[n] < limit {
				src = n
				break
			}
		}
		dst, ok := s.copyTarget(ref, r.next)
		if src < 0 || !ok {
			keep = append(keep, ref)
			continue
		}
		if r.copies == nil {
			r.copies, r.streams = make(map[int64]*blockCopy), make(map[sched.NodeID]int)
		}
		id := r.next
		r.next++
		r.copies[id] = &blockCopy{ref: ref, src: src, dst: dst}
		r.streams[src]++
		s.emit(&startCopy{id: id, src: src, dst: dst, bytes: blk.bytes})
	}
	r.queue = keep
}

// copying counts the running copies of a block.
func (s *coordState) copying(ref blockRef) int {
	n := 0
	for _, c := range s.rerepl.copies {
		if c.ref == ref {
			n++
		}
	}
	return n
}

// copyTarget draws the node a copy of a block goes to: live, not holding
// it nor receiving it, and off the replicas' rack when they share one.
func (s *coordState) copyTarget(ref blockRef, key int64) (sched.NodeID, bool) {
	blk := &ref.file.blocks[ref.index]
	racks := map[sched.RackID]bool{}
	for _, n := range blk.replicas {
		racks[s.cfg.RackOf[n]] = true
	}
	taken := slices.Clone(blk.replicas)
	for _, c := range s.rerepl.copies {
		if c.ref == ref {
			taken = append(taken, c.dst)
		}
	}
	var offRack, any []sched.NodeID
	for i := range s.nodes {
		n := sched.NodeID(i)
		if !s.live(n) || s.nodes[i].resync || slices.Contains(taken, n) {
			continue
		}
		any = append(any, n)
		if len(racks) == 1 && !racks[s.cfg.RackOf[n]] {
			offRack = append(offRack, n)
		}
	}
	pool := offRack
	if len(pool) == 0 {
		pool = any
	}
	if len(pool) == 0 {
		return 0, false
	}
	rng := s.blocks.stream(uint64(key)<<1 | 1)
	return pool[rng.IntN(len(pool))], true
}

// copyDone books a finished copy: the target holds a replica now.
func (s *coordState) copyDone(id int64, bytes int64) {
	c := s.endCopy(id)
	if c == nil {
		return
	}
	if !c.ref.file.forgotten && s.live(c.dst) && s.blocks.addReplica(c.ref, c.dst) {
		s.table.replicaAdded(c.ref.file, c.ref.index, c.dst)
		s.out.counts = append(s.out.counts, count{MetricBlocksReReplicated, 1}, count{MetricBytesReReplicated, bytes})
	}
	s.pumpCopies()
}

// copyFailed queues a block again whose copy failed; it is tried again
// on the next liveness check, not at once: its source or target is down,
// which the coordinator may not know yet.
func (s *coordState) copyFailed(id int64) {
	if c := s.endCopy(id); c != nil {
		s.rerepl.queue = append(s.rerepl.queue, c.ref)
	}
}

func (s *coordState) endCopy(id int64) *blockCopy {
	c := s.rerepl.copies[id]
	if c == nil {
		return nil
	}
	delete(s.rerepl.copies, id)
	s.rerepl.streams[c.src]--
	return c
}
