package sched

import (
	"slices"
	"sort"
)

// claim is one party to a share computation: a pool among pools, or a job
// within its pool.
type claim struct {
	min    float64 // minimum share (slots); 0 for jobs
	weight float64 // > 0
	demand float64 // running + pending tasks of the kind
}

// fairShares is the FAIR scheduler's allocation of total slots among
// claims (Zaharia et al., Algorithm 2, in its closed form): each gets
// f = min(demand, max(min, weight·L)), with the water level L chosen so
// the shares add up to the slots. When demand is short of the slots,
// everyone gets their demand. The printed Algorithm 2 has three defects
// (it retires every pool of the smallest share after one step, takes the
// smallest demand over the wrong set, and leaves f_next-min undefined when
// all shares are equal); the closed form has none, and gives the paper's
// worked example (min shares 50/10/25/15, demands 46/18/28/16, 100 slots)
// its answer 46/14/25/15 with L = 14. When the minimum shares alone exceed
// the slots, they are scaled down in proportion. Shares are real numbers;
// the cost is O(n log n).
func fairShares(claims []claim, total float64) []float64 {
	shares := make([]float64, len(claims))
	fairSharesInto(shares, claims, total, nil)
	return shares
}

// fairSharesInto is fairShares writing the shares into shares, as long as
// claims, with points as room for the water level's breakpoints. It
// returns the room, grown as it needed, for the next call.
func fairSharesInto(shares []float64, claims []claim, total float64, points []float64) []float64 {
	if demandAt(claims, inf) <= total {
		for i, c := range claims {
			shares[i] = c.demand
		}
		return points
	}
	if floor := demandAt(claims, 0); floor >= total {
		for i, c := range claims {
			shares[i] = min(c.demand, c.min) * total / floor
		}
		return points
	}
	level, points := waterLevel(claims, total, points)
	for i, c := range claims {
		shares[i] = shareAt(c, level)
	}
	return points
}

const inf = 1e300

func shareAt(c claim, level float64) float64 {
	return min(c.demand, max(c.min, c.weight*level))
}

func demandAt(claims []claim, level float64) float64 {
	sum := 0.0
	for _, c := range claims {
		sum += shareAt(c, level)
	}
	return sum
}

// waterLevel finds L with demandAt(L) = total. The total is piecewise
// linear and non-decreasing in L with breakpoints at min/weight and
// demand/weight, so the level lies between two consecutive breakpoints,
// found by binary search, where it is solved exactly: O(n log n). It
// sorts the breakpoints in points, which it returns.
func waterLevel(claims []claim, total float64, points []float64) (float64, []float64) {
	points = append(points[:0], 0)
	for _, c := range claims {
		points = append(points, c.min/c.weight, c.demand/c.weight)
	}
	slices.Sort(points)
	// The first breakpoint where the total reaches the slots.
	i := sort.Search(len(points), func(i int) bool { return demandAt(claims, points[i]) >= total })
	if i == len(points) {
		return points[i-1], points
	}
	lo, hi := 0.0, points[i]
	if i > 0 {
		lo = points[i-1]
	}
	// Between lo and hi the total grows with slope Σ weight over the
	// claims still rising (min < w·L < demand).
	slope := 0.0
	mid := (lo + hi) / 2
	for _, c := range claims {
		if w := c.weight * mid; w > c.min && w < c.demand {
			slope += c.weight
		}
	}
	if slope == 0 {
		return hi, points
	}
	return lo + (total-demandAt(claims, lo))/slope, points
}
