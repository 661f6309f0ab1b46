package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// scarlettCore is the test core with [replication] on: T_L 1 h, δ 1, a
// budget as large as what is stored, no compression; two re-replication
// streams a node.
func scarlettCore() (*coordState, *scriptPolicy) {
	return testCore(func(c *CoordinatorConfig) {
		r := DefaultReplicationConfig()
		r.Learn, r.Epoch, r.Budget, r.Compression = units.Duration(time.Hour), units.Duration(time.Hour), 1, "none"
		c.Replication = &r
		c.HDFS.ReplicationStreams = 2
	})
}

// saidCounting is said with the counters the core added, summed by name.
func saidCounting(s *coordState) ([]string, map[string]int64) {
	out := s.take()
	counts := map[string]int64{}
	for _, c := range out.counts {
		counts[c.metric] += c.n
	}
	return lines(out), counts
}

// hotJob submits job id reading the one 100-byte block of "hot", held on
// nodes, and makes its map pending.
func hotJob(t *testing.T, s *coordState, now time.Duration, id sched.JobID, nodes ...sched.NodeID) {
	t.Helper()
	submitJob(t, s, now, id, workload.JobSpec{Name: "hot", InputFile: "hot", InputBytes: 100}, nodes)
}

// A map pending on nodes 0 and 2 launches node-local on node 3 once a
// copy to node 3 has landed, and not before: the pending-task index sees
// the new replica at once.
func TestNewReplicaJoinsThePendingIndex(t *testing.T) {
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0, 2)
	// Two other jobs read hot at once: c_f = 2, r_f = 3.
	s.scarlett.conc.Launch(time.Second, "hot", 8)
	s.scarlett.conc.Launch(time.Second, "hot", 9)

	s.rearrange(time.Hour)
	// Rack 1 holds one replica on node 2, as does rack 0 on node 0; loads
	// are 1 each (c_f 2 over 2 replicas): rack 0 is 1, rack 1 is 1, so
	// rack 0, whose node 1 holds none. 200 bytes stored, 100 extra.
	effects, counts := saidCounting(s)
	assert.Equal(t, []string{"node-0 ← ReplicateBlock 0: hot block 0 to node 1"}, effects)
	assert.Equal(t, map[string]int64{MetricStoredBytes: 200, MetricExtraBytes: 100}, counts)

	// Before the copy lands, node 1 would read rack-locally; it lands,
	// and node 1 launches the map node-local.
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 0, To: 1, Bytes: 100, Wire: 100})
	assert.Equal(t, []sched.NodeID{0, 2, 1}, s.jobs[1].input.blocks[0].replicas)
	s.heartbeat(time.Hour+time.Second, &Heartbeat{Node: 1})
	effects, counts = saidCounting(s)
	assert.Equal(t, []string{"launch j1-map0.0 on node 1 map slot 0, node, reads node 1"}, effects)
	assert.Equal(t, map[string]int64{MetricReplicationBytes: 100, MetricReplicationBytesRaw: 100, MetricReplicasAdded: 1}, counts)
}

// A replica an epoch removes stays in the pending map's lists as a hint:
// the node it was on takes the map at the locality of the replicas left
// and reads one of them, never the removed one.
func TestRemovedReplicaIsNeverRead(t *testing.T) {
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0, 1, 2) // three replicas; nobody reads hot
	s.rearrange(time.Hour)
	// r_f = base 2: one replica goes, from the most-loaded node (all
	// loads 0: the first, node 0).
	effects, counts := saidCounting(s)
	assert.Empty(t, effects)
	assert.Equal(t, []sched.NodeID{1, 2}, s.jobs[1].input.blocks[0].replicas)
	assert.Equal(t, map[string]int64{MetricStoredBytes: 200, MetricExtraBytes: 0, MetricReplicasRemoved: 1,
		MetricHeldBytes: 100}, counts, "node 0's disk holds the removed replica's 100 bytes")
	s.heartbeat(time.Hour+time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, rack, reads node 1"}, said(s))
}

// A copy from or to a node declared dead fails; the block's next step
// goes on from the replicas left, and a copy landing late is ignored.
func TestCopiesOfALostNodeFail(t *testing.T) {
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0, 2)
	for j := range int64(3) {
		s.scarlett.conc.Launch(time.Second, "hot", 10+j)
	}
	// c_f 3: r_f 4, all 4 nodes, from 2 in one step of two copies: rack
	// 0 and 1 tie at 1.5, so node 1 first (+1.5), then rack 1's node 3.
	s.rearrange(time.Hour)
	assert.Equal(t, []string{
		"node-0 ← ReplicateBlock 0: hot block 0 to node 1",
		"node-2 ← ReplicateBlock 1: hot block 0 to node 3",
	}, said(s))
	s.declareDead(time.Hour+time.Minute, 3, "declared dead")
	said(s)
	assert.NotContains(t, s.scarlett.copies, int64(1))
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 1, To: 3})
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 0, To: 1})
	require.Equal(t, []sched.NodeID{0, 2, 1}, s.jobs[1].input.blocks[0].replicas)
	assert.Empty(t, s.scarlett.copies)
}

// c_f counts jobs with maps running on the file, from the core's own
// launches and ends: a job's second map adds nothing, and a job that ends
// with maps still running stops counting.
func TestConcurrencyFromLaunchesAndEnds(t *testing.T) {
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0, 2)
	hotJob(t, s, 0, 2, 0, 2)
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	require.Len(t, said(s), 2)
	assert.Equal(t, 2, s.scarlett.conc.Running("hot"))
	s.heartbeat(4*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{2, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Succeeded, 3*time.Second)}})
	assert.Equal(t, 1, s.scarlett.conc.Running("hot"))
	s.jobEnded(5*time.Second, 2)
	assert.Equal(t, 0, s.scarlett.conc.Running("hot"))
	assert.Equal(t, 2, s.scarlett.conc.Max(time.Minute, "hot"))
}

// Re-replication restores a block of a file Scarlett raised to the file's
// r_f, not to hdfs.replication.
func TestReReplicationRestoresTheFilesFactor(t *testing.T) {
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0, 2)
	s.scarlett.conc.Launch(time.Second, "hot", 8)
	s.scarlett.conc.Launch(time.Second, "hot", 9)
	s.rearrange(time.Hour) // r_f 3: a copy to node 1
	said(s)
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 0, To: 1})
	s.declareDead(time.Hour+time.Minute, 2, "declared dead")
	assert.Contains(t, said(s), "copy 100 B from node 0 to node 3 (re-replication 0)",
		"two replicas left of r_f 3: the NameNode copies one to the node that has none")
}

// oneReplicaToFour is a core whose job 1 reads hot's block, held on node
// 0 alone, read by 3 jobs at once: an epoch at 1 h raises it to r_f 4, in
// steps of 1 and 2 copies.
func oneReplicaToFour(t *testing.T) *coordState {
	t.Helper()
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0)
	for j := range int64(3) {
		s.scarlett.conc.Launch(time.Second, "hot", 10+j)
	}
	pin(s.blocks, s.jobs[1].input, 0, []sched.NodeID{0})
	s.rearrange(time.Hour)
	return s
}

// An epoch while a block's copies run leaves the block to them: the plan
// counts its live replicas only, so its removals cannot leave it short
// should the copies fail, and an overshoot goes at the next epoch.
func TestAnEpochWhileCopiesRun(t *testing.T) {
	s := oneReplicaToFour(t)
	assert.Equal(t, []string{"node-0 ← ReplicateBlock 0: hot block 0 to node 2"}, said(s))
	assert.Len(t, s.scarlett.copies[0].plan.steps, 1)

	// The next epoch, c_f still 3 within T_L: no new copy for the block.
	s.rearrange(2 * time.Hour)
	assert.Empty(t, said(s))
	// The copy lands; the first plan's second step goes on.
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 0, To: 2})
	assert.Len(t, said(s), 2)

	// Past T_L, c_f 0 and r_f 2: the live replicas over it go; the copies
	// still running land, and the next epoch removes them.
	for j := range int64(3) {
		s.scarlett.conc.End(2*time.Hour, "hot", 10+j)
	}
	s.rearrange(4 * time.Hour)
	said(s)
	assert.Equal(t, []sched.NodeID{0, 2}, s.jobs[1].input.blocks[0].replicas)
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 1, To: 1})
	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 2, To: 3})
	s.rearrange(5 * time.Hour)
	assert.Len(t, s.jobs[1].input.blocks[0].replicas, 2)
}

// Each replica a step starts with feeds at most one copy in it: a step
// whose planned source did not land (its copy failed) reads from another
// holder only if that one feeds nothing in the step, and otherwise drops
// the copy rather than give a source two; the next epoch plans again.
func TestASourceFeedsOneCopyAStep(t *testing.T) {
	sources := func(effects []string) []string {
		var out []string
		for _, e := range effects {
			src, _, ok := strings.Cut(e, " ← ReplicateBlock")
			require.True(t, ok, e)
			out = append(out, src)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		lands bool
		want  []string
	}{
		{"the first copy lands: two sources", true, []string{"node-0", "node-2"}},
		{"the first copy fails: node 0 alone, once", false, []string{"node-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A step of one copy, to node 2, then one of two, from node 0
			// and node 2.
			s := oneReplicaToFour(t)
			require.Equal(t, []string{"node-0"}, sources(said(s)))
			if tc.lands {
				s.blockReplicated(time.Hour, &BlockReplicated{Copy: 0, To: 2})
			} else {
				s.replicationFailed(&ReplicationFailed{Copy: 0, Reason: "node lost"})
			}
			assert.Equal(t, tc.want, sources(said(s)))
			assert.Len(t, s.scarlett.copies, len(tc.want))
		})
	}
}

// The fullest disk's bytes reach the counters as they grow: a copy that
// lands on a node already holding another file's block raises the peak
// by the block's bytes, once.
func TestPeakGaugeFollowsTheFullestDisk(t *testing.T) {
	s, _ := scarlettCore()
	hotJob(t, s, 0, 1, 0, 2)
	warm, err := s.blocks.ensure("warm", 100, 100, 0)
	require.NoError(t, err)
	pin(s.blocks, warm, 0, []sched.NodeID{1, 3})
	saidCounting(s) // what storing the files reported
	require.Equal(t, int64(100), s.blocks.peak, "no disk has held two blocks yet")
	s.scarlett.conc.Launch(time.Second, "hot", 8)
	s.scarlett.conc.Launch(time.Second, "hot", 9)
	s.rearrange(time.Hour)
	effects, _ := saidCounting(s)
	require.Equal(t, []string{"node-0 ← ReplicateBlock 0: hot block 0 to node 1"}, effects)

	s.blockReplicated(time.Hour, &BlockReplicated{Copy: 0, To: 1, Bytes: 100, Wire: 100})
	_, counts := saidCounting(s)
	assert.Equal(t, int64(100), counts[MetricNodePeakBytes], "node 1 now holds warm's block and hot's: 200")
	_, counts = saidCounting(s)
	assert.Zero(t, counts[MetricNodePeakBytes], "reported once")
}
