package workload

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// CPUCost is the compute a task spends per byte it processes, in CPU
// seconds per byte. A task's compute time is its bytes × cost, stretched by
// the attempt's slowdown factor.
type CPUCost float64

// PerMiB returns the cost of spending d of CPU on every MiB.
func PerMiB(d time.Duration) CPUCost { return CPUCost(d.Seconds() / (1 << 20)) }

// MaxCPUCost is the highest cost a job may set: 10⁶ s of CPU per MiB
// (about a second per byte).
var MaxCPUCost = PerMiB(1e6 * time.Second)

// Time returns the CPU time for n bytes.
func (c CPUCost) Time(n int64) time.Duration {
	return time.Duration(math.Round(float64(c) * float64(n) * 1e9))
}

// Share is part i of total bytes split into n parts, 0 ≤ i < n: the
// parts of all i add up to total exactly and differ by at most a byte. A
// job's shuffle and output split this way between its tasks, and a map's
// output between the job's reduces.
func Share(total int64, n, i int) int64 {
	return total*int64(i+1)/int64(n) - total*int64(i)/int64(n)
}

// TaskModel says whether a map's input read and its compute overlap.
type TaskModel uint8

// Task models. Overlapped streams the input through the map function, so a
// map takes the longer of its read and its compute (Hadoop's record
// reader); Sequential reads the whole split, then computes.
const (
	Overlapped TaskModel = iota
	Sequential
)

// JobSpec is one job of a workload. Sizes are bytes; CPU costs are per byte
// processed (maps: input bytes; reduces: shuffle bytes received).
type JobSpec struct {
	Name     string
	Submit   time.Duration // emulated instant of submission
	Pool     string        // scheduler pool ("" = the default pool)
	Priority int           // 0 (very high) … 4 (very low); 2 is normal
	Weight   float64       // share weight within the pool; 0 means 1

	// InputFile names the file the maps read. Jobs naming the same file
	// share its blocks (and so its hotspots); "" gives the job a file of
	// its own.
	InputFile  string
	InputBytes int64
	// InputFiles, when set, are the files the maps read in place of
	// InputFile, in order and each whole: a job over several time-range
	// files of a log. Their bytes add up to InputBytes.
	InputFiles []FilePart `json:",omitempty"`
	// Maps is the number of map tasks; 0 derives it from the input as
	// max(1, ⌈InputBytes / block size⌉), one map per block.
	Maps         int
	Reduces      int
	ShuffleBytes int64 // all map output, split evenly over the reduces
	OutputBytes  int64 // all reduce output (map output when map-only)

	MapCPU    CPUCost
	ReduceCPU CPUCost
	// MapTime and ReduceTime, when positive, are a task's compute: that
	// much CPU work whatever its bytes (Hu et al.'s tasks of a fixed
	// time), in place of MapCPU or ReduceCPU.
	MapTime    time.Duration
	ReduceTime time.Duration
	Model      TaskModel
	// SlowStart is the fraction of maps that must finish before reduces
	// are scheduled; 0 takes the cluster's default.
	SlowStart float64
	// Work is the slot time the job's attempts hold when it runs alone,
	// set when the run is built for a policy told job sizes (SRPT); 0
	// otherwise.
	Work time.Duration

	// InputCoV, when positive, splits the job's input file into blocks
	// of lognormal sizes with this coefficient of variation (stddev over
	// mean), the same count and mean as the even split; each map's spill
	// follows its input. PartitionCoV likewise gives the reduces
	// lognormal shares of every map's output instead of even ones. Data
	// skew, Ananthanarayanan's thesis §1.2.1: "coefficient of variation
	// … in data size is 0.34 and 3.1 at the 50th and 90th percentiles".
	InputCoV     float64 `json:",omitzero"`
	PartitionCoV float64 `json:",omitzero"`

	// After names the jobs of its stream this one waits for: it is
	// submitted Submit after the last of them succeeded (Submit is then
	// a delay, as a closed worker's think time), and fails at once, naming
	// it, when one of them fails. A workflow, as Oozie runs one or Hive
	// and Pig compile a query into a chain of jobs.
	After []string `json:",omitempty"`
	// Output, when set, names the directory the job's output is committed
	// to, as files a later job reads (its InputFiles): one part per reduce,
	// or per map of a map-only job, named by PartName, each stored where
	// its attempt's write pipeline put it.
	Output string `json:",omitempty"`
	// OutputReplication, when > 0, is the replicas of the job's output
	// in place of the cluster's (HDFS's per-file replication, as a query's
	// intermediate tables are often written with 1).
	OutputReplication int `json:",omitzero"`
	// ReadsOutput says its InputFiles are parts of the outputs of jobs it
	// waits for: stored by their commits, never placed afresh.
	ReadsOutput bool `json:",omitzero"`
	// Upstream, set by a workflow's client, is why the job fails at once:
	// a job it waits for failed.
	Upstream string `json:",omitempty"`
}

// PartName names part i of an output directory, as MapReduce's output
// committer does: part-r-00003 for reduce 3, part-m-00003 for a map-only
// job's map 3.
func PartName(dir string, mapOnly bool, i int) string {
	kind := "r"
	if mapOnly {
		kind = "m"
	}
	return fmt.Sprintf("%s/part-%s-%05d", dir, kind, i)
}

// OutputParts is the job's output as the parts a later job reads, each
// its task's even share of OutputBytes (its reduce's, or its map's in a
// map-only job), parts of no bytes left out: a job reads them as files
// of a block or more. The job's output must be split evenly
// (ValidateRead).
func (j *JobSpec) OutputParts(blockSize int64) []FilePart {
	n := j.Reduces
	if n == 0 {
		n = j.MapCount(blockSize)
	}
	var parts []FilePart
	for i := range n {
		if b := Share(j.OutputBytes, n, i); b > 0 {
			parts = append(parts, FilePart{File: PartName(j.Output, j.Reduces == 0, i), Bytes: b})
		}
	}
	return parts
}

// ValidateRead checks that a later job can read the job's output: it
// writes some, split evenly, so its parts' sizes are known before it runs.
func (j *JobSpec) ValidateRead() error {
	switch {
	case j.OutputBytes == 0:
		return fmt.Errorf("output_bytes = 0: a job read by another must write output")
	case j.Reduces > 0 && j.PartitionCoV > 0:
		return fmt.Errorf("partition_cov = %v: a job read by another writes even parts", j.PartitionCoV)
	case j.Reduces == 0 && j.InputCoV > 0:
		return fmt.Errorf("input_cov = %v: a map-only job read by another writes even parts", j.InputCoV)
	}
	return nil
}

// FilePart is one of the files a job reads when it reads several.
type FilePart struct {
	File  string
	Bytes int64
}

// MaxCoV bounds a job's InputCoV and PartitionCoV: beyond, a lognormal's
// σ² = ln(1 + CoV²) passes 18 and one block holds nearly everything.
const MaxCoV = 1e4

// MapCount returns the job's map tasks for a block size: Maps, or a map
// a block of each input file.
func (j *JobSpec) MapCount(blockSize int64) int {
	if j.Maps > 0 {
		return j.Maps
	}
	if len(j.InputFiles) > 0 { // each file in blocks of its own
		n := 0
		for _, f := range j.InputFiles {
			n += (&JobSpec{InputBytes: f.Bytes}).MapCount(blockSize)
		}
		return n
	}
	n := j.InputBytes / blockSize // rounded up below, without overflowing near 2^63
	if j.InputBytes%blockSize != 0 {
		n++
	}
	return int(max(1, n))
}

// ValidPriority tells whether p is a job priority: 0 (very high) to 4
// (very low).
func ValidPriority(p int) bool { return p >= 0 && p <= 4 }

// PriorityRange says which priorities are valid.
const PriorityRange = "must be 0 (very high) to 4 (very low); 2 is normal"

// Validate checks the spec; the error names the field, its value and what
// is allowed.
func (j *JobSpec) Validate() error {
	switch {
	case j.Submit < 0:
		return fmt.Errorf("submit = %v: must be ≥ 0", j.Submit)
	case !ValidPriority(j.Priority):
		return fmt.Errorf("priority = %d: %s", j.Priority, PriorityRange)
	case j.Weight < 0 || math.IsNaN(j.Weight) || math.IsInf(j.Weight, 0):
		return fmt.Errorf("weight = %v: must be a finite number ≥ 0", j.Weight)
	case j.InputBytes < 0:
		return fmt.Errorf("input_bytes = %d: must be ≥ 0", j.InputBytes)
	case j.Maps < 0:
		return fmt.Errorf("maps = %d: must be ≥ 0 (0 = one per block)", j.Maps)
	case j.Reduces < 0:
		return fmt.Errorf("reduces = %d: must be ≥ 0", j.Reduces)
	case j.ShuffleBytes < 0:
		return fmt.Errorf("shuffle_bytes = %d: must be ≥ 0", j.ShuffleBytes)
	case j.OutputBytes < 0:
		return fmt.Errorf("output_bytes = %d: must be ≥ 0", j.OutputBytes)
	case !(j.MapCPU >= 0 && j.MapCPU <= MaxCPUCost):
		return fmt.Errorf("map_cpu = %v: must be a cost ≥ 0 and at most 1e6 s per MiB", float64(j.MapCPU))
	case !(j.ReduceCPU >= 0 && j.ReduceCPU <= MaxCPUCost):
		return fmt.Errorf("reduce_cpu = %v: must be a cost ≥ 0 and at most 1e6 s per MiB", float64(j.ReduceCPU))
	case j.MapTime < 0:
		return fmt.Errorf("map_time = %v: must be a duration ≥ 0", j.MapTime)
	case j.ReduceTime < 0:
		return fmt.Errorf("reduce_time = %v: must be a duration ≥ 0", j.ReduceTime)
	case j.MapTime > 0 && j.MapCPU > 0:
		return fmt.Errorf("map_time = %v: a map computes either a fixed time or per MiB, not both", j.MapTime)
	case j.ReduceTime > 0 && j.ReduceCPU > 0:
		return fmt.Errorf("reduce_time = %v: a reduce computes either a fixed time or per MiB, not both", j.ReduceTime)
	case j.Model > Sequential:
		return fmt.Errorf("model = %d: must be overlapped or sequential", j.Model)
	case !(j.SlowStart >= 0 && j.SlowStart <= 1):
		return fmt.Errorf("slow_start = %v: must be in [0, 1]", j.SlowStart)
	case !(j.InputCoV >= 0 && j.InputCoV <= MaxCoV):
		return fmt.Errorf("input_cov = %v: must be a coefficient of variation in [0, %g] (0: an even split)", j.InputCoV, MaxCoV)
	case !(j.PartitionCoV >= 0 && j.PartitionCoV <= MaxCoV):
		return fmt.Errorf("partition_cov = %v: must be a coefficient of variation in [0, %g] (0: even shares)", j.PartitionCoV, MaxCoV)
	case j.OutputReplication < 0:
		return fmt.Errorf("output_replication = %d: must be ≥ 0 (0: the cluster's hdfs.replication)", j.OutputReplication)
	case j.Reduces == 0 && j.ShuffleBytes > 0:
		return fmt.Errorf("shuffle_bytes = %d: a job without reduces has no shuffle", j.ShuffleBytes)
	}
	return j.validateFiles()
}

// validateFiles checks InputFiles: named, non-empty, distinct, adding up
// to InputBytes, and not beside InputFile.
func (j *JobSpec) validateFiles() error {
	if len(j.InputFiles) == 0 {
		return nil
	}
	switch {
	case j.InputFile != "":
		return fmt.Errorf("input_file = %q: a job reads either one file or several", j.InputFile)
	case j.Maps != 0:
		return fmt.Errorf("maps = %d: a job over several files has a map a block (maps = 0)", j.Maps)
	case j.InputCoV != 0:
		return fmt.Errorf("input_cov = %v: a job over several files reads them split evenly", j.InputCoV)
	}
	var sum int64
	for i, p := range j.InputFiles {
		switch {
		case p.File == "":
			return fmt.Errorf("input_files[%d]: a file needs a name", i)
		case p.Bytes <= 0 || p.Bytes > math.MaxInt64-sum:
			return fmt.Errorf("input_files[%d] %q = %d bytes: must be > 0 (and the sum at most 2^63-1)", i, p.File, p.Bytes)
		case slices.ContainsFunc(j.InputFiles[:i], func(q FilePart) bool { return q.File == p.File }):
			return fmt.Errorf("input_files[%d] %q: named twice", i, p.File)
		}
		sum += p.Bytes
	}
	if sum != j.InputBytes {
		return fmt.Errorf("input_bytes = %d: must be the input files' sum, %d", j.InputBytes, sum)
	}
	return nil
}
