package parallel

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestForCallsEveryIndexOnceWithinTheLimit(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 50} {
		var running, peak atomic.Int32
		seen := make([]int32, 20)
		For(len(seen), workers, func(i int) {
			now := running.Add(1)
			for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
			}
			atomic.AddInt32(&seen[i], 1)
			running.Add(-1)
		})
		for i, n := range seen {
			assert.Equal(t, int32(1), n, "index %d with %d workers", i, workers)
		}
		if workers > 0 {
			assert.LessOrEqual(t, peak.Load(), int32(workers))
		}
	}
	For(0, 2, func(int) { t.Error("called with n = 0") })
}
