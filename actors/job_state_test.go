package actors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// attemptsMade numbers each test job's attempts per task, as the
// coordinator does in a run.
var attemptsMade = map[*jobState]map[[2]int32]int32{}

func nextAttempt(j *jobState, kind sched.TaskKind, task int32) sched.Attempt {
	if attemptsMade[j] == nil {
		attemptsMade[j] = map[[2]int32]int32{}
	}
	key := [2]int32{int32(kind), task}
	a := sched.Attempt{Job: j.id, Kind: kind, Task: task, Attempt: attemptsMade[j][key]}
	attemptsMade[j][key]++
	return a
}

func runMap(t *testing.T, j *jobState, task int32, node sched.NodeID) effects {
	t.Helper()
	a := nextAttempt(j, sched.Map, task)
	_, err := j.launched(a, node)
	require.NoError(t, err)
	fx, err := j.succeeded(a, 100)
	require.NoError(t, err)
	return fx
}

func TestJobStateSlowStartReleasesReducesOnce(t *testing.T) {
	// 20 maps at slow-start 0.05: reduces are released after ⌈1⌉ map.
	j := newJobState(1, 20, 3, 0.05, 4)
	fx := runMap(t, j, 0, 5)
	assert.Equal(t, []int32{0, 1, 2}, fx.requeueReduces)
	fx = runMap(t, j, 1, 5)
	assert.Empty(t, fx.requeueReduces)

	// 10 maps at 0.25: ⌈2.5⌉ = 3 maps first.
	j = newJobState(2, 10, 1, 0.25, 4)
	assert.Equal(t, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, j.start().requeueMaps)
	assert.Empty(t, runMap(t, j, 0, 1).requeueReduces)
	assert.Empty(t, runMap(t, j, 1, 1).requeueReduces)
	assert.Equal(t, []int32{0}, runMap(t, j, 2, 1).requeueReduces)
}

func TestJobStateSlowStartZeroReleasesAtStart(t *testing.T) {
	j := newJobState(1, 4, 2, 0, 4)
	assert.Equal(t, []int32{0, 1}, j.start().requeueReduces)
	assert.Empty(t, runMap(t, j, 0, 1).requeueReduces)
}

func TestJobStateMapOnlyEnds(t *testing.T) {
	j := newJobState(1, 2, 0, 0.05, 4)
	assert.Nil(t, runMap(t, j, 0, 1).ended)
	fx := runMap(t, j, 1, 2)
	require.NotNil(t, fx.ended)
	assert.True(t, fx.ended.Succeeded)
}

func TestJobStateReducersHearOfOutputs(t *testing.T) {
	j := newJobState(1, 3, 2, 0, 4)
	runMap(t, j, 0, 4)
	r := nextAttempt(j, sched.Reduce, 1)
	fx, err := j.launched(r, 9)
	require.NoError(t, err)
	assert.Equal(t, []mapOutput{{0, 4, 100, 0, nil}}, fx.announce, "a new reducer learns the outputs so far")
	assert.Equal(t, []attemptRef{{r, 9}}, fx.reducers)

	fx = runMap(t, j, 2, 6)
	assert.Equal(t, []mapOutput{{2, 6, 100, 0, nil}}, fx.announce)
	assert.Equal(t, []attemptRef{{r, 9}}, fx.reducers)

	runMap(t, j, 1, 6)
	fx, err = j.succeeded(r, 0)
	require.NoError(t, err)
	assert.Nil(t, fx.ended, "reduce 0 has not run")
	r0 := nextAttempt(j, sched.Reduce, 0)
	_, err = j.launched(r0, 2)
	require.NoError(t, err)
	fx, err = j.succeeded(r0, 0)
	require.NoError(t, err)
	require.NotNil(t, fx.ended)
	assert.True(t, fx.ended.Succeeded)
}

func TestJobStateFailuresAndKills(t *testing.T) {
	j := newJobState(1, 1, 0, 0, 2)
	a := nextAttempt(j, sched.Map, 0)
	_, err := j.launched(a, 1)
	require.NoError(t, err)
	fx, err := j.ended(a, sched.Killed, "preempted")
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, fx.requeueMaps, "a kill re-queues without counting")

	a = nextAttempt(j, sched.Map, 0)
	assert.Equal(t, int32(1), a.Attempt)
	_, err = j.launched(a, 1)
	require.NoError(t, err)
	fx, err = j.ended(a, sched.Failed, "disk error")
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, fx.requeueMaps)
	assert.Nil(t, fx.ended)

	a = nextAttempt(j, sched.Map, 0)
	_, err = j.launched(a, 1)
	require.NoError(t, err)
	fx, err = j.ended(a, sched.Failed, "disk error")
	require.NoError(t, err)
	require.NotNil(t, fx.ended)
	assert.False(t, fx.ended.Succeeded)
	assert.Equal(t, "task j1-map0.2 failed 2 times, last: disk error", fx.ended.Reason)

	_, err = j.ended(a, sched.Failed, "again")
	assert.EqualError(t, err, "attempt j1-map0.2 ended (failed) but is not running")
	_, err = j.succeeded(sched.Attempt{Job: 1, Kind: sched.Reduce, Task: 0}, 0)
	assert.EqualError(t, err, "attempt j1-reduce0.0 does not belong to job 1")
}

func TestJobStateFirstSuccessFinishesTheTaskAndKillsItsSiblings(t *testing.T) {
	// Map 0 runs three attempts on nodes 1, 2 and 3. Attempt 1 succeeds
	// first: its output is the task's, and attempts 0 and 2 are to be
	// killed. Attempt 0 succeeds before its kill lands: ignored; attempt
	// 2 is killed: nothing re-runs.
	j := newJobState(1, 1, 1, 0, 4)
	a0 := nextAttempt(j, sched.Map, 0)
	a1 := nextAttempt(j, sched.Map, 0)
	a2 := nextAttempt(j, sched.Map, 0)
	_, _ = j.launched(a0, 1)
	_, _ = j.launched(a1, 2)
	_, _ = j.launched(a2, 3)
	fx, err := j.succeeded(a1, 50)
	require.NoError(t, err)
	assert.Equal(t, []mapOutput{{0, 2, 50, a1.Attempt, nil}}, fx.announce)
	assert.Equal(t, []attemptRef{{a0, 1}, {a2, 3}}, fx.kill)
	fx, err = j.succeeded(a0, 50)
	require.NoError(t, err)
	assert.Empty(t, fx.announce)
	assert.Empty(t, fx.kill)
	fx, err = j.ended(a2, sched.Killed, "another attempt of the task succeeded")
	require.NoError(t, err)
	assert.Empty(t, fx.requeueMaps)
	assert.Equal(t, 1, j.mapsDone)
}

func TestJobStateAFailedCopyLeavesItsTaskRunning(t *testing.T) {
	// A task with two attempts: one fails, counting towards the limit,
	// but the other still runs, so nothing is re-queued.
	j := newJobState(1, 1, 0, 0, 4)
	a0 := nextAttempt(j, sched.Map, 0)
	a1 := nextAttempt(j, sched.Map, 0)
	_, _ = j.launched(a0, 1)
	_, _ = j.launched(a1, 2)
	fx, err := j.ended(a0, sched.Failed, "disk error")
	require.NoError(t, err)
	assert.Empty(t, fx.requeueMaps)
	assert.Equal(t, 1, j.maps[0].failures)
	fx, err = j.succeeded(a1, 0)
	require.NoError(t, err)
	require.NotNil(t, fx.ended)
	assert.True(t, fx.ended.Succeeded)
}

func TestJobStateNodeLost(t *testing.T) {
	// Maps 0 and 1 finished on node 3, map 2 runs there, reduce 0 runs on
	// node 8. Losing node 3 re-runs all three maps and tells the reducer
	// to forget maps 0 and 1.
	j := newJobState(1, 4, 1, 0, 4)
	runMap(t, j, 0, 3)
	runMap(t, j, 1, 3)
	runMap(t, j, 3, 5)
	m2 := nextAttempt(j, sched.Map, 2)
	_, _ = j.launched(m2, 3)
	r := nextAttempt(j, sched.Reduce, 0)
	_, _ = j.launched(r, 8)

	fx, gone := j.nodeLost(3)
	assert.Equal(t, []sched.Attempt{m2}, gone)
	assert.Equal(t, []int32{2, 0, 1}, fx.requeueMaps)
	assert.Equal(t, []int32{0, 1}, fx.lost)
	assert.Equal(t, []attemptRef{{r, 8}}, fx.reducers)
	assert.Equal(t, 1, j.mapsDone)

	// Once every reduce is done, a lost node costs nothing.
	runMap(t, j, 0, 4)
	runMap(t, j, 1, 4)
	runMap(t, j, 2, 4)
	fx, err := j.succeeded(r, 0)
	require.NoError(t, err)
	require.NotNil(t, fx.ended)
	fx, gone = j.nodeLost(4)
	assert.Empty(t, gone)
	assert.Empty(t, fx.requeueMaps)
}

func TestJobStateEvictedRerunsEveryFinishedMap(t *testing.T) {
	// Maps 0 and 2 finished on two nodes, map 1 still runs, reduce 0
	// runs: eviction re-queues the finished maps wherever they were and
	// leaves the running attempts alone.
	j := newJobState(1, 3, 1, 0, 4)
	runMap(t, j, 0, 3)
	runMap(t, j, 2, 5)
	m1 := nextAttempt(j, sched.Map, 1)
	_, _ = j.launched(m1, 3)
	r := nextAttempt(j, sched.Reduce, 0)
	_, _ = j.launched(r, 8)

	fx, lost := j.evicted()
	assert.Equal(t, 2, lost)
	assert.Equal(t, []int32{0, 2}, fx.requeueMaps)
	assert.Equal(t, []int32{0, 2}, fx.lost)
	assert.Equal(t, []attemptRef{{r, 8}}, fx.reducers)
	assert.Zero(t, j.mapsDone)
	assert.Equal(t, map[int32]sched.NodeID{m1.Attempt: 3}, j.maps[1].running)

	// The re-runs and the running map finish the maps again.
	runMap(t, j, 0, 4)
	runMap(t, j, 2, 4)
	_, err := j.succeeded(m1, 100)
	require.NoError(t, err)
	assert.Equal(t, 3, j.mapsDone)
}

// A stage's progress, as a job manager reports it to the coordinator
// (JobProgressed), is the mean of its tasks' progress: a finished task
// counts 1, a running one its best attempt's latest score, a pending one
// 0. One of four maps finished and one running with attempts at 0.4 and
// 0.6: (1 + 0.6) / 4 = 0.4.
func TestStageProgress(t *testing.T) {
	m := NewJobManager(1, workload.JobSpec{Maps: 4}, 4, 1, 4, nil, nil, Deps{})
	m.state.maps[0].state = taskDone
	m.state.maps[1].state = taskRunning
	m.state.maps[1].running = map[int32]sched.NodeID{0: 0, 1: 0}
	for n, score := range []float64{0.4, 0.6} {
		a := sched.Attempt{Job: 1, Kind: sched.Map, Task: 1, Attempt: int32(n)}
		m.progress[a] = AttemptProgress{TaskProgress: TaskProgress{Attempt: a, Score: score}}
	}
	assert.InDelta(t, 0.4, m.stageProgress(sched.Map), 1e-12)
	assert.Zero(t, m.stageProgress(sched.Reduce), "no reduces: nothing to report")
}

// TestJobStateRunningReducersFollowStartsAndEnds checks the kept list of
// running reducers against each reduce attempt that starts, fails or
// succeeds, and that a map's start and end leave it as it was.
func TestJobStateRunningReducersFollowStartsAndEnds(t *testing.T) {
	j := newJobState(1, 4, 3, 0, 4)
	assert.Empty(t, j.runningReducers())
	r2, r0 := nextAttempt(j, sched.Reduce, 2), nextAttempt(j, sched.Reduce, 0)
	_, err := j.launched(r2, 7)
	require.NoError(t, err)
	assert.Equal(t, []attemptRef{{r2, 7}}, j.runningReducers())
	_, err = j.launched(r0, 3)
	require.NoError(t, err)
	assert.Equal(t, []attemptRef{{r0, 3}, {r2, 7}}, j.runningReducers(), "in task order")
	fx := runMap(t, j, 1, 5)
	assert.Equal(t, []attemptRef{{r0, 3}, {r2, 7}}, fx.reducers)
	_, err = j.ended(r0, sched.Failed, "test")
	require.NoError(t, err)
	assert.Equal(t, []attemptRef{{r2, 7}}, j.runningReducers())
	r0b := nextAttempt(j, sched.Reduce, 0)
	_, err = j.launched(r0b, 4)
	require.NoError(t, err)
	_, err = j.succeeded(r2, 0)
	require.NoError(t, err)
	assert.Equal(t, []attemptRef{{r0b, 4}}, j.runningReducers())
}
