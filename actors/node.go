package actors

import (
	"fmt"
	"maps"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// NodeConfig describes one worker node (TaskTracker and DataNode).
type NodeConfig struct {
	ID        sched.NodeID
	Rack      sched.RackID
	Cluster   ClusterConfig
	HDFS      HDFSConfig
	Heartbeat HeartbeatConfig
	Tasks     TasksConfig
	// Switch is the node's rack switch.
	Switch      *actor.PID
	Coordinator *actor.PID
	Fabric      *actor.PID
	// Cache is the node's cache client, nil when the cluster caches
	// nothing.
	Cache *actor.PID
	// QoSWeights are the QoS classes' WRR weights, highest class first;
	// nil when the run has no QoS clients (node_qos.go).
	QoSWeights []int
	// NameOutputs has shuffle fetches name the map outputs they read
	// (StartFlow.Outputs), for [intermediate_loss].
	NameOutputs bool
}

// Node runs attempts in its map and reduce slots. An attempt moves through
// phases; each phase waits for a set of flows, and the attempt moves on
// when the set is empty:
//
//	map:    read input (streamed through the compute when overlapped) →
//	        [compute] → spill or write output → finished
//	reduce: fetch every map output → compute → write output → finished
//
// A compute is a flow too: CPU work over the node's CPU link (cores ×
// speed), at most one core at the attempt's speed, so computes share the
// CPU max-min with each other and with the work streaming reads and
// network transfers cost, and re-time exactly when a speed changes.
type Node struct {
	cfg   NodeConfig
	deps  Deps
	self  *actor.PID
	speed float64   // the node's core speed relative to [cluster] speed
	slots [2][]bool // busy slots by kind and index
	seq   int64
	got   [2]int64 // LaunchTask messages received, by kind
	ended []AttemptEnded
	// unacked are the ends reported but not yet answered, with the
	// heartbeat that first carried each (HeartbeatConfig.Reliable).
	unacked []reported
	runs    map[sched.Attempt]*run
	beat    TimerID // the periodic heartbeat's
	down    bool    // crashed, until restarted

	// Copy-compute splitting: the reducers that may compute at once (0:
	// no limit), reducers computing (or writing), reducers that copied
	// and wait to compute, and each job's reducers not yet computing,
	// which the coordinator caps per node.
	computeSlots int
	computing    int
	awaiting     []*run
	copying      map[sched.JobID]int

	// logs are the map outputs announced to each job's reducers here and
	// not yet fetched by all of them; each reducer's queue reads one.
	logs map[sched.JobID][]*outputLog

	// Intermediate space: spill reserved by running maps, and each job's
	// stored map outputs.
	reserved int64
	stored   map[sched.JobID]int64

	// qos is the node's QoS class queues; nil without QoS clients.
	qos *nodeQoS
	// replicas are the replica copies the node runs as their source
	// (node_replicate.go), by copy; nil until the first.
	replicas map[int64]*replicaCopy
	// protecting are the map outputs the node copies to a rack-mate
	// (node_recompute.go), by copy; nil until the first.
	protecting map[int64]*ReplicateOutput
	protectSeq int64
	// call is the heartbeat awaiting its answer, with a service time.
	call heartbeatCall
}

// heartbeatTick fires the node's periodic heartbeat.
type heartbeatTick struct{}

// heartbeatDue sends a heartbeat that chaos delayed after its tick.
type heartbeatDue struct{}

// NewNode returns a node actor's state; the cluster spawns it.
func NewNode(cfg NodeConfig, deps Deps) *Node {
	return &Node{
		cfg:   cfg,
		deps:  deps,
		speed: 1,
		slots: [2][]bool{make([]bool, cfg.Cluster.MapSlots), make([]bool, cfg.Tasks.Reducers(cfg.Cluster.ReduceSlots))},
		// Copy-compute splitting's admission control (Zaharia et al.
		// §5.2): of the reducers, only computeSlots may be past their
		// copy phase; the others wait, in arrival order, once copied.
		computeSlots: cfg.Tasks.ComputeSlots(cfg.Cluster.ReduceSlots),
		runs:         make(map[sched.Attempt]*run),
		copying:      make(map[sched.JobID]int),
		logs:         make(map[sched.JobID][]*outputLog),
		stored:       make(map[sched.JobID]int64),
		qos:          newNodeQoS(cfg.QoSWeights),
	}
}

// Receive implements actor.Actor.
func (n *Node) Receive(ctx actor.Context) {
	if n.down {
		n.receiveDown(ctx)
		return
	}
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		n.handleStarted(ctx)
	case *heartbeatTick:
		n.handleTick(ctx)
	case *heartbeatDue:
		n.sendHeartbeat(ctx)
	case *LaunchTask:
		n.handleLaunch(ctx, msg)
	case *KillTask:
		n.handleKill(ctx, msg)
	case *MapOutputs:
		n.learn(ctx, msg.Reduce, msg.Outputs, msg.Lost)
	case *MapEvents:
		for _, it := range msg.Items {
			news := &msg.News[it.News]
			n.learn(ctx, it.Reduce, news.Outputs, news.Lost)
		}
	case *DropJobData:
		delete(n.stored, msg.Job)
	case *progressTick:
		n.handleProgressTick(ctx, msg)
	case *FlowsDelivered:
		n.handleDelivered(ctx, msg)
	case *SetNodeSpeed:
		n.handleSetNodeSpeed(ctx, msg)
	case *SetAttemptSpeed:
		n.handleSetAttemptSpeed(ctx, msg)
	case *FlowDone:
		switch msg.Key.Owner {
		case OwnerReplication:
			n.copyStageDone(ctx, msg.Key)
		case OwnerProtect:
			n.protectDone(ctx, msg.Key)
		default:
			n.handleFlowDone(ctx, msg)
		}
	case *FlowFailed:
		switch msg.Key.Owner {
		case OwnerReplication:
			n.copyStageFailed(ctx, msg.Key, msg.Reason)
		case OwnerProtect:
			delete(n.protecting, msg.Key.ID)
		default:
			n.handleFlowFailed(ctx, msg)
		}
	case *ReplicateBlock:
		n.handleReplicateBlock(ctx, msg)
	case *ReplicateOutput:
		n.handleReplicateOutput(ctx, msg)
	case *fetchRetryDue:
		n.handleFetchRetry(ctx, msg)
	case *CrashNode:
		n.handleCrash(ctx)
	case *ReinitNode:
		n.handleReinit(ctx)
	case *ResyncNode:
		n.handleResync(ctx)
	case *HeartbeatAck:
		n.acked(msg.Seq)
	case *HeartbeatAnswered:
		if !msg.Refused && !n.cfg.Heartbeat.Reliable {
			// When control messages may be lost HeartbeatAck says
			// which ends were booked: an answer may come from a
			// coordinator that ignored them (a node to resync).
			n.acked(msg.Seq)
		}
		n.answered(ctx, msg.Seq)
	case *callExpired:
		n.ping(ctx, msg.seq)
	case *CallBroken:
		n.broke(msg.Seq)
	case *ForwardTask:
		n.handleForward(ctx, msg)
	case *qosDone:
		n.handleQoSDone(ctx, msg)
	case *RestartNode:
		// A restart of a node that is up: nothing to do.
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		n.deps.Fail(fmt.Errorf("node %d: unhandled message %T", n.cfg.ID, msg))
	}
}

func (n *Node) handleStarted(ctx actor.Context) {
	n.self = ctx.Self()
	n.register(ctx, false, false)
}

// relay sends a control message through the node's rack switch.
func (n *Node) relay(ctx actor.Context, to *actor.PID, msg any) {
	ctx.Send(n.cfg.Switch, &Relay{From: n.self, To: to, Msg: msg})
}

// handleTick sends the periodic heartbeat, after the run's chaos delay if
// it draws one.
func (n *Node) handleTick(ctx actor.Context) {
	if n.deps.Perturb != nil {
		if d := n.deps.Perturb(PerturbHeartbeat, n.self.Id); d > 0 {
			n.deps.Clock.After(d, n.self, &heartbeatDue{})
			return
		}
	}
	n.sendHeartbeat(ctx)
}

func (n *Node) sendHeartbeat(ctx actor.Context) {
	if n.call.waiting {
		// Sent once the call returns; one due at the instant the call
		// went out is that call.
		n.call.held = n.call.held || n.deps.Clock.Now() > n.call.sent
		return
	}
	n.seq++
	if n.cfg.Heartbeat.Serves() {
		n.call.waiting, n.call.seq, n.call.sent = true, n.seq, n.deps.Clock.Now()
		n.call.givesUp = 0
		if t := n.cfg.Heartbeat.CallTimeout; t > 0 {
			n.call.givesUp = n.call.sent + t.Std()
		}
		n.armPing(n.call.sent)
		// The next an interval after this one, as the TaskTracker's loop
		// waits from its last heartbeat, out of band ones too.
		n.deps.Clock.Cancel(n.beat)
		n.beat = n.deps.Clock.After(n.cfg.Heartbeat.Interval.Std(), n.self, &heartbeatTick{})
	}
	n.relay(ctx, n.cfg.Coordinator, &Heartbeat{
		Node: n.cfg.ID, Seq: n.seq, Launches: n.got, Ended: n.reports(),
		Copying: n.copyingReport(), FreeCompute: n.computeSlots - n.computing - len(n.awaiting), FreeSpace: n.freeSpace(),
		QoSHeld: n.qos.heldSlots(), GivesUp: n.call.givesUp,
	})
	n.ended = nil
}

// handleLaunch starts an attempt in the slot the coordinator named, which
// must be free: the coordinator offered it because the node had reported
// the attempt before it ended. A map slot a QoS task took since the
// heartbeat the coordinator answered is the one exception: the launch
// waits for that task's end (node_qos.go).
func (n *Node) handleLaunch(ctx actor.Context, msg *LaunchTask) {
	n.got[msg.Attempt.Kind]++
	if n.maybeWait(msg) {
		return
	}
	n.start(ctx, msg)
}

// containersUsed is the containers the node's busy slots take
// (cluster.containers): a map one, a reduce cluster.reduce_containers.
func (n *Node) containersUsed() int {
	used := 0
	for kind := range n.slots {
		for _, busy := range n.slots[kind] {
			if busy {
				used += n.cfg.Cluster.Takes(sched.TaskKind(kind))
			}
		}
	}
	return used
}

// start starts a launched attempt in its slot.
func (n *Node) start(ctx actor.Context, msg *LaunchTask) {
	kind := msg.Attempt.Kind
	if msg.Slot < 0 || msg.Slot >= len(n.slots[kind]) || n.slots[kind][msg.Slot] {
		n.deps.Fail(fmt.Errorf("node %d: %v launched into %v slot %d, which is not a free slot of the node's %d",
			n.cfg.ID, msg.Attempt, kind, msg.Slot, len(n.slots[kind])))
		return
	}
	if _, dup := n.runs[msg.Attempt]; dup {
		n.deps.Fail(fmt.Errorf("node %d: %v launched twice", n.cfg.ID, msg.Attempt))
		return
	}
	if c := n.cfg.Cluster.Containers; c > 0 && n.containersUsed()+n.cfg.Cluster.Takes(kind) > c {
		n.deps.Fail(fmt.Errorf("node %d: %v launched with %d of its %d containers taken", n.cfg.ID, msg.Attempt, n.containersUsed(), c))
		return
	}
	for other := range n.runs {
		if a := msg.Attempt; other.Job == a.Job && other.Kind == a.Kind && other.Task == a.Task {
			// Copies of a task on one node would share its disk and CPU:
			// the coordinator never places one where its task runs.
			n.deps.Fail(fmt.Errorf("node %d: %v launched where another attempt of its task runs", n.cfg.ID, a))
			return
		}
	}
	if spill := n.spill(msg); spill > 0 {
		if spill > n.freeSpace() {
			n.deps.Fail(fmt.Errorf("node %d: %v launched with %d bytes of spill and %d bytes of intermediate space free", n.cfg.ID, msg.Attempt, spill, n.freeSpace()))
			return
		}
		n.reserved += spill
	}
	n.slots[kind][msg.Slot] = true
	r := newRun(msg, n.deps.Clock.Now())
	if n.cfg.NameOutputs && msg.Attempt.Kind == sched.Reduce {
		r.wrote, r.replicas = make([]int32, r.state.len()), make([][]sched.NodeID, r.state.len())
	}
	n.runs[msg.Attempt] = r
	n.scheduleProgress(r)
	n.deps.Metrics.AttemptStarted(AttemptRecord{
		Attempt: msg.Attempt, Node: n.cfg.ID, Slot: msg.Slot, Locality: msg.Task.Locality, Start: r.start, End: -1,
	})
	if kind == sched.Map {
		n.startMap(ctx, r)
	} else {
		n.copying[msg.Attempt.Job]++
		n.joinLog(r)
	}
	n.advance(ctx, r) // a reduce of a job whose maps output nothing, an empty map
}

// startMap starts the input read. An overlapped map streams its input
// through its compute (a record reader fills a small buffer the map
// function drains): one flow moves the bytes over the disk and their CPU
// work over the node's CPU, bounded at one core, so the map reads no
// faster than it computes and computes no faster than it reads.
//
// A map whose CPU work is over half netmodel.MaxUse a byte of its input
// (half a second of compute a byte: a fixed time on a few bytes, as the
// queueing validations' 1-byte maps) reads first and then computes, its
// read a negligible part of its compute: streamed, its CPU use with a
// remote read's receive cost (at most MaxByteCPU, far below the other
// half) would be cut to MaxUse on the CPU's link, which would see too
// little of its load and let more such maps than cores run at one core
// each.
//
// A map whose block the node caches (TaskSpec.FromMemory) reads it over
// the node's memory link instead of a disk, and tells the cache client,
// which holds the block for it.
func (n *Node) startMap(ctx actor.Context, r *run) {
	spec := &r.launch.Task
	read := DiskRead
	if spec.FromMemory {
		read = MemoryRead
		ctx.Send(n.cfg.Cache, &ReadCachedBlock{Attempt: r.launch.Attempt, File: spec.File, Block: r.launch.Attempt.Task - spec.FileFirst})
	}
	work := spec.work(spec.InputBytes)
	if spec.Model != workload.Overlapped || work <= 0 || spec.InputBytes == 0 || float64(work) > netmodel.MaxUse/2*float64(spec.InputBytes) {
		n.startFlow(ctx, r, partInput, spec.Source, n.cfg.ID, read, spec.InputBytes, 0)
		return
	}
	r.perByte = max(float64(work)/float64(spec.InputBytes), netmodel.MinUse)
	n.startComputing(ctx, r, partInput, spec.InputBytes)
}

// cacheInput offers a map's input, read from a disk, to the node's cache:
// PACMan caches a block where it is read.
func (n *Node) cacheInput(ctx actor.Context, r *run) {
	spec := &r.launch.Task
	if n.cfg.Cache == nil || spec.FromMemory || spec.File == "" || r.launch.Attempt.Kind != sched.Map {
		return
	}
	ctx.Send(n.cfg.Cache, &CacheBlock{CachedBlock{File: spec.File, Block: r.launch.Attempt.Task - spec.FileFirst, Bytes: spec.InputBytes,
		FileBlocks: spec.FileBlocks, FileBytes: spec.FileBytes}})
}

// coreRate is the work per second of one of the node's cores at the
// attempt's speed, a straggler's past its onset.
func (n *Node) coreRate(r *run) float64 {
	return CoreRate * n.cfg.Cluster.Speed * n.speed * r.speed * r.slow
}

// startCompute starts the compute of bytes: their CPU work on the node's
// CPU, at most one core. Zero work is a flow of size 0, which ends at
// the end of the instant.
func (n *Node) startCompute(ctx actor.Context, r *run, bytes int64) {
	n.startComputing(ctx, r, partCompute, int64(r.launch.Task.work(bytes)))
}

// startComputing starts the flow that carries the attempt's compute (its
// compute, or an overlapped map's streamed read) of total work or bytes.
// A straggler's flow is split at its onset: the node sets the attempt's
// speed factor when the first piece completes and starts the rest
// (handleFlowDone), which is exact under the fluid model where a timer
// would not be, since the piece's rate may change under contention.
func (n *Node) startComputing(ctx actor.Context, r *run, part int32, total int64) {
	if at, ok := r.onset(total); ok {
		n.startPiece(ctx, r, part, flowInfo{bytes: at, rest: total - at})
		return
	}
	n.startPiece(ctx, r, part, flowInfo{bytes: total})
}

// startPiece starts a piece of the attempt's compute-carrying flow: info
// says its bytes, those done before it and those still to come after it.
func (n *Node) startPiece(ctx actor.Context, r *run, part int32, info flowInfo) {
	if part == partCompute {
		info.src = n.cfg.ID
		r.flows.put(partCompute, info)
		ctx.Send(n.cfg.Fabric, &StartFlow{Key: FlowKey{Attempt: r.launch.Attempt, Part: partCompute}, Src: n.cfg.ID, Dst: n.cfg.ID,
			Transfer: Compute, Bytes: info.bytes, MaxRate: n.coreRate(r), Owner: n.self, OwnerNode: n.cfg.ID})
		return
	}
	spec := &r.launch.Task
	read := DiskRead
	if spec.FromMemory {
		read = MemoryRead
	}
	n.startFlow(ctx, r, partInput, spec.Source, n.cfg.ID, read, info.bytes, n.coreRate(r)/r.perByte)
	if f := r.flows.at(partInput); f != nil {
		f.done, f.rest = info.done, info.rest
	}
}

// retime moves the bound of the attempt's running compute, if it has
// one, to one core at the current speeds.
func (n *Node) retime(ctx actor.Context, r *run) {
	a := r.launch.Attempt
	if r.flows.at(partCompute) != nil {
		ctx.Send(n.cfg.Fabric, &SetFlowMaxRate{Key: FlowKey{Attempt: a, Part: partCompute}, MaxRate: n.coreRate(r)})
	}
	if r.flows.at(partInput) != nil && r.perByte > 0 {
		ctx.Send(n.cfg.Fabric, &SetFlowMaxRate{Key: FlowKey{Attempt: a, Part: partInput}, MaxRate: n.coreRate(r) / r.perByte})
	}
}

// handleSetNodeSpeed changes the node's core speed: its CPU link and every
// running compute's bound, in one instant.
func (n *Node) handleSetNodeSpeed(ctx actor.Context, msg *SetNodeSpeed) {
	if !(msg.Speed >= 0 && msg.Speed <= MaxSpeed) {
		n.deps.Fail(fmt.Errorf("node %d: speed %v: must be 0 … %v", n.cfg.ID, msg.Speed, MaxSpeed))
		return
	}
	n.speed = msg.Speed
	ctx.Send(n.cfg.Fabric, &SetLinkCapacity{
		Link:     netmodel.LinkRef{Kind: netmodel.HostCPU, Host: netmodel.HostID(n.cfg.ID)},
		Capacity: units.Rate(n.cfg.Cluster.CPU(&n.cfg.Tasks) * n.speed),
	})
	for _, a := range slices.SortedFunc(maps.Keys(n.runs), sched.CompareAttempts) {
		n.retime(ctx, n.runs[a])
	}
}

// handleSetAttemptSpeed changes one running attempt's speed factor.
func (n *Node) handleSetAttemptSpeed(ctx actor.Context, msg *SetAttemptSpeed) {
	if !(msg.Speed >= 0 && msg.Speed <= MaxSpeed) {
		n.deps.Fail(fmt.Errorf("node %d: %v speed %v: must be 0 … %v", n.cfg.ID, msg.Attempt, msg.Speed, MaxSpeed))
		return
	}
	if r := n.runs[msg.Attempt]; r != nil {
		r.speed = msg.Speed
		n.retime(ctx, r)
	}
}

// startFlow asks the fabric for a flow of the attempt, bounded at maxRate
// bytes per second when positive; an empty transfer needs no flow and is
// done at once.
func (n *Node) startFlow(ctx actor.Context, r *run, part int32, src, dst sched.NodeID, t Transfer, bytes int64, maxRate float64) {
	if bytes == 0 {
		return
	}
	key := FlowKey{Attempt: r.launch.Attempt, Part: part}
	r.flows.put(part, flowInfo{src: src, bytes: bytes})
	msg := &StartFlow{Key: key, Src: src, Dst: dst, Transfer: t, Bytes: bytes, MaxRate: maxRate, Owner: n.self, OwnerNode: n.cfg.ID}
	if part == partInput {
		msg.CPUPerByte = r.perByte // a streamed read's compute
	}
	switch {
	case part >= partFetch:
		msg.StallTimeout = n.cfg.Tasks.FetchTimeout.Std()
		if n.cfg.NameOutputs {
			msg.Outputs = r.outputRefs(part)
		}
		if t == RackFetch {
			msg.Sources = r.fetchSources(part)
		}
	case part >= partPipeline:
		msg.StallTimeout = n.cfg.HDFS.WriteTimeout.Std()
	}
	ctx.Send(n.cfg.Fabric, msg)
}

func (n *Node) handleFlowDone(ctx actor.Context, msg *FlowDone) {
	r := n.runs[msg.Key.Attempt]
	if r == nil {
		return // killed while the fabric reported completion
	}
	info, ok := r.flows.take(msg.Key.Part)
	if !ok {
		n.deps.Fail(fmt.Errorf("node %d: FlowDone for unknown flow %v", n.cfg.ID, msg.Key))
		return
	}
	r.account(n.cfg.ID, msg.Key.Part, info)
	if info.rest > 0 {
		// A straggler's onset: the rest of its compute runs slowed.
		r.slow = r.launch.Task.Straggle.Speed()
		n.startPiece(ctx, r, msg.Key.Part, flowInfo{bytes: info.rest, done: info.done + info.bytes})
		return
	}
	if msg.Key.Part == partInput {
		n.cacheInput(ctx, r)
	}
	if msg.Key.Part >= partFetch {
		r.fetchDone(msg.Key.Part, info.bytes)
		n.fetchMore(ctx, r)
	}
	n.advance(ctx, r)
}

// advance moves an attempt to its next phase once the current one has
// nothing outstanding.
func (n *Node) advance(ctx actor.Context, r *run) {
	if r.waiting() {
		return
	}
	spec := &r.launch.Task
	switch r.phase {
	case phaseInput:
		if r.launch.Attempt.Kind == sched.Reduce {
			n.enter(r, phaseAwaitCompute)
			n.awaiting = append(n.awaiting, r)
			n.admitReducers(ctx)
			return
		}
		n.enter(r, phaseCompute)
		if spec.Model == workload.Sequential || r.perByte == 0 {
			n.startCompute(ctx, r, spec.InputBytes)
		}
		n.advance(ctx, r)
	case phaseCompute:
		if spec.Fail {
			n.finish(ctx, r, sched.Failed, "failed at the end of its compute (tasks.failure_probability)")
			return
		}
		n.enter(r, phaseOutput)
		n.startOutput(ctx, r)
		n.advance(ctx, r)
	case phaseOutput:
		n.finish(ctx, r, sched.Succeeded, "")
	}
}

// startOutput writes a map's spill to the local disk, or a job's output
// through the replication pipeline: writer's disk, then hop by hop.
func (n *Node) startOutput(ctx actor.Context, r *run) {
	spec := &r.launch.Task
	if spec.SpillBytes > 0 {
		n.startFlow(ctx, r, partSpill, n.cfg.ID, n.cfg.ID, DiskWrite, spec.SpillBytes, 0)
	}
	if spec.OutputBytes == 0 {
		return
	}
	prev := n.cfg.ID
	for i, node := range spec.Pipeline {
		n.startFlow(ctx, r, partPipeline+int32(i), prev, node, DiskWrite, spec.OutputBytes, 0)
		prev = node
	}
}

func (n *Node) handleKill(ctx actor.Context, msg *KillTask) {
	if r := n.runs[msg.Attempt]; r != nil {
		if msg.Project {
			r.projected = r.projectedEnd()
		}
		n.finish(ctx, r, sched.Killed, msg.Reason)
	}
}

func (n *Node) handleFlowFailed(ctx actor.Context, msg *FlowFailed) {
	r := n.runs[msg.Key.Attempt]
	if r == nil {
		return
	}
	_, ok := r.flows.take(msg.Key.Part)
	if !ok {
		return
	}
	switch part := msg.Key.Part; {
	case part >= partFetch:
		n.fetchFailed(ctx, r, part, msg)
		return
	case part >= partPipeline:
		// HDFS's pipeline recovery: the write goes on without the
		// datanode that failed, the block one replica short.
		n.advance(ctx, r)
		return
	}
	n.finish(ctx, r, sched.Killed, msg.Reason)
}

// finish ends an attempt: cancels what it still has running, frees its
// slot, records it and reports it to its job manager.
func (n *Node) finish(ctx actor.Context, r *run, o sched.Outcome, reason string) {
	a := r.launch.Attempt
	for _, f := range r.flows {
		ctx.Send(n.cfg.Fabric, &CancelFlow{Key: FlowKey{Attempt: a, Part: f.part}})
	}
	delete(n.runs, a)
	if r.reporting {
		n.deps.Clock.Cancel(r.progressTimer)
	}
	if a.Kind == sched.Reduce {
		n.leaveLog(r)
		n.releaseReducer(ctx, r)
	}
	if spill := n.spill(r.launch); spill > 0 {
		n.reserved -= spill
		if o == sched.Succeeded {
			n.stored[a.Job] += spill
		}
	}
	n.slots[a.Kind][r.launch.Slot] = false
	if n.qos != nil && a.Kind == sched.Map {
		n.serveQoS(ctx)
	}
	n.deps.progressed()
	now := n.deps.Clock.Now()
	r.closePhase(now)
	n.deps.Metrics.AttemptEnded(AttemptRecord{
		Attempt: a, Node: n.cfg.ID, Slot: r.launch.Slot, Locality: r.launch.Task.Locality,
		Start: r.start, End: now, LocalBytes: r.localBytes, RemoteBytes: r.remoteBytes,
		Outcome: o, Reason: reason, Phases: r.phases, Projected: r.projected,
	})
	n.ended = append(n.ended, AttemptEnded{Attempt: a, Outcome: o, At: now, Reason: reason, OutputBytes: r.launch.Task.SpillBytes})
	n.relay(ctx, r.launch.JobManager, &TaskFinished{
		Attempt: a, Node: n.cfg.ID, Outcome: o, Reason: reason, OutputBytes: r.launch.Task.SpillBytes,
		Start: r.start, Projected: r.projected,
	})
	if n.cfg.Heartbeat.OutOfBand {
		n.sendHeartbeat(ctx)
	}
}

// admitReducers lets copied reducers compute, oldest first, while the
// node's computing limit allows.
func (n *Node) admitReducers(ctx actor.Context) {
	for len(n.awaiting) > 0 && (n.computeSlots == 0 || n.computing < n.computeSlots) {
		r := n.awaiting[0]
		n.awaiting = n.awaiting[1:]
		n.copied(r.launch.Attempt.Job)
		n.computing++
		n.enter(r, phaseCompute)
		n.startCompute(ctx, r, r.fetched)
	}
}

// releaseReducer forgets an ended reducer's place in the copy phase, the
// queue or the computing set, and admits the next waiting reducer.
func (n *Node) releaseReducer(ctx actor.Context, r *run) {
	switch r.phase {
	case phaseInput, phaseAwaitCompute:
		n.copied(r.launch.Attempt.Job)
		if i := slices.Index(n.awaiting, r); i >= 0 {
			n.awaiting = slices.Delete(n.awaiting, i, i+1)
		}
	default:
		n.computing--
		n.admitReducers(ctx)
	}
}

// joinLog gives a reduce attempt its queue on one of the node's logs for
// its job, with a reader's place free.
func (n *Node) joinLog(r *run) {
	job := r.launch.Attempt.Job
	for _, l := range n.logs[job] {
		if bit, ok := l.join(); ok {
			r.queue = newFetchQueue(l, bit)
			return
		}
	}
	l := &outputLog{}
	bit, _ := l.join()
	n.logs[job] = append(n.logs[job], l)
	r.queue = newFetchQueue(l, bit)
}

// leaveLog gives up an ended reduce attempt's queue, and its log when no
// other reducer reads it.
func (n *Node) leaveLog(r *run) {
	l, job := r.queue.log, r.launch.Attempt.Job
	r.queue.leave()
	if l == nil || l.readers != 0 {
		return
	}
	if logs := slices.DeleteFunc(n.logs[job], func(o *outputLog) bool { return o == l }); len(logs) > 0 {
		n.logs[job] = logs
	} else {
		delete(n.logs, job)
	}
}

// copied counts one of the job's reducers out of the copy phase.
func (n *Node) copied(job sched.JobID) {
	if n.copying[job]--; n.copying[job] == 0 {
		delete(n.copying, job)
	}
}

// copyingReport is each job's reducers still copying or waiting to
// compute, for the coordinator's per-job cap; nil without the split.
func (n *Node) copyingReport() map[sched.JobID]int {
	if n.computeSlots == 0 || len(n.copying) == 0 {
		return nil
	}
	return maps.Clone(n.copying)
}

// spill is the intermediate space a launch needs: a map's spill when the
// node accounts for space.
func (n *Node) spill(l *LaunchTask) int64 {
	if int64(n.cfg.Cluster.IntermediateSpace) <= 0 || l.Attempt.Kind != sched.Map {
		return 0
	}
	return l.Task.SpillBytes
}

// freeSpace is the intermediate space neither reserved nor stored; 0 when
// the node does not account for space.
func (n *Node) freeSpace() int64 {
	if int64(n.cfg.Cluster.IntermediateSpace) <= 0 {
		return 0
	}
	used := n.reserved
	for _, b := range n.stored {
		used += b
	}
	return int64(n.cfg.Cluster.IntermediateSpace) - used
}

// learn tells a reduce attempt of outputs to fetch and outputs lost.
func (n *Node) learn(ctx actor.Context, reduce sched.Attempt, outs []MapOutput, lost []int32) {
	r := n.runs[reduce]
	if r == nil {
		return // the reduce ended before the news arrived
	}
	for _, m := range lost {
		r.forget(m)
	}
	for _, out := range outs {
		r.learn(out)
	}
	n.fetchMore(ctx, r)
	n.advance(ctx, r)
}

// fetchMore starts queued shuffle fetches up to the parallel-copies cap.
//
// A fetch reads the map output from the source's disk (RemoteRead: the
// disk, then the network), not from its page cache. Hadoop writes every
// map output to a spill file that the TaskTracker's HTTP server reads; on
// the papers' nodes (a few GB of memory shared by the tasks' JVMs) a
// node's map outputs of a large shuffle are mostly out of the page cache
// by the time a reducer asks, and the shuffle's disk contention is part of
// what the Zaharia reproductions measure (copy-compute splitting, the
// batch and macrobenchmark runs). Charging the cache for outputs that fit
// needs a model of each node's memory, which the cache issue brings; the
// fabric already moves NetTransfer and MemoryRead flows for owners that
// know their bytes are in memory.
//
// With tasks.fetch_per_rack, a fetch from another rack takes the queued
// outputs of all that rack's nodes in one RackFetch flow, which leaves
// the source nodes' disks and NICs out of its path.
func (n *Node) fetchMore(ctx actor.Context, r *run) {
	perRack := 0
	if n.cfg.Tasks.FetchPerRack {
		perRack = n.cfg.Cluster.NodesPerRack
	}
	for r.fetching < n.cfg.Tasks.ParallelCopies && r.queue.len() > 0 {
		part, src, bytes, rack := r.nextFetch(n.cfg.Tasks.FetchPerHost, n.cfg.ID, perRack)
		t := DiskRead
		if rack {
			t = RackFetch
		}
		n.startFlow(ctx, r, part, src, n.cfg.ID, t, bytes, 0)
	}
}

// fetchRetryDue is the end of a failed fetch's wait before it is tried
// again.
type fetchRetryDue struct {
	Attempt sched.Attempt
	Items   []fetchItem
}

// fetchFailed reports a failed fetch to the job manager, which re-runs
// the map when enough reducers cannot fetch its output, and fetches the
// outputs again after tasks.fetch_retry, from wherever they are then. A
// rack fetch reports each source node's outputs apart; when one of its
// sources crashed, the others' outputs are queued again at once, their
// fetch not failed.
func (n *Node) fetchFailed(ctx actor.Context, r *run, part int32, msg *FlowFailed) {
	items := r.fetchFailed(part)
	if msg.NodeDown {
		items = r.spare(items, msg.Down)
	}
	var retry []fetchItem
	for len(items) > 0 {
		k := 1
		for k < len(items) && items[k].src == items[0].src {
			k++
		}
		retry = append(retry, n.reportFetchFailed(ctx, r, items[:k])...)
		items = items[k:]
	}
	if len(retry) > 0 {
		n.deps.Clock.After(n.cfg.Tasks.FetchRetry.Std(), n.self, &fetchRetryDue{Attempt: r.launch.Attempt, Items: retry})
	}
	n.fetchMore(ctx, r)
}

// reportFetchFailed tells the job manager of a failed fetch of outputs
// of one node, once those with another copy are queued from there, and
// returns the outputs left to retry.
func (n *Node) reportFetchFailed(ctx actor.Context, r *run, items []fetchItem) []fetchItem {
	src := items[0].src
	items, saved := n.tryReplicas(r, items)
	maps := make([]int32, len(items))
	for i, it := range items {
		maps[i] = it.m
	}
	if len(items)+len(saved) > 0 {
		n.relay(ctx, r.launch.JobManager, &FetchFailed{Reduce: r.launch.Attempt, Node: src, Maps: maps, Served: saved})
	}
	return items
}

func (n *Node) handleFetchRetry(ctx actor.Context, msg *fetchRetryDue) {
	r := n.runs[msg.Attempt]
	if r == nil {
		return
	}
	r.retry(msg.Items)
	n.fetchMore(ctx, r)
	n.advance(ctx, r)
}

// progressTick asks for one of an attempt's progress reports.
type progressTick struct {
	Attempt sched.Attempt
}

// enter moves an attempt to a phase.
func (n *Node) enter(r *run, p phase) {
	now := n.deps.Clock.Now()
	r.closePhase(now)
	r.phase, r.phaseStart = p, now
}

// scheduleProgress arms the attempt's next progress report, Δ =
// min(interval, an eighth of its phase so far) from now, and no sooner
// than a tenth of the interval.
func (n *Node) scheduleProgress(r *run) {
	every := n.cfg.Tasks.ProgressInterval.Std()
	if every <= 0 {
		return
	}
	d := min(every, max((n.deps.Clock.Now()-r.phaseStart)/8, every/10))
	r.progressTimer, r.reporting = n.deps.Clock.After(d, n.self, &progressTick{Attempt: r.launch.Attempt}), true
}

// handleProgressTick asks the fabric what the attempt's flows have
// delivered, or reports at once when it has none.
func (n *Node) handleProgressTick(ctx actor.Context, msg *progressTick) {
	r := n.runs[msg.Attempt]
	if r == nil {
		return
	}
	r.reporting = false
	if len(r.flows) == 0 {
		n.report(ctx, r, nil)
		return
	}
	keys := make([]FlowKey, 0, len(r.flows))
	for _, f := range r.flows {
		keys = append(keys, FlowKey{Attempt: msg.Attempt, Part: f.part})
	}
	ctx.Send(n.cfg.Fabric, &QueryDelivered{Attempt: msg.Attempt, Keys: keys, Owner: n.self})
}

func (n *Node) handleDelivered(ctx actor.Context, msg *FlowsDelivered) {
	r := n.runs[msg.Attempt]
	if r == nil {
		return // it ended while the fabric answered
	}
	delivered := make(map[int32]int64, len(msg.Keys))
	for i, k := range msg.Keys {
		delivered[k.Part] = msg.Bytes[i]
	}
	n.report(ctx, r, delivered)
}

// report sends the attempt's progress to its job manager and arms the
// next report.
func (n *Node) report(ctx actor.Context, r *run, delivered map[int32]int64) {
	ph, frac, score := r.progress(delivered)
	r.reported(score, n.deps.Clock.Now())
	n.relay(ctx, r.launch.JobManager, &TaskProgress{
		Attempt: r.launch.Attempt, Phase: ph, Fraction: frac, Score: score, Start: r.start, At: n.deps.Clock.Now(),
	})
	n.scheduleProgress(r)
}
