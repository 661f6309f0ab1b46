package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// launchAll records n running maps of a job launched one second apart
// from start, task numbers from 0.
func launchAll(f *Fair, job JobID, n int, start time.Duration) {
	for i := range n {
		f.Launched(start+time.Duration(i)*time.Second, Launch{Attempt: Attempt{Job: job, Kind: Map, Task: int32(i)}})
	}
}

func pooled(id JobID, pool string, maps, pending int) *JobStatus {
	st := status(id, Normal, 0, pending, 0)
	st.Pool = pool
	running(st, maps)
	return st
}

func TestFairShareFraction(t *testing.T) {
	// 10 map slots, pools a and b without minimums: fair share 5 each.
	// b runs 3. With fraction 1 it is below 5 and takes 2 after the
	// timeout; with fraction 0.5 its target is floor(2.5) = 2 ≤ 3 and it
	// takes nothing.
	tests := []struct {
		fraction float64
		kills    int
	}{{1, 2}, {0.5, 0}, {0.8, 1}}
	for _, tt := range tests {
		cfg := DefaultFairConfig()
		cfg.Preempt, cfg.FairTimeout, cfg.Fraction = true, 30*time.Second, tt.fraction
		f := NewFair(cfg)
		a, b := pooled(1, "a", 7, 10), pooled(2, "b", 3, 10)
		f.Submitted(0, a.Job)
		f.Submitted(0, b.Job)
		launchAll(f, 1, 7, 0)
		v := fairView(a, b)
		assert.Empty(t, f.Tick(30*time.Second, v), "fraction %v: not past the timeout", tt.fraction)
		assert.Len(t, f.Tick(31*time.Second, v), tt.kills, "fraction %v", tt.fraction)
	}
}

func TestMinShareKillsOnlyFromOtherPools(t *testing.T) {
	// 10 slots. prod (minimum 6) has job 1 running 5 of 20 and job 2
	// running 0 of 5; pool x's job 3 runs 4 of 4. Shares: prod 6 (its
	// minimum), x 4. prod runs 5, below its minimum; job 1 runs over its
	// in-pool share of 3 but is in prod, so the minimum-share timeout may
	// not take from it, and job 3 is at its share: nothing is killed.
	cfg := DefaultFairConfig()
	cfg.Preempt, cfg.MinTimeout, cfg.FairTimeout = true, time.Minute, time.Hour
	cfg.Pools = []Pool{{Name: "prod", MinShare: [2]int{6, 0}}}
	f := NewFair(cfg)
	j1, j2, j3 := pooled(1, "prod", 5, 15), pooled(2, "prod", 0, 5), pooled(3, "x", 4, 0)
	for _, j := range []*JobStatus{j1, j2, j3} {
		f.Submitted(0, j.Job)
	}
	launchAll(f, 1, 5, 0)
	launchAll(f, 3, 4, 10*time.Second)
	v := fairView(j1, j2, j3)
	assert.Empty(t, f.Tick(2*time.Minute, v))

	// Job 3 grows to 8 running (demand 8, share still 4) while job 1
	// drops to 2: prod needs 4 and takes them from job 3, newest first,
	// leaving it at its share.
	running(j1, 2)
	running(j3, 8)
	for i := 4; i < 8; i++ {
		f.Launched(time.Duration(100+i)*time.Second, Launch{Attempt: Attempt{Job: 3, Kind: Map, Task: int32(i)}})
	}
	kills := f.Tick(3*time.Minute, v)
	require.Len(t, kills, 4)
	for i, k := range kills {
		assert.Equal(t, Attempt{Job: 3, Kind: Map, Task: int32(7 - i)}, k.Attempt)
	}
}

func TestPoolTimersRestartWhenThePoolReturns(t *testing.T) {
	// prod's first job ends; a new prod job arriving much later must wait
	// the full minimum-share timeout before preempting.
	cfg := DefaultFairConfig()
	cfg.Preempt, cfg.MinTimeout = true, time.Minute
	cfg.Pools = []Pool{{Name: "prod", MinShare: [2]int{4, 0}}}
	f := NewFair(cfg)
	old := pooled(1, "prod", 0, 0)
	f.Submitted(0, old.Job)
	f.Ended(time.Second, 1)
	hog := pooled(2, "", 10, 5)
	f.Submitted(0, hog.Job)
	launchAll(f, 2, 10, 0)
	prod := pooled(3, "prod", 0, 6)
	f.Submitted(time.Hour, prod.Job)
	v := fairView(hog, prod)
	assert.Empty(t, f.Tick(time.Hour+time.Second, v))
	assert.Len(t, f.Tick(time.Hour+61*time.Second, v), 4)
}

func TestPoolPerJobLetsJobsPreemptEachOther(t *testing.T) {
	// 10 map slots, two jobs without a pool: job 1 runs 7, job 2 runs 3,
	// both with 10 pending. In the shared default pool there is no pool
	// below its share, so nothing is killed. With a pool per job each
	// job's fair share is 5, and after T_fair job 2 takes 2 slots from
	// job 1, newest first.
	for _, perJob := range []bool{false, true} {
		cfg := DefaultFairConfig()
		cfg.Preempt, cfg.FairTimeout, cfg.PoolPerJob = true, 30*time.Second, perJob
		f := NewFair(cfg)
		a, b := pooled(1, "", 7, 10), pooled(2, "", 3, 10)
		f.Submitted(0, a.Job)
		f.Submitted(0, b.Job)
		launchAll(f, 1, 7, 0)
		kills := f.Tick(31*time.Second, fairView(a, b))
		if !perJob {
			assert.Empty(t, kills, "one shared pool")
			continue
		}
		require.Len(t, kills, 2)
		for i, k := range kills {
			assert.Equal(t, Attempt{Job: 1, Kind: Map, Task: int32(6 - i)}, k.Attempt)
		}
	}
}

func TestPoolPerJobKeepsNamedPools(t *testing.T) {
	cfg := DefaultFairConfig()
	cfg.PoolPerJob = true
	f := NewFair(cfg)
	assert.Equal(t, "prod", f.poolOf(Job{ID: 3, Pool: "prod"}))
	assert.Equal(t, "job-3", f.poolOf(Job{ID: 3}))
}

// containerView is a fakeView of containers, a reduce taking size.
type containerView struct {
	*fakeView
	size int
}

func (v containerView) ReduceContainers() int { return v.size }

// With containers a pool's share is of the containers, both kinds
// together, and what it takes back is a map first, as YARN's Fair
// Scheduler takes an application's lowest-priority containers (the AM
// asks for maps at 20, reduces at 10), then a reduce of 2 containers.
func TestFairPreemptsContainersMapsFirst(t *testing.T) {
	// 10 containers, reduces of 2. Pool a's job holds 4 maps and 3
	// reduces, all 10, and wants more maps; pool b's job holds none and
	// wants 6. Shares 5 and 5: b takes 5 back once below its share for
	// the timeout: a's 4 maps, the latest first, then its latest reduce.
	maps := func(tasks ...int32) []Attempt {
		var out []Attempt
		for _, i := range tasks {
			out = append(out, Attempt{Job: 1, Kind: Map, Task: i})
		}
		return out
	}
	assert.Equal(t, append(maps(3, 2, 1, 0), Attempt{Job: 1, Kind: Reduce, Task: 2}), containerKills(t, 3))
	// With 2 reduces a holds 8: it is 3 over, and of b's 5 the 2 free
	// containers give 2, so 3 maps are taken back.
	assert.Equal(t, maps(3, 2, 1), containerKills(t, 2))
}

// containerKills is what pool b takes back in TestFairPreemptsContainersMapsFirst
// when pool a's job runs reduces of its 3.
func containerKills(t *testing.T, reduces int) []Attempt {
	cfg := DefaultFairConfig()
	cfg.Preempt, cfg.FairTimeout = true, 30*time.Second
	f := NewFair(cfg)
	a, b := status(1, Normal, 0, 10, 0), status(2, Normal, 0, 6, 0)
	a.Pool, b.Pool = "a", "b"
	a.MapAttempts, a.RunningMaps, a.ReduceAttempts, a.RunningReduces = 4, 4, reduces, reduces
	f.Submitted(0, a.Job)
	f.Submitted(0, b.Job)
	for i := range 4 {
		f.Launched(time.Duration(i)*time.Second, Launch{Attempt: Attempt{Job: 1, Kind: Map, Task: int32(i)}})
	}
	for i := range reduces {
		f.Launched(time.Duration(10+i)*time.Second, Launch{Attempt: Attempt{Job: 1, Kind: Reduce, Task: int32(i)}})
	}
	fv := fairView(a, b)
	fv.slots = map[TaskKind]int{Map: 10, Reduce: 10}
	v := containerView{fv, 2}
	assert.Empty(t, f.Tick(30*time.Second, v), "not past the timeout")
	var killed []Attempt
	for _, p := range f.Tick(31*time.Second, v) {
		killed = append(killed, p.Attempt)
		assert.Equal(t, "pool b below its fair share", p.Reason)
	}
	return killed
}
