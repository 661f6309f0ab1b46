package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// popularity is a synthetic stream's input files (files = N): each
// file's maps by popularity rank (index 0 is rank 1, the most popular),
// and the Zipf draw of the file a job reads.
type popularity struct {
	prefix string
	maps   []int
	cdf    []float64 // P(rank ≤ i + 1)
	picks  *rand.Rand
	// Drift: the probability a rank is picked for a rotation at each
	// period's end, its generator, and the file (from 0) at each rank
	// (from 0) in period shown, the latest asked for: only that one is
	// kept, so a short drift_period costs time, not memory.
	drift float64
	moves *rand.Rand
	files []int
	shown int
	// class is what a file's rank may pass to under drift_within =
	// "size", its maps; nil (any file to any rank) otherwise.
	class func(file int) int
}

// at returns the file (from 0) at rank r (from 0) in period k (from 0).
// Without drift, or in period 0, rank r holds file r. Later periods are
// drawn in turn as they are first asked for, so past period 0 k may not
// fall below the last period asked for (Generate asks in submission
// order).
func (p *popularity) at(k, r int) int {
	if p.drift == 0 || k <= 0 {
		return r
	}
	if p.files == nil {
		p.files = make([]int, len(p.maps))
		for i := range p.files {
			p.files[i] = i
		}
	}
	if k < p.shown {
		panic(fmt.Sprintf("popularity: period %d asked for after period %d", k, p.shown))
	}
	for ; p.shown < k; p.shown++ {
		p.files = rotate(p.files, p.drift, p.moves, p.class)
	}
	return p.files[r]
}

// rotate returns the files by rank for the next period: each rank is
// picked with probability d, and the picked ranks' files move one step
// along a random cycle of them, so each picked rank holds another file
// (when two or more are picked) and the others keep theirs. With class,
// the picked ranks are cycled apart by their files' class (smallest
// class first), so a rank only ever holds a file of its first file's
// class, and a picked rank alone in its class keeps its file.
func rotate(files []int, d float64, r *rand.Rand, class func(file int) int) []int {
	next := slices.Clone(files)
	var picked []int
	for i := range files {
		if r.Float64() < d {
			picked = append(picked, i)
		}
	}
	groups := [][]int{picked}
	if class != nil {
		by := map[int][]int{}
		for _, i := range picked {
			by[class(files[i])] = append(by[class(files[i])], i)
		}
		groups = groups[:0]
		for _, c := range slices.Sorted(maps.Keys(by)) {
			groups = append(groups, by[c])
		}
	}
	for _, g := range groups {
		r.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		for j, i := range g {
			next[i] = files[g[(j+1)%len(g)]]
		}
	}
	return next
}

// popularFiles draws the stream's files, or returns nil when it has none.
// Sizes come from the stream's size distribution, ranks from a Gaussian
// copula with the stream's size_correlation (see SyntheticStream); each
// from a generator of its own.
func (s *SyntheticStream) popularFiles(env Env) *popularity {
	if s.Files <= 0 {
		return nil
	}
	n := s.Files
	gen := rand.New(rand.NewPCG(env.Seed, 0x66696c6573)) // "files"
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = s.drawMaps(gen)
	}
	slices.SortFunc(sizes, func(a, b int) int { return cmp.Compare(b, a) }) // largest first
	// A pair of correlated normals per file: the first orders the sizes,
	// the second the popularity.
	rho := s.SizeCorrelation
	a, b := make([]float64, n), make([]float64, n)
	for i := range n {
		a[i] = gen.NormFloat64()
		b[i] = rho*a[i] + math.Sqrt(max(0, 1-rho*rho))*gen.NormFloat64()
	}
	bySize, byRank := ranked(a), ranked(b)
	// File bySize[k] has the k-th largest size; byRank[r] is the file of
	// rank r + 1.
	maps := make([]int, n)
	size := make([]int, n) // by file
	for k, f := range bySize {
		size[f] = sizes[k]
	}
	for r, f := range byRank {
		maps[r] = size[f]
	}
	p := &popularity{prefix: env.Name, maps: maps, cdf: make([]float64, n),
		picks: rand.New(rand.NewPCG(env.Seed, 0x7069636b73)),                 // "picks"
		drift: s.Drift, moves: rand.New(rand.NewPCG(env.Seed, 0x6472696674))} // "drift"
	if s.DriftWithin == DriftBySize {
		p.class = func(file int) int { return p.maps[file] } // file f is period 0's rank f
	}
	total := 0.0
	for r := range n {
		total += math.Pow(float64(r+1), -*s.Zipf)
		p.cdf[r] = total
	}
	for r := range p.cdf {
		p.cdf[r] /= total
	}
	return p
}

// ranked returns the indices of xs from the largest value down; ties keep
// index order.
func ranked(xs []float64) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(xs[j], xs[i]) })
	return idx
}

// pick draws the rank (from 0) of the file the next job reads.
func (p *popularity) pick() int {
	u := p.picks.Float64()
	return min(sort.SearchFloat64s(p.cdf, u), len(p.cdf)-1)
}

// name is the file of a rank (from 0): <stream>-file<rank from 1>.
func (p *popularity) name(rank int) string { return fmt.Sprintf("%s-file%d", p.prefix, rank+1) }
