package actors

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// The ramp-up rule's limit on a job's reduces, worked by hand from Hadoop
// 2's scheduleReduces with containers of one size.
func TestReduceLimitFollowsTheAMsRampUp(t *testing.T) {
	st := func(maps, finished, running, pending, reduces int) sched.JobStatus {
		return sched.JobStatus{Job: sched.Job{Maps: maps}, FinishedMaps: finished, MapAttempts: running,
			PendingMaps: pending, ReduceAttempts: reduces}
	}
	// 10 of 100 maps done, 20 running, 70 waiting, 10 containers free:
	// the reduces' ideal share is 0.1 × 30 = 3, and the maps' 27 is less
	// than the 90 they need, so 3.
	assert.Equal(t, 3, reduceLimit(st(100, 10, 20, 70, 0), 10, 0.5, 1))
	// Past the ramp-up limit the share stops at 0.5 × 30 = 15.
	assert.Equal(t, 15, reduceLimit(st(100, 75, 20, 5, 0), 10, 0.5, 1))
	// 60 of 70 maps done, 5 running and 5 waiting, 4 reduces holding
	// containers, 20 free: the reduces' share is 0.5 × 29 = 14.5, and
	// the maps need 10 of theirs 14.5, leaving 4.5 more: 19.
	assert.Equal(t, 19, reduceLimit(st(70, 60, 5, 5, 4), 20, 0.5, 1))
	// The same with reduces of 2 containers: the 4 hold 8, the share is
	// 0.5 × 33 = 16.5 and 6.5 more the maps leave, 23 containers: 11
	// reduces.
	assert.Equal(t, 11, reduceLimit(st(70, 60, 5, 5, 4), 20, 0.5, 2))
	// Once no map waits, every reduce may have a container.
	assert.Equal(t, math.MaxInt, reduceLimit(st(70, 60, 10, 0, 4), 0, 0.5, 1))
	// Nothing free and nothing done: no reduce.
	assert.Equal(t, 0, reduceLimit(st(10, 0, 4, 6, 0), 0, 1, 1))
}

// reducesOnly is a policy that runs reduces and leaves every map waiting,
// offered by kind (it is no sched.ContainerAware).
type reducesOnly struct{ sched.Policy }

func (p reducesOnly) Assign(now time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	if s.Kind == sched.Map {
		return sched.Assignment{}, false
	}
	return p.Policy.Assign(now, v, s)
}

func TestAMTakesReducesBackForMapsThatHangPastTheUnconditionalDelay(t *testing.T) {
	// 4 nodes of 2 containers. A job's 4 maps wait from 0 s while the
	// policy runs only its reduces: ramp-up lets 4 of its 6 run (the maps
	// need 4 of the 8 containers, and none has finished), and 4
	// containers stay free. With room for a map, the AM takes nothing back
	// until the maps have waited 5 min; past it, it kills min(max(1,
	// ⌈0.5 × 8⌉), 4 hanging maps) = 4 reduces and releases none on that
	// tick, so what they free goes to the maps.
	s, _ := testCore(func(c *CoordinatorConfig) { c.Cluster.Containers = 2 })
	s.policy = reducesOnly{sched.NewFIFO()}
	submitMaps(t, s, 0, 1, 6, []sched.NodeID{0}, []sched.NodeID{1}, []sched.NodeID{2}, []sched.NodeID{3})
	releaseReduces(s, 1, 6)
	for n := range sched.NodeID(4) {
		s.heartbeat(time.Second, &Heartbeat{Node: n})
	}
	require.Len(t, said(s), 4)
	require.Equal(t, 4, s.freeContainers)
	s.policyTick(5 * time.Minute)
	assert.Empty(t, said(s), "a map has room, and has waited only 5 min")
	s.policyTick(5*time.Minute + time.Second)
	out := s.take()
	kills := lines(out)
	assert.Len(t, kills, 4)
	assert.Contains(t, kills[0], "preempted for maps waiting over 5m0s")
	assert.Equal(t, []count{{MetricReducesPreempted, 1}, {MetricReducesPreempted, 1}, {MetricReducesPreempted, 1}, {MetricReducesPreempted, 1}}, out.counts)
	_, ok := coordView{s}.BestLocality(1, sched.Reduce, 0)
	assert.False(t, ok, "no reduce released on the tick that took reduces back")
	s.policyTick(5*time.Minute + 2*time.Second)
	assert.Empty(t, said(s), "the reduces being killed are the ones it would take")
}
