package actors

import (
	"github.com/asynkron/protoactor-go/actor"
)

// A node's part of Scarlett's copies (coordinator_scarlett.go): the node
// holding the source replica runs a copy's stages one after another, as
// flows of the background class it owns, so task traffic and task
// computes go first: its disk read, compression on its own cores, the
// transfer of the compressed bytes, decompression on the destination's
// cores and the destination's disk write. A copy whose stage fails (its
// source or destination went down) is reported failed; a crash forgets
// every copy, which the coordinator learns when it declares the node dead.

// The stages of a copy, as its flows' parts.
const (
	stageRead int32 = iota
	stageCompress
	stageTransfer
	stageDecompress
	stageWrite
	stages
)

// replicaCopy is a copy the node runs, at its current stage.
type replicaCopy struct {
	msg   *ReplicateBlock
	stage int32
}

// handleReplicateBlock starts a copy at its first stage that moves
// anything.
func (n *Node) handleReplicateBlock(ctx actor.Context, msg *ReplicateBlock) {
	if n.replicas == nil {
		n.replicas = make(map[int64]*replicaCopy)
	}
	c := &replicaCopy{msg: msg, stage: -1}
	n.replicas[msg.Copy] = c
	n.nextStage(ctx, c)
}

// nextStage starts the copy's next stage that moves anything or, after
// the last, reports the copy landed.
func (n *Node) nextStage(ctx actor.Context, c *replicaCopy) {
	for c.stage++; c.stage < stages; c.stage++ {
		if f := n.stageFlow(c); f.Bytes > 0 {
			ctx.Send(n.cfg.Fabric, f)
			return
		}
	}
	delete(n.replicas, c.msg.Copy)
	m := c.msg
	n.relay(ctx, n.cfg.Coordinator, &BlockReplicated{Copy: m.Copy, To: m.To, Bytes: m.Bytes, Wire: m.Wire})
}

// stageFlow is the flow of the copy's current stage.
func (n *Node) stageFlow(c *replicaCopy) *StartFlow {
	m := c.msg
	f := &StartFlow{Key: FlowKey{Owner: OwnerReplication, ID: m.Copy, Part: c.stage}, Class: Background,
		Owner: n.self, OwnerNode: n.cfg.ID}
	core := CoreRate * n.cfg.Cluster.Speed
	switch c.stage {
	case stageRead:
		f.Src, f.Dst, f.Transfer, f.Bytes = n.cfg.ID, n.cfg.ID, DiskRead, m.Bytes
	case stageCompress:
		f.Src, f.Dst, f.Transfer, f.Bytes, f.MaxRate = n.cfg.ID, n.cfg.ID, Compute, m.Compress.Nanoseconds(), core*n.speed
	case stageTransfer:
		f.Src, f.Dst, f.Transfer, f.Bytes = n.cfg.ID, m.To, NetTransfer, m.Wire
	case stageDecompress:
		f.Src, f.Dst, f.Transfer, f.Bytes, f.MaxRate = m.To, m.To, Compute, m.Decompress.Nanoseconds(), core
	case stageWrite:
		f.Src, f.Dst, f.Transfer, f.Bytes = m.To, m.To, DiskWrite, m.Bytes
	}
	return f
}

// copyStageDone moves a copy on when its stage's flow completes.
func (n *Node) copyStageDone(ctx actor.Context, key FlowKey) {
	if c := n.replicas[key.ID]; c != nil && c.stage == key.Part {
		n.nextStage(ctx, c)
	}
}

// copyStageFailed reports a copy whose stage's flow failed.
func (n *Node) copyStageFailed(ctx actor.Context, key FlowKey, reason string) {
	if c := n.replicas[key.ID]; c != nil && c.stage == key.Part {
		delete(n.replicas, key.ID)
		n.relay(ctx, n.cfg.Coordinator, &ReplicationFailed{Copy: key.ID, Reason: reason})
	}
}
