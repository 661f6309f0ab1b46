package workload

import "math"

// SizeBins are the job-size bins of Ananthanarayanan's Table 2.1, by map
// count: the most maps of each (1–10, 11–50, 51–150, 151–500), the last
// open.
var SizeBins = []int{10, 50, 150, 500, math.MaxInt}

// SizeBin is the Table 2.1 bin, from 1, of a job with maps maps.
func SizeBin(maps int) int {
	for i, top := range SizeBins {
		if maps <= top {
			return i + 1
		}
	}
	return len(SizeBins)
}
