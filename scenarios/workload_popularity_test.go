package scenarios

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// files = N: every job reads one of N files, drawn by Zipf over the
// popularity rank, and has the file's maps; rank r is read about
// r^(−zipf) / H as often. Files of one name are the same size.
func TestPopularFilesFollowZipf(t *testing.T) {
	s := SyntheticStream{Jobs: 20000, Interarrival: Duration(time.Second), Sizes: "pareto", MaxMaps: 200,
		Files: 50, Zipf: new(1.2)}
	jobs, err := s.Generate(Env{Seed: 3, Name: "s0"})
	require.NoError(t, err)
	reads := map[string]int{}
	maps := map[string]int{}
	for _, j := range jobs {
		require.True(t, strings.HasPrefix(j.InputFile, "s0-file"), j.InputFile)
		reads[j.InputFile]++
		if m, seen := maps[j.InputFile]; seen {
			require.Equal(t, m, j.Maps, "%s read with %d and %d maps", j.InputFile, m, j.Maps)
		}
		maps[j.InputFile] = j.Maps
		require.EqualValues(t, int64(j.Maps)*int64(DefaultSyntheticStream().BlockSize), j.InputBytes)
	}
	h := 0.0
	for r := 1; r <= 50; r++ {
		h += pow(r, -1.2)
	}
	for _, r := range []int{1, 2, 5, 20} {
		p := pow(r, -1.2) / h
		got := float64(reads["s0-file"+strconv.Itoa(r)]) / float64(len(jobs))
		within(t, "share of rank "+strconv.Itoa(r), got, p, sqrt(p*(1-p)/float64(len(jobs))))
	}
}

// size_correlation = 1 makes the most popular file the largest and the
// ranks follow the sizes; −1 the reverse; without files a stream draws
// the jobs it always did.
func TestSizeCorrelation(t *testing.T) {
	sizeByRank := func(rho float64) []int {
		s := SyntheticStream{Jobs: 3000, Interarrival: Duration(time.Second), Sizes: "pareto", MaxMaps: 400,
			Files: 20, Zipf: new(0.5), SizeCorrelation: rho}
		jobs, err := s.Generate(Env{Seed: 9, Name: "s0"})
		require.NoError(t, err)
		byRank := make([]int, 20)
		for _, j := range jobs {
			r, _ := strconv.Atoi(strings.TrimPrefix(j.InputFile, "s0-file"))
			byRank[r-1] = j.Maps
		}
		return byRank
	}
	up := sizeByRank(1)
	assert.True(t, slices.IsSortedFunc(up, func(a, b int) int { return b - a }), "rank 1 largest: %v", up)
	down := sizeByRank(-1)
	assert.True(t, slices.IsSorted(down), "rank 1 smallest: %v", down)
	assert.ElementsMatch(t, up, down, "the same sizes, ranked the other way")

	plain := SyntheticStream{Jobs: 100, Interarrival: Duration(time.Second)}
	with := plain
	with.Zipf, with.SizeCorrelation = new(2.0), 0.5
	a, _ := plain.Generate(Env{Seed: 4})
	b, _ := with.Generate(Env{Seed: 4})
	assert.True(t, reflect.DeepEqual(a, b), "zipf and size_correlation without files change nothing")
}

// A recurring job runs every period over one file.
func TestRecurringStream(t *testing.T) {
	s := RecurringStream{Every: Duration(time.Hour), Count: 3, Start: Duration(10 * time.Minute),
		Job: JobEntry{InputBytes: 1 << 30}}
	jobs, err := s.Generate(Env{Name: "r0"})
	require.NoError(t, err)
	require.Len(t, jobs, 3)
	for n, j := range jobs {
		assert.Equal(t, "r0-"+strconv.Itoa(n), j.Name)
		assert.Equal(t, "r0", j.InputFile)
		assert.Equal(t, 10*time.Minute+time.Duration(n)*time.Hour, j.Submit)
	}
	s.Job.InputFile, s.Job.Name = "logs", "hourly"
	jobs, _ = s.Generate(Env{Name: "r0"})
	assert.Equal(t, "logs", jobs[2].InputFile)
	assert.Equal(t, "hourly-2", jobs[2].Name)
}

// window = 3: each run reads the latest three hourly files of its log,
// sharing two with the run before it.
func TestRecurringWindow(t *testing.T) {
	s := RecurringStream{Every: Duration(time.Hour), Count: 3, Window: 3,
		Job: JobEntry{Name: "summary", InputFile: "logs", InputBytes: 3<<30 + 2}}
	require.NoError(t, s.Validate())
	jobs, err := s.Generate(Env{Name: "r0"})
	require.NoError(t, err)
	require.Len(t, jobs, 3)
	for n, j := range jobs {
		require.NoError(t, j.Validate())
		assert.Empty(t, j.InputFile, "a run reads its window's files, not the log's name")
		assert.Equal(t, int64(3<<30), j.InputBytes, "each file ⌊input_bytes / 3⌋")
		var names []string
		for _, f := range j.InputFiles {
			names = append(names, f.File)
			assert.Equal(t, int64(1<<30), f.Bytes)
		}
		assert.Equal(t, []string{"logs." + strconv.Itoa(n), "logs." + strconv.Itoa(n+1), "logs." + strconv.Itoa(n+2)}, names)
	}
	s.Window = 0
	jobs, _ = s.Generate(Env{Name: "r0"})
	assert.Equal(t, "logs", jobs[2].InputFile, "off: every run reads the one file")
	assert.Nil(t, jobs[2].InputFiles)
}

func pow(r int, e float64) float64 { return math.Pow(float64(r), e) }

func sqrt(x float64) float64 { return math.Sqrt(x) }

// sizes = "pacman-fb" draws Table 2.1's Facebook bins: 85% of jobs of
// 1–10 maps, 4% of 11–50, 8% of 51–150, 2% of 151–500, 1% above, up to
// max_maps.
func TestPACManBins(t *testing.T) {
	s := SyntheticStream{Jobs: 20000, Interarrival: Duration(time.Second), Sizes: "pacman-fb", MaxMaps: 800}
	jobs, err := s.Generate(Env{Seed: 5})
	require.NoError(t, err)
	var n [5]int
	for _, j := range jobs {
		require.LessOrEqual(t, j.Maps, 800)
		for b, top := range []int{10, 50, 150, 500, 800} {
			if j.Maps <= top {
				n[b]++
				break
			}
		}
	}
	for b, p := range []float64{0.85, 0.04, 0.08, 0.02, 0.01} {
		within(t, "bin "+strconv.Itoa(b+1), float64(n[b])/float64(len(jobs)), p, sqrt(p*(1-p)/float64(len(jobs))))
	}
}

// A stream's popular files with input_cov = "thesis": a file is split
// once, so every job reading it takes the file's CoV (drawn per file),
// while each job keeps a partition CoV of its own; the run builds.
func TestPopularFilesShareTheirSkew(t *testing.T) {
	s := SyntheticStream{Jobs: 300, Interarrival: Duration(time.Second), Sizes: "pareto", MaxMaps: 50,
		Files: 10, Zipf: new(1.0), Skew: Skew{InputCoV: CoV{Thesis: true}, PartitionCoV: CoV{Thesis: true}}}
	jobs, err := s.Generate(Env{Seed: 5, Name: "s0"})
	require.NoError(t, err)
	cov := map[string]float64{}
	partitions := map[float64]bool{}
	for _, j := range jobs {
		if c, seen := cov[j.InputFile]; seen {
			require.Equal(t, c, j.InputCoV, "%s split two ways", j.InputFile)
		}
		cov[j.InputFile] = j.InputCoV
		partitions[j.PartitionCoV] = true
	}
	assert.Greater(t, len(slices.Sorted(maps.Keys(cov))), 1, "files draw CoVs of their own")
	assert.Greater(t, len(partitions), len(cov), "partition CoVs stay per job")

	sc, err := Load("s.toml", []byte(`
[run]
slowdown = false
[[workload.synthetic]]
jobs = 40
interarrival = "5s"
sizes = "pareto"
max_maps = 20
files = 4
input_cov = "thesis"
`), t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, 40.0, runScenario(t, sc).Summary["jobs.succeeded"], "no job fails for a file split another way")
}

// drift = d: at each drift_period's end a share d of the ranks hold
// another file and the rest keep theirs; each period still reads its
// ranks by Zipf; a file keeps its maps; arrivals stay those of drift 0.
func TestDriftMovesAShareOfTheRanks(t *testing.T) {
	const n = 20000
	base := SyntheticStream{Jobs: 4000, Interarrival: Duration(time.Minute), Sizes: "pareto", MaxMaps: 200,
		Files: n, Zipf: new(1.0), DriftPeriod: Duration(24 * time.Hour)}
	for _, d := range []float64{0.25, 0.5} {
		s := base
		s.Drift = d
		v := s.withDefaults()
		p := v.popularFiles(Env{Seed: 5, Name: "s0"})
		kept := 0
		for r := range n {
			if p.at(1, r) == p.at(0, r) {
				kept++
			}
		}
		want := 1 - d
		within(t, "share of ranks keeping their file", float64(kept)/n, want, sqrt(d*(1-d)/n))
		// A rotation is a permutation: every file is still at one rank.
		seen := make([]bool, n)
		for r := range n {
			f := p.at(2, r)
			require.False(t, seen[f], "file %d at two ranks", f)
			seen[f] = true
		}
	}
	// Jobs: per period, the most read file is period's rank 1, and a
	// job's file has its maps; arrivals do not move.
	s := base
	s.Drift, s.Files, s.Jobs, s.Interarrival = 1, 30, 6000, Duration(30*time.Second) // about 2880 jobs a day
	off := base
	off.Files, off.Jobs, off.Interarrival = 30, 6000, Duration(30*time.Second)
	jobs, err := s.Generate(Env{Seed: 2, Name: "s0"})
	require.NoError(t, err)
	plain, err := off.Generate(Env{Seed: 2, Name: "s0"})
	require.NoError(t, err)
	v := s.withDefaults()
	p := v.popularFiles(Env{Seed: 2, Name: "s0"})
	reads := [2]map[string]int{{}, {}}
	size := map[string]int{}
	moved := 0
	for i, j := range jobs {
		require.Equal(t, plain[i].Submit, j.Submit, "drift moves no arrival")
		if m, seen := size[j.InputFile]; seen {
			require.Equal(t, m, j.Maps, "%s read with %d and %d maps", j.InputFile, m, j.Maps)
		}
		size[j.InputFile] = j.Maps
		if k := int(j.Submit / (24 * time.Hour)); k < 2 {
			reads[k][j.InputFile]++
		}
		if j.InputFile != plain[i].InputFile {
			moved++
		}
	}
	assert.Positive(t, moved, "drift 1 moves files after the first day")
	for k := range 2 {
		top := p.name(p.at(k, 0))
		for f, c := range reads[k] {
			assert.LessOrEqual(t, c, reads[k][top], "day %d: %s read more than rank 1's %s", k, f, top)
		}
		total := 0
		for _, c := range reads[k] {
			total += c
		}
		h := 0.0
		for r := 1; r <= 30; r++ {
			h += pow(r, -1.0)
		}
		got := float64(reads[k][top]) / float64(total)
		within(t, "day "+strconv.Itoa(k)+": share of rank 1", got, 1/h, sqrt((1/h)*(1-1/h)/float64(total)))
	}
	assert.NotEqual(t, p.at(0, 0), p.at(1, 0), "drift 1: rank 1 holds another file on day 2")
}

// drift = 0, or a drift whose first period outlasts the stream, draws
// exactly the jobs of a stream without it.
func TestNoDriftDrawsTheSameJobs(t *testing.T) {
	for _, sizes := range []string{"facebook", "bm"} {
		plain := SyntheticStream{Jobs: 500, Load: 0.7, Slots: 100, Sizes: sizes, Files: 40, Zipf: new(1.1),
			SizeCorrelation: 0.5, TaskDist: "exponential"}
		a, err := plain.Generate(Env{Seed: 7, Name: "s0"})
		require.NoError(t, err)
		zero := plain
		zero.DriftPeriod = Duration(time.Hour)
		b, err := zero.Generate(Env{Seed: 7, Name: "s0"})
		require.NoError(t, err)
		assert.True(t, reflect.DeepEqual(a, b), "%s: drift 0", sizes)
		long := plain
		long.Drift, long.DriftPeriod = 0.5, Duration(1000*24*time.Hour)
		c, err := long.Generate(Env{Seed: 7, Name: "s0"})
		require.NoError(t, err)
		require.Less(t, a[len(a)-1].Submit, 1000*24*time.Hour)
		assert.True(t, reflect.DeepEqual(a, c), "%s: drift in a period longer than the stream", sizes)
		short := long
		short.DriftPeriod = Duration(time.Minute)
		d, err := short.Generate(Env{Seed: 7, Name: "s0"})
		require.NoError(t, err)
		assert.False(t, reflect.DeepEqual(a, d), "%s: drift every minute changes the jobs", sizes)
	}
}

// drift_within = "size": every rank holds, in every period, a file of
// its period-0 file's maps, so each job has the maps, sizes and arrival
// it would have without drift and only its file moves; about a share d
// of the ranks still change file each period. "all", written or not, is
// the drift of any file to any rank.
func TestDriftWithinSizeKeepsTheLoad(t *testing.T) {
	const n = 2000
	mu := 0.2
	s := SyntheticStream{Jobs: 3000, Interarrival: Duration(time.Minute), Sizes: "lognormal", LognormalMu: &mu,
		LognormalSigma: 0.8, MaxMaps: 20, Files: n, Zipf: new(1.3), Drift: 0.5, DriftPeriod: Duration(12 * time.Hour),
		DriftWithin: DriftBySize}
	v := s.withDefaults()
	p := v.popularFiles(Env{Seed: 3, Name: "s0"})
	prev := make([]int, n)
	for r := range n {
		prev[r] = p.at(0, r)
	}
	for k := 1; k <= 3; k++ {
		kept := 0
		for r := range n {
			f := p.at(k, r)
			require.Equal(t, p.maps[r], p.maps[f], "period %d: rank %d holds file %d of %d maps, not %d", k, r, f, p.maps[f], p.maps[r])
			if f == prev[r] {
				kept++
			}
			prev[r] = f
		}
		// Nearly every picked rank shares its class with another picked
		// one: about a share d changes file (a 1% allowance for the few
		// alone in theirs, which keep it).
		within(t, "share of ranks keeping their file", float64(kept)/n, 0.5, sqrt(0.25/n)+0.0025)
	}

	jobs, err := s.Generate(Env{Seed: 3, Name: "s0"})
	require.NoError(t, err)
	plain := s
	plain.Drift = 0
	want, err := plain.Generate(Env{Seed: 3, Name: "s0"})
	require.NoError(t, err)
	moved := 0
	for i := range jobs {
		if jobs[i].InputFile != want[i].InputFile {
			moved++
		}
		j := jobs[i]
		j.InputFile = want[i].InputFile
		require.Equal(t, want[i], j, "job %d: only its file moves", i)
	}
	assert.Greater(t, moved, len(jobs)/10, "files move")

	all := s
	all.DriftWithin = DriftAmongAll
	a, err := all.Generate(Env{Seed: 3, Name: "s0"})
	require.NoError(t, err)
	all.DriftWithin = ""
	b, err := all.Generate(Env{Seed: 3, Name: "s0"})
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(a, b), `"all" is the default`)
	assert.False(t, reflect.DeepEqual(a, jobs), `"all" is not "size"`)
}
