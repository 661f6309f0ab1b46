package actors

import "clusteremu/policies/sched"

// admission is a rule beyond free slots that decides whether a node takes
// a task of a job: copy-compute splitting's limits on reducers (below) and
// intermediate space for map spills (coordinator_space.go). A rule keeps
// its own picture of each node from the node's heartbeats and the launches
// sent since, which the node had not received when it sent them. The
// policy sees a rule through View.BestLocality, and the coordinator checks
// it again before it launches.
type admission interface {
	// admits reports whether the node may take a task of the kind from
	// the job now.
	admits(job sched.JobID, kind sched.TaskKind, node sched.NodeID) bool
	// reported books a heartbeat: the node's state and the launches it
	// has received.
	reported(hb *Heartbeat)
	// launched books a launch sent to the node.
	launched(node sched.NodeID, a sched.Attempt, spec *TaskSpec)
	// registered starts a node afresh, as it registers again after a
	// restart: nothing in flight to it, launches received as it counts.
	registered(node sched.NodeID, launches [2]int64)
}

// copyCompute is copy-compute splitting's admission (Zaharia et al.
// §5.2): a node runs at most its compute slots' worth of a job's reducers
// that have not begun computing, counting launches still on their way; and with
// computeAware, a reducer of a job whose maps have all finished, which
// will compute as soon as it has copied, launches only where a compute
// slot is free, so it waits for such a node in the job's queue rather than
// in one node's.
type copyCompute struct {
	computeAware bool
	nodes        []copyNode
	// mapsFinished holds the jobs whose job managers reported every map
	// finished (MapsFinished) with no map re-queued since. The job manager
	// knows first: a finished map reaches the coordinator only with its
	// node's next heartbeat.
	mapsFinished map[sched.JobID]bool
}

// copyNode is one node as its last heartbeat showed it, and the reduce
// launches sent since.
type copyNode struct {
	perJob      int                 // the most of one job's reducers not yet computing: its compute slots
	copying     map[sched.JobID]int // each job's reducers not yet computing
	freeCompute int                 // compute slots no reducer claims
	acked       int64               // reduce launches the node had received
	inFlight    []sched.JobID       // the jobs of reduce launches sent since
}

func newCopyCompute(perJob []int, computeAware bool) *copyCompute {
	c := &copyCompute{
		computeAware: computeAware,
		nodes:        make([]copyNode, len(perJob)), mapsFinished: make(map[sched.JobID]bool),
	}
	for n, p := range perJob {
		c.nodes[n].perJob = p
	}
	return c
}

func (c *copyCompute) admits(job sched.JobID, kind sched.TaskKind, node sched.NodeID) bool {
	if kind != sched.Reduce {
		return true
	}
	n := &c.nodes[node]
	copying := n.copying[job]
	for _, j := range n.inFlight {
		if j == job {
			copying++
		}
	}
	if copying >= n.perJob {
		return false
	}
	return !c.computeAware || !c.mapsFinished[job] || c.freeCompute(n) > 0
}

// freeCompute is a node's compute slots that no reducer claims: those free
// at its last heartbeat less the reducers sent since whose jobs' maps have
// all finished (they will want to compute as soon as they have copied).
func (c *copyCompute) freeCompute(n *copyNode) int {
	free := n.freeCompute
	for _, j := range n.inFlight {
		if c.mapsFinished[j] {
			free--
		}
	}
	return free
}

func (c *copyCompute) reported(hb *Heartbeat) {
	n := &c.nodes[hb.Node]
	received := int(hb.Launches[sched.Reduce] - n.acked)
	n.inFlight = n.inFlight[min(received, len(n.inFlight)):]
	n.acked, n.copying, n.freeCompute = hb.Launches[sched.Reduce], hb.Copying, hb.FreeCompute
}

func (c *copyCompute) registered(node sched.NodeID, launches [2]int64) {
	c.nodes[node] = copyNode{acked: launches[sched.Reduce]}
}

func (c *copyCompute) launched(node sched.NodeID, a sched.Attempt, _ *TaskSpec) {
	if a.Kind == sched.Reduce {
		c.nodes[node].inFlight = append(c.nodes[node].inFlight, a.Job)
	}
}

// setMapsFinished books whether every map of the job has finished.
func (c *copyCompute) setMapsFinished(job sched.JobID, finished bool) {
	if finished {
		c.mapsFinished[job] = true
	} else {
		delete(c.mapsFinished, job)
	}
}
