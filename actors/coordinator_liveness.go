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
	// busy marks the node's slots by kind and index that run an attempt
	// the coordinator launched and has not yet heard ended.
	busy [2][]bool
	last time.Duration // last heartbeat
}

// register records a node and its slots; the cluster's live slots grow.
func (s *coordState) register(now time.Duration, msg *RegisterNode) {
	n := &s.nodes[msg.Node]
	n.registered = true
	n.busy = [2][]bool{make([]bool, msg.MapSlots), make([]bool, msg.Reducers)}
	n.last = now
	s.updateSlots()
}

// updateSlots counts the slots of the live nodes.
func (s *coordState) updateSlots() {
	s.liveSlots = [2]int{}
	for i := range s.nodes {
		if n := &s.nodes[i]; n.registered && !n.dead {
			s.liveSlots[sched.Map] += len(n.busy[sched.Map])
			s.liveSlots[sched.Reduce] += len(n.busy[sched.Reduce])
		}
	}
}

// live reports whether a node is registered and not declared dead.
func (s *coordState) live(node sched.NodeID) bool {
	n := &s.nodes[node]
	return n.registered && !n.dead
}

// checkLiveness declares dead every node silent for longer than DeadAfter.
func (s *coordState) checkLiveness(now time.Duration) {
	for i := range s.nodes {
		if s.live(sched.NodeID(i)) && now-s.nodes[i].last > s.cfg.Heartbeat.DeadTimeout() {
			s.declareDead(now, sched.NodeID(i))
		}
	}
}

// declareDead takes a node out of the cluster: its replicas, its slots and
// its attempts, which end now as killed. Job managers re-run what they
// lost; the fabric aborts the node's flows.
func (s *coordState) declareDead(now time.Duration, node sched.NodeID) {
	s.nodes[node].dead = true
	s.blocks.nodeDown(node)
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
	s.emit(&tellFabric{&NodeLost{Node: node}})
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
	if !s.finished && s.streams == 0 && len(s.jobs) == 0 {
		s.finished = true
		s.out.done = true
	}
}
