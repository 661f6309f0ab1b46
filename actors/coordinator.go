package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// CoordinatorConfig is the master's configuration.
type CoordinatorConfig struct {
	Cluster   ClusterConfig
	HDFS      HDFSConfig
	Heartbeat HeartbeatConfig
	Tasks     TasksConfig
	// Stragglers draws each attempt's slowdown (TaskSpec.Straggle);
	// Straggle, when set, gives it instead (a test's pinned slowdown).
	Stragglers StragglersConfig
	Straggle   func(sched.Attempt) Straggle
	// Speculation is what the coordinator keeps to of the speculation
	// policy; Blacklist is [blacklist].
	Speculation SpeculationConfig
	Blacklist   BlacklistConfig
	// Cloning is [cloning], Dolly's budgeted clones.
	Cloning CloningConfig
	// NewSpeculation makes a job's speculation policy from the job's map
	// and reduce counts (nil: none); MeasureNodes has job managers send
	// AttemptMeasured.
	NewSpeculation func(tasks [2]int) straggler.Policy
	MeasureNodes   bool
	// PolicyTick is the period of the policy's Tick (preemption, share
	// updates); 0 never ticks.
	PolicyTick time.Duration
	// MaxRunning caps the jobs admitted at once; later ones wait in
	// submission order (coordinator_state.go). 0: no cap.
	MaxRunning int
	// RackOf is the rack Hadoop is told each node is in, by node ID (all
	// 0 when the cluster is not rack-aware).
	RackOf  []sched.RackID
	Streams int // workload streams that will say WorkloadSubmitted
	// Idle: the run has no workload stream and a deadline, and the
	// cluster idles until it rather than ending at once.
	Idle      bool
	Fabric    *actor.PID
	Directory *Directory
	// Explain records every slot offer the policy looked at a job for,
	// with its reasons (Recorder.Offered), for clusteremu explain.
	Explain bool
	// NewPolicy makes the scheduling policy afresh, for a coordinator
	// that restarts after a crash (FaultCoordinator).
	NewPolicy func() (sched.Policy, error)
	// Cache is [cache] (nil or without a capacity: none); Preloaded are
	// the blocks its clients hold from the start, and CacheFuture the
	// open streams' jobs by the file they read, MIN's oracle.
	Cache       *CacheConfig
	Preloaded   []Preloaded
	CacheFuture map[string][]FutureRead
	// Replication is [replication], Scarlett; nil: none.
	Replication *ReplicationConfig
	// IntermediateLoss is [intermediate_loss]; nil: no output is lost,
	// and job managers report no loss (coordinator_recompute.go).
	IntermediateLoss *IntermediateLossConfig
}

// Coordinator is the cluster master (JobTracker/ResourceManager and
// NameNode): it registers nodes, answers heartbeats with launches chosen
// by the scheduling policy, keeps the block map, spawns a job manager per
// job and declares silent nodes dead. Every decision is its core's
// (coordState); the actor turns messages into the core's events and the
// core's effects into messages.
type Coordinator struct {
	cfg  CoordinatorConfig
	deps Deps
	core *coordState
	self *actor.PID
	jms  map[sched.JobID]*actor.PID
	// clients are the closed-loop clients to tell when their job ends.
	clients map[sched.JobID]*actor.PID
	// down: crashed, until restarted; stash holds what clients and job
	// managers sent meanwhile (coordinator_recovery.go).
	down  bool
	stash []any
	// suspect holds the nodes' recent output losses
	// (coordinator_recompute.go); nil before the first.
	suspect *suspicions
	// service queues the requests of a coordinator with a service time
	// (coordinator_service.go).
	service serviceQueue
	nics    nodeNICs
}

// nodeNICs is each node's NIC rate in bytes/s: nics where nodes differ
// ([[cluster.class]]), nic, [cluster]'s, on every node otherwise.
type nodeNICs struct {
	nic  float64
	nics []float64
}

// newNodeNICs is the cluster's NIC rates.
func newNodeNICs(c *ClusterConfig) nodeNICs {
	n := nodeNICs{nic: float64(c.NIC)}
	if c.Heterogeneous() {
		c.EachNode(func(_ int, hw *ClusterConfig) { n.nics = append(n.nics, float64(hw.NIC)) })
	}
	return n
}

// of is node's NIC rate.
func (n nodeNICs) of(node sched.NodeID) float64 {
	if n.nics != nil {
		return n.nics[node]
	}
	return n.nic
}

// livenessTick checks for nodes that stopped heartbeating.
type livenessTick struct{}

// policyTick runs the policy's periodic work.
type policyTick struct{}

// blacklistTick ends a blacklist window.
type blacklistTick struct{}

// epochTick runs Scarlett's rearrangement, every replication.epoch.
type epochTick struct{}

// NewCoordinator returns the coordinator actor's state.
func NewCoordinator(cfg CoordinatorConfig, policy sched.Policy, deps Deps) *Coordinator {
	c := &Coordinator{
		cfg: cfg, deps: deps,
		jms:     make(map[sched.JobID]*actor.PID),
		clients: make(map[sched.JobID]*actor.PID),
		service: serviceQueue{each: cfg.Heartbeat.ServiceTime.Std(), perTask: cfg.Heartbeat.ServicePerTask.Std(),
			perJob: cfg.Heartbeat.ServicePerJob.Std()},
	}
	c.core = newCoordState(&c.cfg, policy, deps.Rand.Uint64())
	c.nics = newNodeNICs(&cfg.Cluster)
	return c
}

// Receive implements actor.Actor.
func (c *Coordinator) Receive(ctx actor.Context) {
	if c.down {
		c.receiveDownMsg(ctx, ctx.Message())
		return
	}
	now := c.deps.Clock.Now()
	if c.cfg.Heartbeat.Serves() && c.serve(ctx, now, ctx.Message()) {
		return
	}
	c.handle(ctx, now, ctx.Message())
	c.apply(ctx, c.core.take())
}

// handle turns a message into the core's event.
func (c *Coordinator) handle(ctx actor.Context, now time.Duration, m any) {
	c.core.table.now = now
	switch msg := m.(type) {
	case *actor.Started:
		c.handleStarted(ctx)
	case *RegisterNode:
		c.core.register(now, msg)
	case *SubmitJob:
		if msg.Client != nil {
			c.clients[msg.ID] = msg.Client
		}
		c.core.submit(now, msg.At, msg.ID, msg.Spec)
	case *WorkloadSubmitted:
		c.core.workloadSubmitted()
	case *RequeueTasks:
		c.core.requeue(msg)
	case *MapsFinished:
		c.core.mapsFinished(msg.Job)
	case *JobProgressed:
		c.core.jobProgressed(msg)
	case *QueueCopy:
		c.core.queueCopy(msg)
	case *WithdrawCopy:
		c.core.withdrawCopy(msg)
	case *AttemptMeasured:
		c.core.measured(now, msg)
	case *ClonesMeasured:
		if c.core.clones != nil {
			c.core.clonesMeasured(now, msg, c.nics.of)
		}
	case *blacklistTick:
		c.core.endBlacklistWindow()
	case *Heartbeat:
		c.core.heartbeat(now, msg)
		c.noteProduced(msg)
		if c.cfg.Heartbeat.Serves() {
			// The call returns after what it launched (coordinator_service.go).
			c.core.emit(&tellNode{msg.Node, &HeartbeatAnswered{Seq: msg.Seq}})
		}
	case *JobEnded:
		c.handleJobEnded(ctx, msg)
	case *livenessTick:
		c.core.checkLiveness(now)
	case *policyTick:
		c.core.policyTick(now)
	case *spaceTick:
		c.core.checkSpace(now)
	case *JobResynced:
		c.core.jobResynced(msg)
	case *BlockCached:
		c.core.blockCached(now, msg)
	case *BlockEvicted:
		c.core.blockEvicted(now, msg)
	case *PickEviction:
		c.core.pickEviction(now, msg)
	case *CacheReported:
		c.core.cacheReported(now, msg)
	case *WaveWidthMeasured:
		c.core.waveWidthMeasured(now, msg)
	case *epochTick:
		c.core.rearrange(now)
	case *BlockReplicated:
		c.core.blockReplicated(now, msg)
	case *ReplicationFailed:
		c.core.replicationFailed(msg)
	case *FlowDone:
		c.core.copyDone(msg.Key.ID, msg.Bytes)
	case *FlowFailed:
		c.core.copyFailed(msg.Key.ID)
	case *OutputLost:
		c.handleOutputLost(ctx, now, msg)
	case *suspicionLapsed:
		c.core.offSuspected().lapse(msg.Node)
	case *CrashCoordinator:
		c.down = true
		c.dropQueue(ctx)
	case *RestartCoordinator:
		// A restart of a coordinator that is up: nothing to do.
	case *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		c.deps.Fail(fmt.Errorf("coordinator: unhandled message %T", msg))
	}
}

func (c *Coordinator) handleStarted(ctx actor.Context) {
	c.self = ctx.Self()
	hb := c.cfg.Heartbeat.Interval.Std()
	if c.cfg.Heartbeat.DeadAfter > 0 {
		c.deps.Clock.Every(hb, hb, c.self, &livenessTick{})
	}
	if c.cfg.PolicyTick > 0 {
		c.deps.Clock.Every(c.cfg.PolicyTick, c.cfg.PolicyTick, c.self, &policyTick{})
	}
	if c.core.space != nil {
		c.deps.Clock.Every(hb, hb, c.self, &spaceTick{})
	}
	if w := c.cfg.Blacklist.Window.Std(); c.cfg.Blacklist.On() {
		c.deps.Clock.Every(w, w, c.self, &blacklistTick{})
	}
	if r := c.cfg.Replication; r != nil {
		c.deps.Clock.Every(r.Epoch.Std(), r.Epoch.Std(), c.self, &epochTick{})
	}
	c.core.maybeFinish()
}

// handleJobEnded tells a closed-loop client its job ended, lets the core
// forget the job and stops its manager, whose state a long run would
// otherwise keep to the end: reports of the job's attempts killed after
// it ended become dead letters, counted in the run's end.
func (c *Coordinator) handleJobEnded(ctx actor.Context, msg *JobEnded) {
	c.core.commitOutput(msg)
	if client, ok := c.clients[msg.Job]; ok {
		delete(c.clients, msg.Job)
		ctx.Send(client, msg)
	}
	c.core.jobEnded(c.deps.Clock.Now(), msg.Job)
	if jm, ok := c.jms[msg.Job]; ok {
		delete(c.jms, msg.Job)
		ctx.Stop(jm)
	}
}

// apply carries out the core's effects as messages, in order.
func (c *Coordinator) apply(ctx actor.Context, out coordOut) {
	for _, o := range out.offers {
		c.deps.Metrics.Offered(o)
	}
	for _, r := range out.records {
		c.deps.Metrics.JobSubmitted(r)
	}
	for _, n := range out.counts {
		c.deps.Metrics.Count(n.metric, n.n)
	}
	for _, n := range out.jobCounts {
		c.deps.Metrics.CountJob(n.job, n.metric, n.n)
	}
	for _, r := range out.replicas {
		c.deps.Metrics.ReplicaChanged(r)
	}
	if out.progress {
		c.deps.progressed()
	}
	for _, e := range out.effects {
		switch e := e.(type) {
		case *spawnJobManager:
			c.spawnJobManager(ctx, e)
		case *launchAttempt:
			jm := c.jms[e.attempt.Job]
			c.cfg.Directory.relay(ctx, e.node, &LaunchTask{Attempt: e.attempt, Slot: e.slot, JobManager: jm, Task: e.spec})
			ctx.Send(jm, &TaskLaunched{Attempt: e.attempt, Node: e.node, Locality: e.locality, Bytes: e.bytes, Copy: e.copied,
				LossRate: c.lossRate(e.node)})
		case *killAttempt:
			c.cfg.Directory.relay(ctx, e.node, &KillTask{Attempt: e.attempt, Reason: e.reason})
		case *tellJob:
			if jm := c.jms[e.job]; jm != nil { // else the job ended and its manager stopped
				ctx.Send(jm, e.msg)
			}
		case *tellNode:
			c.cfg.Directory.relay(ctx, e.node, e.msg)
		case *tellCache:
			c.cfg.Directory.relayCache(ctx, e.node, e.msg)
		case *startCopy:
			ctx.Send(c.cfg.Fabric, &StartFlow{Key: FlowKey{Owner: OwnerReReplication, ID: e.id}, Src: e.src, Dst: e.dst,
				Transfer: DiskCopy, Bytes: e.bytes, Class: Background, Owner: c.self, OwnerNode: -1})
		case *noteNode:
			c.deps.Metrics.Noted(Note{At: c.deps.Clock.Now(), Node: e.node, What: e.what})
		default:
			c.deps.Fail(fmt.Errorf("coordinator: unknown effect %T", e))
		}
	}
	if out.err != nil {
		c.deps.Fail(out.err)
	}
	if out.done {
		c.deps.Done()
	}
}

// spawnJobManager starts a job's manager as the coordinator's child.
func (c *Coordinator) spawnJobManager(ctx actor.Context, e *spawnJobManager) {
	jm := NewJobManager(e.job, e.spec, e.maps, e.slowStart, c.cfg.Tasks.MaxAttempts, c.self, c.cfg.Directory, c.deps)
	jm.setup, jm.reportMaps, jm.admitted = c.cfg.Tasks.JobSetup.Std(), c.cfg.Tasks.ComputeAware, e.admitted
	jm.inputFiles = fileReads(e.spec, int64(c.cfg.HDFS.BlockSize))
	if c.cfg.Cache.On() {
		jm.waves = &waveWidth{files: inputNames(e.job, e.spec), first: -1}
	}
	if np, ok := c.core.policy.(sched.NeedsProgress); ok && np.NeedsProgress() {
		jm.sent = &[2]float64{}
	}
	jm.state.fetchLimit = c.cfg.Tasks.FetchFailures
	if every := c.cfg.Tasks.MapEventsEvery; every > 0 {
		jm.events = newMapEvents(every.Std())
	}
	jm.reportLosses = c.cfg.IntermediateLoss != nil
	if r := c.cfg.Tasks.RecomputeConfig; r.ProtectOutputs {
		jm.protect = &outputProtection{nics: c.nics, budget: r.Budget(), perRack: c.cfg.Cluster.NodesPerRack,
			lossRate: make(map[sched.NodeID]float64)}
	}
	if pl := c.cfg.Tasks.ReducePlacementConfig; pl.On() {
		jm.placement = &reducePlacement{cfg: pl, rackOf: c.cfg.RackOf, racks: c.cfg.Cluster.Racks}
		jm.fabric = c.cfg.Fabric
	}
	if c.cfg.Heartbeat.Reliable {
		jm.ended = make(map[sched.Attempt]bool)
	}
	if cl := c.cfg.Cloning; cl.On() {
		jm.state.access = newJobAccess(straggler.Access(cl.Access))
		jm.measureClones = cl.Access == string(straggler.AccessDelay) && cl.Omega.Auto
	}
	if c.cfg.Speculation.On || c.cfg.MeasureNodes {
		var policy straggler.Policy
		if c.cfg.NewSpeculation != nil {
			policy = c.cfg.NewSpeculation([2]int{e.maps, e.spec.Reduces})
		}
		jm.speculation = newJobSpeculation(policy, c.cfg.MeasureNodes)
	}
	pid, err := ctx.SpawnNamed(c.deps.Props(func() actor.Actor { return jm }), fmt.Sprintf("job-%d", e.job))
	if err != nil {
		c.deps.Fail(fmt.Errorf("coordinator: %w", err))
		return
	}
	c.jms[e.job] = pid
}
