package netmodel

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// psRun offers one link of capacity c a Poisson stream of flows at load
// rho, sizes drawn by size (bytes), and returns the size and time in the
// network of n of them, in arrival order: those after the first warm
// flows, which meet a network filling from empty, and before the ones
// that keep arriving until the n have ended, so that none meets a
// network draining.
func psRun(t *testing.T, seed uint64, warm, n int, c, rho float64, size func(*rand.Rand) int64, meanSize float64) (sizes []int64, times []time.Duration) {
	t.Helper()
	net, err := NewNetwork(DefaultConfig())
	require.NoError(t, err)
	link, err := net.AddLink(c)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 0x7073)) // "ps"
	gap := meanSize / c / rho                // seconds between arrivals on the mean
	var all []int64
	var start []time.Duration
	times = make([]time.Duration, n)
	next, done := time.Duration(0), 0
	for done < n {
		at, ok := net.NextCompletion()
		if !ok || next < at {
			// An arrival comes first (at the same instant, the
			// completions due then are taken first).
			_, err := net.AdvanceTo(next)
			require.NoError(t, err)
			all, start = append(all, size(r)), append(start, next)
			_, err = net.Start(next, FlowSpec{Size: all[len(all)-1], Path: []LinkID{link}, Owner: uint64(len(all) - 1)})
			require.NoError(t, err)
			next += time.Duration(r.ExpFloat64() * gap * float64(time.Second))
			continue
		}
		ended, err := net.AdvanceTo(at)
		require.NoError(t, err)
		for _, e := range ended {
			if i := int(e.Owner) - warm; i >= 0 && i < n {
				times[i] = e.At - start[e.Owner]
				done++
			}
		}
	}
	return all[warm : warm+n], times
}

// Flows sharing one link max-min fairly are processor sharing, so with
// Poisson arrivals the M/G/1-PS results hold for any size distribution: a
// flow of size x spends (x/C)/(1 − ρ) in the network on the mean, and the
// mean over flows is E[x/C]/(1 − ρ). Measured per fifth of the sizes,
// smallest to largest, as Σ time / Σ (x/C) over the fifth's flows, after
// 1,000 flows of warm-up and with arrivals going on to the last. The
// tolerance: the mean of n PS sojourn times at ρ 0.5 has a standard
// deviation near that of M/M/1's, about 0.01 of its value at n =
// 100,000 (sizes exponential); the heavy tail's largest fifth varies
// most, and all get 4%.
func TestSingleLinkIsProcessorSharing(t *testing.T) {
	const (
		c     = 100e6 // bytes a second
		rho   = 0.5
		n     = 100_000
		mean  = 100e6 // bytes: 1 s alone on the link
		alpha = 1.5   // the heavy tail's Pareto shape
	)
	// A bounded Pareto on [lo, 1000 lo] with the given mean.
	hi := 1000.0
	paretoMean := alpha / (alpha - 1) * (1 - math.Pow(hi, 1-alpha)) / (1 - math.Pow(hi, -alpha))
	lo := mean / paretoMean
	for _, tc := range []struct {
		name string
		size func(*rand.Rand) int64
	}{
		{"exponential", func(r *rand.Rand) int64 { return max(1, int64(r.ExpFloat64()*mean)) }},
		{"bounded Pareto", func(r *rand.Rand) int64 {
			u := r.Float64()
			x := math.Pow(1-u*(1-math.Pow(hi, -alpha)), -1/alpha) // on [1, hi]
			return max(1, int64(x*lo))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sizes, times := psRun(t, 1, 1000, n, c, rho, tc.size, mean)
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[a], sizes[b]) })
			var sumT, sumAlone float64
			for q := range 5 {
				var qt, qa float64
				for _, i := range order[q*n/5 : (q+1)*n/5] {
					qt += times[i].Seconds()
					qa += float64(sizes[i]) / c
				}
				t.Logf("fifth %d of the sizes: time over time alone %.4f", q+1, qt/qa)
				require.InEpsilon(t, 1/(1-rho), qt/qa, 0.04, "fifth %d of the sizes: time over time alone", q+1)
				sumT, sumAlone = sumT+qt, sumAlone+qa
			}
			t.Logf("mean time in the network %.4f s, alone %.4f s", sumT/n, sumAlone/n)
			require.InEpsilon(t, sumAlone/n/(1-rho), sumT/n, 0.04, "mean time in the network")
		})
	}
}
