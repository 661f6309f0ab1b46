package actors

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// The coordinator's crash and restart (a FaultCoordinator).
//
// A crashed coordinator reads nothing: heartbeats are lost (nodes send
// them again every interval), while what clients and job managers send
// waits for it (their calls retry until it is back) and is handled, in
// order, once it restarts. The job managers run on, each with its job's
// tasks, as YARN's ApplicationMasters do in their own containers.
//
// What survives the crash is what the ResourceManager keeps in its state
// store: the jobs submitted, their job managers and clients, and each
// task's attempt count (so attempts launched after the restart get new
// numbers, as YARN's container ids carry the RM's epoch), and the nodes it
// had declared dead. The NameNode role is HDFS's own daemon and stays up:
// the block map is not lost. Everything else is rebuilt: on restart the
// coordinator asks every job manager for its job (JobResynced: the tasks
// still to run, those finished, whether the maps are all done), and
// answers each node's next heartbeat with ResyncNode, to which the node
// registers again with the attempts it runs; the scheduling policy starts
// afresh with the jobs, and a node that does not come back within the
// dead-node timeout is declared dead. With FailJobs the coordinator
// rebuilds the same way, then fails every job it had before the crash,
// as Hadoop 1's JobTracker did on restart.

// ResyncNode asks a node to register again with the attempts it runs,
// after the coordinator restarted.
type ResyncNode struct{}

// ResyncJob asks a job manager to describe its job, after the coordinator
// restarted.
type ResyncJob struct{}

// JobResynced is a job manager's answer to ResyncJob: its tasks still to
// run (reduces only once released), those finished, and whether every
// map has finished.
type JobResynced struct {
	Job                   sched.JobID
	PendingMaps           []int32
	PendingReduces        []int32
	DoneMaps, DoneReduces []int32
	MapsFinished          bool
}

// RunningAttempt is an attempt a node runs, as it reports it when it
// registers again.
type RunningAttempt struct {
	Attempt  sched.Attempt
	Slot     int
	Locality sched.Locality
}

// ReasonCoordinatorRestart fails the running jobs of a coordinator that
// restarts without recovery.
const ReasonCoordinatorRestart = "the coordinator restarted and does not recover running jobs (recovery = \"fail\")"

// receiveDownMsg handles a message reaching the crashed coordinator, or
// one it had queued when it crashed (coordinator_service.go).
func (c *Coordinator) receiveDownMsg(ctx actor.Context, msg any) {
	switch msg := msg.(type) {
	case *RestartCoordinator:
		c.handleRestart(ctx, msg)
	case *FlowDone, *FlowFailed:
		// The NameNode's copies: HDFS's own daemon, up all along.
		c.handle(ctx, c.deps.Clock.Now(), msg)
		c.apply(ctx, c.core.take())
	case *SubmitJob, *WorkloadSubmitted, *RequeueTasks, *MapsFinished, *JobEnded, *RegisterNode, *JobResynced:
		c.stash = append(c.stash, msg)
	case *livenessTick, *policyTick, *spaceTick, *CrashCoordinator, *serviceDone,
		*actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		c.deps.Metrics.Count(MetricLostToCrash, 1)
		c.refuse(ctx, msg)
	}
}

// handleRestart starts the coordinator again: it rebuilds its core from
// what survived, asks the job managers for their jobs, and handles what
// waited for it.
func (c *Coordinator) handleRestart(ctx actor.Context, msg *RestartCoordinator) {
	policy, err := c.cfg.NewPolicy()
	if err != nil {
		c.deps.Fail(fmt.Errorf("coordinator: restart: %w", err))
		return
	}
	c.down = false
	now := c.deps.Clock.Now()
	c.core.restart(now, policy, msg.FailJobs)
	c.apply(ctx, c.core.take())
	stash := c.stash
	c.stash = nil
	for _, m := range stash {
		c.handle(ctx, now, m)
		c.apply(ctx, c.core.take())
	}
}

// restart rebuilds the core after a crash: the jobs and the dead nodes
// are kept, the rest rebuilt (see the top of the file).
func (s *coordState) restart(now time.Duration, policy sched.Policy, failJobs bool) {
	s.policy, s.slotAware = policy, isSlotAware(policy)
	s.restarted = true
	old := s.table
	s.table = newJobTable(s.cfg.RackOf)
	s.table.version = old.version // so that it never goes back to a version seen
	s.restartCache()
	s.indexMemory()
	for _, j := range old.order {
		s.table.add(j.status.Job, j.input)
		nj := s.table.jobs[j.status.ID]
		for k := range j.tasks {
			for i := range j.tasks[k] {
				nj.tasks[k][i].next = j.tasks[k][i].next
			}
		}
		s.policy.Submitted(now, j.status.Job)
	}
	s.running = make(map[sched.Attempt]placed)
	s.admit, s.copies, s.space = nil, nil, nil
	s.setUpAdmission()
	if s.space != nil {
		for _, id := range slices.Sorted(maps.Keys(s.jobs)) {
			s.space.addJob(id, s.jobs[id].spec, s.jobs[id].maps, s.jobs[id].input)
		}
	}
	for i := range s.nodes {
		if n := &s.nodes[i]; n.registered && !n.dead {
			n.resync, n.resyncAsked, n.last = true, false, now
			n.busy, n.used = [2][]bool{}, 0
		}
	}
	s.updateSlots()
	for _, id := range slices.Sorted(maps.Keys(s.jobs)) {
		if failJobs {
			s.emit(&tellJob{id, &FailJob{Job: id, Reason: ReasonCoordinatorRestart}})
		} else {
			s.emit(&tellJob{id, &ResyncJob{}})
		}
	}
}

// jobResynced books a job manager's account of its job after a restart.
func (s *coordState) jobResynced(msg *JobResynced) {
	j := s.table.job(msg.Job)
	if j == nil {
		return // it ended while the coordinator was down
	}
	for _, t := range msg.DoneMaps {
		s.table.finished(msg.Job, sched.Map, t)
	}
	for _, t := range msg.DoneReduces {
		s.table.finished(msg.Job, sched.Reduce, t)
	}
	s.requeue(&RequeueTasks{Job: msg.Job, Maps: msg.PendingMaps, Reduces: msg.PendingReduces})
	if msg.MapsFinished {
		s.mapsFinished(msg.Job)
	}
}

// heartbeatToResync answers a node's first heartbeat after a restart:
// register again, with what you run.
func (s *coordState) heartbeatToResync(now time.Duration, node sched.NodeID) {
	n := &s.nodes[node]
	n.last = now
	if !n.resyncAsked {
		n.resyncAsked = true
		s.emit(&tellNode{node, &ResyncNode{}})
	}
}

// resynced takes a node back after a restart, with the attempts it runs:
// those of jobs still active count as running again; the others, of jobs
// that ended meanwhile, are killed.
func (s *coordState) resynced(now time.Duration, msg *RegisterNode) {
	n := &s.nodes[msg.Node]
	n.resync, n.resyncAsked = false, false
	n.busy = [2][]bool{make([]bool, msg.MapSlots), make([]bool, msg.Reducers)}
	s.resetContainers(msg.Node, msg.Containers)
	n.used = n.ams // its AMs' containers, which it does not report
	n.last = now
	for _, a := range s.admit {
		a.registered(msg.Node, msg.Launches)
	}
	for _, r := range msg.Running {
		a := r.Attempt
		if s.jobs[a.Job] == nil {
			s.emit(&killAttempt{a, msg.Node, "job ended"})
			continue
		}
		s.running[a] = placed{msg.Node, r.Slot, now}
		s.cacheResynced(r, msg.Node)
		s.setBusy(msg.Node, a.Kind, r.Slot, true)
		s.table.launched(a)
		if s.spec != nil {
			s.spec.launched(a, msg.Node, false) // which were copies is forgotten with the queues
		}
		s.policy.Launched(now, sched.Launch{Attempt: a, Node: msg.Node, Rack: s.cfg.RackOf[msg.Node], Slot: r.Slot, Locality: r.Locality})
	}
	s.updateSlots()
}
