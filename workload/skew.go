package workload

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Whole is the total of the running sums SkewedCuts returns: a share of
// a whole is a range of [0, Whole).
const Whole = 1 << 40

// SkewedCuts splits [0, Whole) into n shares of lognormal sizes with
// coefficient of variation cov (stddev over mean; the lognormal's σ² is
// ln(1 + cov²) and its mean 1), drawn from rng, and returns the n + 1
// cuts: cuts[0] = 0, cuts[n] = Whole, never decreasing. Share i is
// [cuts[i], cuts[i+1]); ShareOf turns one into bytes.
func SkewedCuts(rng *rand.Rand, n int, cov float64) []uint64 {
	sigma := math.Sqrt(math.Log1p(cov * cov))
	running := make([]float64, n+1)
	for i := range n {
		running[i+1] = running[i] + math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2)
	}
	cuts := make([]uint64, n+1)
	for i := 1; i < n; i++ {
		cuts[i] = uint64(math.Round(Whole * (running[i] / running[n])))
	}
	cuts[n] = Whole
	for i := 1; i <= n; i++ { // rounding never decreases, but be sure
		cuts[i] = max(cuts[i], cuts[i-1])
	}
	return cuts
}

// ShareOf is the part of total bytes (≥ 0) the share [lo, hi) of [0,
// whole) gets, rounded so that consecutive shares of a whole add up to
// total exactly (0 ≤ lo ≤ hi ≤ whole, whole > 0). The products are
// computed in 128 bits, so no total overflows.
func ShareOf(total int64, lo, hi, whole uint64) int64 {
	return mulDiv(total, hi, whole) - mulDiv(total, lo, whole)
}

// mulDiv is ⌊a·b/c⌋ for 0 ≤ a, b ≤ c; the quotient is at most a.
func mulDiv(a int64, b, c uint64) int64 {
	hi, lo := bits.Mul64(uint64(a), b)
	q, _ := bits.Div64(hi, lo, c)
	return int64(q)
}
