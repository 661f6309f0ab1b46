package actors

import (
	"fmt"
	"maps"
	"slices"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// handleRequeue makes a job's tasks pending: maps indexed by the live
// replicas of their input blocks.
func (c *Coordinator) handleRequeue(ctx actor.Context, msg *RequeueTasks) {
	job := c.jobs[msg.Job]
	if job == nil || job.input == nil {
		return // the job has ended, or its input could not be stored
	}
	if len(msg.Maps) > 0 && len(job.input.blocks) != job.maps {
		ctx.Send(job.jm, &FailJob{Job: msg.Job, Reason: fmt.Sprintf(
			"input file %q has %d blocks but the job has %d maps", inputName(msg.Job, job.spec), len(job.input.blocks), job.maps)})
		return
	}
	if len(msg.Maps) > 0 {
		job.mapsFinished = false
	}
	for _, m := range msg.Maps {
		if job.mapDone[m] { // its output was lost: it runs again
			job.mapDone[m] = false
			c.table.unfinished(msg.Job)
		}
		c.table.addMap(msg.Job, m, job.input.blocks[m].replicas)
	}
	for _, r := range msg.Reduces {
		c.table.addReduce(msg.Job, r)
	}
}

// handleHeartbeat books the attempts the node reports ended, then offers
// its free slots to the policy.
func (c *Coordinator) handleHeartbeat(ctx actor.Context, hb *Heartbeat) {
	n := &c.nodes[hb.Node]
	if n.dead || !n.registered {
		return // a node declared dead stays dead
	}
	now := c.deps.Clock.Now()
	n.last = now
	if c.cfg.ReduceCopyCap > 0 {
		// The reducers the node has received are in its report.
		received := int(hb.Launches[sched.Reduce] - n.reducesAcked)
		n.reducesInFlight = n.reducesInFlight[min(received, len(n.reducesInFlight)):]
		n.reducesAcked, n.copying, n.freeCompute = hb.Launches[sched.Reduce], hb.Copying, hb.FreeCompute
	}
	if c.spaceOn() {
		c.spaceReport(n, hb)
	}
	var committing []AttemptEnded
	for _, e := range hb.Ended {
		if c.cfg.CommitPendingRunning && e.Outcome == sched.Succeeded {
			committing = append(committing, e)
			continue
		}
		c.attemptEnded(e.Attempt, e.Outcome)
	}
	// Launches still on their way to the node will take slots it reports
	// free.
	free := [2]int{
		hb.FreeMaps - int(n.sent[sched.Map]-hb.Launches[sched.Map]),
		hb.FreeReduces - int(n.sent[sched.Reduce]-hb.Launches[sched.Reduce]),
	}
	c.policy.Heartbeat(now, hb.Node)
	for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
		c.offer(ctx, hb.Node, kind, free[kind])
	}
	for _, e := range committing {
		c.attemptEnded(e.Attempt, e.Outcome)
	}
}

func (c *Coordinator) attemptEnded(a sched.Attempt, o sched.Outcome) {
	if _, ok := c.running[a]; !ok {
		return // booked already when its node was declared dead
	}
	delete(c.running, a)
	if job := c.jobs[a.Job]; job != nil && a.Kind == sched.Map && o == sched.Succeeded {
		job.mapDone[a.Task] = true
	}
	c.table.ended(a.Job, a.Kind, o == sched.Succeeded)
	c.policy.Finished(c.deps.Clock.Now(), a, o)
}

// offer hands a node's free slots of a kind to the policy one at a time,
// launching each assignment before asking for the next.
func (c *Coordinator) offer(ctx actor.Context, node sched.NodeID, kind sched.TaskKind, free int) {
	busy := c.nodes[node].slots[kind] - free
	for i := range free {
		if i > 0 && !c.cfg.AssignMultiple {
			return
		}
		slot := sched.Slot{Node: node, Rack: c.cfg.RackOf[node], Kind: kind, Index: busy + i}
		a, ok := c.policy.Assign(c.deps.Clock.Now(), c.table, slot)
		if !ok {
			return
		}
		task, loc, ok := c.table.take(a.Job, kind, node, a.MaxLocality)
		if !ok {
			c.deps.Fail(fmt.Errorf("coordinator: %s assigned job %d a %v slot on node %d, but it has no such task within %v",
				c.policy.Name(), a.Job, kind, node, a.MaxLocality))
			return
		}
		c.launch(ctx, a.Job, kind, task, node, loc)
	}
}

// launch sends an attempt to its node and tells its job manager and the
// policy.
func (c *Coordinator) launch(ctx actor.Context, id sched.JobID, kind sched.TaskKind, task int32, node sched.NodeID, loc sched.Locality) {
	job := c.jobs[id]
	a := sched.Attempt{Job: id, Kind: kind, Task: task, Attempt: job.attempts[kind][task]}
	job.attempts[kind][task]++
	spec, err := c.taskSpec(job, a, node)
	if err != nil {
		// The task cannot run anywhere (its block lost every replica, or
		// too few nodes are left for its output): the job fails.
		ctx.Send(job.jm, &FailJob{Job: id, Reason: err.Error()})
		return
	}
	if kind == sched.Map {
		loc = spec.Locality
	}
	c.deps.progressed()
	c.table.launched(id, kind)
	c.running[a] = node
	c.nodes[node].sent[kind]++
	if kind == sched.Reduce && c.cfg.ReduceCopyCap > 0 {
		c.nodes[node].reducesInFlight = append(c.nodes[node].reducesInFlight, id)
	}
	if kind == sched.Map && c.spaceOn() {
		c.nodes[node].spillInFlight = append(c.nodes[node].spillInFlight, spec.SpillBytes)
	}
	c.cfg.Directory.relay(ctx, node, &LaunchTask{Attempt: a, JobManager: job.jm, Task: spec})
	ctx.Send(job.jm, &TaskLaunched{Attempt: a, Node: node, Locality: loc})
	c.policy.Launched(c.deps.Clock.Now(), sched.Launch{Attempt: a, Node: node, Rack: c.cfg.RackOf[node], Locality: loc})
}

// taskSpec works out what an attempt reads, computes and writes.
func (c *Coordinator) taskSpec(job *coordJob, a sched.Attempt, node sched.NodeID) (TaskSpec, error) {
	s := &job.spec
	spec := TaskSpec{Model: s.Model, Slowdown: 1, Locality: sched.OffRack}
	rng := c.blocks.attemptStream(a)
	if a.Kind == sched.Map {
		blk := &job.input.blocks[a.Task]
		src, loc, ok := c.blocks.source(blk, node, rng)
		if !ok {
			return spec, fmt.Errorf("block %d of %q has no live replica", a.Task, inputName(a.Job, *s))
		}
		spec.InputBytes, spec.Source, spec.Locality, spec.CPU = blk.bytes, src, loc, s.MapCPU
		if s.Reduces > 0 {
			spec.SpillBytes = share(s.ShuffleBytes, job.maps, int(a.Task))
			return spec, nil
		}
		spec.OutputBytes = share(s.OutputBytes, job.maps, int(a.Task))
	} else {
		spec.Maps, spec.Reduces, spec.CPU = job.maps, s.Reduces, s.ReduceCPU
		spec.OutputBytes = share(s.OutputBytes, s.Reduces, int(a.Task))
	}
	if spec.OutputBytes > 0 {
		pipeline, err := c.blocks.pipeline(node, rng)
		if err != nil {
			return spec, fmt.Errorf("output of %v: %w", a, err)
		}
		spec.Pipeline = pipeline[1:]
	}
	return spec, nil
}

// handleJobEnded forgets the job and kills whatever of it still runs.
func (c *Coordinator) handleJobEnded(ctx actor.Context, msg *JobEnded) {
	job, ok := c.jobs[msg.Job]
	if !ok {
		return
	}
	if job.client != nil {
		ctx.Send(job.client, msg)
	}
	for _, a := range c.runningOf(msg.Job) {
		c.cfg.Directory.relay(ctx, c.running[a], &KillTask{Attempt: a, Reason: "job ended"})
	}
	if c.spaceOn() {
		c.jobEndedSpace(ctx, msg.Job)
	}
	c.deps.progressed()
	c.table.remove(msg.Job)
	c.policy.Ended(c.deps.Clock.Now(), msg.Job)
	delete(c.jobs, msg.Job)
	c.maybeFinish()
}

// runningOf lists a job's running attempts in a stable order.
func (c *Coordinator) runningOf(id sched.JobID) []sched.Attempt {
	var out []sched.Attempt
	for a := range c.running {
		if a.Job == id {
			out = append(out, a)
		}
	}
	sortAttempts(out)
	return out
}

// preempt carries out the policy's preemptions by killing the attempts on
// their nodes; the nodes report them ended on their next heartbeat.
func (c *Coordinator) preempt(ctx actor.Context, ps []sched.Preemption) {
	for _, p := range ps {
		node, ok := c.running[p.Attempt]
		if !ok {
			continue
		}
		c.cfg.Directory.relay(ctx, node, &KillTask{Attempt: p.Attempt, Reason: p.Reason})
	}
}

// checkLiveness declares dead every node silent for longer than DeadAfter.
func (c *Coordinator) checkLiveness(ctx actor.Context) {
	now := c.deps.Clock.Now()
	for i := range c.nodes {
		n := &c.nodes[i]
		if n.registered && !n.dead && now-n.last > c.cfg.DeadAfter {
			c.declareDead(ctx, sched.NodeID(i))
		}
	}
}

// declareDead takes a node out of the cluster: its replicas, its slots and
// its attempts. Job managers re-run what they lost; the fabric aborts the
// node's flows.
func (c *Coordinator) declareDead(ctx actor.Context, node sched.NodeID) {
	c.nodes[node].dead = true
	c.blocks.nodeDown(node)
	c.updateSlots()
	var gone []sched.Attempt
	for a, n := range c.running {
		if n == node {
			gone = append(gone, a)
		}
	}
	sortAttempts(gone)
	for _, a := range gone {
		c.attemptEnded(a, sched.Killed)
	}
	ctx.Send(c.cfg.Fabric, &NodeLost{Node: node})
	for _, id := range slices.Sorted(maps.Keys(c.jobs)) {
		ctx.Send(c.jobs[id].jm, &NodeLost{Node: node})
	}
}

// maybeFinish ends the run once every stream has submitted its last job
// and every job has ended.
func (c *Coordinator) maybeFinish() {
	if !c.finished && c.streams == 0 && len(c.jobs) == 0 {
		c.finished = true
		c.deps.Done()
	}
}
