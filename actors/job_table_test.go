package actors

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// Two racks of three nodes: nodes 0-2 on rack 0, 3-5 on rack 1.
func twoRacks() *jobTable {
	return newJobTable([]sched.RackID{0, 0, 0, 1, 1, 1})
}

// inputOn is a file with one block per map, each on the nodes given.
func inputOn(replicas ...[]sched.NodeID) *file {
	f := &file{}
	for _, r := range replicas {
		f.blocks = append(f.blocks, block{bytes: 1, replicas: slices.Clone(r)})
	}
	return f
}

func status(t *jobTable, id sched.JobID) sched.JobStatus {
	return t.job(id).status
}

func TestJobTableTakesBestLocalityFirst(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 1, Maps: 3}, inputOn([]sched.NodeID{0, 3, 4}, []sched.NodeID{1, 4, 5}, []sched.NodeID{2, 4, 5}))
	for task := range int32(3) {
		tab.addMap(1, task)
	}

	loc, ok := tab.bestLocality(1, sched.Map, 2)
	require.True(t, ok)
	assert.Equal(t, sched.NodeLocal, loc)

	// Node 3 holds task 0.
	task, loc, ok := tab.take(1, sched.Map, 3, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(0), task)
	assert.Equal(t, sched.NodeLocal, loc)

	// Node 3 again: task 0 is taken, so the rack's next pending task (1,
	// listed under rack 1 through node 4) is rack-local.
	task, loc, ok = tab.take(1, sched.Map, 3, sched.RackLocal)
	require.True(t, ok)
	assert.Equal(t, int32(1), task)
	assert.Equal(t, sched.RackLocal, loc)

	// Node 0 with node-local only: task 0 (its only block) is gone.
	_, _, ok = tab.take(1, sched.Map, 0, sched.NodeLocal)
	assert.False(t, ok)
	loc, ok = tab.bestLocality(1, sched.Map, 0)
	require.True(t, ok)
	assert.Equal(t, sched.RackLocal, loc, "task 2 sits on node 2, same rack")

	assert.Equal(t, 1, status(tab, 1).PendingMaps)
	task, loc, ok = tab.take(1, sched.Map, 0, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(2), task)
	assert.Equal(t, sched.RackLocal, loc)

	_, ok = tab.bestLocality(1, sched.Map, 0)
	assert.False(t, ok, "nothing pending")
	_, _, ok = tab.take(1, sched.Map, 5, sched.OffRack)
	assert.False(t, ok)
}

func TestJobTableOffRackAndRequeue(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 7, Maps: 1}, inputOn([]sched.NodeID{0, 1}))
	tab.addMap(7, 0)
	_, _, ok := tab.take(7, sched.Map, 4, sched.RackLocal)
	assert.False(t, ok, "rack 1 holds no replica")
	task, loc, ok := tab.take(7, sched.Map, 4, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, sched.OffRack, loc)
	// A failed attempt puts the task back; it is node-local on node 1.
	tab.addMap(7, task)
	tab.addMap(7, task) // a duplicate add is ignored
	assert.Equal(t, 1, status(tab, 7).PendingMaps)
	_, loc, ok = tab.take(7, sched.Map, 1, sched.NodeLocal)
	require.True(t, ok)
	assert.Equal(t, sched.NodeLocal, loc)
}

func TestJobTableReadsTheCurrentReplicas(t *testing.T) {
	// Task 0's replicas are on node 1 (rack 0) and node 4 (rack 1). Node
	// 1 dies and the block map forgets its replica: on node 2 the task is
	// no longer rack-local, as the replica the NameNode would pick (node
	// 4) is off-rack, and on node 1 it is not node-local.
	tab := twoRacks()
	input := inputOn([]sched.NodeID{1, 4})
	tab.add(sched.Job{ID: 1, Maps: 1}, input)
	tab.addMap(1, 0)
	loc, _ := tab.bestLocality(1, sched.Map, 2)
	require.Equal(t, sched.RackLocal, loc)
	input.blocks[0].replicas = []sched.NodeID{4}

	loc, ok := tab.bestLocality(1, sched.Map, 2)
	require.True(t, ok)
	assert.Equal(t, sched.OffRack, loc)
	_, _, ok = tab.take(1, sched.Map, 1, sched.RackLocal)
	assert.False(t, ok, "no replica left on node 1 or its rack")
	assert.Equal(t, sched.OffRack, tab.mapLocality(1, 0, 1))
	task, loc, ok := tab.take(1, sched.Map, 5, sched.RackLocal)
	require.True(t, ok)
	assert.Equal(t, int32(0), task)
	assert.Equal(t, sched.RackLocal, loc)
}

func TestJobTableCountsTasksApartFromAttempts(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 2, Submit: 5 * time.Second}, nil)
	tab.add(sched.Job{ID: 1, Submit: 5 * time.Second, Reduces: 5}, nil)
	tab.add(sched.Job{ID: 3, Submit: time.Second}, nil)
	var ids []sched.JobID
	for st := range tab.statuses() {
		ids = append(ids, st.ID)
	}
	assert.Equal(t, []sched.JobID{3, 1, 2}, ids)

	tab.addReduce(1, 4)
	tab.addReduce(1, 2)
	task, loc, ok := tab.take(1, sched.Reduce, 0, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(4), task, "reduces in the order they became pending")
	assert.Equal(t, sched.OffRack, loc)
	counts := func() [4]int {
		st := status(tab, 1)
		return [4]int{st.PendingReduces, st.RunningReduces, st.FinishedReduces, st.ReduceAttempts}
	}
	first := tab.attempt(1, sched.Reduce, 4)
	tab.launched(first)
	assert.Equal(t, [4]int{1, 1, 0, 1}, counts())

	// A copy of the running task: one task, two attempts.
	require.True(t, tab.copyable(1, sched.Reduce, 4))
	second := tab.attempt(1, sched.Reduce, 4)
	assert.Equal(t, int32(1), second.Attempt)
	tab.launched(second)
	assert.Equal(t, [4]int{1, 1, 0, 2}, counts())

	// The copy succeeds first: the task is finished once, and the
	// original, killed after, leaves it finished.
	tab.ended(second, true)
	assert.Equal(t, [4]int{1, 1, 1, 1}, counts())
	assert.False(t, tab.copyable(1, sched.Reduce, 4), "a finished task has no copy")
	tab.ended(first, true)
	assert.Equal(t, [4]int{1, 0, 1, 0}, counts(), "a sibling's late success finishes nothing")

	tab.remove(1)
	assert.Nil(t, tab.job(1))
	ids = ids[:0]
	for st := range tab.statuses() {
		ids = append(ids, st.ID)
	}
	assert.Equal(t, []sched.JobID{3, 2}, ids)
}

// A task queued again goes ahead of the tasks never started, the latest
// first, at every level of locality, as Hadoop's failMap puts it; and the
// order tasks are taken in does not depend on what was asked in between.
func TestJobTableRequeuesAtTheFrontWhateverWasAsked(t *testing.T) {
	takeAll := func(query bool) []int32 {
		tab := twoRacks()
		tab.add(sched.Job{ID: 1, Maps: 6, Reduces: 3}, inputOn(
			[]sched.NodeID{0, 3}, []sched.NodeID{0, 3}, []sched.NodeID{0, 3},
			[]sched.NodeID{0, 3}, []sched.NodeID{0, 3}, []sched.NodeID{0, 3}))
		for task := range int32(6) {
			tab.addMap(1, task)
		}
		for task := range int32(3) {
			tab.addReduce(1, task)
		}
		var order []int32
		take := func(kind sched.TaskKind, node sched.NodeID) {
			if query {
				for n := range sched.NodeID(6) {
					tab.bestLocality(1, kind, n)
				}
			}
			task, _, ok := tab.take(1, kind, node, sched.OffRack)
			require.True(t, ok)
			order = append(order, task)
		}
		take(sched.Map, 0) // 0
		take(sched.Map, 0) // 1
		take(sched.Map, 0) // 2
		tab.addMap(1, 0)   // attempts of 0 and then 1 fail
		tab.addMap(1, 1)
		take(sched.Map, 0) // 1: the latest queued again, node-local
		take(sched.Map, 5) // 0: rack-local on rack 1, ahead of 3, 4, 5
		take(sched.Map, 5) // 3
		take(sched.Reduce, 0)
		tab.addReduce(1, 0)
		take(sched.Reduce, 0) // 0 again, ahead of 1 and 2
		take(sched.Reduce, 0)
		return order
	}
	want := []int32{0, 1, 2, 1, 0, 3, 0, 0, 1}
	assert.Equal(t, want, takeAll(false))
	assert.Equal(t, want, takeAll(true), "a policy's questions change nothing")
}

func TestJobTableVersionMovesWithEveryStatusChange(t *testing.T) {
	// Random submissions, removals, queuings, takes, launches and ends of
	// six jobs of four maps and four reduces: whenever the statuses a
	// policy is shown differ from before, the version moved
	// (sched.Versioned).
	rng := rand.New(rand.NewPCG(1, 2))
	tab := twoRacks()
	blocks := [][]sched.NodeID{{0, 3}, {1, 4}, {2}, {5}}
	before, version, changes := slices.Collect(tab.statuses()), tab.version, 0
	for step := range 20000 {
		id, kind, task := sched.JobID(1+rng.IntN(6)), sched.TaskKind(rng.IntN(2)), int32(rng.IntN(4))
		switch rng.IntN(8) {
		case 0:
			if tab.job(id) == nil {
				tab.add(sched.Job{ID: id, Maps: 4, Reduces: 4, Submit: time.Duration(rng.IntN(3))}, inputOn(blocks...))
			}
		case 1:
			if rng.IntN(4) == 0 {
				tab.remove(id)
			}
		case 2:
			tab.addMap(id, task)
		case 3:
			tab.addReduce(id, task)
		case 4:
			tab.take(id, kind, sched.NodeID(rng.IntN(6)), sched.Locality(rng.IntN(sched.Localities)))
		case 5:
			if tab.job(id) != nil {
				tab.launched(tab.attempt(id, kind, task))
			}
		case 6:
			tab.ended(sched.Attempt{Job: id, Kind: kind, Task: task}, rng.IntN(2) == 0)
		case 7:
			tab.finished(id, kind, task)
		}
		now := slices.Collect(tab.statuses())
		if !slices.Equal(before, now) {
			changes++
			require.NotEqual(t, version, tab.version, "step %d: the statuses changed, the version did not", step)
		}
		before, version = now, tab.version
	}
	assert.Greater(t, changes, 5000)
}

// Reduces placed by rack (Mantri's placement): a node takes one placed in
// its rack, rack-local; one placed in another rack only once its wait
// has ended; one queued again without a rack anywhere.
func TestJobTableHoldsPlacedReducesInTheirRack(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 1, Reduces: 3}, inputOn())
	tab.now = 5 * time.Second
	tab.addReduceIn(1, 0, 0, 10*time.Second)
	tab.addReduceIn(1, 1, 0, 10*time.Second)
	tab.addReduceIn(1, 2, 1, 10*time.Second)

	loc, ok := tab.bestLocality(1, sched.Reduce, 3)
	require.True(t, ok)
	assert.Equal(t, sched.RackLocal, loc, "node 3 is in rack 1, where reduce 2 is placed")
	task, loc, ok := tab.take(1, sched.Reduce, 3, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(2), task)
	assert.Equal(t, sched.RackLocal, loc)

	// Rack 1 has none left and rack 0's wait until 15 s.
	_, ok = tab.bestLocality(1, sched.Reduce, 4)
	assert.False(t, ok, "at 5 s rack 0's reduces are held there")
	tab.now = 15*time.Second - 1
	_, _, ok = tab.take(1, sched.Reduce, 4, sched.OffRack)
	assert.False(t, ok, "a nanosecond before the wait ends")
	tab.now = 15 * time.Second
	loc, ok = tab.bestLocality(1, sched.Reduce, 4)
	require.True(t, ok)
	assert.Equal(t, sched.OffRack, loc)
	task, loc, ok = tab.take(1, sched.Reduce, 4, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(0), task)
	assert.Equal(t, sched.OffRack, loc)

	// Reduce 2 ends without succeeding and is queued again with no rack:
	// it goes anywhere, ahead of reduce 1 that still waits for rack 0.
	tab.launched(sched.Attempt{Job: 1, Kind: sched.Reduce, Task: 2})
	tab.ended(sched.Attempt{Job: 1, Kind: sched.Reduce, Task: 2}, false)
	tab.now = 6 * time.Second
	tab.addReduce(1, 2)
	task, loc, ok = tab.take(1, sched.Reduce, 5, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(2), task)
	assert.Equal(t, sched.OffRack, loc)
	task, loc, ok = tab.take(1, sched.Reduce, 1, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(1), task)
	assert.Equal(t, sched.RackLocal, loc)
	assert.Equal(t, 0, status(tab, 1).PendingReduces)
}

// The dense pending counts bestLocality reads first always equal the
// jobs' statuses' (0 for a job removed), through tasks queued, queued
// again, taken and jobs removed, in a seeded random order, and
// bestLocality finds a task exactly when the status has one pending.
func TestPendingCountsFollowTheStatuses(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	tab := twoRacks()
	active := map[sched.JobID]bool{}
	next := sched.JobID(1)
	for range 5000 {
		switch op := r.IntN(10); {
		case op == 0 || len(active) == 0:
			tab.add(sched.Job{ID: next, Maps: 4, Reduces: 2}, inputOn([]sched.NodeID{0, 3}, []sched.NodeID{1, 4}, []sched.NodeID{2, 5}, []sched.NodeID{0, 5}))
			active[next] = true
			next++
		default:
			id := sched.JobID(1 + r.IntN(int(next-1)))
			switch r.IntN(4) {
			case 0:
				tab.addMap(id, int32(r.IntN(4)))
			case 1:
				tab.addReduce(id, int32(r.IntN(2)))
			case 2:
				tab.take(id, sched.TaskKind(r.IntN(2)), sched.NodeID(r.IntN(6)), sched.OffRack)
			case 3:
				if r.IntN(20) == 0 {
					tab.remove(id)
					delete(active, id)
				}
			}
		}
		for id := range next {
			for kind := range sched.TaskKind(2) {
				_, ok := tab.bestLocality(id, kind, sched.NodeID(r.IntN(6)))
				want := active[id] && tab.job(id).status.Pending(kind) > 0
				require.Equal(t, want, ok, "job %d %v", id, kind)
				count := 0
				if active[id] {
					count = tab.job(id).status.Pending(kind)
				}
				if int(id) < len(tab.pending[kind]) {
					require.Equal(t, int32(count), tab.pending[kind][id], "job %d %v", id, kind)
				} else {
					require.Zero(t, count, "job %d %v", id, kind)
				}
			}
		}
	}
}
