package actors

import (
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

func TestJobTableTakesBestLocalityFirst(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 1})
	tab.addMap(1, 0, []sched.NodeID{0, 3, 4}) // task 0 on nodes 0, 3, 4
	tab.addMap(1, 1, []sched.NodeID{1, 4, 5})
	tab.addMap(1, 2, []sched.NodeID{2, 4, 5})

	loc, ok := tab.BestLocality(1, sched.Map, 2)
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
	loc, ok = tab.BestLocality(1, sched.Map, 0)
	require.True(t, ok)
	assert.Equal(t, sched.RackLocal, loc, "task 2 sits on node 2, same rack")

	assert.Equal(t, 1, tab.Job(1).PendingMaps)
	task, loc, ok = tab.take(1, sched.Map, 0, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(2), task)
	assert.Equal(t, sched.RackLocal, loc)

	_, ok = tab.BestLocality(1, sched.Map, 0)
	assert.False(t, ok, "nothing pending")
	_, _, ok = tab.take(1, sched.Map, 5, sched.OffRack)
	assert.False(t, ok)
}

func TestJobTableOffRackAndRequeue(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 7})
	tab.addMap(7, 0, []sched.NodeID{0, 1})
	_, _, ok := tab.take(7, sched.Map, 4, sched.RackLocal)
	assert.False(t, ok, "rack 1 holds no replica")
	task, loc, ok := tab.take(7, sched.Map, 4, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, sched.OffRack, loc)
	// A failed attempt puts the task back; it is node-local on node 1.
	tab.addMap(7, task, []sched.NodeID{0, 1})
	tab.addMap(7, task, []sched.NodeID{0, 1}) // a duplicate add is ignored
	assert.Equal(t, 1, tab.Job(7).PendingMaps)
	_, loc, ok = tab.take(7, sched.Map, 1, sched.NodeLocal)
	require.True(t, ok)
	assert.Equal(t, sched.NodeLocal, loc)
}

func TestJobTableCountsAndOrder(t *testing.T) {
	tab := twoRacks()
	tab.add(sched.Job{ID: 2, Submit: 5 * time.Second})
	tab.add(sched.Job{ID: 1, Submit: 5 * time.Second})
	tab.add(sched.Job{ID: 3, Submit: time.Second})
	var ids []sched.JobID
	for _, st := range tab.Jobs() {
		ids = append(ids, st.ID)
	}
	assert.Equal(t, []sched.JobID{3, 1, 2}, ids)

	tab.addReduce(1, 4)
	tab.addReduce(1, 2)
	task, loc, ok := tab.take(1, sched.Reduce, 0, sched.OffRack)
	require.True(t, ok)
	assert.Equal(t, int32(4), task, "reduces in the order they became pending")
	assert.Equal(t, sched.OffRack, loc)
	tab.launched(1, sched.Reduce)
	st := tab.Job(1)
	assert.Equal(t, [3]int{1, 1, 0}, [3]int{st.PendingReduces, st.RunningReduces, st.FinishedReduces})
	tab.ended(1, sched.Reduce, true)
	assert.Equal(t, [3]int{1, 0, 1}, [3]int{st.PendingReduces, st.RunningReduces, st.FinishedReduces})

	tab.remove(1)
	assert.Nil(t, tab.Job(1))
	assert.Len(t, tab.Jobs(), 2)
	tab.setSlots(24, 12)
	assert.Equal(t, 12, tab.Slots(sched.Reduce))
}
