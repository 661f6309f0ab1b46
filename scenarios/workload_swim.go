package scenarios

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"clusteremu/cluster"
	"clusteremu/workload"
)

// SWIMStream replays a SWIM workload trace (TSV, one job a line: job id,
// submit time s, inter-arrival gap s, map input bytes, shuffle bytes,
// reduce output bytes), as in the SWIM Facebook traces.
//
// Each record becomes one job:
//   - maps: one per HDFS block of the (scaled) input, at least one — the
//     spec leaves Maps at 0 so the cluster's block size decides;
//   - reduces: 0 when the shuffle is empty, else
//     ⌈shuffle / bytes_per_reduce⌉, at least 1 and at most max_reduces
//     (when set), as SWIM's replay script derives them;
//   - bytes: input, shuffle and output multiplied by size_scale, then
//     the input raised to min_input and the shuffle to min_shuffle (when
//     set), as SWIM's replay script floors them (64 MB of input, 1 KB of
//     shuffle) so that every job reads at least one input partition and
//     has a reduce;
//   - submit: (t − start) × time_scale, for the records with
//     start ≤ t < start + duration (all from start when duration is 0),
//     less those of more than max_tasks maps and reduces (when set),
//     then only the first max_jobs of them (all when 0).
//
// With load, the trace's times only select the records: the run draws a
// random order of them and Poisson arrivals that offer that load of the
// cluster's slots (slots: the map + reduce slots unless given), from each
// job's size alone (cluster.LoadStream), as Ghit & Epema's workloads do.
//
// TOML keys and defaults: trace (required; relative to the scenario's
// directory), bytes_per_reduce = "64MiB", max_reduces = 0 (no cap),
// time_scale = 1.0 (0.5 replays twice as fast), size_scale = 1.0,
// min_input = "0B" and min_shuffle = "0B" (no floor), start = "0s", duration = "0s" (to the end), max_tasks (no cap),
// max_jobs = 0 (all), load and slots (the trace's own arrivals), pool =
// "" (the default pool), map_cpu_per_mib and reduce_cpu_per_mib (see
// CPUCosts), weights (see JobWeights), priority = 2 (see JobPriority).
type SWIMStream struct {
	Trace          string   `toml:"trace"`
	BytesPerReduce Bytes    `toml:"bytes_per_reduce"`
	MaxReduces     int      `toml:"max_reduces"`
	TimeScale      float64  `toml:"time_scale"`
	SizeScale      float64  `toml:"size_scale"`
	MinInput       Bytes    `toml:"min_input"`
	MinShuffle     Bytes    `toml:"min_shuffle"`
	Start          Duration `toml:"start"`
	Length         Duration `toml:"duration"`
	MaxTasks       *int     `toml:"max_tasks"`
	MaxJobs        int      `toml:"max_jobs"`
	Load           *float64 `toml:"load"`
	Slots          int      `toml:"slots"`
	Pool           string   `toml:"pool"`
	CPUCosts
	Skew
	JobWeights
	JobPriority
}

// DefaultBytesPerReduce is the shuffle one reduce task receives when a
// SWIM stream does not say: 64 MiB, the figure in SWIM's own README.
const DefaultBytesPerReduce = Bytes(64 << 20)

// DefaultSWIMStream returns a SWIMStream with every default filled in
// and no trace.
func DefaultSWIMStream() SWIMStream {
	return SWIMStream{BytesPerReduce: DefaultBytesPerReduce, TimeScale: 1, SizeScale: 1}
}

// withDefaults returns s with zero fields replaced by their defaults.
func (s SWIMStream) withDefaults() SWIMStream { return fillZero(s, DefaultSWIMStream()) }

// Validate checks the configuration without reading the trace.
func (s *SWIMStream) Validate() error {
	v := s.withDefaults()
	var c checks
	c.add(v.Trace == "", Missing("trace", `give the path of a SWIM trace TSV, e.g. "../shared/traces/FB-2009_samples_24_times_1hr_0.tsv"`))
	c.add(v.BytesPerReduce < 0, Invalid("bytes_per_reduce", v.BytesPerReduce, "must be > 0"))
	c.add(v.MaxReduces < 0, Invalid("max_reduces", v.MaxReduces, "must be ≥ 0 (0 = no cap)"))
	c.add(!(v.TimeScale > 0) || !finite(v.TimeScale), Invalid("time_scale", v.TimeScale, "must be a finite number > 0"))
	c.add(!(v.SizeScale > 0) || !finite(v.SizeScale), Invalid("size_scale", v.SizeScale, "must be a finite number > 0"))
	c.add(v.MinInput < 0, Invalid("min_input", v.MinInput, "must be ≥ 0 bytes (0: no floor)"))
	c.add(v.MinShuffle < 0, Invalid("min_shuffle", v.MinShuffle, "must be ≥ 0 bytes (0: no floor; a floor gives every job a reduce)"))
	c.add(v.MaxJobs < 0, Invalid("max_jobs", v.MaxJobs, "must be ≥ 0 (0 = all)"))
	if v.MaxTasks != nil {
		c.add(*v.MaxTasks < 1, Invalid("max_tasks", *v.MaxTasks, "must be ≥ 1: the most maps and reduces a record's job may have (leave it out for no cap)"))
	}
	if v.Load != nil {
		l := *v.Load
		c.add(!(l > 0) || !finite(l), Invalid("load", l, "must be a finite number > 0: the share of the slots the arrivals offer"))
		c.add(s.TimeScale != 0 && s.TimeScale != 1, Invalid("time_scale", s.TimeScale,
			"does not apply with load, which draws the arrivals instead of stretching the trace's: leave one out"))
	}
	c.add(v.Slots < 0, Invalid("slots", v.Slots, "must be ≥ 0 (0: the cluster's map + reduce slots)"))
	c.add(v.Slots > 0 && v.Load == nil, Invalid("slots", v.Slots, "applies only with load: the slots the load is of"))
	v.Skew.check(&c)
	v.JobWeights.check(&c)
	v.JobPriority.check(&c)
	return c.err()
}

// LoadStream is how the run draws the stream's arrivals, and false when
// the stream replays the trace's own.
func (s *SWIMStream) LoadStream(key string, stream int) (cluster.LoadStream, bool) {
	if s.Load == nil {
		return cluster.LoadStream{}, false
	}
	return cluster.LoadStream{Key: key, Stream: stream, Load: *s.Load, Slots: s.Slots}, true
}

// Generate reads the trace (relative to env.Dir) and converts it; the
// seed draws only the jobs' skew (Skew).
func (s *SWIMStream) Generate(env Env) ([]workload.JobSpec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	f, path, err := openTrace(s.Trace, env.Dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := ReadSWIM(path, f)
	if err != nil {
		return nil, Invalid("trace", s.Trace, "%v", err) // at the trace = line
	}
	jobs := s.Convert(recs, env.BlockSize)
	s.Skew.apply(jobs, env.Seed)
	if s.Load != nil && len(jobs) > 0 && !slices.ContainsFunc(jobs, hasWork) {
		return nil, Invalid("load", *s.Load, "the stream's %d jobs move and compute nothing (no input, shuffle or output), "+
			"so they hold no slot time and no arrival rate offers a load", len(jobs))
	}
	return jobs, nil
}

// hasWork reports whether a job reads, shuffles or writes any byte: its
// CPU is per byte, so one that does not holds its slots for no time.
func hasWork(j workload.JobSpec) bool {
	return j.InputBytes > 0 || j.ShuffleBytes > 0 || j.OutputBytes > 0
}

// TracesEnv names the environment variable of a directory of SWIM traces:
// a trace not found where the scenario says is looked for there by its
// file name, so scenarios find the traces in any clone.
const TracesEnv = "CLUSTEREMU_TRACES"

// openTrace opens a trace named as written (relative to the scenario's
// directory), else its file name in $CLUSTEREMU_TRACES; the error says
// where it looked.
func openTrace(trace, dir string) (*os.File, string, error) {
	path := trace
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	f, err := os.Open(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return f, path, err
	}
	looked := path
	if env := os.Getenv(TracesEnv); env != "" {
		alt := filepath.Join(env, filepath.Base(trace))
		if f, err := os.Open(alt); !errors.Is(err, fs.ErrNotExist) {
			return f, alt, err
		}
		looked += " and " + alt
	} else {
		looked += " ($" + TracesEnv + " is not set)"
	}
	return nil, "", Invalid("trace", trace, "not found: looked at %s; the SWIM traces are in SWIM's workloadSuite "+
		"(github.com/SWIMProjectUCB/SWIM): set %s to the directory that holds them", looked, TracesEnv)
}

// SWIMRecord is one line of a SWIM trace. Times are seconds.
type SWIMRecord struct {
	Line                   int // 1-based line in the trace
	ID                     string
	Submit, Gap            float64
	Input, Shuffle, Output int64
}

// swimColumns names the columns in errors.
var swimColumns = [6]string{"job id", "submit time", "inter-arrival gap", "map input bytes", "shuffle bytes", "reduce output bytes"}

// ReadSWIM parses a SWIM trace, naming it name in errors. Every line must
// have six tab-separated columns: a job id (unique, not empty), a submit
// time ≥ the previous one, a gap equal to the difference from the
// previous submit time (from 0 for the first line) within 1 ms, and three
// whole byte counts ≥ 0. Empty lines and lines starting with # are
// skipped. An error names name:line and the column.
func ReadSWIM(name string, r io.Reader) ([]SWIMRecord, error) {
	var recs []SWIMRecord
	seen := map[string]int{}
	prev := 0.0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rec, err := parseSWIMLine(line, n, prev)
		if err == nil && seen[rec.ID] > 0 {
			err = columnErrorf(0, "column 1 (job id) = %q: repeats line %d", rec.ID, seen[rec.ID])
		}
		var col *columnError
		if errors.As(err, &col) {
			return nil, fmt.Errorf("%s:%d:%d: %w", name, n, col.byteColumn(line), err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		seen[rec.ID], prev = n, rec.Submit
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return recs, nil
}

func parseSWIMLine(line string, n int, prev float64) (SWIMRecord, error) {
	cols := strings.Split(line, "\t")
	if len(cols) != len(swimColumns) {
		return SWIMRecord{}, fmt.Errorf("%d tab-separated columns; want 6: %s", len(cols), strings.Join(swimColumns[:], ", "))
	}
	rec := SWIMRecord{Line: n, ID: cols[0]}
	if rec.ID == "" {
		return rec, columnErrorf(0, "column 1 (job id) is empty")
	}
	var err error
	if rec.Submit, err = swimSeconds(cols, 1); err != nil {
		return rec, err
	}
	if rec.Gap, err = swimSeconds(cols, 2); err != nil {
		return rec, err
	}
	if math.Abs(rec.Submit-prev-rec.Gap) > 1e-3 {
		return rec, columnErrorf(2, "column 3 (%s) = %s: the submit times say %g (%g − %g)",
			swimColumns[2], cols[2], rec.Submit-prev, rec.Submit, prev)
	}
	for i, dst := range []*int64{&rec.Input, &rec.Shuffle, &rec.Output} {
		if *dst, err = swimBytes(cols, 3+i); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// columnError is a bad value in a trace line's column col (from 0).
type columnError struct {
	col int
	msg string
}

func columnErrorf(col int, format string, args ...any) error {
	return &columnError{col: col, msg: fmt.Sprintf(format, args...)}
}

func (e *columnError) Error() string { return e.msg }

// byteColumn is the 1-based byte column where the column starts in line.
func (e *columnError) byteColumn(line string) int {
	at := 1
	for i, c := range strings.SplitN(line, "\t", e.col+1) {
		if i == e.col {
			break
		}
		at += len(c) + 1
	}
	return at
}

func swimSeconds(cols []string, i int) (float64, error) {
	f, err := strconv.ParseFloat(cols[i], 64)
	if err != nil || !finite(f) || f < 0 || f > float64(math.MaxInt64/int64(time.Second)) {
		return 0, columnErrorf(i, "column %d (%s) = %q: must be seconds ≥ 0", i+1, swimColumns[i], cols[i])
	}
	return f, nil
}

func swimBytes(cols []string, i int) (int64, error) {
	b, err := strconv.ParseInt(cols[i], 10, 64)
	if err != nil || b < 0 {
		return 0, columnErrorf(i, "column %d (%s) = %q: must be a whole number of bytes ≥ 0", i+1, swimColumns[i], cols[i])
	}
	return b, nil
}

// Convert turns trace records into jobs by the rules in SWIMStream's
// documentation, a map per HDFS block of blockSize bytes. s must be
// valid.
func (s *SWIMStream) Convert(recs []SWIMRecord, blockSize int64) []workload.JobSpec {
	v := s.withDefaults()
	mapCPU, reduceCPU := v.CPUCosts.costs()
	start, end := v.Start.Std().Seconds(), math.Inf(1)
	if v.Length > 0 {
		end = start + v.Length.Std().Seconds()
	}
	var jobs []workload.JobSpec
	for _, r := range recs {
		if r.Submit < start || r.Submit >= end || (v.MaxJobs > 0 && len(jobs) == v.MaxJobs) {
			continue
		}
		shuffle := max(v.scale(r.Shuffle), int64(v.MinShuffle))
		job := workload.JobSpec{
			Name: r.ID, Submit: seconds((r.Submit - start) * v.TimeScale), Pool: v.Pool, Priority: 2,
			InputBytes: max(v.scale(r.Input), int64(v.MinInput)), Reduces: v.reduces(shuffle), ShuffleBytes: shuffle,
			OutputBytes: v.scale(r.Output), MapCPU: mapCPU, ReduceCPU: reduceCPU,
		}
		if v.MaxTasks != nil && blockSize > 0 && int64(job.MapCount(blockSize))+int64(job.Reduces) > int64(*v.MaxTasks) {
			continue
		}
		if v.Load != nil {
			job.Submit = 0 // drawn when the run is built (cluster.LoadStream)
		}
		jobs = append(jobs, job)
	}
	sortBySubmit(jobs)
	return jobs
}

// scale multiplies a byte count by size_scale, rounding and saturating.
func (s *SWIMStream) scale(b int64) int64 {
	f := math.Round(float64(b) * s.SizeScale)
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// reduces applies the reduce-count rule to a (scaled) shuffle size.
func (s *SWIMStream) reduces(shuffle int64) int {
	if shuffle == 0 {
		return 0
	}
	per := int64(s.BytesPerReduce)
	n := shuffle/per + min(shuffle%per, 1)
	if s.MaxReduces > 0 {
		n = min(n, int64(s.MaxReduces))
	}
	return int(max(n, 1))
}
