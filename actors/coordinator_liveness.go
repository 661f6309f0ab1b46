package actors

import (
	"maps"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// Membership and liveness: nodes register with their slots, heartbeat,
// and are declared dead after missing heartbeats for DeadAfter. The run
// ends when every stream has submitted its last job and every job ended.

// nodeEntry is the coordinator's record of one node.
type nodeEntry struct {
	registered, dead bool
	// reinit: a heartbeat came from the node declared dead, and it was
	// told to register afresh (ReinitNode).
	reinit bool
	// resync: the coordinator restarted and the node has not registered
	// again; resyncAsked: it was told to (ResyncNode).
	resync, resyncAsked bool
	// busy marks the node's slots by kind and index that run an attempt
	// the coordinator launched and has not yet heard ended.
	busy [2][]bool
	// containers, when > 0, is the node's containers (cluster.containers),
	// of which an attempt of each kind takes takes[kind]
	// (ClusterConfig.Takes); used counts those its busy slots take.
	containers, used int
	takes            [2]int
	// ams counts the containers the AMs on the node hold, part of used
	// (coordinator_am.go); they free only as their jobs end, and a
	// restarted coordinator counts them in use when the node registers
	// again.
	ams int
	// reservedFor is the job whose reduce the node is held for
	// (coordinator_containers.go).
	reservedFor reservation
	// qosHeld are the map slots QoS tasks held at the last heartbeat,
	// busy too until the next.
	qosHeld []int
	last    time.Duration // last heartbeat
}

// free reports whether the node's slot of the kind is neither running an
// attempt the coordinator launched nor held by a QoS task.
func (n *nodeEntry) free(kind sched.TaskKind, slot int) bool {
	return !n.busy[kind][slot] && (kind != sched.Map || !slices.Contains(n.qosHeld, slot)) &&
		(n.containers == 0 || n.used+n.takes[kind] <= n.containers)
}

// anyFree reports whether one of the node's slots of the kind is free.
func (n *nodeEntry) anyFree(kind sched.TaskKind) bool {
	for i := range n.busy[kind] {
		if n.free(kind, i) {
			return true
		}
	}
	return false
}

// register records a node and its slots; the cluster's live slots grow.
// A node that registers again restarted: if it was not yet declared dead,
// what it ran is lost now, as when it is declared dead; a node declared
// dead is taken back, with the HDFS blocks it held unless its disk was
// lost (its block report).
func (s *coordState) register(now time.Duration, msg *RegisterNode) {
	n := &s.nodes[msg.Node]
	if n.resync && !msg.Restarted {
		s.resynced(now, msg)
		return
	}
	if n.registered && !n.dead {
		s.declareDead(now, msg.Node, "restarted")
	}
	if msg.Restarted {
		s.cacheNodeGone(msg.Node) // its memory went with its process
	}
	back := n.registered
	n.registered, n.dead, n.reinit, n.resync = true, false, false, false
	n.busy = [2][]bool{make([]bool, msg.MapSlots), make([]bool, msg.Reducers)}
	s.resetContainers(msg.Node, msg.Containers)
	n.last = now
	s.updateSlots()
	if !back {
		return
	}
	for _, a := range s.admit {
		a.registered(msg.Node, msg.Launches)
	}
	for _, ref := range s.blocks.nodeUp(msg.Node, !msg.DiskLost) {
		s.table.replicaAdded(ref.file, ref.index, msg.Node)
	}
	s.out.counts = append(s.out.counts, count{MetricNodesRejoined, 1})
	s.emit(&noteNode{msg.Node, "registered again"})
}

// heartbeatFromDead answers a heartbeat from a node declared dead, which
// ran on cut off (a partition) and does not know: it is told once to
// drop what it runs and register afresh.
func (s *coordState) heartbeatFromDead(node sched.NodeID) {
	n := &s.nodes[node]
	if !n.reinit {
		n.reinit = true
		s.emit(&tellNode{node, &ReinitNode{}})
	}
}

// updateSlots counts the slots of the live nodes.
func (s *coordState) updateSlots() {
	s.liveSlots, s.liveNodes = [2]int{}, 0
	for i := range s.nodes {
		if n := &s.nodes[i]; n.registered && !n.dead {
			s.liveNodes++
			s.liveSlots[sched.Map] += len(n.busy[sched.Map])
			s.liveSlots[sched.Reduce] += len(n.busy[sched.Reduce])
		}
	}
	if s.containersOn() {
		s.countContainers()
	}
}

// live reports whether a node is registered and not declared dead.
func (s *coordState) live(node sched.NodeID) bool {
	n := &s.nodes[node]
	return n.registered && !n.dead
}

// checkLiveness declares dead every node silent for longer than DeadAfter,
// and tries again the block copies that failed.
func (s *coordState) checkLiveness(now time.Duration) {
	for i := range s.nodes {
		if s.live(sched.NodeID(i)) && now-s.nodes[i].last > s.cfg.Heartbeat.DeadTimeout() {
			s.declareDead(now, sched.NodeID(i), "declared dead")
		}
	}
	if len(s.rerepl.queue) > 0 {
		s.pumpCopies()
	}
}

// declareDead takes a node out of the cluster: its replicas, its slots and
// its attempts, which end now as killed. Job managers re-run what they
// lost. The node's flows are not the coordinator's: a crashed node's
// aborted when it crashed, a partitioned node's stall until it is back.
func (s *coordState) declareDead(now time.Duration, node sched.NodeID, why string) {
	s.nodes[node].dead = true
	s.unreserve(node)
	s.out.counts = append(s.out.counts, count{MetricNodesLost, 1})
	s.emit(&noteNode{node, why})
	held := slices.Clone(s.blocks.onNode[node])
	s.blocks.nodeDown(node)
	s.cacheNodeGone(node)
	s.scarlettNodeDead(node)
	s.underReplicated(held)
	s.amsLost(node)
	s.updateSlots()
	var gone []sched.Attempt
	for a, at := range s.running {
		if at.node == node {
			gone = append(gone, a)
		}
	}
	sortAttempts(gone)
	for _, a := range gone {
		s.attemptEnded(now, node, AttemptEnded{Attempt: a, Outcome: sched.Killed, At: now})
	}
	for _, id := range slices.Sorted(maps.Keys(s.jobs)) {
		s.emit(&tellJob{id, &NodeLost{Node: node}})
	}
}

// workloadSubmitted books a stream that has submitted its last job.
func (s *coordState) workloadSubmitted() {
	s.streams--
	s.maybeFinish()
}

// maybeFinish ends the run once every stream has submitted its last job
// and every job has ended.
func (s *coordState) maybeFinish() {
	if !s.finished && !s.cfg.Idle && s.streams == 0 && len(s.jobs) == 0 && len(s.held) == 0 && len(s.amWait) == 0 {
		s.finished = true
		s.out.done = true
	}
}
