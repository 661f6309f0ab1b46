package workload

import (
	"math/rand/v2"
	"time"
)

// The task-time distributions a stream may draw its tasks' compute from,
// each of mean the stream's task time.
const (
	TaskConstant    = "constant"    // every task the mean
	TaskUniform     = "uniform"     // uniform on [0, 2 × mean]
	TaskExponential = "exponential" // exponential of the mean
)

// TaskDists lists the distributions DrawTaskTime knows, in the order
// messages name them.
var TaskDists = []string{TaskConstant, TaskExponential, TaskUniform}

// DrawTaskTime draws a task's compute time from dist with the given
// mean, using one draw of r for the uniform and exponential and none for
// the constant; an unknown dist gives the mean.
func DrawTaskTime(r *rand.Rand, dist string, mean time.Duration) time.Duration {
	switch dist {
	case TaskUniform:
		return time.Duration(r.Float64() * 2 * float64(mean))
	case TaskExponential:
		return time.Duration(r.ExpFloat64() * float64(mean))
	}
	return mean
}
