package actors

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/netmodel"
	"clusteremu/policies/sched"
)

// Fabric owns the cluster's links and the one netmodel solver for every
// data flow (max-min fairness couples all racks, so there is one). Owners
// start and cancel flows with messages; the fabric keeps a single clock
// timer for the next completion and tells each owner when its flow is done.
//
// Each node's CPU is one more link of that solver (cores × speed ×
// CoreRate), and a compute one more flow, as in SimGrid's host model. A
// per-node solver was the alternative, since CPU alone couples no two
// nodes; but a map streaming its input and a transfer whose bytes cost
// CPU are one flow over disk, network and CPU at one rate, and solving
// them in two solvers would need a fixed point between the two. In one
// solver the coupling is exact, and it costs nothing where there is none:
// a compute's flow crosses only its node's CPU, so it is a component of
// its own (re-solved alone) unless a streamed read or a costed transfer
// joins that CPU to the network.
//
// Max-min runs in each flow's own units: a compute's rate is work (core
// nanoseconds) per second, a transfer's bytes per second. A core does
// 1e9 units a second while a disk moves 1e8 bytes, so a transfer meets
// its disk or NIC bound long before a compute meets its core: the CPU a
// network stack needs is served first and the computes share the rest,
// much as a kernel serves network interrupts before user threads.
//
// Changes within one emulated instant are batched: a start or cancel marks
// the rates stale and asks the clock for an end-of-instant tick (a timer
// due now, which fires after every message already queued for the
// instant), so a wave of flows starting together costs one re-solve.
//
// A flow with a MaxRate crosses, besides its path, a private link of that
// capacity: the bound is one more constraint of the max-min allocation.
// Private links are kept for reuse when their flow ends, so a run adds
// only as many as it ever has bounded flows at once.
type Fabric struct {
	net   *netmodel.Network
	topo  *netmodel.Topology
	cpu   ByteCPU
	deps  Deps
	self  *actor.PID
	flows map[FlowKey]*fabricFlow
	// owned holds each running flow at its netmodel Owner tag less one, so
	// a completion finds its flow by index, not by hashing; vacant holds
	// the free places. The places a flow takes reach no decision.
	owned   []*fabricFlow
	vacant  []uint64
	timer   TimerID
	timerAt time.Duration
	armed   bool
	stale   bool
	spare   []netmodel.LinkID // private links of ended bounded flows
	built   []float64         // the topology's capacities as built, for ScaleLink

	// Faults (fabric_faults.go): crashed nodes, links down, the stall
	// check.
	down       map[sched.NodeID]bool
	linksDown  map[int]bool
	stallArmed bool
	path       []netmodel.LinkID // scratch
	use        []float64         // scratch
	// loss is [intermediate_loss] (fabric_loss.go); nil: none.
	loss *lossModel
	// traffic is [rack_traffic] (rack_traffic.go); nil: none.
	traffic *rackTraffic

	// Link sampling (SampleLinks): the window, its start, and what each
	// topology link had carried then.
	sampleEvery time.Duration
	sampledAt   time.Duration
	carried     []int64
}

type fabricFlow struct {
	id      netmodel.FlowID
	owner   uint64 // its netmodel Owner tag: its place in Fabric.owned, plus one
	start   *StartFlow
	at      time.Duration
	private netmodel.LinkID // the bound's link when bounded
	bounded bool
	stall   *stallWatch // when it has a stall timeout
}

// settle re-solves rates at the end of an instant that changed them.
type settle struct{}

// flowsDue fires when the earliest flow is due to complete.
type flowsDue struct{}

// Progressing marks flowsDue as work moving forward: while it is pending,
// data flows at a positive rate and will complete, so the stall watchdog
// takes a flow longer than its limit for progress, not a stall.
func (*flowsDue) Progressing() {}

// NewFabric returns the fabric actor's state for a topology, with the CPU
// work a node spends per byte it sends and receives over the network.
func NewFabric(topo *netmodel.Topology, net *netmodel.Network, cpu ByteCPU, deps Deps) *Fabric {
	return &Fabric{
		net: net, topo: topo, cpu: cpu, deps: deps,
		flows: make(map[FlowKey]*fabricFlow),
	}
}

// SampleLinks has the fabric record, over windows of at least every,
// what each link of the topology carried (Recorder.LinksSampled). It
// samples when it handles its first message past a window's end, so it
// sends nothing and changes no rate or instant. Call it before the run.
func (f *Fabric) SampleLinks(every time.Duration) {
	f.sampleEvery = every
	f.carried = make([]int64, f.net.NumLinks()) // the topology's links: private ones come later
}

// sample records the window that ends now, if it is long enough.
func (f *Fabric) sample() {
	now := f.deps.Clock.Now()
	if f.sampleEvery <= 0 || now-f.sampledAt < f.sampleEvery {
		return
	}
	s := LinkSample{From: f.sampledAt, To: now, Carried: make([]int64, len(f.carried))}
	for l := range f.carried {
		c, err := f.net.Carried(netmodel.LinkID(l))
		if err != nil {
			f.deps.Fail(fmt.Errorf("fabric: sample link %d: %w", l, err))
			return
		}
		s.Carried[l], f.carried[l] = c-f.carried[l], c
	}
	f.sampledAt = now
	f.deps.Metrics.LinksSampled(s)
}

// Receive implements actor.Actor.
func (f *Fabric) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		f.self = ctx.Self()
		f.startRackTraffic()
	case *StartFlow:
		f.completeDue(ctx)
		if !f.refuse(ctx, msg) && !f.lose(ctx, msg) {
			f.handleStart(msg)
		}
	case *CancelFlow:
		f.completeDue(ctx)
		f.handleCancel(msg)
	case *AbortFlows:
		f.completeDue(ctx)
		f.abortNode(ctx, msg.Node, msg.Reason)
		f.nodeDown(msg.Node)
	case *NodeRestarted:
		delete(f.down, msg.Node)
	case *stallCheck:
		f.completeDue(ctx)
		f.handleStallCheck(ctx)
	case *ScaleLink:
		f.completeDue(ctx)
		f.handleScaleLink(msg)
	case *SetLinkCapacity:
		f.completeDue(ctx)
		f.handleSetLinkCapacity(msg)
	case *SetFlowMaxRate:
		f.completeDue(ctx)
		f.handleSetFlowMaxRate(msg)
	case *QueryDelivered:
		f.completeDue(ctx)
		f.handleQueryDelivered(ctx, msg)
	case *MeasureRackLinks:
		f.completeDue(ctx)
		f.handleMeasureRackLinks(ctx, msg)
	case *rackTrafficTick:
		f.completeDue(ctx)
		f.handleRackTraffic()
	case *settle:
		f.stale = false
		f.rearm()
	case *flowsDue:
		f.handleDue(ctx)
	case *actor.Stopping:
		f.completeDue(ctx)
		f.cutOff()
		f.stopRackTraffic()
	case *actor.Stopped, *actor.Restarting:
	default:
		f.deps.Fail(fmt.Errorf("fabric: unhandled message %T", msg))
	}
}

// cutOff records the flows still running when the run ends, with what
// they carried.
func (f *Fabric) cutOff() {
	keys := slices.SortedFunc(maps.Keys(f.flows), compareFlowKeys)
	now := f.deps.Clock.Now()
	for _, k := range keys {
		ff := f.flows[k]
		if ff.start.Transfer == Compute {
			continue
		}
		d, err := f.net.Delivered(ff.id)
		if err != nil {
			f.deps.Fail(fmt.Errorf("fabric: delivered of %v: %w", k, err))
			return
		}
		s := ff.start
		f.deps.Metrics.FlowEnded(FlowRecord{
			Key: s.Key, Src: s.Src, Dst: s.Dst, Transfer: s.Transfer, Bytes: s.Bytes,
			Delivered: d, Start: ff.at, End: now, CutOff: true, MaxRate: s.MaxRate, CPUPerByte: s.CPUPerByte,
		})
	}
}

func (f *Fabric) handleStart(msg *StartFlow) {
	if _, dup := f.flows[msg.Key]; dup {
		f.deps.Fail(fmt.Errorf("fabric: flow %v started twice", msg.Key))
		return
	}
	now := f.deps.Clock.Now()
	ff := &fabricFlow{start: msg, at: now}
	if msg.Transfer != Compute {
		f.deps.Metrics.Count(MetricBytesRequested, msg.Bytes)
	}
	err := f.appendPath(msg)
	if err == nil && msg.MaxRate > 0 {
		ff.private, err = f.privateLink(now, msg.MaxRate)
		ff.bounded = err == nil
		f.path, f.use = append(f.path, ff.private), append(f.use, 1)
	}
	if err == nil {
		ff.owner = f.place()
		ff.id, err = f.net.Start(now, netmodel.FlowSpec{Size: msg.Bytes, Path: f.path, Use: f.use, Weight: msg.Weight, Class: int(msg.Class), Owner: ff.owner})
		if err == nil {
			f.flows[msg.Key] = ff
			f.owned[ff.owner-1] = ff
			f.watch(ff)
			f.markStale()
			return
		}
		f.vacant = append(f.vacant, ff.owner)
	}
	f.deps.Fail(fmt.Errorf("fabric: flow %v (max rate %g B/s): %w", msg.Key, msg.MaxRate, err))
}

// place returns a free Owner tag for a flow about to start: a vacant one
// or a new one. Tags start at 1; 0 is the tag of flows that are not the
// run's (rack traffic).
func (f *Fabric) place() uint64 {
	if n := len(f.vacant); n > 0 {
		o := f.vacant[n-1]
		f.vacant = f.vacant[:n-1]
		return o
	}
	f.owned = append(f.owned, nil)
	return uint64(len(f.owned))
}

// ownerOf returns the running flow a completion's Owner tag names, or nil.
func (f *Fabric) ownerOf(owner uint64) *fabricFlow {
	if owner == 0 || owner > uint64(len(f.owned)) {
		return nil
	}
	return f.owned[owner-1]
}

// appendPath sets f.path and f.use to the links a flow crosses and how
// much of each a unit of its rate takes: a compute, the destination's
// CPU; a transfer, its disk and network links, plus the CPUs that work on
// its bytes (a streaming map's, the sender's and the receiver's network
// stacks).
func (f *Fabric) appendPath(msg *StartFlow) error {
	f.path, f.use = f.path[:0], f.use[:0]
	if msg.Transfer == Compute {
		return f.addCPU(msg.Dst, 1)
	}
	if msg.Transfer == RackFetch {
		return f.appendRackPath(msg)
	}
	path, err := f.topo.AppendPath(f.path, netmodel.HostID(msg.Src), netmodel.HostID(msg.Dst), transferKind(msg))
	f.path = path
	for range path {
		f.use = append(f.use, 1)
	}
	if err != nil {
		return err
	}
	recv := msg.CPUPerByte
	if msg.Src != msg.Dst {
		recv += f.cpu.Receive
		if err := f.addCPU(msg.Src, f.cpu.Send); err != nil {
			return err
		}
	}
	return f.addCPU(msg.Dst, recv)
}

// appendRackPath sets f.path and f.use to a RackFetch's links: the
// source's rack uplink, the core, the destination's rack downlink and
// NIC, and the destination's CPU that receives the bytes. The source
// nodes' disks, NICs and sending CPU are left out: the approximation of
// tasks.fetch_per_rack.
func (f *Fabric) appendRackPath(msg *StartFlow) error {
	path, err := RackFetchPath(f.path, f.topo, msg.Src, msg.Dst)
	f.path = path
	for range path {
		f.use = append(f.use, 1)
	}
	if err != nil {
		return err
	}
	return f.addCPU(msg.Dst, msg.CPUPerByte+f.cpu.Receive)
}

// RackFetchPath appends to path the links a RackFetch from src's rack to
// dst crosses: src's rack uplink, the core, dst's rack downlink and dst's
// NIC, each when the topology has it. src and dst must be in different
// racks.
func RackFetchPath(path []netmodel.LinkID, topo *netmodel.Topology, src, dst sched.NodeID) ([]netmodel.LinkID, error) {
	rs, err := topo.RackOf(netmodel.HostID(src))
	if err != nil {
		return path, err
	}
	rd, err := topo.RackOf(netmodel.HostID(dst))
	if err != nil {
		return path, err
	}
	if rs == rd {
		return path, fmt.Errorf("%w: a rack fetch from node %d to node %d stays in rack %d", netmodel.ErrInvalid, src, dst, rs)
	}
	up, _, _ := topo.RackLinks(rs)
	_, down, _ := topo.RackLinks(rd)
	core, _ := topo.Core()
	d, _ := topo.Links(netmodel.HostID(dst))
	n := len(path)
	for _, l := range []netmodel.LinkID{up, core, down, d.NICDown} {
		if l >= 0 { // a link left out of the topology
			path = append(path, l)
		}
	}
	if len(path) == n {
		return path, fmt.Errorf("%w: a rack fetch from rack %d to node %d crosses no link of the topology", netmodel.ErrNoPath, rs, dst)
	}
	return path, nil
}

// addCPU adds a node's CPU to the path at use work per byte, unless use
// is 0.
func (f *Fabric) addCPU(node sched.NodeID, use float64) error {
	if use <= 0 {
		return nil
	}
	l, err := f.topo.Link(netmodel.LinkRef{Kind: netmodel.HostCPU, Host: netmodel.HostID(node)})
	if err != nil {
		return err
	}
	f.path, f.use = append(f.path, l), append(f.use, min(max(use, netmodel.MinUse), netmodel.MaxUse))
	return nil
}

// privateLink returns an idle link of the given capacity, reusing a spare
// one when there is one.
func (f *Fabric) privateLink(now time.Duration, capacity float64) (netmodel.LinkID, error) {
	if n := len(f.spare); n > 0 {
		l := f.spare[n-1]
		f.spare = f.spare[:n-1]
		return l, f.net.SetCapacity(now, l, capacity)
	}
	return f.net.AddLink(capacity)
}

// transferKind maps a transfer between two nodes to the links it uses.
func transferKind(msg *StartFlow) netmodel.TransferKind { return msg.Transfer.Path(msg.Src, msg.Dst) }

// Path is the netmodel transfer a transfer from src to dst makes (a
// compute's path is its node's CPU alone, which no TransferKind names; a
// RackFetch's is Transfer's without src's NIC, which the fabric builds
// itself).
func (t Transfer) Path(src, dst sched.NodeID) netmodel.TransferKind {
	local := src == dst
	switch {
	case t == DiskRead && local:
		return netmodel.LocalDiskRead
	case t == DiskRead:
		return netmodel.RemoteRead
	case t == MemoryRead && local:
		return netmodel.MemoryRead
	case t == MemoryRead:
		return netmodel.RemoteMemoryRead
	case t == NetTransfer || t == RackFetch:
		return netmodel.Transfer
	case t == DiskCopy:
		return netmodel.RemoteCopy
	case local:
		return netmodel.LocalDiskWrite
	}
	return netmodel.RemoteWrite
}

func (f *Fabric) markStale() {
	if !f.stale {
		f.stale = true
		f.deps.Clock.After(0, f.self, &settle{})
	}
}

func (f *Fabric) handleCancel(msg *CancelFlow) {
	ff := f.flows[msg.Key]
	if ff == nil {
		return // it completed while the cancel was on its way
	}
	f.abort(ff)
}

// abort removes a flow before completion and records what it carried.
func (f *Fabric) abort(ff *fabricFlow) int64 {
	now := f.deps.Clock.Now()
	delivered, err := f.net.Cancel(now, ff.id)
	if err != nil {
		f.deps.Fail(fmt.Errorf("fabric: cancel %v: %w", ff.start.Key, err))
	}
	f.forget(ff)
	f.record(ff, delivered, now, false)
	f.markStale()
	return delivered
}

func (f *Fabric) forget(ff *fabricFlow) {
	delete(f.flows, ff.start.Key)
	f.owned[ff.owner-1] = nil
	f.vacant = append(f.vacant, ff.owner)
	if ff.bounded {
		f.spare = append(f.spare, ff.private)
	}
}

func (f *Fabric) record(ff *fabricFlow, delivered int64, now time.Duration, completed bool) {
	s := ff.start
	if s.Transfer == Compute {
		return // CPU work, not bytes
	}
	f.deps.Metrics.FlowEnded(FlowRecord{
		Key: s.Key, Src: s.Src, Dst: s.Dst, Transfer: s.Transfer, Bytes: s.Bytes,
		Delivered: delivered, Start: ff.at, End: now, Completed: completed, MaxRate: s.MaxRate, CPUPerByte: s.CPUPerByte,
	})
}

// handleSetLinkCapacity changes a link's capacity; the rates settle at
// the end of the instant with the instant's other changes.
func (f *Fabric) handleSetLinkCapacity(msg *SetLinkCapacity) {
	l, err := f.topo.Link(msg.Link)
	if err == nil {
		err = f.net.SetCapacity(f.deps.Clock.Now(), l, float64(msg.Capacity))
	}
	if err != nil {
		f.deps.Fail(fmt.Errorf("fabric: set %v to %v: %w", msg.Link, msg.Capacity, err))
		return
	}
	f.markStale()
}

// handleScaleLink sets a link to a factor of its capacity as built.
func (f *Fabric) handleScaleLink(msg *ScaleLink) {
	l, err := f.topo.Link(msg.Link)
	if err == nil && f.built == nil {
		f.built = make([]float64, len(f.topo.Refs()))
		for id := range f.topo.Refs() {
			f.built[id], _ = f.net.Capacity(id) // a link of the topology: cannot fail
		}
	}
	if err == nil {
		err = f.net.SetCapacity(f.deps.Clock.Now(), l, f.built[l]*msg.Factor)
	}
	if err != nil {
		f.deps.Fail(fmt.Errorf("fabric: scale %v by %v: %w", msg.Link, msg.Factor, err))
		return
	}
	f.linkScaled(int(l), msg.Factor)
	f.markStale()
}

// handleSetFlowMaxRate moves a bounded flow's bound; the rates settle at
// the end of the instant.
func (f *Fabric) handleSetFlowMaxRate(msg *SetFlowMaxRate) {
	ff := f.flows[msg.Key]
	if ff == nil {
		return // it ended while the change was on its way
	}
	if !ff.bounded {
		f.deps.Fail(fmt.Errorf("fabric: bound flow %v at %g B/s: it was started without a bound", msg.Key, msg.MaxRate))
		return
	}
	if err := f.net.SetCapacity(f.deps.Clock.Now(), ff.private, msg.MaxRate); err != nil {
		f.deps.Fail(fmt.Errorf("fabric: bound flow %v at %g B/s: %w", msg.Key, msg.MaxRate, err))
		return
	}
	f.markStale()
}

// handleQueryDelivered tells the sender what each named flow has
// delivered by now.
func (f *Fabric) handleQueryDelivered(ctx actor.Context, msg *QueryDelivered) {
	bytes := make([]int64, len(msg.Keys))
	for i, k := range msg.Keys {
		bytes[i] = -1
		if ff := f.flows[k]; ff != nil {
			d, err := f.net.Delivered(ff.id)
			if err != nil {
				f.deps.Fail(fmt.Errorf("fabric: delivered of %v: %w", k, err))
				return
			}
			bytes[i] = d
		}
	}
	ctx.Send(msg.Owner, &FlowsDelivered{Attempt: msg.Attempt, Keys: msg.Keys, Bytes: bytes})
}

// handleMeasureRackLinks tells the sender each rack link's capacity
// left: its capacity less its load, at least a tenth of the capacity. A
// rack without an uplink (no oversubscription) is not limited there.
func (f *Fabric) handleMeasureRackLinks(ctx actor.Context, msg *MeasureRackLinks) {
	racks := f.topo.Racks()
	out := &RackLinksMeasured{Up: make([]float64, racks), Down: make([]float64, racks)}
	for r := range racks {
		up, down, err := f.topo.RackLinks(r)
		if err == nil {
			out.Up[r], err = f.left(up)
		}
		if err == nil {
			out.Down[r], err = f.left(down)
		}
		if err != nil {
			f.deps.Fail(fmt.Errorf("fabric: rack %d's links: %w", r, err))
			return
		}
	}
	ctx.Send(msg.Owner, out)
}

// unlimited is the capacity left on a link the topology leaves out.
const unlimited = 1e18

// left is a link's capacity less its load, at least a tenth of the
// capacity; unlimited for no link.
func (f *Fabric) left(l netmodel.LinkID) (float64, error) {
	if l < 0 {
		return unlimited, nil
	}
	capacity, err := f.net.Capacity(l)
	if err != nil {
		return 0, err
	}
	load, err := f.net.Load(l)
	return max(capacity-load, capacity/10), err
}

// abortNode aborts every flow to or from the node and every flow an
// actor on it owns, and tells the owners that live elsewhere.
func (f *Fabric) abortNode(ctx actor.Context, node sched.NodeID, reason string) {
	var keys []FlowKey
	for k, ff := range f.flows {
		if s := ff.start; s.Src == node || s.Dst == node || s.OwnerNode == node || slices.Contains(s.Sources, node) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareFlowKeys)
	for _, k := range keys {
		ff := f.flows[k]
		delivered := f.abort(ff)
		if ff.start.OwnerNode != node {
			ctx.Send(ff.start.Owner, &FlowFailed{Key: k, Delivered: delivered, Reason: reason, Down: node, NodeDown: true})
		}
	}
}

// handleDue completes the flows due now and tells their owners, in flow
// order.
//
// Their owners mostly answer at once, starting the next fetch or phase
// at this same instant, so the rates are re-solved at the instant's end
// (settle), once for the completions and the starts together, rather
// than now and again after the starts.
func (f *Fabric) handleDue(ctx actor.Context) {
	f.armed = false
	if f.completeDue(ctx) > 0 {
		f.markStale()
		return
	}
	f.rearm()
}

// completeDue completes every flow due by now. Besides the completion
// timer, every change calls it first: in scaled and wall time the clock
// may have moved past a completion whose timer has fired but not yet been
// handled, and the model must reach an instant before it changes there.
func (f *Fabric) completeDue(ctx actor.Context) int {
	now := f.deps.Clock.Now()
	done, err := f.net.AdvanceTo(now)
	if err != nil {
		f.deps.Fail(fmt.Errorf("fabric: %w", err))
	}
	f.sample()
	if len(done) > 0 {
		f.deps.progressed()
	}
	for _, c := range done {
		ff := f.ownerOf(c.Owner)
		if ff == nil || ff.id != c.ID {
			f.deps.Fail(fmt.Errorf("fabric: unknown flow %d completed", c.ID))
			continue
		}
		key := ff.start.Key
		f.forget(ff)
		f.record(ff, ff.start.Bytes, c.At, true)
		ctx.Send(ff.start.Owner, &FlowDone{Key: key, Bytes: ff.start.Bytes, Started: ff.at})
	}
	return len(done)
}

// rearm keeps the one completion timer on the earliest completion. With
// none of the run's flows left it keeps none: the flows of other work
// ([rack_traffic]) end only when their period does, and a timer pending
// for them would tell the stall watchdog that work moves on.
func (f *Fabric) rearm() {
	next, ok := f.net.NextCompletion()
	ok = ok && len(f.flows) > 0
	if f.armed && (!ok || next != f.timerAt) {
		f.deps.Clock.Cancel(f.timer)
		f.armed = false
	}
	if ok && !f.armed {
		f.timer = f.deps.Clock.At(next, f.self, &flowsDue{})
		f.timerAt, f.armed = next, true
	}
}

func compareFlowKeys(a, b FlowKey) int {
	return cmp.Or(cmp.Compare(a.Owner, b.Owner), sched.CompareAttempts(a.Attempt, b.Attempt),
		cmp.Compare(a.ID, b.ID), cmp.Compare(a.Part, b.Part))
}

func sortAttempts(as []sched.Attempt) { slices.SortFunc(as, sched.CompareAttempts) }
