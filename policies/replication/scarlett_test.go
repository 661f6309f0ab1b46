package replication

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const gb = int64(1) << 30

// budgetFiles is the example: 200 GB stored, B = 20 GB, base 3,
// δ 1; X, Y and Z want 5, 5 and 6 replicas.
func budgetFiles() []File {
	return []File{
		{Name: "Y", Size: 4 * gb, Concurrency: 4},
		{Name: "Z", Size: 2 * gb, Concurrency: 5},
		{Name: "X", Size: 8 * gb, Concurrency: 4},
	}
}

func TestFactorsBudget(t *testing.T) {
	for _, tc := range []struct {
		order Order
		want  []int // Y, Z, X
	}{
		// X +16 GB (16); Y would reach 24 > 20: stop.
		{LargestFirst, []int{3, 3, 5}},
		// Pass 1: X +8, Y +4, Z +2 (14). Pass 2: X would reach 22, Y +4
		// (18), Z +2 (20). Pass 3: X 28, Y is at 5, Z 22: nothing fits.
		{RoundRobin, []int{5, 5, 4}},
	} {
		t.Run(tc.order.String(), func(t *testing.T) {
			p := Params{Base: 3, Delta: 1, Budget: 20 * gb, Order: tc.order}
			assert.Equal(t, tc.want, Factors(budgetFiles(), p))
		})
	}
}

func TestFactorsBaseAndDelta(t *testing.T) {
	files := []File{{Name: "a", Size: 1, Concurrency: 0}, {Name: "b", Size: 1, Concurrency: 3}, {Name: "c", Size: 1, Concurrency: 9}}
	// c_f + δ below the base keeps the base; δ 0 asks for c_f.
	assert.Equal(t, []int{3, 3, 9}, Factors(files, Params{Base: 3, Delta: 0, Budget: 100}))
	assert.Equal(t, []int{3, 5, 11}, Factors(files, Params{Base: 3, Delta: 2, Budget: 100}))
	// A file that wants nothing does not stop largest-first.
	files = []File{{Name: "big", Size: 10, Concurrency: 1}, {Name: "small", Size: 1, Concurrency: 4}}
	assert.Equal(t, []int{3, 5}, Factors(files, Params{Base: 3, Delta: 1, Budget: 2}))
	// A budget of 0 adds nothing, in either order.
	for _, o := range []Order{LargestFirst, RoundRobin} {
		assert.Equal(t, []int{3, 3}, Factors(files, Params{Base: 3, Delta: 1, Order: o}))
	}
}

func TestParseOrder(t *testing.T) {
	o, err := ParseOrder("round_robin")
	require.NoError(t, err)
	assert.Equal(t, RoundRobin, o)
	_, err = ParseOrder("priority")
	assert.ErrorContains(t, err, `"priority"`)
}

func TestStepsDouble(t *testing.T) {
	steps := Steps([]int{0, 1, 2}, []int{10, 11, 12, 13, 14, 15, 16})
	r, sizes := 3, []int{3}
	for _, step := range steps {
		srcs := map[int]bool{}
		for _, c := range step {
			assert.False(t, srcs[c.Src], "node %d feeds two copies in one step", c.Src)
			srcs[c.Src] = true
		}
		r += len(step)
		sizes = append(sizes, r)
	}
	assert.Equal(t, []int{3, 6, 10}, sizes)
	// A step's sources hold the block when it starts: the second step
	// reads from the first's new replicas too.
	assert.Equal(t, []Copy{{0, 10}, {1, 11}, {2, 12}}, steps[0])
	assert.Equal(t, []Copy{{0, 13}, {1, 14}, {2, 15}, {10, 16}}, steps[1])
	assert.Equal(t, [][]Copy{{{0, 5}}}, Steps([]int{0, 1, 2}, []int{5}), "one copy, from the first source")
	assert.Empty(t, Steps(nil, []int{5}), "no source, no copy")
}

// sixNodes is 2 racks × 3 nodes with set loads: rack 0 holds 6, rack 1 10.5.
func sixNodes() []Node {
	loads := []float64{1, 2, 3, 4, 0.5, 6}
	nodes := make([]Node, len(loads))
	for i, l := range loads {
		nodes[i] = Node{Rack: i / 3, Load: l}
	}
	return nodes
}

func TestRearrangePlacement(t *testing.T) {
	for _, tc := range []struct {
		name   string
		blocks [][]int
		c      int
		delta  int
		add    []int // new nodes, in order
		loads  []float64
	}{
		// A block on both racks: the lighter rack 0 (6 < 10.5), node 1 (2 <
		// 3), load += 4/2; then rack 1 has fewer of it: node 4 (0.5 < 6),
		// += 4/3; then both racks hold 2: rack 0 (8 < 11.83), node 2.
		{"both racks", [][]int{{0, 3}}, 4, 1, []int{1, 4, 2}, []float64{1, 4, 3 + 1, 4, 0.5 + 4.0/3, 6}},
		// A block on rack 0 only goes to rack 1 though it is heavier:
		// node 4, += 2/2.
		{"rack holding none", [][]int{{0, 1}}, 2, 1, []int{4}, []float64{1, 2, 3, 4, 1.5, 6}},
		// Two blocks on rack 1, c 3 and δ 0, one round each: node 0 (1)
		// takes the first, += 3/2, so node 1 (2 < 2.5) takes the second.
		{"blocks share loads", [][]int{{3, 5}, {3, 5}}, 3, 0, []int{0, 1}, []float64{2.5, 3.5, 3, 4, 0.5, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := sixNodes()
			files := []File{{Name: "f", Size: 1, Concurrency: tc.c, Blocks: tc.blocks}}
			plan := Rearrange(files, nodes, Params{Base: 2, Delta: tc.delta, Budget: 1 << 40})
			var got []int
			for _, r := range plan.Add {
				got = append(got, r.Node)
			}
			assert.Equal(t, tc.add, got)
			assert.Empty(t, plan.Remove)
			for i, want := range tc.loads {
				assert.InDelta(t, want, nodes[i].Load, 1e-9, "node %d", i)
			}
		})
	}
}

func TestRearrangeRemovesFromMostLoaded(t *testing.T) {
	nodes := sixNodes()
	// c 1, δ 0, base 2: two of four replicas go, the most-loaded first:
	// node 5 (6, −1/4), then node 3 (4, −1/3).
	files := []File{{Name: "f", Size: 1, Concurrency: 1, Blocks: [][]int{{0, 3, 4, 5}}}}
	plan := Rearrange(files, nodes, Params{Base: 2, Budget: 1 << 40})
	assert.Equal(t, []Replica{{0, 0, 5}, {0, 0, 3}}, plan.Remove)
	assert.Empty(t, plan.Add)
	assert.InDelta(t, 6-0.25, nodes[5].Load, 1e-9)
	assert.InDelta(t, 4-1.0/3, nodes[3].Load, 1e-9)
}

func TestRearrangeSkipsDownNodesAndLostBlocks(t *testing.T) {
	nodes := sixNodes()
	nodes[4].Down = true
	files := []File{{Name: "f", Size: 1, Concurrency: 2, Blocks: [][]int{{0, 1}, {}}}}
	plan := Rearrange(files, nodes, Params{Base: 2, Delta: 1, Budget: 1 << 40})
	assert.Equal(t, []Replica{{0, 0, 3}}, plan.Add, "node 4 is down; block 1 has no source")
}

// TestRearrangeSpreads checks the placement rules on random clusters:
// never two replicas of a block on a node, nor a second on a rack while
// a live rack has none.
func TestRearrangeSpreads(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		racks, per := 2+rng.IntN(4), 1+rng.IntN(5)
		nodes := make([]Node, racks*per)
		for i := range nodes {
			nodes[i] = Node{Rack: i / per, Load: rng.Float64() * 10}
		}
		var files []File
		for f := range 20 {
			file := File{Name: fmt.Sprint(f), Size: 1 + rng.Int64N(100), Concurrency: rng.IntN(12)}
			for range 1 + rng.IntN(4) {
				file.Blocks = append(file.Blocks, []int{rng.IntN(len(nodes))})
			}
			files = append(files, file)
		}
		plan := Rearrange(files, nodes, Params{Base: 1, Delta: 1, Budget: 1 << 40, Order: Order(seed % 2)})
		for _, r := range plan.Add {
			files[r.File].Blocks[r.Block] = append(files[r.File].Blocks[r.Block], r.Node)
		}
		for i, f := range files {
			for b, reps := range f.Blocks {
				assert.Len(t, reps, min(plan.Factors[i], len(nodes)), "seed %d file %d block %d", seed, i, b)
				perRack := make([]int, racks)
				seen := map[int]bool{}
				for _, n := range reps {
					require.False(t, seen[n], "seed %d: two replicas on node %d", seed, n)
					seen[n] = true
					perRack[nodes[n].Rack]++
				}
				if len(reps) <= racks {
					assert.LessOrEqual(t, slices.Max(perRack), 1, "seed %d file %d block %d: %v", seed, i, b, perRack)
				}
			}
		}
	}
}

func TestConcurrencyCountsJobsInWindow(t *testing.T) {
	h := time.Hour
	c := NewConcurrency(24 * h)
	c.Launch(0, "f", 1)
	c.Launch(0, "f", 1) // a second map of the same job
	c.Launch(h, "f", 2)
	c.Launch(h, "g", 2)
	assert.Equal(t, 2, c.Max(h, "f"), "jobs, not tasks")
	c.End(2*h, "f", 1)
	assert.Equal(t, 2, c.Running("f"), "job 1 still has a map on f")
	c.End(2*h, "f", 1)
	c.Launch(3*h, "f", 3)
	c.End(4*h, "f", 3)
	c.End(5*h, "f", 2)
	assert.Equal(t, 0, c.Running("f"))
	// Two jobs at once from 1 h to 2 h and from 3 h to 4 h: the second
	// spell ended at 4 h, so it leaves the window at 28 h.
	assert.Equal(t, 2, c.Max(27*h, "f"))
	assert.Equal(t, 1, c.Max(28*h, "f"), "job 2 alone ran until 5 h")
	assert.Equal(t, 0, c.Max(29*h, "f"))
	assert.Equal(t, 1, c.Max(29*h, "g"), "g's job still runs")
	c.End(29*h, "g", 9) // an end without a launch
	c.Prune(30 * h)
	assert.Len(t, c.files, 1, "f is idle for a window; g runs")
	assert.Equal(t, 0, c.Max(30*h, "nothing"))
}

// TestCopyTime is the copy of 256 MB with PPMVC on 100 MB/s disks,
// a 1 Gb/s network and idle cores: 2.56 + 67.81 + 0.08 + 65.22 + 2.56 =
// 138.23 s.
func TestCopyTime(t *testing.T) {
	const raw = 256_000_000
	c, err := CodecNamed("ppmvc")
	require.NoError(t, err)
	disk, nic := 100e6, 125e6
	stages := []float64{raw / disk, c.CompressTime(raw).Seconds(), float64(c.Wire(raw)) / nic,
		c.DecompressTime(raw).Seconds(), raw / disk}
	want := []float64{2.56, 67.81, 0.08, 65.22, 2.56}
	sum := 0.0
	for i, s := range stages {
		assert.InDelta(t, want[i], s, 0.005, "stage %d", i)
		sum += s
	}
	assert.Equal(t, 138.23, math.Round(sum*100)/100)
	none, err := CodecNamed("none")
	require.NoError(t, err)
	assert.Equal(t, int64(raw), none.Wire(raw))
	assert.Zero(t, none.CompressTime(raw))
	_, err = CodecNamed("zip")
	assert.ErrorContains(t, err, `"zip"`)
}

// BenchmarkRearrange is one epoch over 100,000 files of 1 to 8 blocks on
// 1,000 nodes in 25 racks, concurrency skewed so about one file in ten
// wants extra replicas, with a budget of 10% of the stored bytes.
func BenchmarkRearrange(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nodes, racks = 1000, 25
	ns := make([]Node, nodes)
	for i := range ns {
		ns[i].Rack = i % racks
	}
	files := make([]File, 100_000)
	var stored int64
	for i := range files {
		f := &files[i]
		blocks := 1 + rng.IntN(8)
		f.Name, f.Size = fmt.Sprintf("f%06d", i), int64(blocks)<<27
		if rng.IntN(10) == 0 {
			f.Concurrency = 2 + rng.IntN(8)
		} else {
			f.Concurrency = rng.IntN(3)
		}
		for range blocks {
			f.Blocks = append(f.Blocks, []int{rng.IntN(nodes), rng.IntN(nodes), rng.IntN(nodes)})
		}
		stored += 3 * f.Size
	}
	p := Params{Base: 3, Delta: 1, Budget: stored / 10}
	var added int
	for b.Loop() {
		Loads(files, ns)
		added = len(Rearrange(files, ns, p).Add)
	}
	b.ReportMetric(float64(added), "replicas/epoch")
}
