package actors

import (
	"fmt"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/qos"
	"clusteremu/policies/sched"
)

// nodeQoS is a node's side of the QoS classes (Álvarez-Tabío et al.,
// notes §2.5.3): a FIFO queue per class, served by weighted round robin
// into the node's free map slots. A QoS task holds its slot for its time
// (it computes on no flow: the CPU model does not slow it); the node's
// heartbeats list the slots QoS tasks hold, which the coordinator counts
// busy. A LaunchTask for a slot a QoS task took after the heartbeat the
// coordinator answered waits for that task to end, and then the slot is
// the launch's before any queued QoS task's.
type nodeQoS struct {
	wrr     *qos.WRR[*ForwardTask]
	held    map[int]*ForwardTask // by map slot
	waiting []*LaunchTask        // launches into held slots, in arrival order
}

// qosDone ends the QoS task in a map slot.
type qosDone struct{ Slot int }

func newNodeQoS(weights []int) *nodeQoS {
	if len(weights) == 0 {
		return nil
	}
	return &nodeQoS{wrr: qos.NewWRR[*ForwardTask](weights), held: map[int]*ForwardTask{}}
}

// heldSlots lists the map slots QoS tasks hold, in order; nil when none.
func (q *nodeQoS) heldSlots() []int {
	if q == nil || len(q.held) == 0 {
		return nil
	}
	out := make([]int, 0, len(q.held))
	for s := range q.held {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// maybeWait holds a launch into a slot a QoS task holds, and reports
// whether it did.
func (n *Node) maybeWait(msg *LaunchTask) bool {
	q := n.qos
	if q == nil || msg.Attempt.Kind != sched.Map || q.held[msg.Slot] == nil {
		return false
	}
	q.waiting = append(q.waiting, msg)
	return true
}

// handleForward queues a QoS task by its class and serves the queues.
func (n *Node) handleForward(ctx actor.Context, msg *ForwardTask) {
	if n.qos == nil || msg.Class < 0 || msg.Class >= len(n.cfg.QoSWeights) {
		n.deps.Fail(fmt.Errorf("node %d: a QoS task of class %d, and the node has %d classes", n.cfg.ID, msg.Class, len(n.cfg.QoSWeights)))
		return
	}
	n.qos.wrr.Push(msg.Class, msg)
	n.serveQoS(ctx)
}

// serveQoS starts queued QoS tasks, in WRR order, in the free map slots,
// lowest first, that no waiting launch is for.
func (n *Node) serveQoS(ctx actor.Context) {
	q := n.qos
	for slot, busy := range n.slots[sched.Map] {
		if q.wrr.Len() == 0 {
			return
		}
		if busy || slices.ContainsFunc(q.waiting, func(l *LaunchTask) bool { return l.Slot == slot }) {
			continue
		}
		t, _, _ := q.wrr.Next()
		n.slots[sched.Map][slot] = true
		q.held[slot] = t
		n.deps.Clock.After(t.Time, n.self, &qosDone{Slot: slot})
	}
}

// handleQoSDone frees a QoS task's slot, tells its client it was served,
// and gives the slot to a launch waiting for it, or to the next QoS task;
// a slot left free is reported at once with out-of-band heartbeats.
func (n *Node) handleQoSDone(ctx actor.Context, msg *qosDone) {
	q := n.qos
	t := q.held[msg.Slot]
	delete(q.held, msg.Slot)
	n.slots[sched.Map][msg.Slot] = false
	n.deps.progressed()
	n.relay(ctx, t.Client, &TaskServed{Job: t.Job, Task: t.Task, Mu: t.Time})
	if i := slices.IndexFunc(q.waiting, func(l *LaunchTask) bool { return l.Slot == msg.Slot }); i >= 0 {
		l := q.waiting[i]
		q.waiting = slices.Delete(q.waiting, i, i+1)
		n.start(ctx, l)
		return
	}
	n.serveQoS(ctx)
	if !n.slots[sched.Map][msg.Slot] && n.cfg.Heartbeat.OutOfBand {
		n.sendHeartbeat(ctx)
	}
}
