package scenarios

import (
	"cmp"
	"errors"
	"math"
	"reflect"
	"slices"
	"time"

	"clusteremu/workload"
)

// Stream is the configuration of one workload stream: SWIMStream,
// SyntheticStream or JobsStream. Zero fields take their documented
// defaults, so a stream decoded from an array of tables needs no
// pre-filled value.
type Stream interface {
	// Validate checks the configuration; every problem is a FieldError
	// named by its TOML key, all joined with errors.Join.
	Validate() error
	// Generate returns the stream's jobs sorted by submit time (ties keep
	// generation order). It is a pure function of the configuration and
	// env.
	Generate(env Env) ([]workload.JobSpec, error)
}

var (
	_ Stream = (*SWIMStream)(nil)
	_ Stream = (*SyntheticStream)(nil)
	_ Stream = (*JobsStream)(nil)
)

// Env is what a stream may draw on when it generates jobs.
type Env struct {
	// Dir is the directory relative file names (SWIM traces) are
	// resolved against: the scenario file's directory.
	Dir string
	// Seed is the workload seed; a stream derives its own generators from
	// it, so equal seeds give equal jobs.
	Seed uint64
	// BlockSize is the cluster's HDFS block size, which decides a job's
	// maps (a SWIM stream's max_tasks counts them).
	BlockSize int64
	// Nodes is the cluster's nodes, which a job's output_replication may
	// not pass.
	Nodes int
	// Name prefixes the files a stream names for its jobs to share (a
	// synthetic stream's popular files: "s0-file1").
	Name string
}

// DefaultCPUPerMiB is the compute a task spends per MiB it processes when
// a stream does not say: 100 ms, so a map over a 128 MiB block computes
// for 12.8 s, inside the 9–60 s that Zaharia et al. report for their maps.
const DefaultCPUPerMiB = Duration(100 * time.Millisecond)

// CPUCosts is the compute model shared by the generated streams, in CPU
// time per MiB processed (maps: input; reduces: shuffle received).
// Absent keys take DefaultCPUPerMiB; "0s" means pure I/O.
type CPUCosts struct {
	MapCPU    *Duration `toml:"map_cpu_per_mib"`
	ReduceCPU *Duration `toml:"reduce_cpu_per_mib"`
}

// costs returns the per-byte costs with defaults applied.
func (c CPUCosts) costs() (mapCPU, reduceCPU workload.CPUCost) {
	get := func(d *Duration) workload.CPUCost {
		if d == nil {
			return workload.PerMiB(DefaultCPUPerMiB.Std())
		}
		return workload.PerMiB(d.Std())
	}
	return get(c.MapCPU), get(c.ReduceCPU)
}

// fillZero returns v with every zero top-level field of the struct
// replaced by the same field of def: the "absent or zero means default"
// rule of the stream configurations.
func fillZero[T any](v, def T) T {
	rv, dv := reflect.ValueOf(&v).Elem(), reflect.ValueOf(def)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			rv.Field(i).Set(dv.Field(i))
		}
	}
	return v
}

// sortBySubmit orders jobs by submit time, keeping the order of ties.
func sortBySubmit(jobs []workload.JobSpec) {
	slices.SortStableFunc(jobs, func(a, b workload.JobSpec) int { return cmp.Compare(a.Submit, b.Submit) })
}

// seconds converts seconds to a Duration, rounding to the nanosecond and
// saturating instead of overflowing.
func seconds(s float64) time.Duration {
	ns := math.Round(s * 1e9)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// checks collects the FieldErrors of a Validate method.
type checks []error

// add records an error for key when bad holds.
func (c *checks) add(bad bool, err *FieldError) {
	if bad {
		*c = append(*c, err)
	}
}

func (c checks) err() error { return errors.Join(c...) }

// finite reports whether f is a finite number.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
