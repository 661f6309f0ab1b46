package actors

import (
	"iter"
	"time"

	"clusteremu/policies/sched"
)

// Offers and scheduling: a node's heartbeat books the attempts it reports
// ended, then offers each of the node's free slots to the policy, one at a
// time, launching each assignment before asking for the next.

// heartbeat books what the node reports and offers its free slots.
func (s *coordState) heartbeat(now time.Duration, hb *Heartbeat) {
	n := &s.nodes[hb.Node]
	switch {
	case !n.registered:
		return
	case n.dead:
		s.heartbeatFromDead(hb.Node)
		return
	case n.resync:
		s.heartbeatToResync(now, hb.Node)
		return
	}
	n.last, n.qosHeld = now, hb.QoSHeld
	for _, a := range s.admit {
		a.reported(hb)
	}
	// Every ended attempt frees its slot now. With commit-pending counting
	// a successful one stays its job's until the slots are offered.
	var committing []AttemptEnded
	if s.cfg.Heartbeat.Reliable {
		s.emit(&tellNode{hb.Node, &HeartbeatAck{Seq: hb.Seq}})
	}
	for _, e := range hb.Ended {
		at, ok := s.running[e.Attempt]
		if !ok {
			// Booked already: reported before, or its node was declared
			// dead. After a restart, though, an attempt that ended while
			// the coordinator was down was never running here, and its
			// node's own TaskFinished may have been lost: its job manager
			// hears of it from here too, and takes the first of the two.
			if s.restarted && s.cfg.Heartbeat.Reliable && s.jobs[e.Attempt.Job] != nil {
				s.emit(&tellJob{e.Attempt.Job, &TaskFinished{
					Attempt: e.Attempt, Node: hb.Node, Outcome: e.Outcome, Reason: e.Reason, OutputBytes: e.OutputBytes}})
			}
			continue
		}
		if s.cfg.Heartbeat.Reliable {
			s.emit(&tellJob{e.Attempt.Job, &TaskFinished{
				Attempt: e.Attempt, Node: hb.Node, Outcome: e.Outcome, Reason: e.Reason, OutputBytes: e.OutputBytes}})
		}
		s.setBusy(at.node, e.Attempt.Kind, at.slot, false)
		if s.cfg.Tasks.CommitPendingRunning && e.Outcome == sched.Succeeded {
			committing = append(committing, e)
			continue
		}
		s.attemptEnded(now, hb.Node, e)
	}
	s.policy.Heartbeat(now, hb.Node)
	if s.amOn() {
		s.placeAMs(now, hb.Node)
	}
	if p, ok := s.policy.(sched.ContainerAware); ok && s.containersOn() {
		s.offerContainers(now, hb.Node, p)
	} else {
		for _, kind := range s.offerOrder() {
			s.offer(now, hb.Node, kind)
		}
	}
	for _, e := range committing {
		s.attemptEnded(now, hb.Node, e)
	}
}

// attemptEnded books an attempt that left its slot: for its job and for
// the policy.
func (s *coordState) attemptEnded(now time.Duration, node sched.NodeID, e AttemptEnded) {
	a := e.Attempt
	if _, ok := s.running[a]; !ok {
		return
	}
	delete(s.running, a)
	if s.preempting != nil {
		delete(s.preempting, a)
	}
	if s.cache != nil {
		s.cache.dir.unpin(a)
	}
	if s.spec != nil {
		s.spec.ended(a, node)
	}
	s.table.ended(a, e.Outcome == sched.Succeeded)
	if s.clones != nil {
		s.cloneTaskEnded(a, node)
	}
	s.scarlettEnded(now, a)
	s.policy.Finished(now, sched.Finish{Attempt: a, Node: node, Outcome: e.Outcome, At: e.At})
}

// offer hands the node's free slots of a kind to the policy, lowest index
// first, until one launch without assign-multiple. A slot the policy
// leaves idle ends the offers unless the policy is slot-aware
// (sched.SlotAware): one that partitions a node's slots between queues
// declines one slot and fills the next, while any other would only
// decline the rest too, at a cost on every heartbeat of an idle cluster.
func (s *coordState) offer(now time.Duration, node sched.NodeID, kind sched.TaskKind) {
	n := &s.nodes[node]
	for i := range n.busy[kind] {
		if !n.free(kind, i) {
			continue
		}
		slot := sched.Slot{Node: node, Rack: s.cfg.RackOf[node], Kind: kind, Index: i}
		if s.cfg.Explain {
			slot.Why = &sched.Explanation{}
		}
		a, ok := s.policy.Assign(now, coordView{s}, slot)
		if !ok {
			s.explain(now, slot, len(s.out.effects))
			if s.slotAware {
				continue
			}
			return
		}
		first := len(s.out.effects)
		launched := s.launch(now, a, slot)
		s.explain(now, slot, first)
		if !launched || !s.cfg.Heartbeat.AssignMultiple {
			return
		}
	}
}

// explain records a slot offer the policy looked at jobs for, with the
// attempt it launched among the effects from first on, if any.
func (s *coordState) explain(now time.Duration, slot sched.Slot, first int) {
	if slot.Why == nil {
		return
	}
	rec := OfferRecord{At: now, Node: slot.Node, Kind: slot.Kind, Slot: slot.Index, Notes: slot.Why.Notes, Waited: s.waited}
	for _, e := range s.out.effects[first:] {
		if l, ok := e.(*launchAttempt); ok {
			rec.Launched, rec.Locality = &l.attempt, l.locality
		}
	}
	if len(rec.Notes) > 0 || rec.Launched != nil {
		s.out.offers = append(s.out.offers, rec)
	}
}

// launch runs the assignment's task in the slot: it picks the task (the
// best-placed pending one, or the running one to copy), works out what
// the attempt reads and writes, and books it. It reports false when the
// policy named a task that cannot run there, which fails the run.
func (s *coordState) launch(now time.Duration, asg sched.Assignment, slot sched.Slot) bool {
	if asg.Kind != slot.Kind {
		s.fail("%s assigned job %d's %v task to a %v slot on node %d", s.policy.Name(), asg.Job, asg.Kind, slot.Kind, slot.Node)
		return false
	}
	task, loc, copied, cloned, ok := s.pick(asg, slot)
	if !ok {
		what := "no such task"
		if asg.Copy {
			what = "no such running task to copy"
		}
		s.fail("%s assigned job %d a %v slot on node %d, but it has %s within %v",
			s.policy.Name(), asg.Job, slot.Kind, slot.Node, what, asg.MaxLocality)
		return false
	}
	a := s.table.attempt(asg.Job, slot.Kind, task)
	spec, err := s.taskSpec(s.jobs[asg.Job], a, slot.Node, loc)
	if err != nil {
		// The task cannot run anywhere (its block lost every replica, or
		// too few nodes are left for its output): the job fails.
		s.emit(&tellJob{a.Job, &FailJob{Job: a.Job, Reason: err.Error()}})
		return true
	}
	s.out.progress = true
	s.cacheLaunch(now, a, slot.Node, &spec)
	s.table.launched(a)
	s.scarlettLaunched(now, a)
	s.running[a] = placed{slot.Node, slot.Index, now}
	s.setBusy(slot.Node, slot.Kind, slot.Index, true)
	for _, adm := range s.admit {
		adm.launched(slot.Node, a, &spec)
	}
	if s.spec != nil {
		s.spec.launched(a, slot.Node, copied)
	}
	if s.clones != nil {
		s.cloneLaunched(a, slot.Node, cloned)
	}
	bytes := spec.InputBytes
	if a.Kind == sched.Reduce {
		bytes = spec.partition(s.jobs[asg.Job].spec.ShuffleBytes, int(a.Task))
	}
	s.emit(&launchAttempt{attempt: a, node: slot.Node, slot: slot.Index, locality: loc, spec: spec, bytes: bytes, copied: copied})
	s.policy.Launched(now, sched.Launch{Attempt: a, Node: slot.Node, Rack: slot.Rack, Slot: slot.Index, Locality: loc})
	return true
}

// pick finds the task an assignment names for the slot and its locality,
// within the assignment's bound and the admission rules: a clone of a
// running task, then a copy its job manager queued, before a pending
// task. It reports whether the task runs already, so the attempt is a
// copy, and whether it is a clone.
func (s *coordState) pick(asg sched.Assignment, slot sched.Slot) (task int32, loc sched.Locality, copied, cloned, ok bool) {
	if !s.admits(asg.Job, slot.Kind, slot.Node) {
		return 0, 0, false, false, false
	}
	if !asg.Copy {
		if s.clones != nil {
			if task, loc, ok := s.takeClone(asg.Job, slot.Kind, slot.Node, asg.MaxLocality); ok {
				return task, loc, true, true, true
			}
		}
		if s.spec != nil {
			if task, loc, ok := s.takeCopy(asg.Job, slot.Kind, slot.Node, asg.MaxLocality); ok {
				return task, loc, true, false, true
			}
		}
		task, loc, ok := s.table.take(asg.Job, slot.Kind, slot.Node, asg.MaxLocality)
		return task, loc, false, false, ok
	}
	if !s.table.copyable(asg.Job, slot.Kind, asg.Task) {
		return 0, 0, false, false, false
	}
	loc = sched.OffRack
	if slot.Kind == sched.Map {
		loc = s.table.mapLocality(asg.Job, asg.Task, slot.Node)
	}
	return asg.Task, loc, true, false, loc <= asg.MaxLocality
}

// admits reports whether every admission rule lets the node take a task
// of the kind from the job.
func (s *coordState) admits(job sched.JobID, kind sched.TaskKind, node sched.NodeID) bool {
	for _, a := range s.admit {
		if !a.admits(job, kind, node) {
			return false
		}
	}
	return true
}

// coordView is the job table as a policy sees it: copies of the jobs'
// counts, and the best locality a node may launch at after admission.
type coordView struct{ s *coordState }

// Jobs implements sched.View; each job it yields is one the policy
// looked at (coordState.looked), counted only when the coordinator serves
// its messages in turn, the one reader of the count: the scan of every
// other run's offers pays no wrapper.
func (v coordView) Jobs() iter.Seq[sched.JobStatus] {
	if !v.s.cfg.Heartbeat.Serves() {
		return v.s.table.statuses()
	}
	return func(yield func(sched.JobStatus) bool) {
		for st := range v.s.table.statuses() {
			v.s.looked++
			if !yield(st) {
				return
			}
		}
	}
}

// Job implements sched.View.
func (v coordView) Job(id sched.JobID) (sched.JobStatus, bool) {
	v.s.looked++
	if j := v.s.table.job(id); j != nil {
		return j.status, true
	}
	return sched.JobStatus{}, false
}

// BestLocality implements sched.View.
func (v coordView) BestLocality(id sched.JobID, kind sched.TaskKind, node sched.NodeID) (sched.Locality, bool) {
	v.s.looked++
	v.s.viewing = true
	admits := v.s.admits(id, kind, node)
	v.s.viewing = false
	if !admits {
		return 0, false
	}
	loc, ok := v.s.table.bestLocality(id, kind, node)
	if v.s.clones != nil {
		if _, c, queued := v.s.bestClone(id, kind, node, sched.OffRack); queued && (!ok || c < loc) {
			loc, ok = c, true
		}
	}
	if v.s.spec != nil {
		if _, c, queued := v.s.bestCopy(id, kind, node, sched.OffRack); queued && (!ok || c < loc) {
			return c, true
		}
	}
	return loc, ok
}

// Locations implements sched.RequestView: the nodes and racks the job's
// pending maps were ever listed under.
func (v coordView) Locations(id sched.JobID) int {
	if j := v.s.table.job(id); j != nil {
		return len(j.byNode) + len(j.byRack)
	}
	return 0
}

// Nodes implements sched.RequestView: the live nodes.
func (v coordView) Nodes() int { return v.s.liveNodes }

// Version implements sched.Versioned: the job table's, which a restart
// carries over to the new table.
func (v coordView) Version() uint64 { return v.s.table.version }

// ReduceContainers implements sched.ContainerView: the containers a
// reduce takes (cluster.reduce_containers).
func (v coordView) ReduceContainers() int {
	if !v.s.containersOn() {
		return 0
	}
	return v.s.cfg.Cluster.ReduceSize()
}

// Slots implements sched.View.
func (v coordView) Slots(kind sched.TaskKind) int { return v.s.liveSlots[kind] - v.s.amHeld }

// Progress implements sched.View: the job manager's last JobProgressed.
func (v coordView) Progress(id sched.JobID, kind sched.TaskKind) float64 {
	return v.s.progress[id][kind]
}
