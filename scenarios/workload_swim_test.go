package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/workload"
)

// sharedTraces returns ../shared/traces relative to the module root, or
// skips the test when the traces are not there.
func sharedTraces(t *testing.T, file string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "traces", file)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("SWIM trace %s not present (%v); it is kept outside the repository", path, err)
	}
	return path
}

func TestSWIMFixture(t *testing.T) {
	s := SWIMStream{Trace: "swim_small.tsv"}
	jobs, err := s.Generate(Env{Dir: "testdata"})
	if err != nil {
		t.Fatal(err)
	}
	cpu := workload.PerMiB(100 * time.Millisecond)
	job := func(name string, submit time.Duration, in int64, reduces int, shuffle, out int64) workload.JobSpec {
		return workload.JobSpec{Name: name, Submit: submit, Priority: 2, InputBytes: in, Reduces: reduces,
			ShuffleBytes: shuffle, OutputBytes: out, MapCPU: cpu, ReduceCPU: cpu}
	}
	want := []workload.JobSpec{
		job("job0", 10*time.Second, 1000, 0, 0, 500),             // no shuffle: map-only
		job("job1", 25*time.Second, 256<<20, 2, 128<<20, 1000),   // 128 MiB / 64 MiB = 2 reduces
		job("job2", 25*time.Second, 0, 1, 1, 0),                  // 1 byte still needs a reduce
		job("job3", 40*time.Second, 1<<30, 17, 1<<30+1, 2048),    // ⌈(1 GiB + 1) / 64 MiB⌉ = 17
		job("job4", 3700*time.Second, 128<<20+1, 1, 64<<20, 100), // exactly one reduce's worth
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Fatalf("jobs:\n%+v\nwant:\n%+v", jobs, want)
	}
	maps := []int{1, 2, 1, 8, 2} // max(1, ⌈input / 128 MiB⌉)
	for i, j := range jobs {
		if got := j.MapCount(128 << 20); got != maps[i] {
			t.Errorf("%s: %d maps at 128 MiB blocks; want %d", j.Name, got, maps[i])
		}
		if err := j.Validate(); err != nil {
			t.Errorf("%s: %v", j.Name, err)
		}
	}
}

func TestSWIMKnobs(t *testing.T) {
	s := SWIMStream{Trace: "swim_small.tsv", Start: Duration(20 * time.Second), Length: Duration(time.Hour),
		TimeScale: 0.5, SizeScale: 2, MaxReduces: 10, MaxJobs: 2, BytesPerReduce: 128 << 20, Pool: "swim"}
	jobs, err := s.Generate(Env{Dir: "testdata"})
	if err != nil {
		t.Fatal(err)
	}
	// job0 is before the window; job4 (3700 s) after it; max_jobs keeps job1 and job2.
	if len(jobs) != 2 || jobs[0].Name != "job1" || jobs[1].Name != "job2" {
		t.Fatalf("jobs = %+v; want job1, job2", jobs)
	}
	// (25 s − 20 s) × 0.5 = 2.5 s; 2 × 128 MiB shuffle / 128 MiB = 2 reduces.
	if j := jobs[0]; j.Submit != 2500*time.Millisecond || j.InputBytes != 512<<20 || j.Reduces != 2 || j.Pool != "swim" {
		t.Errorf("job1 = %+v", j)
	}
	s = SWIMStream{Trace: "swim_small.tsv", MaxReduces: 10}
	jobs, _ = s.Generate(Env{Dir: "testdata"})
	if jobs[3].Reduces != 10 {
		t.Errorf("job3 has %d reduces; want the cap of 10", jobs[3].Reduces)
	}
}

// min_input and min_shuffle floor the scaled bytes as SWIM's replay
// script does: every job reads at least that much input and, with a
// shuffle floor, has a reduce; larger jobs keep their bytes.
func TestSWIMFloors(t *testing.T) {
	s := SWIMStream{Trace: "swim_small.tsv", SizeScale: 0.5, MinInput: 64 << 20, MinShuffle: 1024}
	jobs, err := s.Generate(Env{Dir: "testdata"})
	require.NoError(t, err)
	type shape struct {
		in      int64
		reduces int
		shuffle int64
	}
	var got []shape
	for _, j := range jobs {
		got = append(got, shape{j.InputBytes, j.Reduces, j.ShuffleBytes})
	}
	assert.Equal(t, []shape{
		{64 << 20, 1, 1024},         // job0: 500 B of input, no shuffle: a 64 MiB map and a reduce of 1 KiB
		{128 << 20, 1, 64 << 20},    // job1: half of 256 MiB and of 128 MiB
		{64 << 20, 1, 1024},         // job2: 0 B, 1 B of shuffle (0 when halved)
		{512 << 20, 9, 512<<20 + 1}, // job3: above both floors, ⌈(512 MiB + 1) / 64 MiB⌉ reduces
		{64<<20 + 1, 1, 32 << 20},   // job4: half of 128 MiB + 1, rounded
	}, got)
	for _, j := range jobs {
		assert.NoError(t, j.Validate(), j.Name)
	}
}

func TestReadSWIMRejects(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"j0\t1\t1\t1\t1\n", "t.tsv:1: 5 tab-separated columns; want 6"},
		{"j0\t1\t1\t1\t1\t1\nj1\tx\t1\t1\t1\t1\n", `t.tsv:2:4: column 2 (submit time) = "x": must be seconds ≥ 0`},
		{"j0\t1\t1\t1\t1\t1\n\nj1\t3\t1\t1\t1\t1\n", "t.tsv:3:6: column 3 (inter-arrival gap) = 1: the submit times say 2"},
		{"j0\t5\t5\t1\t1\t1\nj1\t3\t-2\t1\t1\t1\n", `t.tsv:2:6: column 3 (inter-arrival gap) = "-2": must be seconds ≥ 0`},
		{"j0\t1\t1\t-1\t1\t1\n", `t.tsv:1:8: column 4 (map input bytes) = "-1": must be a whole number of bytes ≥ 0`},
		{"j0\t1\t1\t1\t1.5\t1\n", `t.tsv:1:10: column 5 (shuffle bytes) = "1.5": must be a whole number`},
		{"j0\t1\t1\t1\t1\tNaN\n", `t.tsv:1:12: column 6 (reduce output bytes) = "NaN"`},
		{"\t1\t1\t1\t1\t1\n", "t.tsv:1:1: column 1 (job id) is empty"},
		{"j0\t1\t1\t1\t1\t1\nj0\t2\t1\t1\t1\t1\n", `t.tsv:2:1: column 1 (job id) = "j0": repeats line 1`},
		{"j0\tInf\tInf\t1\t1\t1\n", `t.tsv:1:4: column 2 (submit time) = "Inf"`},
	} {
		_, err := ReadSWIM("t.tsv", strings.NewReader(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("ReadSWIM(%q) = %v; want prefix %q", tc.in, err, tc.msg)
		}
	}
	recs, err := ReadSWIM("t.tsv", strings.NewReader("# comment\r\nj0\t1.5\t1.5\t1\t2\t3\r\n"))
	if err != nil || len(recs) != 1 || recs[0] != (SWIMRecord{Line: 2, ID: "j0", Submit: 1.5, Gap: 1.5, Input: 1, Shuffle: 2, Output: 3}) {
		t.Errorf("ReadSWIM with a comment and CRLF = %+v, %v", recs, err)
	}
}

func TestSWIMValidate(t *testing.T) {
	s := SWIMStream{TimeScale: -1, MaxReduces: -1, MaxJobs: -2}
	err := s.Validate()
	for _, want := range []string{"trace: missing", "time_scale = -1: must be", "max_reduces = -1", "max_jobs = -2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want it to mention %q", err, want)
		}
	}
	if _, err := (&SWIMStream{Trace: "absent.tsv"}).Generate(Env{Dir: t.TempDir()}); err == nil {
		t.Error("Generate with a missing trace succeeded")
	}
}

// The first hour of the FB-2009 sample day: 78 jobs submitted before
// 3600 s (counted once from the file with awk '$2 < 3600').
func TestSWIMRealTraceFirstHour(t *testing.T) {
	path := sharedTraces(t, "FB-2009_samples_24_times_1hr_0.tsv")
	s := SWIMStream{Trace: path, Length: Duration(time.Hour)}
	jobs, err := s.Generate(Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 78 || jobs[0].Name != "job0" || jobs[77].Name != "job77" {
		t.Fatalf("%d jobs, first %v, last %v; want 78 from job0 to job77", len(jobs), jobs[0].Name, jobs[len(jobs)-1].Name)
	}
	mapOnly := 0
	for _, j := range jobs {
		if err := j.Validate(); err != nil {
			t.Errorf("%s: %v", j.Name, err)
		}
		if j.Reduces == 0 {
			mapOnly++
		}
	}
	if mapOnly != 43 { // awk '$2 < 3600 && $5 == 0'
		t.Errorf("%d map-only jobs; want 43", mapOnly)
	}
	all, err := (&SWIMStream{Trace: path}).Generate(Env{})
	if err != nil || len(all) != 5894 {
		t.Errorf("whole day: %d jobs, %v; want 5894", len(all), err)
	}
}

// A trace not where the scenario says is found by name in
// $CLUSTEREMU_TRACES; the error says where it looked.
func TestTraceFoundInTheTracesDirectory(t *testing.T) {
	text := "[[workload.swim]]\ntrace = \"elsewhere/swim_small.tsv\"\n"
	t.Setenv(TracesEnv, "")
	_, err := Load("s.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `s.toml:2:1: workload.swim[0].trace = "elsewhere/swim_small.tsv": not found: looked at elsewhere/swim_small.tsv ($CLUSTEREMU_TRACES is not set)`)

	t.Setenv(TracesEnv, "testdata")
	sc, err := Load("s.toml", []byte(text), ".")
	require.NoError(t, err)
	assert.NotEmpty(t, sc.Config.Workload[0])
}
