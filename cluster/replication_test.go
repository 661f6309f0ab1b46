package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// replication.overhead's denominator: each copy's stages, local or not,
// make one life from its first start to its last end; the lives merge
// into windows, and each task network flow counts the share of its life
// inside them; local flows, computes and re-replication count nothing.
func TestReplicationWindows(t *testing.T) {
	s := time.Second
	var tally replTally
	stage := func(id int64, part int32, tr actors.Transfer, from, to time.Duration) actors.FlowRecord {
		return actors.FlowRecord{Key: actors.FlowKey{Owner: actors.OwnerReplication, ID: id, Part: part}, Src: 0, Dst: 1,
			Transfer: tr, Start: from, End: to, Delivered: 10}
	}
	task := func(from, to time.Duration, bytes int64) actors.FlowRecord {
		return actors.FlowRecord{Key: actors.FlowKey{Attempt: sched.Attempt{Job: 1}}, Src: 2, Dst: 3,
			Transfer: actors.DiskRead, Start: from, End: to, Delivered: bytes}
	}
	for _, r := range []actors.FlowRecord{
		// Copy 1's stages, out of order: its disk read, its compression
		// and its transfer make one life, [10, 20].
		stage(1, 2, actors.NetTransfer, 18*s, 20*s), stage(1, 0, actors.DiskRead, 10*s, 12*s),
		stage(1, 1, actors.Compute, 12*s, 18*s),
		stage(2, 2, actors.NetTransfer, 15*s, 30*s), stage(3, 2, actors.NetTransfer, 50*s, 60*s),
		task(0, 20*s, 100),    // half inside [10, 30]: 50
		task(25*s, 55*s, 300), // 5 s of [10, 30] and 5 of [50, 60]: 100
		task(35*s, 45*s, 999), // between the windows: 0
		task(55*s, 55*s, 7),   // an instant inside: 7
		{Key: actors.FlowKey{Attempt: sched.Attempt{Job: 1}}, Src: 4, Dst: 4, Transfer: actors.DiskRead, Start: 10 * s, End: 20 * s, Delivered: 1000},
		{Key: actors.FlowKey{Attempt: sched.Attempt{Job: 1}}, Src: 4, Dst: 5, Transfer: actors.Compute, Start: 10 * s, End: 20 * s, Delivered: 1000},
		{Key: actors.FlowKey{Owner: actors.OwnerReReplication}, Src: 0, Dst: 1, Transfer: actors.DiskCopy, Start: 10 * s, End: 20 * s, Delivered: 1000},
	} {
		tally.flow(r)
	}
	got := tally.totals()
	assert.Equal(t, []Span{{10 * s, 30 * s}, {50 * s, 60 * s}}, got.Windows)
	assert.InDelta(t, 50+100+7, got.TaskBytes, 1e-9)
}

// A copy whose transfer is short but whose compression is long widens
// the window by its whole life: the task bytes beside it count too.
func TestReplicationWindowsCoverCompression(t *testing.T) {
	s := time.Second
	var tally replTally
	for part, span := range [][2]time.Duration{{0, 3 * s}, {3 * s, 70 * s}, {70 * s, 71 * s}, {71 * s, 136 * s}, {136 * s, 139 * s}} {
		tr := []actors.Transfer{actors.DiskRead, actors.Compute, actors.NetTransfer, actors.Compute, actors.DiskWrite}[part]
		tally.flow(actors.FlowRecord{Key: actors.FlowKey{Owner: actors.OwnerReplication, ID: 7, Part: int32(part)},
			Transfer: tr, Start: span[0], End: span[1], Delivered: 1})
	}
	tally.flow(actors.FlowRecord{Key: actors.FlowKey{Attempt: sched.Attempt{Job: 1}}, Src: 2, Dst: 3,
		Transfer: actors.NetTransfer, Start: 0, End: 139 * s, Delivered: 1390})
	got := tally.totals()
	assert.Equal(t, []Span{{0, 139 * s}}, got.Windows)
	assert.InDelta(t, 1390, got.TaskBytes, 1e-9, "the task's bytes over the copy's whole life, not its 1 s transfer's 10")
}

// The replicas Scarlett adds and removes reach the records one by one,
// as many as its counters count: additions when a copy lands, removals
// at an epoch's instant, each with its block's bytes.
func TestReplicaChangesAreRecorded(t *testing.T) {
	cfg := fourRacks()
	cfg.HDFS.BlockSize = 128 * mib
	r := actors.DefaultReplicationConfig()
	r.Learn, r.Epoch, r.Budget, r.Compression = units.Duration(2*time.Minute), units.Duration(2*time.Minute), 1, "none"
	cfg.Replication = &r
	// Four waves of jobs reading one hot 3-block file at once, a minute
	// apart, then quiet: the first epochs add replicas, later ones
	// remove them as the hot file cools.
	var jobs []workload.JobSpec
	for wave := range 4 {
		for k := range 4 { // c_f 4: r_f 5, within the budget
			jobs = append(jobs, workload.JobSpec{Name: fmt.Sprintf("hot-%d-%d", wave, k), InputFile: "hot",
				Submit: time.Duration(wave) * time.Minute, InputBytes: 3 * 128 * mib,
				MapCPU: workload.PerMiB(300 * time.Millisecond)})
		}
	}
	jobs = append(jobs, workload.JobSpec{Name: "late", Submit: 12 * time.Minute, InputBytes: 128 * mib})
	cfg.Workload = [][]workload.JobSpec{jobs}
	rep := run(t, cfg)
	changes := rep.Records.Replication.Changes
	var added, removed int64
	for i, c := range changes {
		if i > 0 {
			require.LessOrEqual(t, changes[i-1].At, c.At, "in the order they were")
		}
		assert.Equal(t, int64(128*mib), c.Bytes)
		assert.Equal(t, "hot", c.File)
		assert.Contains(t, []int{0, 1, 2}, c.Block)
		if c.Added {
			added++
			continue
		}
		removed++
		assert.Zero(t, c.At%(2*time.Minute), "a removal is an epoch's: %v", c.At)
	}
	assert.Positive(t, added, "the hot file got replicas")
	assert.Positive(t, removed, "and lost them once cold")
	assert.Equal(t, rep.Records.Counters[actors.MetricReplicasAdded], added)
	assert.Equal(t, rep.Records.Counters[actors.MetricReplicasRemoved], removed)
}
