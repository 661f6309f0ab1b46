package actors

import (
	"maps"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// A node's failures: a crash (its process dies with everything it held),
// a restart (it registers again with an empty disk of map outputs, its
// HDFS blocks kept or lost), and a reinit (the coordinator declared it
// dead while it ran on, cut off by a partition: it drops what it ran and
// registers afresh).

// receiveDown handles a message reaching a crashed node: a restart, or
// nothing (a crashed process reads no message; what it was sent is lost).
func (n *Node) receiveDown(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *RestartNode:
		n.handleRestart(ctx, msg)
	case *callExpired, *CallBroken, *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		n.deps.Metrics.Count(MetricLostToCrash, 1)
	}
}

// handleCrash stops the node's process: its flows abort at once in the
// fabric, its attempts, slots and map outputs are gone, and it sends no
// more heartbeats. Nothing is reported: the coordinator finds out when
// the heartbeats stop, the job managers when it tells them.
func (n *Node) handleCrash(ctx actor.Context) {
	n.down = true
	n.deps.Clock.Cancel(n.beat)
	ctx.Send(n.cfg.Fabric, &AbortFlows{Node: n.cfg.ID, Reason: "node crashed"})
	if n.cfg.Cache != nil {
		ctx.Send(n.cfg.Cache, &CrashCache{}) // the machine's memory is lost
	}
	n.dropAll()
}

// dropAll forgets every attempt and map output without a word, as a
// process that dies, or is told it was declared dead, does.
func (n *Node) dropAll() {
	for _, r := range n.runs {
		if r.reporting {
			n.deps.Clock.Cancel(r.progressTimer)
		}
	}
	clear(n.runs)
	for k := range n.slots {
		clear(n.slots[k])
	}
	n.ended, n.unacked, n.awaiting, n.computing, n.reserved = nil, nil, nil, 0, 0
	n.call = heartbeatCall{} // a new process has no call out
	clear(n.copying)
	clear(n.logs)
	clear(n.stored)
	clear(n.replicas)
}

// handleRestart starts the crashed node again: it registers with the
// coordinator as a new TaskTracker would, reporting whether its disk (its
// HDFS blocks) survived, and heartbeats again from a new phase.
func (n *Node) handleRestart(ctx actor.Context, msg *RestartNode) {
	n.down = false
	ctx.Send(n.cfg.Fabric, &NodeRestarted{Node: n.cfg.ID})
	if n.cfg.Cache != nil {
		ctx.Send(n.cfg.Cache, &RestartCache{})
	}
	n.register(ctx, true, msg.DiskLost)
}

// handleReinit drops what the node runs, whose attempts the coordinator
// and the job managers counted lost when they declared it dead, and
// registers again. Their flows are cancelled, the bytes they carried
// accounted as aborted.
func (n *Node) handleReinit(ctx actor.Context) {
	for _, a := range slices.SortedFunc(maps.Keys(n.runs), sched.CompareAttempts) {
		for _, f := range n.runs[a].flows {
			ctx.Send(n.cfg.Fabric, &CancelFlow{Key: FlowKey{Attempt: a, Part: f.part}})
		}
	}
	n.deps.Clock.Cancel(n.beat)
	n.dropAll()
	n.register(ctx, true, false)
}

// handleResync registers the node again with the attempts it runs, after
// the coordinator restarted; its heartbeats go on as they were.
func (n *Node) handleResync(ctx actor.Context) {
	var running []RunningAttempt
	for _, a := range slices.SortedFunc(maps.Keys(n.runs), sched.CompareAttempts) {
		l := n.runs[a].launch
		running = append(running, RunningAttempt{Attempt: a, Slot: l.Slot, Locality: l.Task.Locality})
	}
	n.relay(ctx, n.cfg.Coordinator, n.registration(false, false, running))
}

// registration is the node's RegisterNode.
func (n *Node) registration(restarted, diskLost bool, running []RunningAttempt) *RegisterNode {
	return &RegisterNode{
		Node: n.cfg.ID, Rack: n.cfg.Rack,
		MapSlots: len(n.slots[sched.Map]), Reducers: len(n.slots[sched.Reduce]), Containers: n.cfg.Cluster.Containers, PID: n.self,
		Launches: n.got, Restarted: restarted, DiskLost: diskLost, Running: running,
	}
}

// register announces the node and its slots to the coordinator and starts
// its heartbeats at a random phase, so that a cluster's heartbeats spread
// over the interval instead of arriving together.
func (n *Node) register(ctx actor.Context, restarted, diskLost bool) {
	n.relay(ctx, n.cfg.Coordinator, n.registration(restarted, diskLost, nil))
	phase := time.Duration(n.deps.Rand.Int64N(int64(n.cfg.Heartbeat.Interval)))
	if n.cfg.Heartbeat.Serves() {
		// A call's next heartbeat is an interval after it went
		// (sendHeartbeat re-arms the tick), not on a fixed phase.
		n.beat = n.deps.Clock.At(n.deps.Clock.Now()+phase, n.self, &heartbeatTick{})
		return
	}
	n.beat = n.deps.Clock.Every(n.deps.Clock.Now()+phase, n.cfg.Heartbeat.Interval.Std(), n.self, &heartbeatTick{})
}

// reported is an attempt end a heartbeat carried, and which one.
type reported struct {
	seq int64
	end AttemptEnded
}

// reports are the ends the next heartbeat (numbered n.seq) carries: those
// since the last one and, when control messages may be lost or the
// heartbeat is a call, every one not yet answered. A call the coordinator
// skipped, its node having given up on it, or refused is carried again by
// the next, as Hadoop's TaskTracker sends its status again after a failed
// heartbeat.
func (n *Node) reports() []AttemptEnded {
	if !n.cfg.Heartbeat.Reliable && !n.cfg.Heartbeat.Serves() {
		return n.ended
	}
	for _, e := range n.ended {
		n.unacked = append(n.unacked, reported{n.seq, e})
	}
	out := make([]AttemptEnded, len(n.unacked))
	for i, r := range n.unacked {
		out[i] = r.end
	}
	return out
}

// acked forgets the ends the heartbeats up to seq carried.
func (n *Node) acked(seq int64) {
	n.unacked = slices.DeleteFunc(n.unacked, func(r reported) bool { return r.seq <= seq })
}
