package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"clusteremu/workload"
)

func generate(t *testing.T, s SyntheticStream, seed uint64) []workload.JobSpec {
	t.Helper()
	jobs, err := s.Generate(Env{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != s.Jobs {
		t.Fatalf("%d jobs; want %d", len(jobs), s.Jobs)
	}
	for i, j := range jobs {
		if err := j.Validate(); err != nil {
			t.Fatalf("%s: %v", j.Name, err)
		}
		if i > 0 && j.Submit < jobs[i-1].Submit {
			t.Fatalf("%s submitted at %v, before %s at %v", j.Name, j.Submit, jobs[i-1].Name, jobs[i-1].Submit)
		}
	}
	return jobs
}

// within fails unless |got − want| ≤ 4 standard errors.
func within(t *testing.T, what string, got, want, stderr float64) {
	t.Helper()
	if math.Abs(got-want) > 4*stderr {
		t.Errorf("%s = %.4f; want %.4f ± %.4f (4σ)", what, got, want, 4*stderr)
	}
}

func TestSyntheticIsDeterministic(t *testing.T) {
	s := SyntheticStream{Jobs: 200, Interarrival: Duration(30 * time.Second)}
	a, b := generate(t, s, 7), generate(t, s, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different jobs")
	}
	if reflect.DeepEqual(a, generate(t, s, 8)) {
		t.Fatal("seeds 7 and 8 gave the same jobs")
	}
	s.Interarrival = Duration(time.Minute)
	c := generate(t, s, 7)
	for i := range a { // the sizes stream is independent of the arrivals
		a[i].Submit, c[i].Submit = 0, 0
	}
	if !reflect.DeepEqual(sortedByName(a), sortedByName(c)) {
		t.Error("changing the arrival rate changed the job sizes")
	}
}

func sortedByName(jobs []workload.JobSpec) map[string]workload.JobSpec {
	m := map[string]workload.JobSpec{}
	for _, j := range jobs {
		m[j.Name] = j
	}
	return m
}

func TestSyntheticPoissonArrivals(t *testing.T) {
	const n, mean = 20000, 30.0
	s := SyntheticStream{Jobs: n, Interarrival: Duration(30 * time.Second), Start: Duration(time.Hour)}
	jobs := generate(t, s, 1)
	if jobs[0].Submit <= time.Hour {
		t.Errorf("first arrival %v; want after start = 1h", jobs[0].Submit)
	}
	gaps, long := 0.0, 0
	prev := time.Hour
	for _, j := range jobs {
		g := (j.Submit - prev).Seconds()
		gaps += g
		if g > mean {
			long++
		}
		prev = j.Submit
	}
	// Exponential gaps: the mean is 30 s (standard error 30/√n) and a gap
	// exceeds its mean with probability 1/e.
	within(t, "mean gap (s)", gaps/n, mean, mean/math.Sqrt(n))
	p := math.Exp(-1)
	within(t, "P(gap > mean)", float64(long)/n, p, math.Sqrt(p*(1-p)/n))
}

// table2 is Zaharia et al. 2009, Table 2: the top map count of each bin
// and the share of Facebook's jobs in it, written out independently of
// FacebookBins so that a typo there fails the test.
type binTop struct {
	top      int
	fraction float64
}

var table2 = []binTop{{25, 0.58}, {50, 0.096}, {100, 0.086}, {200, 0.084}, {400, 0.056}, {800, 0.043}, {1600, 0.025}, {3200, 0.013}, {12800, 0.017}}

func TestSyntheticFacebookBins(t *testing.T) {
	const n = 20000
	jobs := generate(t, SyntheticStream{Jobs: n, Interarrival: Duration(time.Second)}, 2)
	counts := make([]int, len(FacebookBins))
	for _, j := range jobs {
		bin := slices.IndexFunc(table2, func(b binTop) bool { return j.Maps <= b.top })
		if bin < 0 || j.Maps < 1 {
			t.Fatalf("%s has %d maps, in no bin", j.Name, j.Maps)
		}
		counts[bin]++
		lo, hi := max(1, int(math.Round(0.05*float64(j.Maps)))), max(1, int(math.Round(0.25*float64(j.Maps))))
		if j.Reduces < lo || j.Reduces > hi || j.InputBytes != int64(j.Maps)<<27 || j.ShuffleBytes != j.InputBytes {
			t.Fatalf("%s: %d maps, %d reduces, %d input, %d shuffle", j.Name, j.Maps, j.Reduces, j.InputBytes, j.ShuffleBytes)
		}
	}
	for i, b := range table2 {
		p := b.fraction
		within(t, fmt.Sprintf("fraction in bin %d", i), float64(counts[i])/n, p, math.Sqrt(p*(1-p)/n))
	}
}

func TestSyntheticTargetLoad(t *testing.T) {
	const n = 20000
	s := SyntheticStream{Jobs: n, Load: 0.7, Slots: 600, TaskTime: Duration(20 * time.Second)}
	jobs := generate(t, s, 3)
	work := 0.0
	for _, j := range jobs {
		work += float64(j.Maps+j.Reduces) * 20
	}
	// Offered load = work / (span × slots); the span is a sum of n
	// exponential gaps, so its relative standard error is 1/√n.
	span := jobs[n-1].Submit.Seconds()
	within(t, "offered load", work/(span*600), 0.7, 0.7/math.Sqrt(n))
}

// A scenario's synthetic stream with load and no slots offers that load
// of the cluster's map slots alone, at task_time a task (the reduces
// counted in the work): 10 nodes of 4 map and 2 reduce slots, load 0.5,
// so (maps + reduces) × 20 s over the span is 0.5 × 40 map slots, not
// 0.5 × 60 slots.
func TestSyntheticLoadOfTheMapSlots(t *testing.T) {
	const n = 4000
	sc, err := Load("s.toml", []byte(`[run]
slowdown = false
[cluster]
racks = 1
nodes_per_rack = 10
map_slots = 4
reduce_slots = 2
[[workload.synthetic]]
jobs = 4000
load = 0.5
task_time = "20s"
max_maps = 100
`), t.TempDir())
	require.NoError(t, err)
	jobs := sc.Config.Jobs()
	require.Len(t, jobs, n)
	work, span := 0.0, 0.0
	for _, j := range jobs {
		work += float64(j.Maps+j.Reduces) * 20
		span = max(span, j.Submit.Seconds())
	}
	within(t, "offered load of the 40 map slots", work/(span*40), 0.5, 0.5/math.Sqrt(n))
}

func TestSyntheticHeavyTails(t *testing.T) {
	const n = 20000
	jobs := generate(t, SyntheticStream{Jobs: n, Interarrival: Duration(time.Second), Sizes: "pareto", MaxMaps: 5000}, 4)
	ones := 0
	for _, j := range jobs {
		if j.Maps < 1 || j.Maps > 5000 {
			t.Fatalf("%s has %d maps; want [1, 5000]", j.Name, j.Maps)
		}
		if j.Maps == 1 {
			ones++
		}
	}
	// Bounded Pareto(α = 1.1) on [1, 5001): P(maps = 1) = P(X < 2).
	p := (1 - math.Pow(0.5, 1.1)) / (1 - math.Pow(1.0/5001, 1.1))
	within(t, "P(maps = 1)", float64(ones)/n, p, math.Sqrt(p*(1-p)/n))

	jobs = generate(t, SyntheticStream{Jobs: n, Interarrival: Duration(time.Second), Sizes: "lognormal", LognormalMu: new(3.0), LognormalSigma: 1}, 5)
	below := 0
	for _, j := range jobs {
		if j.Maps < 20 { // e^3 ≈ 20.09 is the median
			below++
		}
	}
	within(t, "P(maps < median)", float64(below)/n, 0.5, 0.5/math.Sqrt(n))
}

func TestSyntheticMapOnly(t *testing.T) {
	zero := 0.0
	jobs := generate(t, SyntheticStream{Jobs: 50, Interarrival: Duration(time.Second), MinReduceFraction: &zero, MaxReduceFraction: &zero, OutputRatio: new(0.5)}, 6)
	for _, j := range jobs {
		if j.Reduces != 0 || j.ShuffleBytes != 0 || j.OutputBytes != j.InputBytes/2 {
			t.Fatalf("%s: %d reduces, %d shuffle, %d output of %d input", j.Name, j.Reduces, j.ShuffleBytes, j.OutputBytes, j.InputBytes)
		}
	}
}

// A ratio of 0 is 0: no shuffle, no output.
func TestSyntheticZeroRatiosMeanZero(t *testing.T) {
	jobs := generate(t, SyntheticStream{Jobs: 20, Interarrival: Duration(time.Second), ShuffleRatio: new(0.0), OutputRatio: new(0.0)}, 6)
	for _, j := range jobs {
		if j.ShuffleBytes != 0 || j.OutputBytes != 0 || j.InputBytes == 0 {
			t.Fatalf("%s: %d shuffle, %d output of %d input", j.Name, j.ShuffleBytes, j.OutputBytes, j.InputBytes)
		}
	}
}

func TestSyntheticValidate(t *testing.T) {
	bad := 2.0
	for _, tc := range []struct {
		s    SyntheticStream
		msgs []string
	}{
		{SyntheticStream{}, []string{"jobs = 0: must be ≥ 1", "interarrival: missing"}},
		{SyntheticStream{Jobs: 1, Load: 0.5}, []string{"slots: missing"}},
		{SyntheticStream{Jobs: 1, Load: 0.5, Slots: 4, Interarrival: 1}, []string{"load = 0.5: give either"}},
		{SyntheticStream{Jobs: 1, Load: math.NaN(), Slots: 4}, []string{"load = NaN"}},
		{SyntheticStream{Jobs: 1, Load: 1, Slots: 1, Sizes: "zipf"}, []string{`sizes = "zipf": must be`}},
		{SyntheticStream{Jobs: 1, Load: 1, Slots: 1, MinMaps: 10, MaxMaps: 5}, []string{"max_maps = 5: must be in [min_maps = 10"}},
		{SyntheticStream{Jobs: 1, Load: 1, Slots: 1, MaxReduceFraction: &bad}, []string{"max_reduce_fraction = 2"}},
		{SyntheticStream{Jobs: 1, Load: 1, Slots: 1, BlockSize: -1, ShuffleRatio: new(-1.0)}, []string{"block_size", "shuffle_ratio = -1"}},
		{SyntheticStream{Jobs: 1, Load: 1, Slots: 1, TaskDist: "pareto"}, []string{`task_dist = "pareto": must be "bytes", "constant", "exponential" or "uniform"`}},
		{SyntheticStream{Jobs: 1, Load: 1, Slots: 1, TaskDist: "constant", CPUCosts: CPUCosts{ReduceCPU: new(Duration(time.Second))}},
			[]string{`reduce_cpu_per_mib = "1s": a task computes the time task_dist = "constant" draws`}},
	} {
		err := tc.s.Validate()
		for _, m := range tc.msgs {
			if err == nil || !strings.Contains(err.Error(), m) {
				t.Errorf("%+v: Validate() = %v; want it to mention %q", tc.s, err, m)
			}
		}
		if _, gerr := tc.s.Generate(Env{}); gerr == nil {
			t.Errorf("%+v: Generate succeeded", tc.s)
		}
	}
}

func TestSyntheticBMIsTheMacrobenchmarkMultiset(t *testing.T) {
	// Table 2: 50 jobs, 13,784 maps; every 50 jobs are the same multiset
	// in a new order, and the order depends on the seed.
	s := SyntheticStream{Jobs: 100, Interarrival: Duration(30 * time.Second), Sizes: "bm"}
	jobs := generate(t, s, 1)
	byName := func(js []workload.JobSpec) []int {
		maps := make([]int, len(js))
		for _, j := range js {
			var i int
			fmt.Sscanf(j.Name, "job%d", &i)
			maps[i] = j.Maps
		}
		return maps
	}
	maps := byName(jobs)
	total := 0
	for _, half := range [][]int{maps[:50], maps[50:]} {
		sorted := slices.Sorted(slices.Values(half))
		if !slices.Equal(sorted, slices.Sorted(slices.Values(BMSizes))) {
			t.Errorf("a pass of 50 jobs has sizes %v", sorted)
		}
		total = 0
		for _, m := range half {
			total += m
		}
	}
	if total != 13784 {
		t.Errorf("BM maps = %d; want 13784", total)
	}
	if slices.Equal(maps[:50], maps[50:]) {
		t.Error("the second pass repeats the first's order")
	}
	if slices.Equal(maps, byName(generate(t, s, 2))) {
		t.Error("seeds 1 and 2 give the same order")
	}
}

// input_cov = "thesis" draws each job's CoV from the thesis's spread
// (median 0.34, 90th percentile 3.1) and moves no job's size or arrival;
// a number gives every job that CoV.
func TestSyntheticSkew(t *testing.T) {
	base := SyntheticStream{Jobs: 2000, Interarrival: Duration(time.Second)}
	plain := generate(t, base, 3)
	skewed := base
	skewed.InputCoV, skewed.PartitionCoV = CoV{Thesis: true}, CoV{Value: 0.5}
	jobs := generate(t, skewed, 3)
	var covs []float64
	for i := range jobs {
		got := jobs[i]
		got.InputCoV, got.PartitionCoV = 0, 0
		if !reflect.DeepEqual(got, plain[i]) {
			t.Fatalf("job %d changed beyond its skew: %+v, was %+v", i, got, plain[i])
		}
		if jobs[i].PartitionCoV != 0.5 {
			t.Fatalf("job %d: partition_cov %v, want 0.5", i, jobs[i].PartitionCoV)
		}
		covs = append(covs, jobs[i].InputCoV)
	}
	slices.Sort(covs)
	if p50, p90 := covs[len(covs)/2], covs[len(covs)*9/10]; math.Abs(p50-0.34) > 0.04 || math.Abs(p90-3.1) > 0.5 {
		t.Errorf("input CoVs: p50 %.3f (want 0.34), p90 %.2f (want 3.1)", p50, p90)
	}
}

// max_maps and min_maps bound every size distribution's draws, the
// Facebook bins' as much as the others'.
func TestSyntheticMapBoundsHoldForEverySize(t *testing.T) {
	for _, sizes := range []string{"facebook", "bing", "pacman-fb", "pacman-bing", "pareto", "lognormal"} {
		s := DefaultSyntheticStream()
		s.Jobs, s.Interarrival, s.Sizes, s.MinMaps, s.MaxMaps = 3000, Duration(time.Second), sizes, 3, 600
		most := 0
		for _, j := range generate(t, s, 7) {
			if j.Maps < 3 || j.Maps > 600 {
				t.Fatalf("sizes = %q: %s has %d maps, outside [3, 600]", sizes, j.Name, j.Maps)
			}
			most = max(most, j.Maps)
		}
		if most < 400 {
			t.Errorf("sizes = %q: the widest of 3000 jobs has %d maps; the bound should be reached", sizes, most)
		}
	}
}

// task_dist draws a time per job that its tasks compute, of mean
// task_time, from a generator of its own: the sizes and arrivals are those
// of the stream without it.
func TestSyntheticTaskDist(t *testing.T) {
	base := SyntheticStream{Jobs: 20000, Load: 0.5, Slots: 10, TaskTime: Duration(10 * time.Second), Sizes: "pareto", MaxMaps: 20}
	plain := generate(t, base, 3)
	for _, tc := range []struct {
		dist      string
		mean, std float64 // of a draw, in seconds
		lo, hi    float64
	}{
		{"constant", 10, 0, 10, 10},
		{"exponential", 10, 10, 0, math.Inf(1)},
		{"uniform", 10, 20 / math.Sqrt(12), 0, 20},
	} {
		t.Run(tc.dist, func(t *testing.T) {
			s := base
			s.TaskDist = tc.dist
			jobs := generate(t, s, 3)
			sum := 0.0
			for i, j := range jobs {
				p := plain[i]
				if j.Name != p.Name || j.Submit != p.Submit || j.Maps != p.Maps || j.Reduces != p.Reduces || j.InputBytes != p.InputBytes {
					t.Fatalf("%s: the draw moved the job: %+v, without it %+v", j.Name, j, p)
				}
				d := j.MapTime.Seconds()
				if j.MapCPU != 0 || j.ReduceCPU != 0 || !(d >= tc.lo && d <= tc.hi) || j.Reduces > 0 && j.ReduceTime != j.MapTime {
					t.Fatalf("%s: map %v (CPU %v), reduce %v (CPU %v); want one draw in [%g, %g] s", j.Name, j.MapTime, j.MapCPU, j.ReduceTime, j.ReduceCPU, tc.lo, tc.hi)
				}
				sum += d
			}
			within(t, tc.dist+" mean draw", sum/float64(len(jobs)), tc.mean, tc.std/math.Sqrt(float64(len(jobs))))
		})
	}
	if plain[0].MapTime != 0 || plain[0].MapCPU == 0 {
		t.Errorf("without task_dist a map computes per MiB: %+v", plain[0])
	}
}

// Two synthetic streams of equal parameters are independent: each draws
// from a seed of its own, not both from the run's, which would give them
// the same gaps and sizes.
func TestSyntheticStreamsDrawIndependently(t *testing.T) {
	stream := "\n[[workload.synthetic]]\njobs = 50\ninterarrival = \"10s\"\n"
	sc, err := Load("s.toml", []byte("[cluster]\nracks = 1\nnodes_per_rack = 3\n"+stream+stream), t.TempDir())
	require.NoError(t, err)
	streams := sc.Config.Workload
	require.Len(t, streams, 2)
	sameGaps, sameSizes := 0, 0
	for i := 1; i < len(streams[0]); i++ {
		g0 := streams[0][i].Submit - streams[0][i-1].Submit
		g1 := streams[1][i].Submit - streams[1][i-1].Submit
		if g0 == g1 {
			sameGaps++
		}
		if streams[0][i].Maps == streams[1][i].Maps {
			sameSizes++
		}
	}
	require.Zero(t, sameGaps, "stream 1's gaps are stream 0's")
	require.Less(t, sameSizes, 25, "stream 1's sizes are stream 0's")
}
