package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

func TestSuspicionsTriggerAndJudge(t *testing.T) {
	s := func(d int) time.Duration { return time.Duration(d) * time.Second }
	sp := newSuspicions(RecomputeConfig{})
	right, suspect := sp.lost(3, 1, s(10))
	assert.False(t, right || suspect, "one loss of the two needed")
	right, suspect = sp.lost(3, 1, s(50))
	assert.True(t, suspect, "two within 60 s")
	assert.False(t, right)
	right, suspect = sp.lost(3, 1, s(100))
	assert.True(t, right, "a loss 50 s after the suspicion proves it right")
	assert.False(t, suspect, "the history started over at the suspicion")
	_, suspect = sp.lost(4, 2, s(200))
	assert.True(t, suspect, "two outputs of one re-run count twice")
	right, _ = sp.lost(4, 1, s(261))
	assert.False(t, right, "61 s later is past the window")
	assert.Greater(t, sp.rate[3], straggler.PriorLoss, "losses raise r_m above the prior")
}

func TestJobStateReplicaCountsAsTheOutput(t *testing.T) {
	j := newJobState(1, 2, 1, 0, 4)
	j.fetchLimit = 1
	runMap(t, j, 0, 4)
	r := nextAttempt(j, sched.Reduce, 0)
	_, err := j.launched(r, 9)
	require.NoError(t, err)
	fx := j.replicated(0, 0, 5)
	assert.Equal(t, []mapOutput{{0, 4, 100, 0, []sched.NodeID{5}}}, fx.announce, "the copy is announced")
	assert.Equal(t, []attemptRef{{r, 9}}, fx.reducers)
	assert.Empty(t, j.replicated(0, 0, 5).announce, "a second copy to the same node is not one")
	assert.Empty(t, j.replicated(0, 1, 6).announce, "a copy of another attempt's output is stale")
	_, n := j.fetchFailed(5, []int32{0})
	assert.Equal(t, 1, n, "the copy failing after the first one did runs the map again")
	runMap(t, j, 0, 7)
	assert.Nil(t, j.maps[0].replicas, "a new output has no copy yet")
}

func TestSuspectedNodeTakesNoMapForItsWindow(t *testing.T) {
	s := &suspectedNodes{held: make([]int, 3)}
	s.hold(1)
	s.hold(1) // suspected again within the first suspicion's window
	assert.False(t, s.admits(7, sched.Map, 1), "a suspected node takes no map")
	assert.True(t, s.admits(7, sched.Reduce, 1), "reduces read; they write no output a fetch will ask for")
	assert.True(t, s.admits(7, sched.Map, 2), "its rack-mates take maps")
	s.lapse(1)
	assert.False(t, s.admits(7, sched.Map, 1), "the second suspicion's window is still open")
	s.lapse(1)
	assert.True(t, s.admits(7, sched.Map, 1), "both windows ended")
}
