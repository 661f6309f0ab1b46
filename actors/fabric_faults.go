package actors

import (
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// The fabric under faults: flows to or from a crashed node fail at once,
// and flows that asked for a stall timeout (shuffle fetches) fail when
// they deliver no byte for that long.
//
// Stalls only happen while a link is down (a cut, a partition's NICs), so
// the fabric checks only then: every check period (the least stall
// timeout of the flows it watches) it compares each watched flow's
// delivered bytes with the last check's, and fails one whose bytes have
// not moved for its timeout. A stall is thus found 1 to 2 periods after
// it began; a flow that moves at all, however slowly, does not fail.

// stallWatch is what the fabric keeps of a flow with a stall timeout.
type stallWatch struct {
	timeout time.Duration
	seen    int64         // delivered at the last check that saw it move
	seenAt  time.Duration // when
}

// stallCheck fires the fabric's periodic stall check.
type stallCheck struct{}

// NodeRestarted tells the fabric a crashed node is up again: flows may
// reach it.
type NodeRestarted struct {
	Node sched.NodeID
}

// refuse reports whether a flow touches a crashed node, and if so fails
// it at once, accounted as aborted with nothing delivered.
func (f *Fabric) refuse(ctx actor.Context, msg *StartFlow) bool {
	node := msg.Src
	if !f.down[node] {
		node = msg.Dst
	}
	for _, s := range msg.Sources {
		if !f.down[node] {
			node = s
		}
	}
	if !f.down[node] {
		return false
	}
	f.failAtOnce(ctx, msg, fmt.Sprintf("node %d is down", node), &FlowFailed{Down: node, NodeDown: true})
	return true
}

// failAtOnce fails a flow as it starts, accounted as aborted with
// nothing delivered; fail, when not nil, is the FlowFailed to send, its
// key and reason set here.
func (f *Fabric) failAtOnce(ctx actor.Context, msg *StartFlow, reason string, fail *FlowFailed) {
	now := f.deps.Clock.Now()
	f.deps.Metrics.Count(MetricBytesRequested, msg.Bytes)
	f.deps.Metrics.FlowEnded(FlowRecord{
		Key: msg.Key, Src: msg.Src, Dst: msg.Dst, Transfer: msg.Transfer, Bytes: msg.Bytes,
		Start: now, End: now, MaxRate: msg.MaxRate, CPUPerByte: msg.CPUPerByte,
	})
	if fail == nil {
		fail = &FlowFailed{}
	}
	fail.Key, fail.Reason = msg.Key, reason
	ctx.Send(msg.Owner, fail)
}

// nodeDown books a crashed node; its flows were aborted.
func (f *Fabric) nodeDown(node sched.NodeID) {
	if f.down == nil {
		f.down = make(map[sched.NodeID]bool)
	}
	f.down[node] = true
}

// watch starts watching a new flow for stalls.
func (f *Fabric) watch(ff *fabricFlow) {
	if t := ff.start.StallTimeout; t > 0 {
		ff.stall = &stallWatch{timeout: t, seenAt: ff.at}
		f.armStallCheck()
	}
}

// linkScaled notes a link's capacity going to or from 0, and arms the
// stall check while any link is down.
func (f *Fabric) linkScaled(l int, factor float64) {
	if f.linksDown == nil {
		f.linksDown = make(map[int]bool)
	}
	if factor == 0 {
		f.linksDown[l] = true
	} else {
		delete(f.linksDown, l)
	}
	f.armStallCheck()
}

// armStallCheck arms the check when a link is down, a flow is watched
// and no check is armed.
func (f *Fabric) armStallCheck() {
	if f.stallArmed || len(f.linksDown) == 0 {
		return
	}
	period := time.Duration(0)
	for _, ff := range f.flows {
		if ff.stall != nil && (period == 0 || ff.stall.timeout < period) {
			period = ff.stall.timeout
		}
	}
	if period > 0 {
		f.stallArmed = true
		f.deps.Clock.After(period, f.self, &stallCheck{})
	}
}

// handleStallCheck fails the watched flows whose bytes have not moved for
// their timeout, in flow order, and checks again while a link is down.
func (f *Fabric) handleStallCheck(ctx actor.Context) {
	f.stallArmed = false
	now := f.deps.Clock.Now()
	var keys []FlowKey
	for k, ff := range f.flows {
		if ff.stall != nil {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareFlowKeys)
	for _, k := range keys {
		ff := f.flows[k]
		d, err := f.net.Delivered(ff.id)
		if err != nil {
			f.deps.Fail(fmt.Errorf("fabric: delivered of %v: %w", k, err))
			return
		}
		w := ff.stall
		if d != w.seen {
			w.seen, w.seenAt = d, now
			continue
		}
		if now-w.seenAt >= w.timeout {
			delivered := f.abort(ff)
			ctx.Send(ff.start.Owner, &FlowFailed{Key: k, Delivered: delivered,
				Reason: fmt.Sprintf("no byte for %v (stalled)", now-w.seenAt)})
		}
	}
	f.armStallCheck()
}
