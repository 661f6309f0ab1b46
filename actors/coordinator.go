package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
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
	// CopyingPerJob, when > 0, is copy-compute splitting's per-job limit:
	// a node runs at most this many of a job's reducers that have not
	// begun computing.
	CopyingPerJob int
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
	// FailureProbability is the chance that an attempt fails at the end
	// of its compute, drawn per attempt from a stream keyed by the
	// workload seed and the attempt.
	FailureProbability float64
	Streams            int // workload streams that will say WorkloadSubmitted
	Fabric             *actor.PID
	Directory          *Directory
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
}

// livenessTick checks for nodes that stopped heartbeating.
type livenessTick struct{}

// policyTick runs the policy's periodic work.
type policyTick struct{}

// NewCoordinator returns the coordinator actor's state.
func NewCoordinator(cfg CoordinatorConfig, policy sched.Policy, deps Deps) *Coordinator {
	c := &Coordinator{
		cfg: cfg, deps: deps,
		jms:     make(map[sched.JobID]*actor.PID),
		clients: make(map[sched.JobID]*actor.PID),
	}
	c.core = newCoordState(&c.cfg, policy, deps.Rand.Uint64())
	return c
}

// Receive implements actor.Actor.
func (c *Coordinator) Receive(ctx actor.Context) {
	now := c.deps.Clock.Now()
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		c.handleStarted(ctx)
	case *RegisterNode:
		c.core.register(now, msg)
	case *SubmitJob:
		if msg.Client != nil {
			c.clients[msg.ID] = msg.Client
		}
		c.core.submit(now, msg.ID, msg.Spec)
	case *WorkloadSubmitted:
		c.core.workloadSubmitted()
	case *RequeueTasks:
		c.core.requeue(msg)
	case *MapsFinished:
		c.core.mapsFinished(msg.Job)
	case *Heartbeat:
		c.core.heartbeat(now, msg)
	case *JobEnded:
		c.handleJobEnded(ctx, msg)
	case *livenessTick:
		c.core.checkLiveness(now)
	case *policyTick:
		c.core.policyTick(now)
	case *spaceTick:
		c.core.checkSpace(now)
	case *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		c.deps.Fail(fmt.Errorf("coordinator: unhandled message %T", msg))
	}
	c.apply(ctx, c.core.take())
}

func (c *Coordinator) handleStarted(ctx actor.Context) {
	c.self = ctx.Self()
	if c.cfg.DeadAfter > 0 {
		c.deps.Clock.Every(c.cfg.Heartbeat, c.cfg.Heartbeat, c.self, &livenessTick{})
	}
	if c.cfg.PolicyTick > 0 {
		c.deps.Clock.Every(c.cfg.PolicyTick, c.cfg.PolicyTick, c.self, &policyTick{})
	}
	if c.cfg.IntermediateSpace > 0 {
		c.deps.Clock.Every(c.cfg.Heartbeat, c.cfg.Heartbeat, c.self, &spaceTick{})
	}
	c.core.maybeFinish()
}

// handleJobEnded tells a closed-loop client its job ended, then lets the
// core forget the job.
func (c *Coordinator) handleJobEnded(ctx actor.Context, msg *JobEnded) {
	if client, ok := c.clients[msg.Job]; ok {
		delete(c.clients, msg.Job)
		ctx.Send(client, msg)
	}
	c.core.jobEnded(c.deps.Clock.Now(), msg.Job)
}

// apply carries out the core's effects as messages, in order.
func (c *Coordinator) apply(ctx actor.Context, out coordOut) {
	for _, r := range out.records {
		c.deps.Metrics.JobSubmitted(r)
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
			ctx.Send(jm, &TaskLaunched{Attempt: e.attempt, Node: e.node, Locality: e.locality})
		case *killAttempt:
			c.cfg.Directory.relay(ctx, e.node, &KillTask{Attempt: e.attempt, Reason: e.reason})
		case *tellJob:
			ctx.Send(c.jms[e.job], e.msg)
		case *tellNode:
			c.cfg.Directory.relay(ctx, e.node, e.msg)
		case *tellFabric:
			ctx.Send(c.cfg.Fabric, e.msg)
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
	jm := NewJobManager(e.job, e.spec, e.maps, e.slowStart, c.cfg.MaxAttempts, c.self, c.cfg.Directory, c.deps)
	jm.setup, jm.reportMaps = c.cfg.JobSetup, c.cfg.ComputeAware
	pid, err := ctx.SpawnNamed(c.deps.Props(func() actor.Actor { return jm }), fmt.Sprintf("job-%d", e.job))
	if err != nil {
		c.deps.Fail(fmt.Errorf("coordinator: %w", err))
		return
	}
	c.jms[e.job] = pid
}
