package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// clonedJob is a job of one map and one reduce under the barrier whose
// map phase Dolly cloned twice, reading under the access mode.
func clonedJob(mode straggler.Access) *jobState {
	j := newJobState(1, 1, 1, 1, 4)
	j.access = newJobAccess(mode)
	j.access.copies, j.access.cloned = 2, 1
	j.start()
	return j
}

// launchCopies launches the map's original on node 0 and its clone on
// node 1.
func launchCopies(t *testing.T, j *jobState) (sched.Attempt, sched.Attempt) {
	t.Helper()
	m0, m1 := attempt(1, sched.Map, 0, 0), attempt(1, sched.Map, 0, 1)
	for i, a := range []sched.Attempt{m0, m1} {
		_, err := j.launched(a, sched.NodeID(i))
		require.NoError(t, err)
	}
	return m0, m1
}

func TestCACBindsTheSecondCopyToTheClone(t *testing.T) {
	j := clonedJob(straggler.AccessCAC)
	m0, m1 := launchCopies(t, j)
	r0, r1 := attempt(1, sched.Reduce, 0, 0), attempt(1, sched.Reduce, 0, 1)
	// The clone's copy finishes first: the map is done and the reduce
	// released, but the original runs on for slot 1.
	fx, err := j.succeeded(m1, 100)
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, fx.requeueReduces)
	assert.Empty(t, fx.kill)
	assert.Empty(t, fx.unbound)
	// The reduce's original (slot 0) reads the clone's copy; its clone
	// (slot 1) has nothing to read yet.
	fx, err = j.launched(r0, 2)
	require.NoError(t, err)
	require.Len(t, fx.told, 1)
	assert.Equal(t, []mapOutput{{0, 1, 100, 1, nil}}, fx.told[0].outs)
	require.NoError(t, j.checkReads(&fx))
	fx, err = j.launched(r1, 3)
	require.NoError(t, err)
	assert.Empty(t, fx.told)
	// The original's copy binds slot 1: the reduce's clone reads it.
	fx, err = j.succeeded(m0, 100)
	require.NoError(t, err)
	require.Len(t, fx.told, 1)
	assert.Equal(t, attemptRef{r1, 3}, fx.told[0].ref)
	assert.Equal(t, []mapOutput{{0, 0, 100, 0, nil}}, fx.told[0].outs)
	require.NoError(t, j.checkReads(&fx))
	// Telling the clone of the other copy now is a broken invariant.
	bad := effects{told: []told{{ref: attemptRef{r1, 3}, outs: []mapOutput{{0, 1, 100, 1, nil}}}}}
	assert.ErrorContains(t, j.checkReads(&bad), "reads map 0's copy 1 after its copy 0")
}

func TestDelayBindsTheRestAtOmegaAndKillsTheLosers(t *testing.T) {
	j := clonedJob(straggler.AccessDelay)
	m0, m1 := launchCopies(t, j)
	r1 := attempt(1, sched.Reduce, 0, 1)
	fx, err := j.succeeded(m1, 100)
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, fx.omega, "ω starts at the first copy")
	_, err = j.launched(attempt(1, sched.Reduce, 0, 0), 2)
	require.NoError(t, err)
	_, err = j.launched(r1, 3)
	require.NoError(t, err)
	// ω passes with the original unfinished: the clone reads the only
	// finished copy, and the original is killed.
	fx = j.omegaExpired(0)
	require.Len(t, fx.told, 1)
	assert.Equal(t, attemptRef{r1, 3}, fx.told[0].ref)
	assert.Equal(t, int32(1), fx.told[0].outs[0].Attempt)
	assert.Equal(t, []attemptRef{{m0, 0}}, fx.unbound)
	// A second expiry changes nothing.
	assert.Empty(t, j.omegaExpired(0).told)
}

func TestReduceClonesKnownCloseTheBindings(t *testing.T) {
	// The reduce phase was not cloned: one slot, bound by the first copy,
	// so the map's other copy is killed at once.
	j := clonedJob(straggler.AccessCAC)
	m0, m1 := launchCopies(t, j)
	fx, err := j.succeeded(m0, 100)
	require.NoError(t, err)
	assert.Empty(t, fx.unbound)
	fx = j.reduceCopiesKnown(1)
	assert.Equal(t, []attemptRef{{m1, 1}}, fx.unbound)
}

func TestDelayKeepsALateCloneUntilOmega(t *testing.T) {
	// The original finishes before its clone launched: under delay the
	// binding waits ω for it, so the clone, launched late (the
	// coordinator had not heard of the original's end), runs on and,
	// finishing within ω, is read by the reduce's clone.
	j := clonedJob(straggler.AccessDelay)
	m0, m1 := attempt(1, sched.Map, 0, 0), attempt(1, sched.Map, 0, 1)
	_, err := j.launched(m0, 0)
	require.NoError(t, err)
	fx, err := j.succeeded(m0, 100)
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, fx.omega)
	r0, r1 := attempt(1, sched.Reduce, 0, 0), attempt(1, sched.Reduce, 0, 1)
	_, err = j.launched(r0, 2)
	require.NoError(t, err)
	fx, err = j.launched(r1, 3)
	require.NoError(t, err)
	assert.Empty(t, fx.told, "the reduce's clone waits for ω or a second copy")
	fx, err = j.launched(m1, 1)
	require.NoError(t, err)
	assert.Empty(t, fx.waste, "a late clone is no waste while ω runs")
	fx, err = j.succeeded(m1, 100)
	require.NoError(t, err)
	require.Len(t, fx.told, 1)
	assert.Equal(t, attemptRef{r1, 3}, fx.told[0].ref)
	assert.Equal(t, int32(1), fx.told[0].outs[0].Attempt)
	require.NoError(t, j.checkReads(&fx))
	assert.Empty(t, j.omegaExpired(0).told, "every slot is bound")
	// Once the binding closed, a copy launching late is waste.
	fx, err = j.launched(attempt(1, sched.Map, 0, 2), 4)
	require.NoError(t, err)
	assert.Len(t, fx.waste, 1)
}

func TestCACKillsALateCloneOnceNothingRuns(t *testing.T) {
	// Under CAC no wait is set: with no copy running at the first
	// success, the binding closes then, and a clone launching late is
	// waste.
	j := clonedJob(straggler.AccessCAC)
	m0 := attempt(1, sched.Map, 0, 0)
	_, err := j.launched(m0, 0)
	require.NoError(t, err)
	_, err = j.succeeded(m0, 100)
	require.NoError(t, err)
	fx, err := j.launched(attempt(1, sched.Map, 0, 1), 1)
	require.NoError(t, err)
	assert.Len(t, fx.waste, 1)
}

func TestALostNodeHoldingALaterCopyKeepsTheMap(t *testing.T) {
	// CAC: the original's copy (node 0) binds slot 0, the clone's (node
	// 1) slot 1. Node 1 is lost: the map stays done, and the reduce's
	// clone forgets the lost copy and reads the original's. Node 0 lost
	// next holds the last copy: the map is made again.
	j := clonedJob(straggler.AccessCAC)
	m0, m1 := launchCopies(t, j)
	_, err := j.succeeded(m0, 100)
	require.NoError(t, err)
	r0, r1 := attempt(1, sched.Reduce, 0, 0), attempt(1, sched.Reduce, 0, 1)
	for i, r := range []sched.Attempt{r0, r1} {
		fx, err := j.launched(r, sched.NodeID(2+i))
		require.NoError(t, err)
		require.NoError(t, j.checkReads(&fx))
	}
	fx, err := j.succeeded(m1, 100)
	require.NoError(t, err)
	require.NoError(t, j.checkReads(&fx))

	fx, _ = j.nodeLost(1)
	assert.Empty(t, fx.requeueMaps, "a copy is left")
	assert.Empty(t, fx.lost)
	assert.True(t, j.done(m0))
	require.Len(t, fx.told, 1)
	assert.Equal(t, told{ref: attemptRef{r1, 3}, outs: []mapOutput{{0, 0, 100, 0, nil}}, lost: []int32{0}}, fx.told[0])
	require.NoError(t, j.checkReads(&fx), "the lost copy is forgotten before the other is read")

	fx, _ = j.nodeLost(0)
	assert.Equal(t, []int32{0}, fx.requeueMaps, "no copy is left")
	assert.Equal(t, []int32{0}, fx.lost)
}

func TestALostNodeHoldingTheFirstCopyMovesTheOutput(t *testing.T) {
	// The first copy's node is lost with the clone's copy finished: the
	// map's output is the clone's now, and the reduce's original reads
	// it.
	j := clonedJob(straggler.AccessCAC)
	m0, m1 := launchCopies(t, j)
	for _, m := range []sched.Attempt{m0, m1} {
		_, err := j.succeeded(m, 100)
		require.NoError(t, err)
	}
	r0 := attempt(1, sched.Reduce, 0, 0)
	fx, err := j.launched(r0, 2)
	require.NoError(t, err)
	require.NoError(t, j.checkReads(&fx))
	fx, _ = j.nodeLost(0)
	assert.Empty(t, fx.requeueMaps)
	require.Len(t, fx.told, 1)
	assert.Equal(t, []mapOutput{{0, 1, 100, 1, nil}}, fx.told[0].outs)
	require.NoError(t, j.checkReads(&fx))
	assert.Equal(t, sched.NodeID(1), j.maps[0].output)
	assert.Equal(t, []mapOutput{{0, 1, 100, 1, nil}}, j.outputs())
}

func TestAnUnclonedMapOfAPartlyClonedPhaseIsReadByEveryReduceClone(t *testing.T) {
	// Admission "fcfs" cloned map 0 of 2 (ClonesAdmitted: 2 copies of the
	// tasks below 1) and the reduce. Map 1 has one output: when it
	// finishes every reduce clone reads it at once, with no binding and no
	// ω to wait, while map 0's copies are bound slot by slot.
	j := newJobState(1, 2, 1, 0, 4)
	j.access = newJobAccess(straggler.AccessDelay)
	j.start()
	fx := j.accessAdmitted(&ClonesAdmitted{Job: 1, Kind: sched.Map, Copies: 2, Tasks: 1})
	assert.Empty(t, fx.told)
	assert.Equal(t, []bool{true, false}, []bool{j.tracksMap(0), j.tracksMap(1)})
	m00, m01, m10 := attempt(1, sched.Map, 0, 0), attempt(1, sched.Map, 0, 1), attempt(1, sched.Map, 1, 0)
	r0, r1 := attempt(1, sched.Reduce, 0, 0), attempt(1, sched.Reduce, 0, 1)
	for i, a := range []sched.Attempt{m00, m01, m10, r0, r1} {
		_, err := j.launched(a, sched.NodeID(i))
		require.NoError(t, err)
	}
	fx, err := j.succeeded(m10, 100)
	require.NoError(t, err)
	assert.Equal(t, []mapOutput{{1, 2, 100, 0, nil}}, fx.announce)
	assert.Equal(t, []attemptRef{{r0, 3}, {r1, 4}}, fx.reducers)
	assert.Empty(t, fx.omega, "no copy of map 1 to wait for")
	assert.Nil(t, j.access.maps[1], "map 1 has no binding")
	// Map 0's clone finishes first: it binds slot 0 alone, and ω starts.
	fx, err = j.succeeded(m01, 100)
	require.NoError(t, err)
	require.Len(t, fx.told, 1)
	assert.Equal(t, attemptRef{r0, 3}, fx.told[0].ref)
	assert.Equal(t, []int32{0}, fx.omega)
	require.NoError(t, j.checkReads(&fx))
}

func TestSpeculationPassesOverOnlyTheClonedTasks(t *testing.T) {
	// FCFS cloned maps 0 and 1 of a phase: speculation leaves them to
	// their clones and acts on map 2 and the reduces as on an uncloned
	// job.
	m := &JobManager{speculation: newJobSpeculation(nil, false)}
	m.clonesAdmitted(&ClonesAdmitted{Job: 1, Kind: sched.Map, Copies: 2, Tasks: 2})
	sp := m.speculation
	for task, want := range []bool{true, true, false} {
		assert.Equal(t, want, sp.clonedTask(straggler.Task{Kind: sched.Map, Task: int32(task)}), "map %d", task)
	}
	assert.False(t, sp.clonedTask(straggler.Task{Kind: sched.Reduce, Task: 0}))
	// A reduce phase answered uncloned (Copies 1) stays so.
	m.clonesAdmitted(&ClonesAdmitted{Job: 1, Kind: sched.Reduce, Copies: 1})
	assert.False(t, sp.clonedTask(straggler.Task{Kind: sched.Reduce, Task: 0}))
}
