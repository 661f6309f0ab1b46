package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// A copy whose launch reaches its job manager after the task ended is
// killed at once as waste; its end re-queues nothing.
func TestACopyLaunchedAfterItsTaskEndedIsWaste(t *testing.T) {
	j := newJobState(1, 2, 0, 0.05, 4)
	j.start()
	runMap(t, j, 0, 3)
	late := sched.Attempt{Job: 1, Kind: sched.Map, Task: 0, Attempt: 1}
	fx, err := j.launched(late, 2)
	require.NoError(t, err)
	assert.Equal(t, []attemptRef{{late, 2}}, fx.waste)
	assert.True(t, j.done(late))
	fx, err = j.ended(late, sched.Killed, "a copy launched after its task ended")
	require.NoError(t, err)
	assert.Empty(t, fx.requeueMaps)
	assert.Equal(t, 1, j.waiting(sched.Map), "map 1 waits; map 0 is done")
}

// speculating is a core with copies on, a cap of the given share of the
// slots, and a job of three maps, maps 0 and 1 running on node 0 (map 0
// node-local; the blocks of maps 1 and 2 are on nodes 2 and 3).
func speculating(t *testing.T, cap float64) *coordState {
	t.Helper()
	s, _ := testCore(func(c *CoordinatorConfig) { c.Speculation = SpeculationConfig{On: true, Cap: cap} })
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1}, []sched.NodeID{2, 3}, []sched.NodeID{2, 3})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	require.Equal(t, []string{
		"launch j1-map0.0 on node 0 map slot 0, node, reads node 0",
		"launch j1-map1.0 on node 0 map slot 1, remote, reads node 2",
	}, said(s))
	return s
}

// A queued copy goes before the job's pending maps, on a node that does
// not run its task, and once: asked twice, queued once.
func TestAQueuedCopyGoesFirstButNeverBesideItsTask(t *testing.T) {
	s := speculating(t, 1)
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 0})
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 0})
	s.heartbeat(2*time.Second, &Heartbeat{Node: 1})
	assert.Equal(t, []string{
		"launch j1-map0.1 on node 1 map slot 0, node, reads node 1, a copy",
		"launch j1-map2.0 on node 1 map slot 1, remote, reads node 2",
	}, said(s), "the copy first, node-local on the other replica, then the pending map")
	s.heartbeat(3*time.Second, &Heartbeat{Node: 2})
	assert.Empty(t, said(s), "queued once, launched once")

	// Map 0's original ends on node 0; a copy of map 1, which node 0
	// runs, is not placed there, but on node 2.
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 1})
	s.heartbeat(4*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{2, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Killed, 3500*time.Millisecond)}})
	assert.Empty(t, said(s), "node 0 runs map 1")
	s.heartbeat(5*time.Second, &Heartbeat{Node: 2})
	assert.Equal(t, []string{"launch j1-map1.1 on node 2 map slot 0, node, reads node 2, a copy"}, said(s))
}

// Copies stay within the cap: with a share 1/8 of the 8 map slots, one
// runs at a time; a withdrawn copy and a copy of a task that ended are
// dropped.
func TestCopiesKeepToTheCapAndWithdrawalsAndEnds(t *testing.T) {
	s := speculating(t, 1.0/8)
	s.heartbeat(2*time.Second, &Heartbeat{Node: 2})
	require.Equal(t, []string{"launch j1-map2.0 on node 2 map slot 0, node, reads node 2"}, said(s))
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 0})
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 2})
	s.heartbeat(3*time.Second, &Heartbeat{Node: 1})
	assert.Equal(t, []string{"launch j1-map0.1 on node 1 map slot 0, node, reads node 1, a copy"}, said(s),
		"one copy: the cap")
	s.withdrawCopy(&WithdrawCopy{Job: 1, Kind: sched.Map, Task: 2})
	// Map 0's copy ends: the cap has room again, but nothing is queued.
	s.heartbeat(4*time.Second, &Heartbeat{Node: 1, Launches: [2]int64{1, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 1), sched.Succeeded, 3500*time.Millisecond)}})
	assert.Empty(t, said(s))
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 0}) // a request that crossed the end
	s.heartbeat(5*time.Second, &Heartbeat{Node: 3})
	assert.Empty(t, said(s), "map 0 ended: no copy of it")
}

// LATE's slow nodes take no copy: with slow_nodes 0.25 the slowest of
// the four measured nodes is passed over.
func TestSlowNodesTakeNoCopy(t *testing.T) {
	s, _ := testCore(func(c *CoordinatorConfig) { c.Speculation = SpeculationConfig{On: true, Cap: 1, SlowNodes: 0.25} })
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	require.Len(t, said(s), 1)
	for n, r := range []float64{1, 0.2, 1.1, 0.9} {
		s.measured(0, &AttemptMeasured{Node: sched.NodeID(n), RateRatio: r})
	}
	s.queueCopy(&QueueCopy{Job: 1, Kind: sched.Map, Task: 0})
	s.heartbeat(2*time.Second, &Heartbeat{Node: 1})
	assert.Empty(t, said(s), "node 1 is the slowest")
	s.heartbeat(3*time.Second, &Heartbeat{Node: 2})
	assert.Equal(t, []string{"launch j1-map0.1 on node 2 map slot 0, remote, reads node 0, a copy"}, said(s))
}

// The ewma blacklist: at the end of a window a node's straggler share,
// half from the window and half from the long term, above the threshold
// keeps it out of the next window; it comes back when its share falls.
func TestTheBlacklistKeepsStragglingNodesOutForAWindow(t *testing.T) {
	b := newBlacklist(BlacklistConfig{Name: BlacklistEWMA, Threshold: 0.3}, 4)
	measure := func(node sched.NodeID, ratios ...float64) {
		for _, r := range ratios {
			b.measured(&AttemptMeasured{Node: node, RateRatio: r})
		}
	}
	measure(0, 0.4, 0.3, 1) // 2 of 3 straggled
	measure(1, 1, 1, 0.4)   // 1 of 3: p̂ = 1/3 > 0.3
	measure(2, 1, 1, 1, 0.4)
	assert.Equal(t, []sched.NodeID{0, 1}, b.endWindow())
	assert.False(t, b.admits(1, sched.Map, 0))
	assert.True(t, b.admits(1, sched.Map, 2))
	measure(0, 1, 1, 1, 1) // window 0/4, long term 2/7: p̂ = 1/7
	measure(1, 0.1)        // window 1/1, long term 2/4: p̂ = 3/4
	assert.Equal(t, []sched.NodeID{1}, b.endWindow())
	assert.True(t, b.admits(1, sched.Map, 0), "node 0 is back")
	// No news in a window: the long term alone (node 1: 2/4 > 0.3).
	assert.Equal(t, []sched.NodeID{1}, b.endWindow())
}
