package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"clusteremu/workload"
)

// SyntheticStream generates jobs with Poisson arrivals and random sizes.
//
// Arrivals: exponential gaps with mean interarrival, or, when load is
// given instead, with the mean that offers that load. The offered load is
// ρ = λ·W̄ / slots, where λ is the arrival rate, slots the key's value or,
// when it is absent, the cluster's map slots (a scenario fills it in; a
// [[workload.swim]] stream's default is the map + reduce slots), and W̄
// the mean work of a job in slot-seconds, taken as (maps + reduces) ×
// task_time averaged over the jobs this stream generates; so the mean gap
// is W̄ / (ρ·slots). The first job arrives one gap after start. The load
// is the one offered at task_time a task: the reduces count against the
// slots though they run in reduce slots, and tasks that last longer than
// task_time (stragglers, reads) busy the slots more than ρ.
//
// Sizes (the number of maps): "facebook" picks a bin of Zaharia et al.'s
// Table 2 with its Facebook fraction (FacebookBins), then draws maps
// log-uniformly within the bin; "pacman-fb" and "pacman-bing" do the same
// with the bins of Ananthanarayanan's Table 2.1 and their Facebook and
// Bing fractions (PACManFBBins, PACManBingBins), the last bin open up to
// max_maps; "bing" draws from Table 2.1's Bing bins with the open last bin
// ending at 1500 maps (BingBins), each draw capped at max_maps, as the
// Mantri reproductions do; "bm" gives the 50 jobs of Zaharia et al.'s
// macrobenchmark BM (Table 2: 29 jobs of 16 maps, 5 of 40, 4 of 80, 4 of
// 160, 3 of 320, 2 of 600 and one each of 1200, 2400 and 6400; a
// max_maps below 6400 caps them) in a seeded random order, each further 50
// jobs in a new order; "pareto" draws from a bounded Pareto
// with shape pareto_alpha on [min_maps, max_maps]; "lognormal" draws
// exp(N(lognormal_mu, lognormal_sigma²)) rounded and clamped to
// [min_maps, max_maps]. Reduces are max(1, round(f·maps)) with f uniform
// in [min_reduce_fraction, max_reduce_fraction] (map-only jobs when
// max_reduce_fraction is 0). A job reads maps × block_size bytes, shuffles
// shuffle_ratio of its input and writes output_ratio of its shuffle (of
// its input when map-only).
//
// Sizes and arrivals use separate generators derived from the seed, so
// changing the rate or load moves the arrivals but keeps the jobs.
//
// Popularity (PACMan's workloads, where jobs read the same files again):
// with files = N the stream first draws N input files, each of a size
// drawn as a job's is, and ranks them by popularity; every job then reads
// one of them, of popularity rank r with probability ∝ r^(−zipf), and has
// its maps. size_correlation ties a file's size to its rank through a
// Gaussian copula: a pair of normals with that correlation per file, the
// sizes given out in the order of the first and the ranks in the order of
// the second, so 1 makes the most popular file the largest, 0 leaves size
// and popularity independent and −1 makes it the smallest. The files are
// named <stream>-file<rank> ("s0-file1" is stream 0's most popular at
// the start), and are drawn from generators of their own, so a stream
// without files draws exactly the jobs it did before.
//
// Drift (the thesis's "half of a day's files are read the next day"):
// with drift = d, at each multiple of drift_period after start every
// popularity rank is picked with probability d and the files of the
// picked ranks are rotated among them in a random cycle, so the picked
// ranks (a share d of them) each hold another file for the next period
// and the others keep theirs. A job's rank is drawn as without drift and
// it reads the file at that rank in the period it is submitted in, with
// that file's maps; files keep their names and sizes, and arrivals are
// those of drift 0 (load is met by the jobs as drawn before drift moves
// them). The rotations come from a generator of their own, so drift 0
// draws exactly the jobs it did before. drift_within = "size" rotates the
// picked ranks' files only among files of the same maps: every period
// then has period 0's sizes at each rank, every job the maps it would
// have without drift, so drift moves which file is popular but not the
// offered load ("all", the default, lets a file of any size take a rank,
// and a hot rank's load moves with it).
//
// Compute: by default ("bytes") a task computes its CPU cost over the
// bytes it processes (map_cpu_per_mib, reduce_cpu_per_mib), and task_time
// only sets the arrivals for a load. task_dist draws a time instead, once
// a job, which each of its tasks computes (the job's map_time and
// reduce_time): "constant" (task_time), "exponential" (of mean
// task_time) or "uniform" (on [0, 2 × task_time]), from a generator of
// its own, so sizes and arrivals stay the same. With single-task jobs on
// one slot a stream is then the M/M/1, M/D/1 or M/U/1 queue of queueing
// theory, its load ρ = λ·task_time exactly (scenarios/validation/).
//
// TOML keys and defaults: jobs (required, ≥ 1), interarrival or load
// (exactly one), slots (with load; a scenario fills in the map slots),
// task_time = "30s", task_dist = "bytes", start = "0s", sizes = "facebook", pareto_alpha = 1.1, min_maps = 1,
// max_maps = 12800, lognormal_mu = 2.5, lognormal_sigma = 1.5,
// min_reduce_fraction = 0.05, max_reduce_fraction = 0.25,
// block_size = "128MiB", shuffle_ratio = 1.0, output_ratio = 1.0,
// pool = "", map_cpu_per_mib and reduce_cpu_per_mib (see CPUCosts),
// files = 0 (every job reads a file of its own), zipf = 1.0,
// size_correlation = 0, drift = 0, drift_period = "24h", drift_within =
// "all", input_cov = 0 and
// partition_cov = 0 (see Skew), weights (see JobWeights), priority = 2 (see
// JobPriority).
// An absent value takes the default, and so does a zero for keys where
// zero means nothing (jobs, task_time, the map bounds, block_size...);
// lognormal_mu, the reduce fractions and the ratios take 0 as written.
type SyntheticStream struct {
	Jobs              int      `toml:"jobs"`
	Interarrival      Duration `toml:"interarrival"`
	Load              float64  `toml:"load"`
	Slots             int      `toml:"slots"`
	TaskTime          Duration `toml:"task_time"`
	TaskDist          string   `toml:"task_dist,omitempty"`
	Start             Duration `toml:"start"`
	Sizes             string   `toml:"sizes"`
	ParetoAlpha       float64  `toml:"pareto_alpha"`
	MinMaps           int      `toml:"min_maps"`
	MaxMaps           int      `toml:"max_maps"`
	LognormalMu       *float64 `toml:"lognormal_mu"`
	LognormalSigma    float64  `toml:"lognormal_sigma"`
	MinReduceFraction *float64 `toml:"min_reduce_fraction"`
	MaxReduceFraction *float64 `toml:"max_reduce_fraction"`
	BlockSize         Bytes    `toml:"block_size"`
	ShuffleRatio      *float64 `toml:"shuffle_ratio"`
	OutputRatio       *float64 `toml:"output_ratio"`
	Pool              string   `toml:"pool"`
	CPUCosts
	Files           int      `toml:"files,omitzero"`
	Zipf            *float64 `toml:"zipf"`
	SizeCorrelation float64  `toml:"size_correlation,omitzero"`
	Drift           float64  `toml:"drift,omitzero"`
	DriftPeriod     Duration `toml:"drift_period"`
	DriftWithin     string   `toml:"drift_within,omitempty"`
	Skew
	JobWeights
	JobPriority
}

// The values of a synthetic stream's drift_within.
const (
	DriftAmongAll = "all"
	DriftBySize   = "size"
)

// SizeBin is a range of map counts [Lo, Hi] and the fraction of jobs in it.
type SizeBin struct {
	Lo, Hi   int
	Fraction float64
}

// FacebookBins are the job-size bins of Zaharia et al. 2009, Table 2, with
// the share of Facebook's jobs in each. The paper's edges overlap ("1-25",
// "25-50"); here a bin holds the counts above the previous bin's top, and
// the open last bin ("> 3200") ends at 12800 maps.
// BMSizes are the map counts of the macrobenchmark BM's 50 jobs (Zaharia
// et al. 2009, Table 2, "Size in BM" × "Jobs in BM").
var BMSizes = func() []int {
	var sizes []int
	for _, b := range []struct{ maps, jobs int }{
		{16, 29}, {40, 5}, {80, 4}, {160, 4}, {320, 3}, {600, 2}, {1200, 1}, {2400, 1}, {6400, 1},
	} {
		for range b.jobs {
			sizes = append(sizes, b.maps)
		}
	}
	return sizes
}()

// PACManFBBins and PACManBingBins are the job-size bins of the thesis's
// Table 2.1 (Ananthanarayanan 2014: 1–10, 11–50, 51–150, 151–500 and over
// 500 tasks) with the share of each workload's jobs in each; the open last
// bin ends at a stream's max_maps.
var (
	PACManFBBins   = []SizeBin{{1, 10, 0.85}, {11, 50, 0.04}, {51, 150, 0.08}, {151, 500, 0.02}, {501, 0, 0.01}}
	PACManBingBins = []SizeBin{{1, 10, 0.43}, {11, 50, 0.08}, {51, 150, 0.24}, {151, 500, 0.23}, {501, 0, 0.02}}
)

// BingBins are PACManBingBins with the open last bin ("> 500") ending at
// 1500 maps (sizes = "bing"); a draw is capped at the stream's max_maps.
var BingBins = append(slices.Clone(PACManBingBins[:len(PACManBingBins)-1]), SizeBin{501, 1500, 0.02})

var FacebookBins = []SizeBin{
	{1, 25, 0.58}, {26, 50, 0.096}, {51, 100, 0.086}, {101, 200, 0.084}, {201, 400, 0.056},
	{401, 800, 0.043}, {801, 1600, 0.025}, {1601, 3200, 0.013}, {3201, 12800, 0.017},
}

// DefaultSyntheticStream returns a SyntheticStream with every default
// filled in; Jobs and the arrival process are left for the scenario.
func DefaultSyntheticStream() SyntheticStream {
	return SyntheticStream{
		TaskTime: Duration(30 * time.Second), Sizes: "facebook", ParetoAlpha: 1.1,
		MinMaps: 1, MaxMaps: 12800, LognormalMu: new(2.5), LognormalSigma: 1.5,
		MinReduceFraction: new(0.05), MaxReduceFraction: new(0.25),
		BlockSize: 128 << 20, ShuffleRatio: new(1.0), OutputRatio: new(1.0), Zipf: new(1.0),
		DriftPeriod: Duration(24 * time.Hour), DriftWithin: DriftAmongAll,
	}
}

// withDefaults returns s with zero fields replaced by their defaults.
func (s SyntheticStream) withDefaults() SyntheticStream {
	return fillZero(s, DefaultSyntheticStream())
}

// Validate checks the configuration.
func (s *SyntheticStream) Validate() error {
	v := s.withDefaults()
	var c checks
	c.add(v.Jobs < 1, Invalid("jobs", v.Jobs, "must be ≥ 1"))
	c.add(v.Interarrival == 0 && v.Load == 0, Missing("interarrival", `give the mean gap (e.g. interarrival = "30s") or a target load (e.g. load = 0.7)`))
	c.add(v.Interarrival != 0 && v.Load != 0, Invalid("load", v.Load, "give either interarrival or load, not both"))
	c.add(!(v.Load >= 0) || !finite(v.Load), Invalid("load", v.Load, "must be a finite number > 0"))
	c.add(v.Load > 0 && v.Slots < 1, Missing("slots", "load needs the slots it is a share of (the cluster's map slots unless given), ≥ 1"))
	c.add(v.Slots < 0, Invalid("slots", v.Slots, "must be ≥ 1"))
	c.add(!slices.Contains([]string{"facebook", "bing", "bm", "pareto", "lognormal", "pacman-fb", "pacman-bing"}, v.Sizes),
		Invalid("sizes", v.Sizes, `must be "facebook", "bing", "bm", "pareto", "lognormal", "pacman-fb" or "pacman-bing"`))
	c.add(strings.HasPrefix(v.Sizes, "pacman-") && v.MaxMaps <= 500, Invalid("max_maps", v.MaxMaps, "must be over 500 with sizes = %q: the top of Table 2.1's last bin", v.Sizes))
	c.add(!(v.ParetoAlpha > 0) || !finite(v.ParetoAlpha), Invalid("pareto_alpha", v.ParetoAlpha, "must be a finite number > 0"))
	c.add(v.MinMaps < 1, Invalid("min_maps", v.MinMaps, "must be ≥ 1"))
	c.add(v.MaxMaps < v.MinMaps || v.MaxMaps > 1e7, Invalid("max_maps", v.MaxMaps, "must be in [min_maps = %d, 10000000]", v.MinMaps))
	c.add(!finite(*v.LognormalMu), Invalid("lognormal_mu", *v.LognormalMu, "must be finite"))
	c.add(!(v.LognormalSigma > 0) || !finite(v.LognormalSigma), Invalid("lognormal_sigma", v.LognormalSigma, "must be a finite number > 0"))
	minf, maxf := *v.MinReduceFraction, *v.MaxReduceFraction
	c.add(!(minf >= 0 && minf <= 1), Invalid("min_reduce_fraction", minf, "must be in [0, 1]"))
	c.add(!(maxf >= minf && maxf <= 1), Invalid("max_reduce_fraction", maxf, "must be in [min_reduce_fraction = %g, 1]", minf))
	c.add(v.BlockSize < 1, Invalid("block_size", v.BlockSize, "must be > 0"))
	c.add(!(*v.ShuffleRatio >= 0) || !finite(*v.ShuffleRatio), Invalid("shuffle_ratio", *v.ShuffleRatio, "must be a finite number ≥ 0"))
	c.add(!(*v.OutputRatio >= 0) || !finite(*v.OutputRatio), Invalid("output_ratio", *v.OutputRatio, "must be a finite number ≥ 0"))
	c.add(v.Jobs > 1_000_000, Invalid("jobs", v.Jobs, "must be at most 1000000"))
	c.add(v.Files < 0 || v.Files > 1_000_000, Invalid("files", v.Files, "must be 0 (a file per job) … 1000000"))
	c.add(!(*v.Zipf > 0) || !finite(*v.Zipf), Invalid("zipf", *v.Zipf, "must be a finite number > 0: the exponent of popularity rank"))
	c.add(!(v.SizeCorrelation >= -1 && v.SizeCorrelation <= 1), Invalid("size_correlation", v.SizeCorrelation,
		"must be in [−1, 1] (1: the most popular file is the largest)"))
	c.add(!(v.Drift >= 0 && v.Drift <= 1), Invalid("drift", v.Drift, "must be in [0, 1]: the share of ranks whose file changes each drift_period"))
	c.add(v.DriftPeriod < 0, Invalid("drift_period", v.DriftPeriod, "must be > 0: the time between popularity changes"))
	c.add(v.DriftWithin != DriftAmongAll && v.DriftWithin != DriftBySize,
		Invalid("drift_within", v.DriftWithin, `must be "all" (any file may take a rank) or "size" (only a file of the same maps)`))
	drawn := slices.Contains(workload.TaskDists, v.TaskDist)
	c.add(!drawn && v.TaskDist != "" && v.TaskDist != TaskBytes,
		Invalid("task_dist", v.TaskDist, `must be "bytes", "constant", "exponential" or "uniform"`))
	for _, k := range []struct {
		key  string
		cost *Duration
	}{{"map_cpu_per_mib", v.MapCPU}, {"reduce_cpu_per_mib", v.ReduceCPU}} {
		if drawn && k.cost != nil {
			c.add(true, Invalid(k.key, *k.cost, "a task computes the time task_dist = %q draws, not a cost per MiB: give one or the other", v.TaskDist))
		}
	}
	v.Skew.check(&c)
	v.JobWeights.check(&c)
	v.JobPriority.check(&c)
	return c.err()
}

// TaskBytes is task_dist's default: a task computes its CPU cost over its
// bytes.
const TaskBytes = "bytes"

// drawTimes gives each job the compute time task_dist draws around
// task_time, every task of the job computing it; jobs are in generation
// order. A draw is at least a nanosecond: a zero time would mean a cost
// per MiB.
func (s *SyntheticStream) drawTimes(jobs []workload.JobSpec, seed uint64) {
	if s.TaskDist == "" || s.TaskDist == TaskBytes {
		return
	}
	r := rand.New(rand.NewPCG(seed, 0x7464697374)) // "tdist"
	for i := range jobs {
		t := max(workload.DrawTaskTime(r, s.TaskDist, s.TaskTime.Std()), time.Nanosecond)
		jobs[i].MapTime, jobs[i].MapCPU = t, 0
		if jobs[i].Reduces > 0 {
			jobs[i].ReduceTime, jobs[i].ReduceCPU = t, 0
		}
	}
}

// Generate draws the jobs from env.Seed; equal seeds give equal jobs.
func (s *SyntheticStream) Generate(env Env) ([]workload.JobSpec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	v := s.withDefaults()
	sizesSrc := rand.NewPCG(env.Seed, 0x73697a6573) // "sizes"
	sizes := rand.New(sizesSrc)
	arrivals := rand.New(rand.NewPCG(env.Seed, 0x6172726976)) // "arriv"
	jobs := make([]workload.JobSpec, v.Jobs)
	var order []int // the BM's sizes, one shuffled pass per 50 jobs
	for v.Sizes == "bm" && len(order) < len(jobs) {
		for _, k := range sizes.Perm(len(BMSizes)) {
			order = append(order, min(BMSizes[k], v.MaxMaps))
		}
	}
	files := v.popularFiles(env)
	again := *sizesSrc // the size draws' state after the BM's, to draw the jobs again under drift
	var ranks []int    // by job, from 0; the picks have a generator of their own
	if files != nil {
		ranks = make([]int, len(jobs))
		for i := range ranks {
			ranks[i] = files.pick()
		}
	}
	work := v.drawJobs(jobs, files, ranks, order, sizes)
	v.drawTimes(jobs, env.Seed)
	gap := v.meanGap(work / float64(len(jobs)))
	t := v.Start.Std().Seconds()
	submit := make([]float64, len(jobs))
	for i := range jobs {
		t += arrivals.ExpFloat64() * gap
		submit[i] = t
	}
	if files != nil && v.Drift > 0 {
		// Again from the same draws, each job reading its rank's file in
		// its period.
		read := make([]int, len(jobs))
		for i, r := range ranks {
			read[i] = files.at(int((submit[i]-v.Start.Std().Seconds())/v.DriftPeriod.Std().Seconds()), r)
		}
		v.drawJobs(jobs, files, read, order, rand.New(&again))
		v.drawTimes(jobs, env.Seed)
	}
	for i := range jobs {
		jobs[i].Submit = seconds(submit[i])
	}
	sortBySubmit(jobs)
	v.Skew.apply(jobs, env.Seed)
	return jobs, nil
}

// drawJobs draws jobs in generation order from sizes, job i reading
// file read[i] (from 0) when the stream has files, and returns their work
// in slot-seconds.
func (s *SyntheticStream) drawJobs(jobs []workload.JobSpec, files *popularity, read, order []int, sizes *rand.Rand) float64 {
	work := 0.0
	for i := range jobs {
		maps := 0
		if order != nil {
			maps = order[i]
		}
		if files != nil {
			maps = files.maps[read[i]]
		}
		jobs[i] = s.job(i, maps, sizes)
		if files != nil {
			jobs[i].InputFile = files.name(read[i])
		}
		work += float64(jobs[i].Maps+jobs[i].Reduces) * s.TaskTime.Std().Seconds()
	}
	return work
}

// meanGap returns the mean inter-arrival time in seconds for a mean job
// work in slot-seconds.
func (s *SyntheticStream) meanGap(meanWork float64) float64 {
	if s.Load > 0 {
		return meanWork / (s.Load * float64(s.Slots))
	}
	return s.Interarrival.Std().Seconds()
}

// job draws the size of job i, of maps maps when maps > 0.
func (s *SyntheticStream) job(i, maps int, r *rand.Rand) workload.JobSpec {
	if maps == 0 {
		maps = s.drawMaps(r)
	}
	f := *s.MinReduceFraction + r.Float64()*(*s.MaxReduceFraction-*s.MinReduceFraction)
	reduces := 0
	if *s.MaxReduceFraction > 0 {
		reduces = max(1, int(math.Round(f*float64(maps))))
	}
	input := int64(maps) * int64(s.BlockSize)
	shuffle, output := int64(0), ratio(input, *s.OutputRatio)
	if reduces > 0 {
		shuffle = ratio(input, *s.ShuffleRatio)
		output = ratio(shuffle, *s.OutputRatio)
	}
	mapCPU, reduceCPU := s.CPUCosts.costs()
	return workload.JobSpec{
		Name: fmt.Sprintf("job%d", i), Pool: s.Pool, Priority: 2,
		InputBytes: input, Maps: maps, Reduces: reduces, ShuffleBytes: shuffle, OutputBytes: output,
		MapCPU: mapCPU, ReduceCPU: reduceCPU,
	}
}

func ratio(b int64, r float64) int64 {
	return int64(min(math.Round(float64(b)*r), math.MaxInt64/2))
}

// drawMaps draws a job's number of maps from the size distribution.
func (s *SyntheticStream) drawMaps(r *rand.Rand) int {
	switch s.Sizes {
	case "pareto":
		return boundedPareto(r, s.ParetoAlpha, s.MinMaps, s.MaxMaps)
	case "lognormal":
		x := math.Round(math.Exp(*s.LognormalMu + s.LognormalSigma*r.NormFloat64()))
		return int(min(max(x, float64(s.MinMaps)), float64(s.MaxMaps)))
	}
	bins := FacebookBins
	switch s.Sizes {
	case "pacman-fb":
		bins = PACManFBBins
	case "pacman-bing":
		bins = PACManBingBins
	case "bing":
		bins = BingBins
	}
	u, bin := r.Float64(), bins[len(bins)-1]
	for _, b := range bins {
		if u < b.Fraction {
			bin = b
			break
		}
		u -= b.Fraction
	}
	if bin.Hi == 0 {
		bin.Hi = s.MaxMaps
	}
	return max(min(logUniform(r, bin.Lo, bin.Hi), s.MaxMaps), s.MinMaps)
}

// logUniform draws an integer in [lo, hi] whose logarithm is uniform.
func logUniform(r *rand.Rand, lo, hi int) int {
	a, b := math.Log(float64(lo)), math.Log(float64(hi)+1)
	return min(int(math.Exp(a+r.Float64()*(b-a))), hi)
}

// boundedPareto draws an integer in [lo, hi] by inverting the CDF of a
// Pareto with shape alpha truncated to [lo, hi+1).
func boundedPareto(r *rand.Rand, alpha float64, lo, hi int) int {
	l, h := float64(lo), float64(hi)+1
	x := l * math.Pow(1-r.Float64()*(1-math.Pow(l/h, alpha)), -1/alpha)
	return min(max(int(x), lo), hi)
}
