package shrink

import (
	"math/bits"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// needs fails when every one of want is in the set.
func needs(want ...int) func([]int) bool {
	return func(s []int) bool {
		for _, w := range want {
			if !slices.Contains(s, w) {
				return false
			}
		}
		return true
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestMinimizeFindsTheFailureInducingItems(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		want []int
	}{
		{"one of many", 1000, []int{613}},
		{"two far apart", 1000, []int{3, 977}},
		{"three", 257, []int{0, 128, 256}},
		{"all", 5, []int{0, 1, 2, 3, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, workers := range []int{1, 2, 5} {
				got, tests := Minimize(seq(c.n), needs(c.want...), workers)
				assert.Equal(t, c.want, got, "workers %d", workers)
				// ddmin needs about k·log n tests here, far fewer than
				// the n a one-by-one removal would take.
				bound := 25 * len(c.want) * bits.Len(uint(c.n))
				assert.Less(t, tests, min(bound, 5*c.n), "workers %d", workers)
			}
		})
	}
}

func TestMinimizeIsOneMinimal(t *testing.T) {
	// Fails when the set holds an adjacent pair (2i, 2i+1) for some i:
	// several minimal answers exist; any answer must be 1-minimal.
	pair := func(s []int) bool {
		for _, x := range s {
			if x%2 == 0 && slices.Contains(s, x+1) {
				return true
			}
		}
		return false
	}
	got, _ := Minimize(seq(64), pair, 2)
	assert.True(t, pair(got))
	for i := range got {
		assert.False(t, pair(slices.Delete(slices.Clone(got), i, i+1)), "dropping %d keeps the failure", got[i])
	}
}

func TestMinimizeEmptyWhenTheDefaultFails(t *testing.T) {
	var calls atomic.Int32
	got, tests := Minimize(seq(100), func([]int) bool { calls.Add(1); return true }, 2)
	assert.Empty(t, got)
	assert.Equal(t, 1, tests)
	assert.Equal(t, int32(1), calls.Load())
}
