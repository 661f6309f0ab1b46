package scenarios

import (
	"errors"
	"fmt"
	"strings"

	"clusteremu/workload"
)

// JobsStream is an explicit list of jobs, written in TOML as an array of
// tables under the key job:
//
//	[[job]]
//	name = "sort"
//	submit = "10s"
//	input_bytes = "2GiB"
//	reduces = 4
//	shuffle_bytes = "2GiB"
//	output_bytes = "2GiB"
//
// The stream's own key weights (JobWeights) draws a weight for each job
// that sets none.
type JobsStream struct {
	Jobs []JobEntry `toml:"job"`
	JobWeights
}

// JobEntry is one job of a JobsStream. Keys and defaults: name
// ("job<index>"; names must be unique), submit = "0s", pool = "",
// priority = 2 (0 very high … 4 very low), weight = 0 (= 1),
// input_file = "" (a file of its own), input_bytes = 0, maps = 0 (one per
// block), reduces = 0, shuffle_bytes = 0, output_bytes = 0,
// map_cpu_per_mib and reduce_cpu_per_mib (see CPUCosts), map_time and
// reduce_time (a task's compute whatever its bytes, instead of the
// per-MiB cost), model = "overlapped" or "sequential", slow_start = 0 (the cluster's),
// input_cov = 0 and partition_cov = 0 (see Skew; jobs reading one
// input_file must give it the same input_cov).
type JobEntry struct {
	Name         string   `toml:"name"`
	Submit       Duration `toml:"submit"`
	Pool         string   `toml:"pool"`
	Priority     *int     `toml:"priority"`
	Weight       float64  `toml:"weight"`
	InputFile    string   `toml:"input_file"`
	InputBytes   Bytes    `toml:"input_bytes"`
	Maps         int      `toml:"maps"`
	Reduces      int      `toml:"reduces"`
	ShuffleBytes Bytes    `toml:"shuffle_bytes"`
	OutputBytes  Bytes    `toml:"output_bytes"`
	Model        string   `toml:"model"`
	SlowStart    float64  `toml:"slow_start"`
	MapTime      Duration `toml:"map_time"`
	ReduceTime   Duration `toml:"reduce_time"`
	CPUCosts
	Skew
}

// models maps the TOML names of task models to their values.
var models = map[string]workload.TaskModel{"": workload.Overlapped, "overlapped": workload.Overlapped, "sequential": workload.Sequential}

// Spec converts the entry, the i-th of its stream, to a job spec. The
// error is a FieldError for the first invalid key (relative to the
// entry).
func (e *JobEntry) Spec(i int) (workload.JobSpec, error) {
	model, ok := models[e.Model]
	mapCPU, reduceCPU := e.CPUCosts.costs()
	spec := workload.JobSpec{
		Name: e.Name, Submit: e.Submit.Std(), Pool: e.Pool, Priority: 2, Weight: e.Weight,
		InputFile: e.InputFile, InputBytes: int64(e.InputBytes), Maps: e.Maps, Reduces: e.Reduces,
		ShuffleBytes: int64(e.ShuffleBytes), OutputBytes: int64(e.OutputBytes),
		MapCPU: mapCPU, ReduceCPU: reduceCPU, Model: model, SlowStart: e.SlowStart,
	}
	if spec.Name == "" {
		spec.Name = fmt.Sprintf("job%d", i)
	}
	if e.Priority != nil {
		spec.Priority = *e.Priority
	}
	if !ok {
		return spec, Invalid("model", e.Model, `must be "overlapped" or "sequential"`)
	}
	if err := e.fixedTimes(&spec); err != nil {
		return spec, err
	}
	var c checks
	if e.Skew.check(&c); len(c) > 0 {
		return spec, c[0]
	}
	if err := spec.Validate(); err != nil {
		return spec, asFieldError(err)
	}
	return spec, nil
}

// fixedTimes sets the spec's fixed task times, which replace the per-MiB
// costs: a time with its kind's cost is refused.
func (e *JobEntry) fixedTimes(spec *workload.JobSpec) error {
	if e.MapTime != 0 {
		if e.MapCPU != nil {
			return Invalid("map_time", e.MapTime, "a map computes a fixed time or map_cpu_per_mib, not both")
		}
		spec.MapTime, spec.MapCPU = e.MapTime.Std(), 0
	}
	if e.ReduceTime != 0 {
		if e.ReduceCPU != nil {
			return Invalid("reduce_time", e.ReduceTime, "a reduce computes a fixed time or reduce_cpu_per_mib, not both")
		}
		spec.ReduceTime, spec.ReduceCPU = e.ReduceTime.Std(), 0
	}
	return nil
}

// asFieldError turns a JobSpec.Validate message ("reduces = -1: must be
// ≥ 0") into a FieldError for that key.
func asFieldError(err error) *FieldError {
	msg := err.Error()
	key, rest, ok := strings.Cut(msg, " = ")
	value, rule, ok2 := strings.Cut(rest, ": ")
	if !ok || !ok2 {
		return &FieldError{Msg: msg}
	}
	return &FieldError{Key: key, Value: value, Msg: rule}
}

// Validate checks every entry and that names are unique.
func (s *JobsStream) Validate() error {
	_, err := s.specs()
	return err
}

// Generate returns the listed jobs sorted by submit time; env's seed
// draws the "thesis" CoVs.
func (s *JobsStream) Generate(env Env) ([]workload.JobSpec, error) {
	jobs, err := s.specs()
	if err != nil {
		return nil, err
	}
	for i := range jobs {
		s.Jobs[i].Skew.applyTo(&jobs[i], i, env.Seed)
	}
	if err := sameSkewPerFile(jobs); err != nil {
		return nil, err
	}
	sortBySubmit(jobs)
	return jobs, nil
}

// sameSkewPerFile refuses jobs that read one file split two ways: a
// file's blocks are stored once.
func sameSkewPerFile(jobs []workload.JobSpec) error {
	first := map[string]int{}
	var errs []error
	for i := range jobs {
		f := jobs[i].InputFile
		if f == "" {
			continue
		}
		j, seen := first[f]
		if !seen {
			first[f] = i
			continue
		}
		if jobs[j].InputCoV != jobs[i].InputCoV {
			errs = append(errs, Prefix(fmt.Sprintf("job[%d]", i), Invalid("input_cov", jobs[i].InputCoV,
				"job[%d] reads input_file %q with input_cov = %g: jobs sharing a file split it alike", j, f, jobs[j].InputCoV)))
		}
	}
	return errors.Join(errs...)
}

func (s *JobsStream) specs() ([]workload.JobSpec, error) {
	var errs []error
	if len(s.Jobs) == 0 {
		errs = append(errs, Missing("job", "list at least one [[job]]"))
	}
	var c checks
	s.JobWeights.check(&c)
	errs = append(errs, c...)
	jobs := make([]workload.JobSpec, len(s.Jobs))
	seen := map[string]int{}
	for i := range s.Jobs {
		prefix := fmt.Sprintf("job[%d]", i)
		spec, err := s.Jobs[i].Spec(i)
		if err != nil {
			errs = append(errs, Prefix(prefix, err))
		}
		if j, dup := seen[spec.Name]; dup {
			errs = append(errs, Prefix(prefix, Invalid("name", spec.Name, "repeats job[%d]", j)))
		}
		seen[spec.Name], jobs[i] = i, spec
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return jobs, nil
}
