package actors

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

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
