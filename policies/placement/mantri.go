package placement

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Mantri's network-aware placement of a reduce phase (Ananthanarayanan's
// thesis, §3.3; notes §2.1). Rack i holds data[i] bytes of the phase's
// input (the map outputs there when the reduces are released) and has
// up[i] and down[i] bytes/s of its uplink and downlink to spare. If it
// runs a share r_i of the reduces, each of which reads an equal slice of
// every map output, its uplink carries (1 − r_i)·data[i] out and its
// downlink r_i·(D − data[i]) in, D the phase's whole input. The shuffle
// lasts as long as its slowest link:
//
//	T(r) = max_i max((1 − r_i)·data[i] / up[i], r_i·(D − data[i]) / down[i])
//
// and Mantri picks the r with the least T(r).

// binarySteps bounds the bisection of T: each halves the interval, so 100
// leave it under 1e-30 of the first guess, below a float64's resolution.
const binarySteps = 100

// MantriShares returns the shares of a reduce phase each rack should run
// so that the shuffle's slowest link finishes first, and that least time
// in seconds. It bisects T between 0 and the time of the worst link under
// any placement; a T is feasible when every rack's bounds
//
//	L_i = max(0, 1 − T·up[i]/data[i]) ≤ r_i ≤ U_i = min(1, T·down[i]/(D − data[i]))
//
// hold together with Σ r_i = 1, that is L_i ≤ U_i, ΣL ≤ 1 ≤ ΣU. At the
// least feasible T the shares are their lower bounds plus what is left of
// 1, spread in proportion to each rack's slack U_i − L_i. With no data
// every rack gets an equal share and the time is 0. The cost is
// O(racks) per step, O(100·racks) in all.
func MantriShares(data, up, down []float64) (shares []float64, seconds float64, err error) {
	if err := checkRacks(data, up, down); err != nil {
		return nil, 0, err
	}
	total := 0.0
	for _, d := range data {
		total += d
	}
	if total == 0 {
		shares = make([]float64, len(data))
		for i := range shares {
			shares[i] = 1 / float64(len(data))
		}
		return shares, 0, nil
	}
	lo, hi := 0.0, 0.0
	for i := range data {
		hi = max(hi, data[i]/up[i], (total-data[i])/down[i])
	}
	lower, upper := make([]float64, len(data)), make([]float64, len(data))
	for range binarySteps {
		mid := (lo + hi) / 2
		if bounds(mid, total, data, up, down, lower, upper) {
			hi = mid
		} else {
			lo = mid
		}
	}
	bounds(hi, total, data, up, down, lower, upper)
	return spread(lower, upper), hi, nil
}

// checkRacks refuses racks whose data or rates are not usable numbers.
func checkRacks(data, up, down []float64) error {
	if len(data) == 0 || len(up) != len(data) || len(down) != len(data) {
		return fmt.Errorf("placement: %d racks of data, %d uplinks and %d downlinks: need as many of each, at least one", len(data), len(up), len(down))
	}
	for i := range data {
		if !(data[i] >= 0 && !math.IsInf(data[i], 0)) {
			return fmt.Errorf("placement: rack %d holds %v bytes: must be ≥ 0", i, data[i])
		}
		if !(up[i] > 0 && down[i] > 0 && !math.IsInf(up[i], 0) && !math.IsInf(down[i], 0)) {
			return fmt.Errorf("placement: rack %d has %v B/s up and %v B/s down: both must be > 0", i, up[i], down[i])
		}
	}
	return nil
}

// bounds fills each rack's least and greatest share for the shuffle to
// end within t seconds and reports whether shares summing to 1 fit them.
func bounds(t, total float64, data, up, down, lower, upper []float64) bool {
	sumL, sumU := 0.0, 0.0
	for i := range data {
		lower[i], upper[i] = 0, 1
		if data[i] > 0 {
			lower[i] = max(0, 1-t*up[i]/data[i])
		}
		if in := total - data[i]; in > 0 {
			upper[i] = min(1, t*down[i]/in)
		}
		if lower[i] > upper[i] {
			return false
		}
		sumL += lower[i]
		sumU += upper[i]
	}
	return sumL <= 1 && sumU >= 1
}

// spread returns shares within [lower, upper] that sum to 1: the lower
// bounds, and what they leave spread in proportion to the slack.
func spread(lower, upper []float64) []float64 {
	shares := slices.Clone(lower)
	left, slack := 1.0, 0.0
	for i := range lower {
		left -= lower[i]
		slack += upper[i] - lower[i]
	}
	if left <= 0 || slack <= 0 {
		return shares
	}
	for i := range shares {
		shares[i] += (upper[i] - lower[i]) * left / slack
	}
	return shares
}

// ShuffleTime is T(r): the seconds the slowest rack link takes to carry
// its part of a shuffle in which rack i runs shares[i] of the reduces.
func ShuffleTime(data, up, down, shares []float64) (float64, error) {
	if err := checkRacks(data, up, down); err != nil {
		return 0, err
	}
	if len(shares) != len(data) {
		return 0, fmt.Errorf("placement: %d shares for %d racks", len(shares), len(data))
	}
	total := 0.0
	for _, d := range data {
		total += d
	}
	t := 0.0
	for i := range data {
		t = max(t, (1-shares[i])*data[i]/up[i], shares[i]*(total-data[i])/down[i])
	}
	return t, nil
}

// LargestRemainder rounds shares of n tasks to whole counts summing to
// n: each rack gets ⌊n·share⌋, and the tasks left go one each to the
// racks with the largest remainders; on a tie, the first from rack first
// on, wrapping around, so that the phases of different jobs, each given
// its own first, do not all favour rack 0. Shares are taken as they are;
// ones that do not sum to 1 still give n tasks (the remainders then
// decide more, or fewer, of them).
func LargestRemainder(shares []float64, n, first int) []int {
	counts := make([]int, len(shares))
	if len(shares) == 0 {
		return counts
	}
	rest := make([]int, len(shares))
	left := n
	for i, s := range shares {
		counts[i] = min(int(math.Floor(s*float64(n))), left)
		left -= counts[i]
		rest[i] = i
	}
	remainder := func(i int) float64 { return shares[i]*float64(n) - float64(counts[i]) }
	from := func(i int) int { return (i - first%len(shares) + len(shares)) % len(shares) }
	slices.SortFunc(rest, func(a, b int) int {
		return cmp.Or(cmp.Compare(remainder(b), remainder(a)), cmp.Compare(from(a), from(b)))
	})
	for k := 0; left > 0; k++ {
		counts[rest[k%len(rest)]]++
		left--
	}
	return counts
}
