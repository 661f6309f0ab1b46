package scenarios

import (
	"strings"
	"testing"
	"time"

	"clusteremu/workload"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streams is a document with one stream of each kind, as a later schema
// might nest them.
type streams struct {
	SWIM      SWIMStream      `toml:"swim"`
	Synthetic SyntheticStream `toml:"synthetic"`
	Jobs      JobsStream      `toml:"jobs"`
}

const jobsDoc = `[jobs]
[[jobs.job]]
name = "late"
submit = "2m"
input_bytes = "1GiB"
reduces = 2
shuffle_bytes = "512MiB"
output_bytes = "1MB"
priority = 0
model = "sequential"
map_cpu_per_mib = "0s"

[[jobs.job]]
submit = "10s"
input_file = "shared"
input_bytes = 1000
`

func TestJobsStreamFromTOML(t *testing.T) {
	var s streams
	if err := Decode("jobs.toml", []byte(jobsDoc), &s); err != nil {
		t.Fatal(err)
	}
	jobs, err := s.Jobs.Generate(Env{})
	if err != nil {
		t.Fatal(err)
	}
	cpu := workload.PerMiB(100 * time.Millisecond)
	if len(jobs) != 2 {
		t.Fatalf("%d jobs; want 2", len(jobs))
	}
	first, second := jobs[0], jobs[1]
	if first.Name != "job1" || first.Submit != 10*time.Second || first.InputFile != "shared" || first.InputBytes != 1000 ||
		first.Priority != 2 || first.MapCPU != cpu || first.Model != workload.Overlapped {
		t.Errorf("first job = %+v", first)
	}
	if second.Name != "late" || second.Submit != 2*time.Minute || second.InputBytes != 1<<30 || second.ShuffleBytes != 512<<20 ||
		second.OutputBytes != 1e6 || second.Priority != 0 || second.MapCPU != 0 || second.ReduceCPU != cpu || second.Model != workload.Sequential {
		t.Errorf("second job = %+v", second)
	}
}

func TestJobsStreamValidateWithPositions(t *testing.T) {
	doc := `[[jobs.job]]
name = "a"
priority = 7
[[jobs.job]]
name = "a"
shuffle_bytes = "1MiB"
model = "batch"
`
	var s streams
	if err := Decode("jobs.toml", []byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse("jobs.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := parsed.Locate(Prefix("jobs", s.Jobs.Validate()))
	want := strings.Join([]string{
		"jobs.toml:3:1: jobs.job[0].priority = 7: must be 0 (very high) to 4 (very low); 2 is normal",
		"jobs.toml:5:1: jobs.job[1].name = \"a\": repeats job[0]",
		"jobs.toml:7:1: jobs.job[1].model = \"batch\": must be \"overlapped\" or \"sequential\"",
	}, "\n")
	if got == nil || got.Error() != want {
		t.Errorf("Locate(Validate()):\n%v\nwant:\n%s", got, want)
	}
	if err := (&JobsStream{}).Validate(); err == nil || !strings.Contains(err.Error(), "job: missing") {
		t.Errorf("empty stream: %v", err)
	}
}

func TestStreamsRejectUnknownKeys(t *testing.T) {
	doc := `[swim]
trace = "t.tsv"
time_scale = 0.5
byte_per_reduce = "64MiB"
[synthetic]
jobs = 10
load = 0.7
[[jobs.job]]
name = "x"
inputbytes = 3
`
	var s streams
	err := Decode("s.toml", []byte(doc), &s)
	for _, want := range []string{
		"s.toml:4:1: swim.byte_per_reduce: unknown key; allowed: trace, bytes_per_reduce, max_reduces, time_scale, size_scale, min_input, min_shuffle, start, duration, max_tasks, max_jobs, load, slots, pool, map_cpu_per_mib, reduce_cpu_per_mib",
		"s.toml:10:1: jobs.job[0].inputbytes: unknown key; allowed: name, submit, pool, priority",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode = %v\nwant it to contain %s", err, want)
		}
	}
	if s.SWIM.TimeScale != 0.5 || s.Synthetic.Load != 0.7 {
		t.Errorf("known keys were not decoded: %+v", s)
	}
}

// A job's map_time and reduce_time replace the per-MiB costs: the spec
// carries the times and no cost, and a time beside its kind's cost, or
// below 0, is refused at its key.
func TestFixedTaskTimes(t *testing.T) {
	sc, err := Load("fixed.toml", []byte(`[[workload.jobs]]
job = [{ name = "A", maps = 40, map_time = "100s", reduces = 2, reduce_time = "5s" }]
`), ".")
	require.NoError(t, err)
	jobs := sc.Config.Jobs()
	require.Len(t, jobs, 1)
	assert.Equal(t, 100*time.Second, jobs[0].MapTime)
	assert.Equal(t, 5*time.Second, jobs[0].ReduceTime)
	assert.Zero(t, jobs[0].MapCPU)
	assert.Zero(t, jobs[0].ReduceCPU)

	_, err = Load("fixed.toml", []byte(`[[workload.jobs]]
[[workload.jobs.job]]
maps = 4
map_time = "10s"
map_cpu_per_mib = "1s"
[[workload.jobs.job]]
reduces = 1
reduce_time = "-1s"
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`fixed.toml:4:1: workload.jobs[0].job[0].map_time = "10s": a map computes a fixed time or map_cpu_per_mib, not both`,
		`fixed.toml:8:1: workload.jobs[0].job[1].reduce_time = "-1s": must be ≥ 0`,
	}, strings.Split(err.Error(), "\n"))
}
