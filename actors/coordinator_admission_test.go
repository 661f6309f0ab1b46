package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// submitReduces submits a job of one map, which never becomes pending,
// and the reduces given, which do.
func submitReduces(t *testing.T, s *coordState, id sched.JobID, reduces int) {
	t.Helper()
	s.submit(0, 0, id, jobSpec(reduces, 10))
	require.Len(t, said(s), 1)
	releaseReduces(s, id, reduces)
}

// releaseReduces makes every reduce of a job pending, as its job manager
// does once slow-start is met.
func releaseReduces(s *coordState, id sched.JobID, reduces int) {
	req := &RequeueTasks{Job: id}
	for r := range int32(reduces) {
		req.Reduces = append(req.Reduces, r)
	}
	s.requeue(req)
}

func TestCopyComputeCapsAJobsCopyingReducersPerNode(t *testing.T) {
	// One copying reducer per job and node. Node 0 runs three reducers at
	// once (its reduce slots): job 1 gets one of them, job 2 another, and
	// job 1's second reducer waits although a slot is free. Once node 0
	// reports job 1's reducer computing, the next one may go.
	s, _ := testCore(func(c *CoordinatorConfig) { c.Tasks.CopyCompute, c.Cluster.ReduceSlots = true, 1 })
	for i := range s.nodes {
		s.nodes[i].busy[sched.Reduce] = make([]bool, 3)
	}
	submitReduces(t, s, 1, 2)
	submitReduces(t, s, 2, 1)
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{
		"launch j1-reduce0.0 on node 0 reduce slot 0, remote",
		"launch j2-reduce0.0 on node 0 reduce slot 1, remote",
	}, said(s))
	_, ok := coordView{s}.BestLocality(1, sched.Reduce, 0)
	assert.False(t, ok, "job 1 already copies on node 0")
	_, ok = coordView{s}.BestLocality(1, sched.Reduce, 1)
	assert.True(t, ok, "but not on node 1")

	// The launches arrive; job 1's reducer still copies.
	s.heartbeat(4*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{0, 2}, Copying: map[sched.JobID]int{1: 1, 2: 1}})
	assert.Empty(t, said(s))
	// It has copied and computes.
	s.heartbeat(7*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{0, 2}, Copying: map[sched.JobID]int{2: 1}})
	assert.Equal(t, []string{"launch j1-reduce1.0 on node 0 reduce slot 2, remote"}, said(s))
}

func TestComputeAwareReducersWaitForAFreeComputeSlot(t *testing.T) {
	// Under compute-aware placement a reducer of a job whose maps have
	// all finished launches only where a compute slot is free, counting
	// such reducers sent since the node's last heartbeat.
	s, _ := testCore(func(c *CoordinatorConfig) {
		c.Tasks.CopyCompute, c.Cluster.ReduceSlots, c.Tasks.ComputeAware = true, 5, true
	})
	submitReduces(t, s, 1, 3)
	view := coordView{s}
	s.heartbeat(time.Second, &Heartbeat{Node: 0, FreeCompute: 0})
	assert.Equal(t, []string{"launch j1-reduce0.0 on node 0 reduce slot 0, remote"}, said(s), "maps not finished: any node")
	s.mapsFinished(1)
	s.heartbeat(2*time.Second, &Heartbeat{Node: 1, FreeCompute: 0})
	assert.Empty(t, said(s), "node 1 computes already")
	s.heartbeat(3*time.Second, &Heartbeat{Node: 2, FreeCompute: 1})
	assert.Equal(t, []string{"launch j1-reduce1.0 on node 2 reduce slot 0, remote"}, said(s))
	_, ok := view.BestLocality(1, sched.Reduce, 2)
	assert.False(t, ok, "the reducer on its way claims node 2's compute slot")
	s.requeue(&RequeueTasks{Job: 1, Maps: []int32{}})
	_, ok = view.BestLocality(1, sched.Reduce, 1)
	assert.False(t, ok, "an empty requeue changes nothing")
	s.requeue(&RequeueTasks{Job: 1, Maps: []int32{0}})
	_, ok = view.BestLocality(1, sched.Reduce, 1)
	assert.True(t, ok, "a map runs again: its reducers may copy anywhere")
}

func TestIntermediateSpaceAdmitsMapsThatFitAndEvictsWhenStuck(t *testing.T) {
	// Each node keeps 100 bytes for map outputs. Job 1's maps spill 60
	// bytes each (120 bytes of shuffle over 2 maps), job 2's 50. A node
	// takes one of job 1's maps, and then none of job 2's: 60 + 50 > 100.
	s, _ := testCore(func(c *CoordinatorConfig) { c.Cluster.IntermediateSpace = 100 })
	two := [][]sched.NodeID{{0, 2}, {1, 3}}
	submitJob(t, s, 0, 1, workload.JobSpec{Name: "a", InputBytes: 200, Reduces: 1, ShuffleBytes: 120}, two...)
	submitJob(t, s, time.Second, 2, workload.JobSpec{Name: "b", InputBytes: 200, Reduces: 1, ShuffleBytes: 100}, two...)
	s.heartbeat(time.Second, &Heartbeat{Node: 0, FreeSpace: 100})
	assert.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, node, reads node 0"}, said(s))
	view := coordView{s}
	_, ok := view.BestLocality(2, sched.Map, 0)
	assert.False(t, ok, "60 bytes on their way, 50 more do not fit")

	// Stuck: node 0 stores job 1's output (40 bytes free), nodes 1 and 2
	// job 2's (0 free), node 3 has 45 free, and both jobs want a map that
	// fits nowhere. Two heartbeat intervals later job 2, submitted last,
	// is evicted: its outputs go, it is held, and its reducers are killed.
	s.heartbeat(4*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{1, 0}, FreeSpace: 40,
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Succeeded, 3*time.Second)}})
	for _, n := range []sched.NodeID{1, 2, 3} {
		s.heartbeat(4*time.Second, &Heartbeat{Node: n, FreeSpace: 50})
	}
	require.Len(t, said(s), 2, "job 2's maps fit on nodes 1 and 2")
	s.heartbeat(5*time.Second, &Heartbeat{Node: 1, Launches: [2]int64{1, 0}, FreeSpace: 0,
		Ended: []AttemptEnded{ended(attempt(2, sched.Map, 0, 0), sched.Succeeded, 5*time.Second)}})
	s.heartbeat(5*time.Second, &Heartbeat{Node: 2, Launches: [2]int64{1, 0}, FreeSpace: 0,
		Ended: []AttemptEnded{ended(attempt(2, sched.Map, 1, 0), sched.Succeeded, 5*time.Second)}})
	releaseReduces(s, 2, 1)
	s.heartbeat(6*time.Second, &Heartbeat{Node: 3, FreeSpace: 45}) // something else's output came
	assert.Equal(t, []string{"launch j2-reduce0.0 on node 3 reduce slot 0, remote"}, said(s))
	s.requeue(&RequeueTasks{Job: 2, Maps: []int32{1}}) // its second map's output was lost

	s.checkSpace(9 * time.Second)
	s.checkSpace(12 * time.Second)
	assert.Empty(t, said(s), "stuck for 3 s: not yet")
	s.checkSpace(15 * time.Second)
	assert.Equal(t, []string{
		"job-2 ← EvictOutputs",
		"node-0 ← DropJobData job 2", "node-1 ← DropJobData job 2", "node-2 ← DropJobData job 2", "node-3 ← DropJobData job 2",
		"kill j2-reduce0.0 on node 3: outputs evicted for intermediate space",
	}, said(s))
	_, ok = view.BestLocality(2, sched.Map, 1)
	assert.False(t, ok, "held until another job ends")
	s.jobEnded(20*time.Second, 1)
	require.Len(t, said(s), 4, "job 1's outputs dropped everywhere")
	_, ok = view.BestLocality(2, sched.Map, 1)
	assert.False(t, ok, "released, but node 1 reported no space yet")
	s.heartbeat(21*time.Second, &Heartbeat{Node: 1, Launches: [2]int64{1, 0}, FreeSpace: 100})
	assert.Equal(t, []string{"launch j2-map1.1 on node 1 map slot 0, node, reads node 1"}, said(s))
}

func TestAMapThatCanNeverFitFailsItsJobAtSubmission(t *testing.T) {
	s, _ := testCore(func(c *CoordinatorConfig) { c.Cluster.IntermediateSpace = 100 })
	s.submit(0, 0, 1, jobSpec(1, 101))
	assert.Equal(t, []string{
		"spawn job-1: 1 maps, 1 reduces",
		"job-1 ← FailJob: a map spills 101 bytes, more than any node's intermediate space (100 bytes at most)",
	}, said(s))
}

func TestPolicyTickKillsWhatThePolicyPreempts(t *testing.T) {
	s, p := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	require.Len(t, said(s), 1)
	s.policy = &preempting{scriptPolicy: p, victims: []sched.Preemption{
		{Attempt: attempt(1, sched.Map, 0, 0), Reason: "pool prod below its minimum share"},
		{Attempt: attempt(1, sched.Map, 0, 7), Reason: "not running: ignored"},
	}}
	s.policyTick(2 * time.Second)
	assert.Equal(t, []string{"kill j1-map0.0 on node 0: pool prod below its minimum share"}, said(s))
}

// preempting is a policy whose Tick preempts the given attempts.
type preempting struct {
	*scriptPolicy
	victims []sched.Preemption
}

func (p *preempting) Tick(time.Duration, sched.View) []sched.Preemption { return p.victims }

func TestTheRunEndsWhenEveryStreamHasSubmittedAndEveryJobEnded(t *testing.T) {
	s, _ := testCore(func(c *CoordinatorConfig) { c.Streams = 2 })
	s.submit(0, 0, 1, jobSpec(0, 0))
	said(s)
	s.workloadSubmitted()
	s.jobEnded(time.Second, 1)
	assert.Empty(t, said(s), "one stream has more to submit")
	s.workloadSubmitted()
	assert.Equal(t, []string{"done"}, said(s))
	s.maybeFinish()
	assert.Empty(t, said(s), "done once")
}

// A node's cap on a job's copying reducers is its own compute slots: on
// a class of nodes with two reduce slots, two of one job's reducers copy
// at once where [cluster]'s nodes take one.
func TestCopyComputeCapIsEachNodesOwn(t *testing.T) {
	two := 2
	s, _ := testCore(func(c *CoordinatorConfig) {
		c.Tasks.CopyCompute = true
		c.Cluster = ClusterConfig{Racks: 2, NodesPerRack: 2, ReduceSlots: 1,
			Classes: []NodeClass{{Name: "wide", Racks: []int{1}, ReduceSlots: &two}}}
	})
	for i := range s.nodes {
		s.nodes[i].busy[sched.Reduce] = make([]bool, 3)
	}
	submitReduces(t, s, 1, 4)
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{"launch j1-reduce0.0 on node 0 reduce slot 0, remote"}, said(s))
	s.heartbeat(time.Second, &Heartbeat{Node: 2})
	assert.Equal(t, []string{
		"launch j1-reduce1.0 on node 2 reduce slot 0, remote",
		"launch j1-reduce2.0 on node 2 reduce slot 1, remote",
	}, said(s))
}

// A protected output's copy to a rack-mate is timed at the slower NIC of
// the two nodes.
func TestProtectionTimesACopyAtTheSlowerNIC(t *testing.T) {
	even := outputProtection{nics: nodeNICs{nic: 125e6}}
	assert.Equal(t, 125e6, even.rate(0, 1))
	mixed := outputProtection{nics: nodeNICs{nic: 125e6, nics: []float64{125e6, 12.5e6}}}
	assert.Equal(t, 12.5e6, mixed.rate(0, 1))
	assert.Equal(t, 12.5e6, mixed.rate(1, 0))
}
