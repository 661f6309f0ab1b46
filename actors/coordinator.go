package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// CoordinatorConfig is the master's configuration.
type CoordinatorConfig struct {
	RackOf      []sched.RackID // by node ID
	BlockSize   int64
	Replication int
	Heartbeat   time.Duration
	// DeadAfter declares a node dead after this long without a heartbeat;
	// 0 never does.
	DeadAfter time.Duration
	// AssignMultiple fills every free slot of a heartbeating node; when
	// false a heartbeat gets at most one task of each kind.
	AssignMultiple bool
	// CommitPendingRunning reproduces Hadoop's commit-pending counting
	// (Zaharia et al. §4.1): a task that finished its work still counts as
	// running for its job while the heartbeat that reports it offers its
	// slot, so the slot goes to another job and sticky slots do not form.
	// Off, the job is told first and is the one furthest below its share.
	CommitPendingRunning bool
	// PolicyTick is the period of the policy's Tick (preemption, share
	// updates); 0 never ticks.
	PolicyTick time.Duration
	SlowStart  float64 // default reduce slow-start fraction
	// JobSetup is each job's initialisation before its tasks are
	// runnable; Zaharia et al. name it the bottleneck of 3-map jobs.
	JobSetup time.Duration
	// ReduceCopyCap, when > 0, is copy-compute splitting's per-job limit:
	// a node runs at most this many of a job's reducers that have not
	// begun computing (its maxComputing).
	ReduceCopyCap int
	// ComputeAware, under copy-compute splitting, launches a reducer of a
	// job whose maps have all finished only on a node with a compute slot
	// that no reducer claims: it would compute at once, so it waits for
	// such a node in the job's queue rather than in one node's.
	ComputeAware bool
	// IntermediateSpace, when > 0, is each node's space for map outputs,
	// and Evict the victim rule when it fills (coordinator_space.go).
	IntermediateSpace int64
	Evict             string
	MaxAttempts       int // failed attempts after which a task fails its job
	Streams           int // workload streams that will say WorkloadSubmitted
	Fabric            *actor.PID
	Directory         *Directory
}

// Coordinator is the cluster master (JobTracker/ResourceManager and
// NameNode): it registers nodes, answers heartbeats with launches chosen
// by the scheduling policy, keeps the block map, spawns a job manager per
// job and declares silent nodes dead.
type Coordinator struct {
	cfg      CoordinatorConfig
	deps     Deps
	policy   sched.Policy
	table    *jobTable
	blocks   *blockMap
	nodes    []nodeEntry
	jobs     map[sched.JobID]*coordJob
	running  map[sched.Attempt]sched.NodeID
	streams  int
	finished bool
	// stuckSince is when the cluster last became stuck on intermediate
	// space, -1 when it is not; held are the evicted jobs waiting for
	// another job to end.
	stuckSince time.Duration
	held       map[sched.JobID]bool
}

// nodeEntry is the coordinator's record of one node.
type nodeEntry struct {
	registered, dead bool
	slots            [2]int
	last             time.Duration // last heartbeat
	sent             [2]int64      // launches sent, by kind
	// Copy-compute splitting: each job's reducers not yet computing, as
	// the last heartbeat reported them, and the reduce launches sent
	// since that the node had not yet received.
	copying         map[sched.JobID]int
	freeCompute     int
	reducesAcked    int64
	reducesInFlight []sched.JobID
	// Intermediate space: free at the last heartbeat, and the spill of
	// the map launches sent since that the node had not yet received.
	freeSpace     int64
	mapsAcked     int64
	spillInFlight []int64
}

// coordJob is what the coordinator keeps of a job.
type coordJob struct {
	spec     workload.JobSpec
	jm       *actor.PID
	input    *file
	maps     int
	attempts [2][]int32 // next attempt number by kind and task
	mapDone  []bool     // maps whose output the job holds
	// mapsFinished: the job manager reported every map finished, and no
	// map has been requeued since (kept only with ComputeAware).
	mapsFinished bool
	client       *actor.PID // told when the job ends; nil for open streams
}

// livenessTick checks for nodes that stopped heartbeating.
type livenessTick struct{}

// policyTick runs the policy's periodic work.
type policyTick struct{}

// NewCoordinator returns the coordinator actor's state.
func NewCoordinator(cfg CoordinatorConfig, policy sched.Policy, deps Deps) *Coordinator {
	c := &Coordinator{
		cfg: cfg, deps: deps, policy: policy,
		table:      newJobTable(cfg.RackOf),
		blocks:     newBlockMap(cfg.BlockSize, cfg.Replication, cfg.RackOf, deps.Rand),
		nodes:      make([]nodeEntry, len(cfg.RackOf)),
		jobs:       make(map[sched.JobID]*coordJob),
		running:    make(map[sched.Attempt]sched.NodeID),
		streams:    cfg.Streams,
		stuckSince: -1,
		held:       make(map[sched.JobID]bool),
	}
	if cfg.ReduceCopyCap > 0 || c.spaceOn() {
		c.table.admitsReduce = c.admitsReduce
	}
	if c.spaceOn() {
		c.table.admitsMap = c.admitsMap
	}
	return c
}

// admitsReduce reports whether a node may take another reducer of a job:
// the job is not held after an eviction, fewer than ReduceCopyCap of its
// reducers there have yet to begin computing, counting launches still on
// their way, and with ComputeAware, a compute slot is free for a reducer
// that would compute at once.
func (c *Coordinator) admitsReduce(job sched.JobID, node sched.NodeID) bool {
	if c.held[job] {
		return false
	}
	if c.cfg.ReduceCopyCap <= 0 {
		return true
	}
	n := &c.nodes[node]
	copying := n.copying[job]
	for _, j := range n.reducesInFlight {
		if j == job {
			copying++
		}
	}
	if copying >= c.cfg.ReduceCopyCap {
		return false
	}
	return !c.cfg.ComputeAware || !c.mapsFinished(job) || c.freeCompute(n) > 0
}

// mapsFinished reports whether the job manager reported every map of a
// job finished. It, not the heartbeats, knows first: a finished map reaches
// the coordinator with its node's next heartbeat.
func (c *Coordinator) mapsFinished(job sched.JobID) bool {
	j := c.jobs[job]
	return j != nil && j.mapsFinished
}

// freeCompute is a node's compute slots that no reducer claims: those free
// at its last heartbeat less the reducers sent since whose jobs' maps have
// all finished (they will want to compute as soon as they have copied).
func (c *Coordinator) freeCompute(n *nodeEntry) int {
	free := n.freeCompute
	for _, j := range n.reducesInFlight {
		if c.mapsFinished(j) {
			free--
		}
	}
	return free
}

// Receive implements actor.Actor.
func (c *Coordinator) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		c.handleStarted(ctx)
	case *RegisterNode:
		c.handleRegister(msg)
	case *SubmitJob:
		c.handleSubmit(ctx, msg)
	case *WorkloadSubmitted:
		c.streams--
		c.maybeFinish()
	case *RequeueTasks:
		c.handleRequeue(ctx, msg)
	case *MapsFinished:
		if job := c.jobs[msg.Job]; job != nil {
			job.mapsFinished = true
		}
	case *Heartbeat:
		c.handleHeartbeat(ctx, msg)
	case *JobEnded:
		c.handleJobEnded(ctx, msg)
	case *livenessTick:
		c.checkLiveness(ctx)
	case *policyTick:
		c.preempt(ctx, c.policy.Tick(c.deps.Clock.Now(), c.table))
	case *spaceTick:
		c.checkSpace(ctx)
	case *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		c.deps.Fail(fmt.Errorf("coordinator: unhandled message %T", msg))
	}
}

func (c *Coordinator) handleStarted(ctx actor.Context) {
	if c.cfg.DeadAfter > 0 {
		c.deps.Clock.Every(c.cfg.Heartbeat, c.cfg.Heartbeat, ctx.Self(), &livenessTick{})
	}
	if c.cfg.PolicyTick > 0 {
		c.deps.Clock.Every(c.cfg.PolicyTick, c.cfg.PolicyTick, ctx.Self(), &policyTick{})
	}
	if c.spaceOn() {
		c.deps.Clock.Every(c.cfg.Heartbeat, c.cfg.Heartbeat, ctx.Self(), &spaceTick{})
	}
	c.maybeFinish()
}

func (c *Coordinator) handleRegister(msg *RegisterNode) {
	n := &c.nodes[msg.Node]
	n.registered = true
	n.slots = [2]int{msg.MapSlots, msg.ReduceSlots}
	n.last = c.deps.Clock.Now()
	n.freeSpace = c.cfg.IntermediateSpace
	c.updateSlots()
}

func (c *Coordinator) updateSlots() {
	var total [2]int
	for i := range c.nodes {
		if n := &c.nodes[i]; n.registered && !n.dead {
			total[sched.Map] += n.slots[sched.Map]
			total[sched.Reduce] += n.slots[sched.Reduce]
		}
	}
	c.table.setSlots(total[sched.Map], total[sched.Reduce])
}

// handleSubmit stores the job's input, registers the job with the table
// and the policy, and spawns its job manager, which asks for its tasks.
func (c *Coordinator) handleSubmit(ctx actor.Context, msg *SubmitJob) {
	now := c.deps.Clock.Now()
	spec := msg.Spec
	spec.Submit = now // a closed worker's spec holds its think time
	maps := spec.MapCount(c.cfg.BlockSize)
	c.deps.Metrics.JobSubmitted(submittedRecord(msg.ID, spec, maps, spec.Reduces))
	job := &coordJob{spec: spec, maps: maps, client: msg.Client}
	job.attempts = [2][]int32{make([]int32, maps), make([]int32, spec.Reduces)}
	job.mapDone = make([]bool, maps)
	c.jobs[msg.ID] = job
	c.table.add(sched.Job{
		ID: msg.ID, Name: spec.Name, Pool: spec.Pool, Priority: sched.Priority(spec.Priority),
		Weight: spec.Weight, Submit: now, Maps: maps, Reduces: spec.Reduces, InputBytes: spec.InputBytes,
	})
	c.policy.Submitted(now, c.table.Job(msg.ID).Job)
	slowStart := spec.SlowStart
	if slowStart == 0 {
		slowStart = c.cfg.SlowStart
	}
	jm := NewJobManager(msg.ID, spec, maps, slowStart, c.cfg.MaxAttempts, ctx.Self(), c.cfg.Directory, c.deps)
	jm.setup, jm.reportMaps = c.cfg.JobSetup, c.cfg.ComputeAware
	var err error
	job.jm, err = ctx.SpawnNamed(c.deps.Props(func() actor.Actor { return jm }), fmt.Sprintf("job-%d", msg.ID))
	if err != nil {
		c.deps.Fail(fmt.Errorf("coordinator: %w", err))
		return
	}
	job.input, err = c.blocks.ensure(inputName(msg.ID, spec), spec.InputBytes, blockSizeFor(spec, maps, c.cfg.BlockSize))
	if err != nil {
		ctx.Send(job.jm, &FailJob{Job: msg.ID, Reason: err.Error()})
	} else if c.spaceOn() {
		c.checkSpill(ctx, msg.ID)
	}
}

// inputName names a job's input file: its own unless it shares one.
func inputName(id sched.JobID, spec workload.JobSpec) string {
	if spec.InputFile != "" {
		return spec.InputFile
	}
	return fmt.Sprintf("input-%d", id)
}

// blockSizeFor is the cluster's block size, or the size that splits a
// private input into exactly the job's explicit map count.
func blockSizeFor(spec workload.JobSpec, maps int, cluster int64) int64 {
	if spec.Maps == 0 || spec.InputFile != "" || spec.InputBytes == 0 {
		return cluster
	}
	return max(1, (spec.InputBytes+int64(maps)-1)/int64(maps))
}
