package actors

import (
	"slices"

	"github.com/asynkron/protoactor-go/actor"
)

// A node's part of recompute avoidance: a reducer's fetches name the
// outputs they read, for the fabric's loss model (fabric_loss.go); a
// fetch that fails tries the output's next copy before the failure
// counts; and the node copies a map output it holds to a rack-mate when
// its job manager asks (ReplicateOutput).

// outputRefs names the map outputs a fetch flow reads, with the attempts
// that wrote them.
func (r *run) outputRefs(part int32) []OutputRef {
	var items []fetchItem
	if b := r.batches.at(part); b != nil {
		items = *b
	}
	refs := make([]OutputRef, len(items))
	for i, it := range items {
		refs[i] = OutputRef{Map: it.m, Attempt: r.wrote[it.m]}
	}
	return refs
}

// tryReplicas queues again, from their next copy, the outputs of a fetch
// that failed and have one, and returns the others, whose failure counts,
// and the maps of those saved so. Each output saved is a recompute
// avoided.
func (n *Node) tryReplicas(r *run, items []fetchItem) (rest []fetchItem, saved []int32) {
	if r.replicas == nil {
		return items, nil
	}
	rest = items[:0:0]
	for _, it := range items {
		reps := r.replicas[it.m]
		next := 0 // its node is the output's first: its first replica
		if i := slices.Index(reps, it.src); i >= 0 {
			next = i + 1
		}
		if next >= len(reps) {
			rest = append(rest, it)
			continue
		}
		r.state.set(it.m, fetchQueued)
		delete(r.moved, it.m)
		r.queue.push(it.m, reps[next], it.whole)
		saved = append(saved, it.m)
		n.deps.Metrics.Count(MetricRecomputeAvoided, 1)
	}
	return rest, saved
}

// handleReplicateOutput copies a map output the node holds to a
// rack-mate, as a background flow.
func (n *Node) handleReplicateOutput(ctx actor.Context, msg *ReplicateOutput) {
	if n.protecting == nil {
		n.protecting = make(map[int64]*ReplicateOutput)
	}
	n.protectSeq++
	id := int64(n.cfg.ID)<<40 | n.protectSeq // unique in the run: the node's own sequence
	n.protecting[id] = msg
	ctx.Send(n.cfg.Fabric, &StartFlow{Key: FlowKey{Owner: OwnerProtect, ID: id}, Src: n.cfg.ID, Dst: msg.To,
		Transfer: DiskCopy, Bytes: msg.Bytes, Class: Background, Owner: n.self, OwnerNode: n.cfg.ID})
}

// protectDone tells the job manager its output's copy landed.
func (n *Node) protectDone(ctx actor.Context, key FlowKey) {
	msg := n.protecting[key.ID]
	if msg == nil {
		return
	}
	delete(n.protecting, key.ID)
	n.deps.Metrics.Count(MetricProtectBytes, msg.Bytes)
	n.relay(ctx, msg.JobManager, &OutputReplicated{Map: msg.Map, Attempt: msg.Attempt, To: msg.To})
}
