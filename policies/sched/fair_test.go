package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFairSharesPaperExample(t *testing.T) {
	// Zaharia et al. Fig. 3: min shares 50/10/25/15, demands 46/18/28/16,
	// 100 slots. Pool 1 wants less than its minimum (46); the others get
	// their minimums (10 + 25 + 15 = 50, 4 slots left); the 4 go to the
	// lowest share, pool 2: 46/14/25/15 at water level 14.
	got := fairShares([]claim{
		{min: 50, weight: 1, demand: 46}, {min: 10, weight: 1, demand: 18},
		{min: 25, weight: 1, demand: 28}, {min: 15, weight: 1, demand: 16},
	}, 100)
	assert.InDeltaSlice(t, []float64{46, 14, 25, 15}, got, 1e-9)
}

func TestFairSharesWherePrintedAlgorithmFails(t *testing.T) {
	// No minimums, demands 10/50/50, 60 slots. The printed Algorithm 2
	// takes d_min over all pools, raises every pool by 10 and retires all
	// three at once, leaving 30 slots unallocated. Max-min gives 10/25/25.
	got := fairShares([]claim{{weight: 1, demand: 10}, {weight: 1, demand: 50}, {weight: 1, demand: 50}}, 60)
	assert.InDeltaSlice(t, []float64{10, 25, 25}, got, 1e-9)
}

func TestFairSharesWeightsAndEdges(t *testing.T) {
	// Weights 1:2 over 30 slots, both wanting more: 10 and 20.
	assert.InDeltaSlice(t, []float64{10, 20}, fairShares([]claim{{weight: 1, demand: 100}, {weight: 2, demand: 100}}, 30), 1e-9)
	// Demand below the slots: everyone gets their demand.
	assert.InDeltaSlice(t, []float64{3, 4}, fairShares([]claim{{weight: 1, demand: 3}, {weight: 1, demand: 4}}, 30), 1e-9)
	// Minimums over the slots (40 + 40 of 40): scaled to 20 and 20.
	assert.InDeltaSlice(t, []float64{20, 20}, fairShares([]claim{{min: 40, weight: 1, demand: 50}, {min: 40, weight: 1, demand: 50}}, 40), 1e-9)
}

func fairView(jobs ...*JobStatus) *fakeView {
	return &fakeView{jobs: jobs, local: map[JobID]map[NodeID]Locality{}, slots: map[TaskKind]int{Map: 10, Reduce: 4}}
}

func TestFairOrderPutsNeedyPoolsFirst(t *testing.T) {
	// Pool "prod" has a minimum of 4 map slots and runs 1; job 1 of the
	// default pool runs 0 but submitted first. prod's job goes first.
	f := NewFair(FairConfig{Pools: []Pool{{Name: "prod", MinShare: [2]int{4, 0}}}})
	a := status(1, Normal, 0, 5, 0)
	b := status(2, Normal, time.Second, 5, 0)
	b.Pool = "prod"
	running(b, 1)
	f.Submitted(0, a.Job)
	f.Submitted(time.Second, b.Job)
	got, ok := f.Assign(time.Minute, fairView(a, b), Slot{Node: 1, Kind: Map})
	require.True(t, ok)
	assert.Equal(t, JobID(2), got.Job)

	// Once prod is at its minimum, the job furthest below its fair share
	// (job 1, running 0) goes first.
	running(b, 4)
	got, ok = f.Assign(time.Minute, fairView(a, b), Slot{Node: 1, Kind: Map})
	require.True(t, ok)
	assert.Equal(t, JobID(1), got.Job)
}

func TestDelaySchedulingLevels(t *testing.T) {
	// One job whose tasks are rack-local to node 1 and off-rack to node 9,
	// with T1 = 10 s and T2 = 20 s and heartbeats every 5 s.
	f := NewFair(FairConfig{Delay: Waits{Enabled: true, T1: 10 * time.Second, T2: 20 * time.Second}})
	j := status(1, Normal, 0, 5, 0)
	f.Submitted(0, j.Job)
	v := fairView(j)
	v.local[1] = map[NodeID]Locality{1: RackLocal, 2: NodeLocal}
	offer := func(at time.Duration, node NodeID) (Locality, bool) {
		f.Heartbeat(at, node)
		a, ok := f.Assign(at, v, Slot{Node: node, Kind: Map})
		return a.MaxLocality, ok
	}
	_, ok := offer(0, 1)
	assert.False(t, ok, "no node-local task and no wait yet")
	_, ok = offer(5*time.Second, 9)
	assert.False(t, ok, "5 s waited")
	loc, ok := offer(10*time.Second, 1)
	require.True(t, ok, "10 s ≥ T1: rack-local allowed")
	assert.Equal(t, RackLocal, loc)
	// Level 1 now, wait reset: off-rack only after T2 more seconds.
	_, ok = offer(15*time.Second, 9)
	assert.False(t, ok)
	_, ok = offer(20*time.Second, 9)
	assert.False(t, ok, "5 s of T2")
	// The 15–20 s gap followed a skip and counts; so does 20–40 s: the
	// job has waited 25 s ≥ T2 at 40 s.
	loc, ok = offer(40*time.Second, 9)
	require.True(t, ok, "25 s ≥ T2")
	assert.Equal(t, OffRack, loc)
	// A node-local launch takes the job back to level 0.
	f.Launched(46*time.Second, Launch{Attempt: Attempt{Job: 1, Kind: Map}, Node: 2, Locality: NodeLocal})
	_, ok = offer(50*time.Second, 9)
	assert.False(t, ok, "back at level 0")
	loc, ok = offer(55*time.Second, 2)
	require.True(t, ok)
	assert.Equal(t, NodeLocal, loc)
}

func TestDelayOverrideForCPUBoundPool(t *testing.T) {
	// IO-rate biasing: a pool of CPU-bound jobs with T1 = T2 = 0 launches
	// anywhere at once while others wait.
	zero := Waits{Enabled: true}
	f := NewFair(FairConfig{
		Delay: Waits{Enabled: true, T1: time.Minute, T2: time.Minute},
		Pools: []Pool{{Name: "cpu", Waits: &zero}},
	})
	io := status(1, Normal, 0, 5, 0)
	cpu := status(2, Normal, time.Second, 5, 0)
	cpu.Pool = "cpu"
	f.Submitted(0, io.Job)
	f.Submitted(time.Second, cpu.Job)
	f.Heartbeat(time.Minute, 3)
	got, ok := f.Assign(time.Minute, fairView(io, cpu), Slot{Node: 3, Kind: Map})
	require.True(t, ok)
	assert.Equal(t, Assignment{Job: 2, Kind: Map, MaxLocality: OffRack}, got)
}

func TestDelayOverrideForCPUBoundJob(t *testing.T) {
	// A pool that overrides only T1 = 0: its CPU-bound job launches
	// rack-local at once, but off-rack only after the policy's T2; the
	// IO-bound job of the default pool keeps the policy's waits.
	cpuWaits := Waits{Enabled: true, T2: time.Minute}
	f := NewFair(FairConfig{
		Delay: Waits{Enabled: true, T1: time.Minute, T2: time.Minute},
		Pools: []Pool{{Name: "cpu", Waits: &cpuWaits}},
	})
	io := status(1, Normal, 0, 5, 0)
	cpu := status(2, Normal, time.Second, 5, 0)
	cpu.Pool = "cpu"
	f.Submitted(0, io.Job)
	f.Submitted(time.Second, cpu.Job)
	v := fairView(io, cpu)
	v.local[1] = map[NodeID]Locality{3: RackLocal}
	v.local[2] = map[NodeID]Locality{3: RackLocal}
	f.Heartbeat(time.Minute, 3)
	got, ok := f.Assign(time.Minute, v, Slot{Node: 3, Kind: Map})
	require.True(t, ok)
	assert.Equal(t, Assignment{Job: 2, Kind: Map, MaxLocality: RackLocal}, got)
	f.Heartbeat(time.Minute, 4)
	_, ok = f.Assign(time.Minute, v, Slot{Node: 4, Kind: Map})
	assert.False(t, ok, "off-rack waits T2 for both")
}

func TestFairPreemptsForMinimumShare(t *testing.T) {
	// 10 map slots. "prod" (minimum 4) has a job wanting 6 and running 0;
	// job 1 of the default pool runs all 10. Fair shares: prod 5, default
	// 5. After the 60 s minimum-share timeout, prod may take its minimum,
	// 4, from job 1, most recently launched first; job 1 keeps 6 ≥ its
	// share of 5.
	cfg := DefaultFairConfig()
	cfg.Preempt, cfg.MinTimeout = true, time.Minute
	cfg.Pools = []Pool{{Name: "prod", MinShare: [2]int{4, 0}}}
	f := NewFair(cfg)
	hog := status(1, Normal, 0, 0, 0)
	hog.PendingMaps = 5
	running(hog, 10)
	f.Submitted(0, hog.Job)
	for i := range 10 {
		f.Launched(time.Duration(i)*time.Second, Launch{Attempt: Attempt{Job: 1, Kind: Map, Task: int32(i)}})
	}
	prod := status(2, Normal, 20*time.Second, 6, 0)
	prod.Pool = "prod"
	f.Submitted(20*time.Second, prod.Job)
	v := fairView(hog, prod)
	assert.Empty(t, f.Tick(60*time.Second, v), "40 s below: not yet")
	kills := f.Tick(81*time.Second, v)
	require.Len(t, kills, 4)
	for i, k := range kills {
		assert.Equal(t, Attempt{Job: 1, Kind: Map, Task: int32(9 - i)}, k.Attempt, "most recent first")
		assert.Equal(t, "pool prod below its minimum share", k.Reason)
	}
	assert.Empty(t, f.Tick(82*time.Second, v), "the timeout starts over after preempting")
}

func TestFairPreemptionNeverBelowFairShare(t *testing.T) {
	// Two pools without minimums, fair share 5 each of 10. Pool b runs 4
	// of 5: after the fair-share timeout it may take 1, and job 1, at 6,
	// gives exactly 1 (keeping its 5).
	cfg := DefaultFairConfig()
	cfg.Preempt, cfg.FairTimeout = true, 30*time.Second
	f := NewFair(cfg)
	a := status(1, Normal, 0, 0, 0)
	a.Pool, a.PendingMaps = "a", 10
	running(a, 6)
	b := status(2, Normal, 0, 0, 0)
	b.Pool, b.PendingMaps = "b", 10
	running(b, 4)
	for _, j := range []*JobStatus{a, b} {
		f.Submitted(0, j.Job)
	}
	for i := range 6 {
		f.Launched(0, Launch{Attempt: Attempt{Job: 1, Kind: Map, Task: int32(i)}})
	}
	kills := f.Tick(31*time.Second, fairView(a, b))
	require.Len(t, kills, 1)
	assert.Equal(t, "pool b below its fair share", kills[0].Reason)
}

func TestFairSharesOfJobsInPools(t *testing.T) {
	// 12 map slots. Pool "a" (weight 2) holds jobs 1 and 2, job 2 with
	// weight 3; pool "b" (weight 1) holds job 3. All want 20: a gets 8 and
	// b 4; within a, jobs split 8 by 1:3 into 2 and 6.
	f := NewFair(FairConfig{Pools: []Pool{{Name: "a", Weight: 2}, {Name: "b", Weight: 1}}})
	j1, j2, j3 := pooled(1, "a", 0, 20), pooled(2, "a", 0, 20), pooled(3, "b", 0, 20)
	j2.Weight = 3
	v := fairView(j1, j2, j3)
	v.slots[Map] = 12
	assert.InDeltaMapValues(t, map[JobID]float64{1: 2, 2: 6, 3: 4}, mapShares(f, v), 1e-9)
}

// mapShares are the jobs' fair shares of the map slots.
func mapShares(f *Fair, v View) map[JobID]float64 {
	got := map[JobID]float64{}
	for _, js := range f.shares(v, Map) {
		got[js.id] = js.fair
	}
	return got
}

// A job's priority scales its weight within its pool as Hadoop's fair
// scheduler's does: very high 4, high 2, normal 1, low 0.5, very low
// 0.25. Jobs of high, normal and very low priority in one pool, all
// wanting more than 13 map slots, split them 8 : 4 : 1.
func TestFairSharesByPriority(t *testing.T) {
	assert.Equal(t, []float64{4, 2, 1, 0.5, 0.25},
		[]float64{VeryHigh.ShareFactor(), High.ShareFactor(), Normal.ShareFactor(), Low.ShareFactor(), VeryLow.ShareFactor()})
	f := NewFair(FairConfig{})
	j1, j2, j3 := pooled(1, "", 0, 20), pooled(2, "", 0, 20), pooled(3, "", 0, 20)
	j1.Priority, j3.Priority = High, VeryLow
	v := fairView(j1, j2, j3)
	v.slots[Map] = 13
	assert.InDeltaMapValues(t, map[JobID]float64{1: 8, 2: 4, 3: 1}, mapShares(f, v), 1e-9)

	// A job whose priority changes is ranked anew.
	j3.Priority = High
	assert.InDeltaMapValues(t, map[JobID]float64{1: 5.2, 2: 2.6, 3: 5.2}, mapShares(f, v), 1e-9)
}

func TestFairSlotOrder(t *testing.T) {
	// 10 map slots. Pools p (minimum 4, running 2: ratio 0.5) and q
	// (minimum 2, running 0: ratio 0) are below their minimums; r has no
	// minimum and a share of 4, split 1.5/1/1.5 among jobs 3, 4 and 5 by
	// their demands 2/1/2. The order is q, p (by running / minimum), then
	// r's jobs by running / fair share: job 4 (0/1), 5 (1/1.5), 3 (2/1.5).
	f := NewFair(FairConfig{Pools: []Pool{{Name: "p", MinShare: [2]int{4, 0}}, {Name: "q", MinShare: [2]int{2, 0}}}})
	jobs := []*JobStatus{pooled(1, "p", 2, 2), pooled(2, "q", 0, 2), pooled(3, "r", 2, 0), pooled(4, "r", 0, 1), pooled(5, "r", 1, 1)}
	for i, j := range jobs {
		j.Submit = time.Duration(i) * time.Second
	}
	assert.Equal(t, []JobID{2, 1, 4, 5, 3}, f.order(fairView(jobs...), Map))
}

func TestDelayWaitAccruesOnlyWhenSkipped(t *testing.T) {
	// Jobs 1 and 2 in one pool; job 1 is node-local everywhere and runs
	// first, so job 2 (never node-local) is not examined while job 1
	// takes every slot: its wait stays 0 however long that lasts.
	f := NewFair(FairConfig{Delay: Waits{Enabled: true, T1: 10 * time.Second, T2: 10 * time.Second}})
	j1, j2 := status(1, Normal, 0, 100, 0), status(2, Normal, time.Second, 5, 0)
	running(j2, 50) // far over its share, so job 1 is first
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	v := fairView(j1, j2)
	v.local[1] = map[NodeID]Locality{7: NodeLocal}
	for at := time.Duration(0); at <= time.Minute; at += 5 * time.Second {
		f.Heartbeat(at, 7)
		a, ok := f.Assign(at, v, Slot{Node: 7, Kind: Map})
		require.True(t, ok)
		require.Equal(t, JobID(1), a.Job)
	}
	assert.Zero(t, f.delay.jobs[2].wait)
	// Job 1 runs out of maps: job 2 is examined and skipped from now on,
	// and launches anywhere only after T1 + T2 of skipped gaps.
	j1.PendingMaps = 0
	var launched time.Duration
	for at := time.Minute + 5*time.Second; launched == 0; at += 5 * time.Second {
		f.Heartbeat(at, 7)
		if _, ok := f.Assign(at, v, Slot{Node: 7, Kind: Map}); ok {
			launched = at
		}
	}
	assert.Equal(t, time.Minute+25*time.Second, launched)
}

func TestFairServesAContainerByAllAJobHolds(t *testing.T) {
	// 10 containers. Job 1 holds 4 maps and asks for more; job 2 holds 3
	// reduces and asks for 2 maps and a reduce. Job 2 holds fewer, 3
	// against 4: it takes the container, its reduce first. Once it holds
	// 5 reduces, job 1 comes first, with a map, where ranked by their
	// maps alone (0 against 4) job 2's map would have taken it.
	f, j1, j2, v := containerJobs("", "")
	assert.Equal(t, offRack(2, Reduce), containerTo(t, f, v, time.Minute))
	j2.PendingReduces, j2.ReduceAttempts = 0, 5
	assert.Equal(t, offRack(1, Map), containerTo(t, f, v, time.Minute))
	j1.PendingMaps, j2.PendingMaps = 0, 0
	_, ok := f.AssignContainer(time.Minute, v, Slot{Kind: Map})
	assert.False(t, ok)
}

// containerJobs is 10 containers and two jobs of the pools: job 1 holds
// 4 maps and asks for 6 more, job 2 holds 3 reduces and asks for 2 maps
// and a reduce.
func containerJobs(pool1, pool2 string) (*Fair, *JobStatus, *JobStatus, *fakeView) {
	f := NewFair(FairConfig{})
	j1, j2 := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 2, 1)
	j1.Pool, j2.Pool = pool1, pool2
	j1.MapAttempts, j1.RunningMaps = 4, 4
	j2.ReduceAttempts, j2.RunningReduces = 3, 3
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	v := fairView(j1, j2)
	v.slots = map[TaskKind]int{Map: 10, Reduce: 10}
	return f, j1, j2, v
}

// A job's headroom is its pool's fair share of the containers less what
// the pool holds.
func TestFairHeadroomIsThePoolsShareLeft(t *testing.T) {
	// 10 containers, two pools of weight 1. Pool a's job holds 4 maps and
	// asks for 6 more, pool b's 3 reduces and asks for 2 maps and a
	// reduce: demands 10 and 6, shares 5 and 5, headrooms 1 and 2.
	f, j1, _, v := containerJobs("a", "b")
	for _, tc := range []struct {
		job  JobID
		want int
	}{{1, 1}, {2, 2}} {
		got, ok := f.Headroom(v, tc.job)
		assert.True(t, ok)
		assert.Equal(t, tc.want, got, "job %d", tc.job)
	}
	j1.MapAttempts, j1.PendingMaps = 6, 4 // over its share: none left
	got, _ := f.Headroom(v, 1)
	assert.Zero(t, got)
	_, ok := f.Headroom(v, 9)
	assert.False(t, ok, "a job the policy does not know")
}
