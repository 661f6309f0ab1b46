package scenarios

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"

	"clusteremu/workload"
)

// CoV is a stream's input_cov or partition_cov: a coefficient of
// variation of its jobs' block or partition sizes (stddev over mean; 0:
// even), or "thesis", which draws one per job from the thesis's spread
// across phases: lognormal with median 0.34 and 90th percentile 3.1
// (Ananthanarayanan's thesis §1.2.1), σ = ln(3.1 / 0.34) / 1.2816 = 1.725.
type CoV struct {
	Thesis bool
	Value  float64
}

// The thesis's spread of a phase's CoV of data sizes.
const (
	thesisCoVMedian = 0.34
	thesisCoVSigma  = 1.725
)

// UnmarshalTOML reads a number or "thesis".
func (c *CoV) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		if x != "thesis" {
			return fmt.Errorf("%q: must be a coefficient of variation ≥ 0 or \"thesis\"", x)
		}
		*c = CoV{Thesis: true}
	case float64:
		*c = CoV{Value: x}
	case int64:
		*c = CoV{Value: float64(x)}
	default:
		return fmt.Errorf("%v: must be a coefficient of variation ≥ 0 or \"thesis\"", v)
	}
	return nil
}

// MarshalTOML writes the CoV as a scenario does.
func (c CoV) MarshalTOML() ([]byte, error) {
	if c.Thesis {
		return []byte(`"thesis"`), nil
	}
	return []byte(strconv.FormatFloat(c.Value, 'g', -1, 64)), nil
}

// draw is a job's CoV: the value, or a draw from the thesis's spread.
func (c CoV) draw(rng *rand.Rand) float64 {
	if !c.Thesis {
		return c.Value
	}
	return min(thesisCoVMedian*math.Exp(thesisCoVSigma*rng.NormFloat64()), workload.MaxCoV)
}

// Skew is the data-skew keys of a stream, or of one job of a jobs stream:
// input_cov splits each job's input into blocks of lognormal sizes (its
// maps' spills follow them), partition_cov gives its reduces lognormal
// shares of every map output; each 0 (even, the default), a CoV, or
// "thesis".
type Skew struct {
	InputCoV     CoV `toml:"input_cov"`
	PartitionCoV CoV `toml:"partition_cov"`
}

// check refuses a negative CoV or one past workload.MaxCoV.
func (s *Skew) check(c *checks) {
	for _, k := range []struct {
		key string
		cov CoV
	}{{"input_cov", s.InputCoV}, {"partition_cov", s.PartitionCoV}} {
		c.add(!k.cov.Thesis && !(k.cov.Value >= 0 && k.cov.Value <= workload.MaxCoV),
			Invalid(k.key, k.cov.Value, `must be a coefficient of variation in [0, %g] (0: even) or "thesis"`, workload.MaxCoV))
	}
}

// on reports whether the keys skew anything.
func (s *Skew) on() bool {
	return s.InputCoV.Thesis || s.InputCoV.Value > 0 || s.PartitionCoV.Thesis || s.PartitionCoV.Value > 0
}

// apply sets the jobs' CoVs, drawing "thesis" ones per job, in order,
// from a stream of the workload seed of its own, so skew moves no job's
// size or arrival. A job reading a shared input file (a stream's popular
// files) takes its file's input CoV instead, drawn as applyTo draws it:
// a file is split once, so every job reading it must split it alike.
func (s *Skew) apply(jobs []workload.JobSpec, seed uint64) {
	if !s.on() {
		return
	}
	rng := rand.New(rand.NewPCG(seed, skewStream))
	for i := range jobs {
		jobs[i].InputCoV = s.InputCoV.draw(rng)
		jobs[i].PartitionCoV = s.PartitionCoV.draw(rng)
		if f := jobs[i].InputFile; f != "" && s.InputCoV.Thesis {
			jobs[i].InputCoV = s.InputCoV.draw(fileStream(seed, f))
		}
	}
}

// fileStream is the stream a shared file's "thesis" CoVs are drawn from,
// keyed by the file's name.
func fileStream(seed uint64, file string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(file))
	return rand.New(rand.NewPCG(seed^skewStream, h.Sum64()))
}

// applyTo sets one job's CoVs, its "thesis" draws keyed by its input
// file when it names one (every job reading the file draws its CoV
// alike), else by its place in the stream.
func (s *Skew) applyTo(job *workload.JobSpec, index int, seed uint64) {
	if !s.on() {
		return
	}
	rng := rand.New(rand.NewPCG(seed^skewStream, uint64(index)))
	if job.InputFile != "" {
		rng = fileStream(seed, job.InputFile)
	}
	job.InputCoV = s.InputCoV.draw(rng)
	job.PartitionCoV = s.PartitionCoV.draw(rng)
}

const skewStream = 0x736b6577 // "skew"
