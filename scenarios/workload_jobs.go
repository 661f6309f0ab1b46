package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"clusteremu/cluster"
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
// that sets none; every and count repeat the list (a workflow run each
// night: see Every).
type JobsStream struct {
	Jobs []JobEntry `toml:"job"`
	// Every and Count repeat the list: run n of Count has each job named
	// "<name>-<n>", waiting for and reading the jobs of its own run, and
	// the jobs that wait for none submitted n × Every after their submit
	// (a nightly workflow over a week). Count 0 is one run.
	Every Duration `toml:"every,omitzero"`
	Count int      `toml:"count,omitzero"`
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
//
// A workflow: after = ["name", …] names jobs of the stream this one waits
// for, and reads = ["name", …] jobs whose output it reads (and waits for),
// in place of its own input. A job that waits is submitted its submit
// after the last it waits for succeeded, and fails when one fails.
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
	// OutputReplication is the replicas of the job's output (0: the
	// cluster's hdfs.replication).
	OutputReplication int      `toml:"output_replication,omitzero"`
	After             []string `toml:"after,omitempty"`
	Reads             []string `toml:"reads,omitempty"`
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
		MapCPU: mapCPU, ReduceCPU: reduceCPU, Model: model, SlowStart: e.SlowStart, OutputReplication: e.OutputReplication,
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

// Validate checks every entry and that names are unique, and the runs.
func (s *JobsStream) Validate() error {
	_, err := s.specs()
	return errors.Join(err, s.checkRuns())
}

// Generate returns the listed jobs sorted by submit time, or a
// workflow's in the file's order, run after run; env's seed draws the
// "thesis" CoVs.
func (s *JobsStream) Generate(env Env) ([]workload.JobSpec, error) {
	if err := s.checkRuns(); err != nil {
		return nil, err
	}
	for i := range s.Jobs {
		if r := s.Jobs[i].OutputReplication; r > env.Nodes && env.Nodes > 0 {
			return nil, Prefix(fmt.Sprintf("job[%d]", i), Invalid("output_replication", r, "more replicas than the cluster's %d nodes", env.Nodes))
		}
	}
	if s.Count > 1 {
		if _, err := s.generate(env); err != nil {
			return nil, err // the list's own errors, at its keys
		}
		runs := s.runs()
		return runs.generate(env)
	}
	return s.generate(env)
}

// MaxRuns bounds a jobs stream's count.
const MaxRuns = 100_000

// checkRuns checks every and count.
func (s *JobsStream) checkRuns() error {
	var c checks
	c.add(s.Count < 0 || s.Count > MaxRuns, Invalid("count", s.Count, "must be 0 or 1 (one run) … %d", MaxRuns))
	c.add(s.Count > 1 && s.Every <= 0, Invalid("every", s.Every, "must be > 0 with count = %d: the period between runs", s.Count))
	c.add(s.Every != 0 && s.Count <= 1, Invalid("every", s.Every, "repeats the list count times: set count > 1"))
	if len(c) > 0 {
		return errors.Join(c...)
	}
	// A copy "<name>-<n>" repeats a name of the list when the list has a
	// name that reads so, its n below count.
	index := map[string]int{}
	for i := range s.Jobs {
		index[s.Jobs[i].name(i)] = i
	}
	for k := range s.Jobs {
		name := s.Jobs[k].name(k)
		cut := strings.LastIndexByte(name, '-')
		if cut < 0 {
			continue
		}
		n, err := strconv.Atoi(name[cut+1:])
		if i, ok := index[name[:cut]]; ok && err == nil && n >= 0 && n < s.Count && strconv.Itoa(n) == name[cut+1:] {
			return Prefix(fmt.Sprintf("job[%d]", i), Invalid("name", name[:cut], "run %d's copy would be named %q, which names job[%d] of the list", n, name, k))
		}
	}
	return nil
}

// name is the entry's name, or its default as the i-th of its stream.
func (e *JobEntry) name(i int) string {
	if e.Name == "" {
		return fmt.Sprintf("job%d", i)
	}
	return e.Name
}

// runs is the stream's list repeated Count times (see JobsStream.Every).
func (s *JobsStream) runs() *JobsStream {
	out := &JobsStream{JobWeights: s.JobWeights}
	for n := range s.Count {
		run := func(name string) string { return fmt.Sprintf("%s-%d", name, n) }
		for i, e := range s.Jobs {
			e.Name = run(e.name(i))
			e.After, e.Reads = mapNames(e.After, run), mapNames(e.Reads, run)
			if len(e.After)+len(e.Reads) == 0 {
				e.Submit += Duration(time.Duration(n) * s.Every.Std())
			}
			out.Jobs = append(out.Jobs, e)
		}
	}
	return out
}

func mapNames(names []string, f func(string) string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = f(n)
	}
	return out
}

// generate is Generate for one run of the list.
func (s *JobsStream) generate(env Env) ([]workload.JobSpec, error) {
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
	if err := s.link(jobs, env); err != nil {
		return nil, err
	}
	if !cluster.Workflow(jobs) {
		sortBySubmit(jobs)
	} // a workflow's jobs keep the file's order, their IDs with it: most submit times are delays
	return jobs, nil
}

// link makes the stream a workflow: each job's After is what it names in
// after and reads, and a job that reads others reads their output parts,
// committed under env.Name/<name>. The names must be the stream's, and
// the jobs must not wait for one another in a cycle.
func (s *JobsStream) link(jobs []workload.JobSpec, env Env) error {
	index := map[string]int{}
	for i := range jobs {
		index[jobs[i].Name] = i
	}
	var errs []error
	for i := range s.Jobs {
		e := &s.Jobs[i]
		prefix := fmt.Sprintf("job[%d]", i)
		for _, key := range []struct {
			name  string
			names []string
		}{{"after", e.After}, {"reads", e.Reads}} {
			for k, name := range key.names {
				j, ok := index[name]
				switch {
				case !ok:
					errs = append(errs, Prefix(prefix, Invalid(key.name, key.names, "names no job of the stream: %q", name)))
				case j == i:
					errs = append(errs, Prefix(prefix, Invalid(key.name, key.names, "names the job itself")))
				case slices.Contains(key.names[:k], name) || key.name == "reads" && slices.Contains(e.After, name):
					errs = append(errs, Prefix(prefix, Invalid(key.name, key.names, "names %q twice", name)))
				}
			}
		}
		if len(e.Reads) > 0 && (e.InputFile != "" || e.InputBytes != 0 || e.Maps != 0 || e.InputCoV != (CoV{})) {
			errs = append(errs, Prefix(prefix, Invalid("reads", e.Reads,
				"reads its input from those jobs' output: give no input_file, input_bytes, maps or input_cov")))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for i := range s.Jobs {
		e := &s.Jobs[i]
		jobs[i].After = slices.Concat(e.After, e.Reads)
		if len(e.Reads) == 0 {
			continue
		}
		jobs[i].InputBytes, jobs[i].InputFiles, jobs[i].ReadsOutput = 0, nil, true
		for _, name := range e.Reads {
			p := &jobs[index[name]]
			if err := p.ValidateRead(); err != nil {
				errs = append(errs, Prefix(fmt.Sprintf("job[%d]", index[name]), asFieldError(err)))
				continue
			}
			p.Output = env.Name + "/" + p.Name
			for _, part := range p.OutputParts(env.BlockSize) {
				jobs[i].InputFiles = append(jobs[i].InputFiles, part)
				jobs[i].InputBytes += part.Bytes
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if cycle := workflowCycle(jobs, index); cycle != nil {
		return Prefix(fmt.Sprintf("job[%d]", cycle[0]), Invalid("after", jobs[cycle[0]].After,
			"the jobs wait for one another in a cycle: %s", cycleNames(jobs, cycle)))
	}
	return nil
}

// workflowCycle returns the jobs of a cycle of After, the first job again
// last, or nil when there is none (a depth-first search).
func workflowCycle(jobs []workload.JobSpec, index map[string]int) []int {
	const (
		unseen = iota
		open
		closed
	)
	state := make([]int, len(jobs))
	var path []int
	var visit func(i int) []int
	visit = func(i int) []int {
		state[i] = open
		path = append(path, i)
		for _, name := range jobs[i].After {
			j := index[name]
			switch state[j] {
			case open:
				return append(slices.Clone(path[slices.Index(path, j):]), j)
			case unseen:
				if c := visit(j); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = closed
		return nil
	}
	for i := range jobs {
		if state[i] == unseen {
			if c := visit(i); c != nil {
				return c
			}
		}
	}
	return nil
}

func cycleNames(jobs []workload.JobSpec, cycle []int) string {
	names := make([]string, len(cycle))
	for k, i := range cycle {
		names[k] = fmt.Sprintf("%q", jobs[i].Name)
	}
	return strings.Join(names, " → ")
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
