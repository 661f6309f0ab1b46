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
// service_per_task T makes a decision's answer T later for each task it
// launches, and service_per_job J later for each job the policy looked at
// to make it (coordView counts them): FIFO asking job after job whether
// it has a task for the slot pays for each it passes over. With the three
// keys 0 nothing waits and no message is delayed: the run is delivery for
// delivery the same as without them.

// serviceDone is the coordinator's timer for the end of a step of the
// head request's service: its decision, S after it began, or its answer,
// the launches' share after that.
type serviceDone struct{}

// serviceQueue is the coordinator's requests waiting for or in service.
type serviceQueue struct {
	each    time.Duration // S
	perTask time.Duration // added for each task a decision launches
	perJob  time.Duration // added for each job the policy looked at
	queue   []queuedRequest
	// began is when the head's service began; decided, that its
	// decision is made and its effects held until answerAt.
	began, answerAt time.Duration
	decided         bool
	held            coordOut
	timer           TimerID
	peak            int // the most queued, counted as it grows
}

// queuedRequest is a request and when it arrived.
type queuedRequest struct {
	msg     any
	arrived time.Duration
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

// serve queues a request that arrived at now, or takes the head's service
// a step on when its timer fires; it reports whether it took the message.
func (c *Coordinator) serve(ctx actor.Context, now time.Duration, msg any) bool {
	s := &c.service
	if _, ok := msg.(*serviceDone); ok {
		s.timer = 0
		if !s.decided {
			c.decide(ctx, now)
		}
		if s.decided && now >= s.answerAt {
			c.answer(ctx, now)
		}
		return true
	}
	if !isRequest(msg) {
		return false
	}
	s.queue = append(s.queue, queuedRequest{msg, now})
	c.deps.Metrics.CoordinatorQueued(now, 1)
	if n := len(s.queue); n > s.peak {
		c.deps.Metrics.Count(MetricCoordinatorQueuePeak, int64(n-s.peak))
		s.peak = n
	}
	if len(s.queue) == 1 {
		c.begin(now)
	}
	return true
}

// begin starts the head's service at now, skipping the calls whose nodes
// gave up on them by now.
func (c *Coordinator) begin(now time.Duration) {
	s := &c.service
	for len(s.queue) > 0 && abandoned(s.queue[0].msg, now) {
		s.queue[0] = queuedRequest{}
		s.queue = s.queue[1:]
		c.deps.Metrics.Count(MetricCoordinatorSkipped, 1)
		c.deps.Metrics.CoordinatorQueued(now, -1)
	}
	if len(s.queue) == 0 {
		return
	}
	s.began, s.decided = now, false
	s.timer = c.deps.Clock.At(now+s.each, c.self, &serviceDone{})
}

// abandoned reports whether msg is a heartbeat call its node gave up on
// by now (heartbeat.call_timeout).
func abandoned(msg any, now time.Duration) bool {
	hb, ok := msg.(*Heartbeat)
	return ok && hb.GivesUp > 0 && now >= hb.GivesUp
}

// decide handles the head, S after its service began: its state changes
// now, and its effects wait for its answer, later by perTask for each
// task it launched.
func (c *Coordinator) decide(ctx actor.Context, now time.Duration) {
	s := &c.service
	head := s.queue[0]
	c.core.waited = now - head.arrived
	c.core.looked = 0
	c.handle(ctx, now, head.msg)
	c.core.waited = 0
	s.held, s.decided, s.answerAt = c.core.take(), true, now
	c.deps.Metrics.Count(MetricCoordinatorLooked, c.core.looked)
	s.answerAt += time.Duration(c.core.looked) * s.perJob
	if s.perTask > 0 {
		for _, e := range s.held.effects {
			if _, ok := e.(*launchAttempt); ok {
				s.answerAt += s.perTask
			}
		}
	}
	if s.answerAt > now {
		s.timer = c.deps.Clock.At(s.answerAt, c.self, &serviceDone{})
	}
}

// answer applies the head's effects, ends its service and begins the
// next one's.
func (c *Coordinator) answer(ctx actor.Context, now time.Duration) {
	s := &c.service
	held := s.held
	s.held, s.decided = coordOut{}, false
	c.deps.Metrics.Count(MetricCoordinatorWaitNs, int64(s.began-s.queue[0].arrived))
	s.queue[0] = queuedRequest{}
	s.queue = s.queue[1:]
	c.deps.Metrics.Count(MetricCoordinatorRequests, 1)
	c.deps.Metrics.Count(MetricCoordinatorServiceNs, int64(now-s.began))
	c.deps.Metrics.CoordinatorQueued(now, -1)
	c.apply(ctx, held)
	if len(s.queue) > 0 && !c.down {
		c.begin(now)
	}
}

// dropQueue empties the queue of a coordinator that crashed. A request
// already decided has its answer sent as it crashes, so that what its
// decision changed and what it told agree (the crash comes just after
// it); of the rest, what the down coordinator would stash it stashes, in
// order, and the rest is lost.
func (c *Coordinator) dropQueue(ctx actor.Context) {
	s := &c.service
	if s.timer != 0 {
		c.deps.Clock.Cancel(s.timer)
		s.timer = 0
	}
	if s.decided {
		c.answer(ctx, c.deps.Clock.Now())
	}
	queue := s.queue
	if len(queue) > 0 {
		c.deps.Metrics.CoordinatorQueued(c.deps.Clock.Now(), -len(queue))
	}
	s.queue = nil
	for _, q := range queue {
		c.receiveDownMsg(ctx, q.msg)
	}
}

// With a service time a node's heartbeat is a call, as Hadoop's
// TaskTracker's is (an RPC that blocks until the JobTracker answers): the
// node sends its next heartbeat, periodic or out of band, only once the
// last was answered (HeartbeatAnswered, sent as its service ends), at
// once if one fell due meanwhile, and each an interval after the last
// went rather than on a fixed phase, as the TaskTracker's loop waits. So
// a coordinator past saturation slows the heartbeats down, one
// outstanding a node, rather than queueing them without end.
//
// A call waits as long as its connection holds, however long the queue:
// Hadoop IPC's client pings the server every ping interval while it
// waits, and a call fails only when the connection does, never for the
// server's slowness. A crashed coordinator's host refuses the calls,
// those it held included (HeartbeatAnswered, Refused). A call or answer a
// message rule drops breaks the connection: the rack switch tells the
// node (CallBroken), which gives the call up at its next ping, CallTimeout
// after it went or the last ping, and sends the next, carrying the ends
// the lost one did. The delay rules and a partitioned switch only hold
// messages back, and the call waits for them.
//
// With [heartbeat] call_timeout a call also fails when it waited that
// long, as one under Hadoop IPC's ipc.client.rpc-timeout.ms does: the
// node closes the connection and sends its next call, carrying the ends
// again, and the coordinator skips the closed one when its turn comes,
// taking no service, as Hadoop IPC's handler skips a call whose
// connection closed (coordinator.skipped). Past saturation the calls then
// wait past the timeout and come again at the back of the queue: a retry
// storm, which the default, waiting, cannot show.

// CallTimeout is Hadoop IPC's ping interval: a node waiting for its
// heartbeat's answer checks its connection that often, and gives the call
// up when it broke. It checks every half of the silence after which the
// coordinator declares it dead when that is shorter, so that a lost
// answer does not cost it its registration.
const CallTimeout = time.Minute

// callTimeout is a node's ping interval while a heartbeat call waits.
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
	expiry  TimerID       // its next callExpired, cancelled by the answer
	held    bool          // another fell due meanwhile
	broken  bool          // the call or its answer was lost
	givesUp time.Duration // when it times out (heartbeat.call_timeout); 0: never
}

// callExpired is a ping of heartbeat seq's connection: the node gives the
// call up when the connection broke, and waits another ping interval
// otherwise.
type callExpired struct{ seq int64 }

// ping checks heartbeat seq's connection, and its time when the call has
// a timeout.
func (n *Node) ping(ctx actor.Context, seq int64) {
	if !n.call.waiting || seq != n.call.seq {
		return // an earlier call's
	}
	now := n.deps.Clock.Now()
	if n.call.broken || (n.call.givesUp > 0 && now >= n.call.givesUp) {
		n.answered(ctx, seq)
		return
	}
	n.armPing(now)
}

// armPing sets the waiting call's next ping, or its timeout when that
// comes first.
func (n *Node) armPing(now time.Duration) {
	next := now + n.cfg.Heartbeat.callTimeout()
	if n.call.givesUp > 0 {
		next = min(next, n.call.givesUp)
	}
	n.call.expiry = n.deps.Clock.At(next, n.self, &callExpired{n.call.seq})
}

// broke notes that heartbeat seq's connection broke.
func (n *Node) broke(seq int64) {
	if n.call.waiting && seq == n.call.seq {
		n.call.broken = true
	}
}

// refuse fails the call of a heartbeat that reached the coordinator down,
// or waited in its queue when it crashed: its host refuses the connection,
// or resets it, so the node need not wait out CallTimeout.
func (c *Coordinator) refuse(ctx actor.Context, msg any) {
	if hb, ok := msg.(*Heartbeat); ok && c.cfg.Heartbeat.Serves() {
		c.cfg.Directory.relay(ctx, hb.Node, &HeartbeatAnswered{Seq: hb.Seq, Refused: true})
	}
}

// answered returns the node's heartbeat call seq, answered, refused or
// given up, and sends the heartbeat that fell due meanwhile.
func (n *Node) answered(ctx actor.Context, seq int64) {
	if !n.call.waiting || seq != n.call.seq {
		return // an earlier call's answer or timeout
	}
	n.call.waiting, n.call.broken = false, false
	n.deps.Clock.Cancel(n.call.expiry) // spent already when it is what returned the call
	if n.call.held {
		n.call.held = false
		n.sendHeartbeat(ctx)
	}
}
