package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// The coordinator's service time ([heartbeat] service_time): a master is
// one process that handles its messages one at a time, and a heartbeat's
// answer leaves only when the scheduler has decided it. With a service
// time S each message from outside (a node's heartbeat or report, a job
// manager's, a cache client's, a client's) waits its turn behind those
// before it and takes S; it takes effect, its launches and answers sent,
// when its service ends, at max(arrival, the previous one's end) + S. The
// coordinator is then a FIFO single server: busy past a load of one
// message per S it falls behind, and every answer is late by the queue.
// Its own timers (liveness, policy and space ticks, epochs, blacklist
// windows), the NameNode's copies and the faults that crash or restart it
// are not requests and pass at once. A crash loses the queue, as it loses
// a running process's: what clients and job managers would send again
// waits for the restart, as it does while the coordinator is down, and
// the rest is lost (the heartbeats' calls refused, below).
//
// With S = 0 nothing waits and no message is delayed: the run is
// delivery for delivery the same as without the key.

// serviceDone is the coordinator's timer for the end of the head
// request's service.
type serviceDone struct{}

// serviceQueue is the coordinator's requests waiting for or in service.
type serviceQueue struct {
	each  time.Duration // S
	busy  time.Duration // when the last request queued ends its service
	queue []queuedRequest
	timer TimerID
	// The run's counters, kept here and counted as they grow.
	peak int
}

// queuedRequest is a request, when it arrived and when its service ends.
type queuedRequest struct {
	msg           any
	arrived, done time.Duration
}

// isRequest reports whether the coordinator serves msg in turn: every
// message but its own timers, the NameNode's flows and the faults.
func isRequest(msg any) bool {
	switch msg.(type) {
	case *serviceDone, *livenessTick, *policyTick, *spaceTick, *blacklistTick, *epochTick, *suspicionLapsed,
		*FlowDone, *FlowFailed, *CrashCoordinator, *RestartCoordinator,
		*actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
		return false
	}
	return true
}

// serve queues a request that arrived at now, or handles the head of the
// queue when its service ends; it reports whether it took the message.
func (c *Coordinator) serve(ctx actor.Context, now time.Duration, msg any) bool {
	s := &c.service
	if _, ok := msg.(*serviceDone); ok {
		s.timer = 0
		for len(s.queue) > 0 && s.queue[0].done <= now {
			head := s.queue[0]
			s.queue[0] = queuedRequest{}
			s.queue = s.queue[1:]
			c.deps.Metrics.Count(MetricCoordinatorRequests, 1)
			c.deps.Metrics.Count(MetricCoordinatorWaitNs, int64(head.done-s.each-head.arrived))
			c.deps.Metrics.CoordinatorQueued(now, -1)
			c.core.waited = now - head.arrived
			c.handle(ctx, now, head.msg)
			c.core.waited = 0
			c.apply(ctx, c.core.take())
			if c.down {
				return true // dropQueue has taken the rest
			}
		}
		if len(s.queue) > 0 {
			s.timer = c.deps.Clock.At(s.queue[0].done, c.self, &serviceDone{})
		}
		return true
	}
	if !isRequest(msg) {
		return false
	}
	start := max(now, s.busy)
	s.busy = start + s.each
	s.queue = append(s.queue, queuedRequest{msg, now, s.busy})
	c.deps.Metrics.CoordinatorQueued(now, 1)
	if n := len(s.queue); n > s.peak {
		c.deps.Metrics.Count(MetricCoordinatorQueuePeak, int64(n-s.peak))
		s.peak = n
	}
	if len(s.queue) == 1 {
		s.timer = c.deps.Clock.At(s.busy, c.self, &serviceDone{})
	}
	return true
}

// dropQueue empties the queue of a coordinator that crashed: what the
// down coordinator would stash it stashes, in order, and the rest is lost.
func (c *Coordinator) dropQueue(ctx actor.Context) {
	s := &c.service
	if s.timer != 0 {
		c.deps.Clock.Cancel(s.timer)
		s.timer = 0
	}
	queue := s.queue
	s.queue, s.busy = nil, 0
	if len(queue) > 0 {
		c.deps.Metrics.CoordinatorQueued(c.deps.Clock.Now(), -len(queue))
	}
	for _, q := range queue {
		c.receiveDownMsg(ctx, q.msg)
	}
}

// With a service time a node's heartbeat is a call, as Hadoop's
// TaskTracker's is (an RPC that blocks until the JobTracker answers): the
// node sends its next heartbeat, periodic or out of band, only once the
// last was answered (HeartbeatAnswered, sent as its service ends), at
// once if one fell due meanwhile. So a coordinator past saturation slows
// the heartbeats down, one outstanding a node, rather than queueing them
// without end. A crashed coordinator's host refuses the calls, those it
// held included; a call unanswered for CallTimeout, or half the silence
// after which a node is declared dead (its heartbeat or answer lost to a
// message rule), returns anyway.

// CallTimeout is how long a node waits at most for its heartbeat's
// answer: Hadoop IPC's ping interval, after which a call that heard
// nothing fails. A node waits half the silence after which the
// coordinator declares it dead when that is shorter, so that a lost
// answer does not cost it its registration.
const CallTimeout = time.Minute

// callTimeout is a node's wait for its heartbeat's answer.
func (h *HeartbeatConfig) callTimeout() time.Duration {
	if d := h.DeadTimeout(); d > 0 {
		return min(CallTimeout, d/2)
	}
	return CallTimeout
}

// heartbeatCall is a node's heartbeat awaiting its answer.
type heartbeatCall struct {
	waiting bool          // sent and not answered
	seq     int64         // which
	sent    time.Duration // when
	held    bool          // another fell due meanwhile
}

// callExpired gives up on the answer to heartbeat seq.
type callExpired struct{ seq int64 }

// refuse fails the call of a heartbeat that reached the coordinator down,
// or waited in its queue when it crashed: its host refuses the connection,
// or resets it, so the node need not wait out CallTimeout.
func (c *Coordinator) refuse(ctx actor.Context, msg any) {
	if hb, ok := msg.(*Heartbeat); ok && c.service.each > 0 {
		c.cfg.Directory.relay(ctx, hb.Node, &HeartbeatAnswered{Seq: hb.Seq})
	}
}

// answered returns the node's heartbeat call seq, answered or timed out,
// and sends the heartbeat that fell due meanwhile.
func (n *Node) answered(ctx actor.Context, seq int64) {
	if !n.call.waiting || seq != n.call.seq {
		return // an earlier call's answer or timeout
	}
	n.call.waiting = false
	if n.call.held {
		n.call.held = false
		n.sendHeartbeat(ctx)
	}
}
