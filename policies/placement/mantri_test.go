package placement

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMantriShares(t *testing.T) {
	tests := []struct {
		name           string
		data, up, down []float64
		n              int
		shares         []float64
		seconds        float64
		counts         []int
	}{{
		// Fig. 3.4: 9 partitions of p = 1 byte, 3 in each rack, links of
		// b = 1 B/s. A third of the reduces in each rack sends 2 of its 3
		// bytes up and takes 2 × 3 in: 2p/b on every link.
		name: "fig 3.4, spread", data: []float64{3, 3, 3}, up: []float64{1, 1, 1}, down: []float64{1, 1, 1}, n: 3,
		shares: []float64{1. / 3, 1. / 3, 1. / 3}, seconds: 2, counts: []int{1, 1, 1},
	}, {
		// Every byte in rack 0: its reduces read it all in place.
		name: "data in one rack", data: []float64{9, 0, 0}, up: []float64{1, 1, 1}, down: []float64{1, 1, 1}, n: 3,
		shares: []float64{1, 0, 0}, seconds: 0, counts: []int{3, 0, 0},
	}, {
		// Rack 0's uplink at half rate: with r_0 = a and the rest split
		// evenly, T = max(3(1 − a)/0.5, 6a, 1.5(1 + a)) is least at a = ½,
		// T = 3; racks 1 and 2 have slack [0, ½] each and share the ½ left.
		name: "slow uplink keeps reduces home", data: []float64{3, 3, 3}, up: []float64{0.5, 1, 1}, down: []float64{1, 1, 1}, n: 4,
		shares: []float64{0.5, 0.25, 0.25}, seconds: 3, counts: []int{2, 1, 1},
	}, {
		// No data: equal shares, no time.
		name: "no data", data: []float64{0, 0}, up: []float64{1, 1}, down: []float64{1, 1}, n: 3,
		shares: []float64{0.5, 0.5}, seconds: 0, counts: []int{2, 1},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shares, seconds, err := MantriShares(tc.data, tc.up, tc.down)
			require.NoError(t, err)
			assert.InDeltaSlice(t, tc.shares, shares, 1e-9)
			assert.InDelta(t, tc.seconds, seconds, 1e-9)
			assert.Equal(t, tc.counts, LargestRemainder(shares, tc.n, 0))
			at, err := ShuffleTime(tc.data, tc.up, tc.down, shares)
			require.NoError(t, err)
			assert.InDelta(t, tc.seconds, at, 1e-9, "the shares' own time")
		})
	}
}

// TestMantriFig34Ratio is the thesis's toy: 3 racks with a third of the
// data each, equal links b, 3 reduces each reading p from every rack. Two
// reduces in rack A and one in B (the left of Fig. 3.4) pull 2 reduces ×
// 2 other racks × p = 4p through A's downlink, 4p/b, twice the spread
// plan's 2p/b.
func TestMantriFig34Ratio(t *testing.T) {
	p, b := 64e6, 125e6
	data, links := []float64{3 * p, 3 * p, 3 * p}, []float64{b, b, b}
	shares, best, err := MantriShares(data, links, links)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 1, 1}, LargestRemainder(shares, 3, 0))
	assert.InEpsilon(t, 2*p/b, best, 0.01)
	packed, err := ShuffleTime(data, links, links, []float64{2. / 3, 1. / 3, 0})
	require.NoError(t, err)
	assert.InEpsilon(t, 4*p/b, packed, 0.01)
	assert.InEpsilon(t, 2, packed/best, 0.01)
}

func TestLargestRemainder(t *testing.T) {
	tests := []struct {
		shares   []float64
		n, first int
		want     []int
	}{
		{[]float64{0.5, 0.3, 0.2}, 3, 0, []int{1, 1, 1}},             // floors 1, 0, 0; remainders .5, .9, .6
		{[]float64{1. / 3, 1. / 3, 1. / 3}, 2, 0, []int{1, 1, 0}},    // a tie goes to the first rack on
		{[]float64{1. / 3, 1. / 3, 1. / 3}, 2, 2, []int{1, 0, 1}},    // from rack 2, wrapping around
		{[]float64{1. / 3, 1. / 3, 1. / 3}, 1, 7, []int{0, 1, 0}},    // from rack 7 mod 3 = 1
		{[]float64{0.7, 0.2, 0.1}, 10, 1, []int{7, 2, 1}},            // whole already
		{[]float64{0.25, 0.25, 0.25, 0.25}, 0, 0, []int{0, 0, 0, 0}}, // no task
		{[]float64{0.6, 0.6}, 5, 0, []int{3, 2}},                     // over 1: floors 3, 3 capped at what is left
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, LargestRemainder(tc.shares, tc.n, tc.first), "%v of %d from %d", tc.shares, tc.n, tc.first)
	}
}

func TestMantriSharesRefusesBadRacks(t *testing.T) {
	for _, tc := range []struct{ data, up, down []float64 }{
		{nil, nil, nil},
		{[]float64{1, 2}, []float64{1}, []float64{1, 1}},
		{[]float64{1, 2}, []float64{1, 0}, []float64{1, 1}},
		{[]float64{-1, 2}, []float64{1, 1}, []float64{1, 1}},
	} {
		_, _, err := MantriShares(tc.data, tc.up, tc.down)
		assert.Error(t, err, "%v", tc)
	}
}

// BenchmarkMantriShares places a reduce phase over 100 racks of uneven
// data and links, the size.
func BenchmarkMantriShares(b *testing.B) {
	data, up, down := make([]float64, 100), make([]float64, 100), make([]float64, 100)
	for i := range data {
		data[i] = float64(1+i%7) * 1e9
		up[i], down[i] = float64(1+i%3)*1e9, float64(1+i%5)*1e9
	}
	for b.Loop() {
		shares, _, err := MantriShares(data, up, down)
		if err != nil {
			b.Fatal(err)
		}
		LargestRemainder(shares, 500, 0)
	}
}
