package actors

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// Application masters in containers (cluster.am_containers): YARN runs
// each job's MRAppMaster in a container of the cluster, which the
// ResourceManager allocates when it accepts the job and which the AM
// holds until the job ends. Here the coordinator books that container
// on a node as it offers the node's containers: a job accepted waits,
// in submission order, for a node with room for its AM, within the
// share of the live containers AMs may hold (cluster.am_share, YARN's
// maximum-am-resource-percent: at least one AM runs), and its tasks are
// asked for only once its AM has a container. The AM's work is the job
// manager's, which runs apart from the nodes: the container is the
// room it takes. A node declared dead takes its AMs with it; YARN starts
// a lost AM again (mapreduce.am.max-attempts, 2), killing the old
// attempt's containers, and the new AM's recovery keeps the job's
// finished tasks: the job's running attempts are killed, and it waits
// for another container for its AM, asking for no task meanwhile; it
// fails when its second AM is lost.
//
// With a policy of queues (sched.QueueShares, Capacity), the AMs' share is
// each queue's: its AMs hold at most am_share of its capacity's
// containers, and a queue's first AM always runs, so a queue of many small
// jobs cannot keep another queue's jobs from starting; the jobs waiting
// are served in order, those of a queue at its limit passed over.

// amMaxAttempts is mapreduce.am.max-attempts' default.
const amMaxAttempts = 2

// amJob is a job's application master: the node whose container it
// holds, its queue (amRoom), and how many it has lost.
type amJob struct {
	node   sched.NodeID
	placed bool
	queue  string
	lost   int
}

// amWaiting is a job waiting for its AM's container: a job accepted,
// not started, or a started one whose AM was lost.
type amWaiting struct {
	heldJob
	restart bool
}

// amOn reports whether application masters take containers.
func (s *coordState) amOn() bool { return s.containersOn() && s.cfg.Cluster.AMContainers > 0 }

// accept makes an admitted job wait for its AM's container, or starts it
// when AMs take none.
func (s *coordState) accept(now time.Duration, id sched.JobID, spec workload.JobSpec) {
	if !s.amOn() || spec.Upstream != "" {
		s.start(now, id, spec)
		return
	}
	s.amWait = append(s.amWait, amWaiting{heldJob: heldJob{id, spec}})
}

// placeAMs gives the waiting AMs containers of the node, in order, while
// it has room for one and the AMs' share allows.
//
// An AM of more containers than the node has free reserves the node, as
// a reduce does (reserve): the node places nothing else until the AM fits.
func (s *coordState) placeAMs(now time.Duration, node sched.NodeID) {
	size := s.cfg.Cluster.AMContainers
	n := &s.nodes[node]
	if r := n.reservedFor; r.reserved {
		i := slices.IndexFunc(s.amWait, func(w amWaiting) bool { return w.id == r.job })
		switch {
		case !r.am:
			return // held for a reduce
		case i < 0:
			s.unreserve(node) // its AM has a container, or its job ended
		case n.containers-n.used < size:
			return
		default:
			s.unreserve(node)
			if queue, room := s.amRoom(s.amWait[i].spec.Pool, size); room {
				s.placeAM(now, node, i, queue)
			}
		}
	}
	for i := 0; i < len(s.amWait) && n.containers-n.used > 0; {
		w := s.amWait[i]
		queue, room := s.amRoom(w.spec.Pool, size)
		if !room {
			if queue == "" {
				return // the cluster's share: no other AM fits either
			}
			i++ // its queue's share: another queue's may fit
			continue
		}
		if n.containers-n.used < size {
			if s.reserved[w.id] == 0 && s.mayFit(node, size) {
				s.reserve(node, w.id, true)
			}
			return
		}
		s.placeAM(now, node, i, queue)
	}
}

// placeAM gives the i-th waiting AM a container of the node.
func (s *coordState) placeAM(now time.Duration, node sched.NodeID, i int, queue string) {
	size := s.cfg.Cluster.AMContainers
	n := &s.nodes[node]
	w := s.amWait[i]
	s.amWait = slices.Delete(s.amWait, i, i+1)
	s.dropReservations(w.id) // one elsewhere, for it: it has a container here
	n.used += size
	n.ams += size
	s.freeContainers -= size
	s.amHeld += size
	s.amQueues[queue] += size
	s.checkContainers(node)
	if !w.restart {
		s.start(now, w.id, w.spec)
	}
	if job := s.jobs[w.id]; job != nil {
		job.am = amJob{node: node, placed: true, queue: queue, lost: job.am.lost}
	}
}

// amRoom reports whether another AM of size fits the AMs' share: of its
// queue's capacity (sched.QueueShares), naming the queue, or of the live
// containers, naming none. A queue's, or the cluster's, first always does.
func (s *coordState) amRoom(pool string, size int) (queue string, room bool) {
	held, share := s.amHeld, 1.0
	if p, ok := s.policy.(sched.QueueShares); ok {
		queue, share = p.QueueShare(pool)
		held = s.amQueues[queue]
	}
	most := int(math.Floor(s.cfg.Cluster.AMLimit()*share*float64(s.liveSlots[sched.Map]) + 1e-9))
	return queue, held == 0 || held+size <= most
}

// amEnded frees the container of an ended job's AM.
func (s *coordState) amEnded(job *coordJob) {
	if !job.am.placed {
		return
	}
	size := s.cfg.Cluster.AMContainers
	n := &s.nodes[job.am.node]
	job.am.placed = false
	n.ams -= size
	s.amHeld -= size
	s.amQueues[job.am.queue] -= size
	if n.resync {
		return // a restarted coordinator counts the node's containers when it registers again
	}
	n.used -= size
	s.checkContainers(job.am.node)
	if s.live(job.am.node) {
		s.freeContainers += size
	}
}

// amsLost books the AMs a node declared dead held: each waits for
// another container, ahead of the jobs not started, or fails its job
// when it was its last attempt.
func (s *coordState) amsLost(node sched.NodeID) {
	if !s.amOn() {
		return
	}
	var again []amWaiting
	for _, id := range slices.Sorted(maps.Keys(s.jobs)) {
		job := s.jobs[id]
		if !job.am.placed || job.am.node != node {
			continue
		}
		job.am.placed = false
		s.nodes[node].ams -= s.cfg.Cluster.AMContainers
		s.amHeld -= s.cfg.Cluster.AMContainers
		s.amQueues[job.am.queue] -= s.cfg.Cluster.AMContainers
		s.out.counts = append(s.out.counts, count{MetricAMsLost, 1})
		if job.am.lost++; job.am.lost >= amMaxAttempts {
			s.emit(&tellJob{id, &FailJob{Job: id, Reason: fmt.Sprintf(
				"its application master was lost %d times, with node %d last (mapreduce.am.max-attempts = %d)", job.am.lost, node, amMaxAttempts)}})
			continue
		}
		again = append(again, amWaiting{heldJob: heldJob{id, job.spec}, restart: true})
		// YARN kills the containers of a failed AM attempt, and the next
		// attempt's recovery keeps the finished tasks only: the job's
		// running attempts elsewhere are killed (those on the node end
		// with it), to run again once its next AM runs.
		for _, a := range s.runningOf(id) {
			if at := s.running[a]; at.node != node {
				s.emit(&killAttempt{a, at.node, "its application master was lost"})
			}
		}
	}
	s.amWait = append(again, s.amWait...)
}

// amRuns reports whether the job's AM runs, or AMs take no container: a
// job whose AM was lost asks for no task until its next AM has a
// container.
func (s *coordState) amRuns(id sched.JobID) bool {
	if !s.amOn() {
		return true
	}
	job := s.jobs[id]
	return job == nil || job.am.placed || job.spec.Upstream != ""
}
