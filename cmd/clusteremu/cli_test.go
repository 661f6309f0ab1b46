package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad input ends with exit 2 before anything runs, and the message names
// the file, line and column or the flag, and what is allowed.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeScenario(t, smallScenario)
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	empty := write("empty.toml", "")
	rate := write("rate.toml", "[cluster]\nnic = 1000\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--out is a file", []string{"run", good, "--out", file}, "--out " + file + ": exists and is not a directory"},
		{"--out is empty", []string{"run", good, "--out", ""}, "--out: give a directory"},
		{"--trace-flows without --out", []string{"run", good, "--trace-flows"}, "--trace-flows needs --out DIR"},
		{"--out under a file", []string{"run", good, "--out", filepath.Join(file, "sub")}, "--out: mkdir " + file + ": not a directory"},
		{"--events on a scaled clock", []string{"run", good, "--out", dir, "--events", "--set", "run.clock=scaled", "--set", "run.speedup=600"},
			"--events needs deterministic virtual time"},
		{"a seed TOML cannot hold", []string{"run", good, "--seed", "18446744073709551615"}, "a seed is an integer from 0 to 9223372036854775807"},
		{"a negative seed", []string{"run", good, "--set", "run.seed=-1"}, "run.seed"},
		{"an empty scenario", []string{"run", empty}, empty + ":1:1: workload: no workload"},
		{"a bare rate", []string{"validate", rate}, rate + ":2:1: cluster.nic = 1000: a rate needs a unit"},
		{"validate --set", []string{"validate", "--set", "cluster.nic=1000", good}, "cluster.nic"},
		{"shrink without a seed", []string{"shrink", good}, "shrink needs --schedule-seed S"},
		{"shrink --out into a directory", []string{"shrink", good, "--schedule-seed", "3", "--out", dir}, "--out " + dir + ": is a directory"},
		{"explore --parallel 0", []string{"explore", good, "--parallel", "0"}, "--parallel 0: must be ≥ 1"},
		{"explore --strategy unknown", []string{"explore", good, "--strategy", "dfs"}, `--strategy "dfs": must be "random" or "pct"`},
		{"explore --strategy pct --depth 0", []string{"explore", good, "--strategy", "pct", "--depth", "0"}, "run.pct_depth = 0: must be from 1 to 100"},
		{"pct without its steps", []string{"run", good, "--set", "run.strategy=pct", "--set", "run.pct_depth=2"}, "run.pct_steps = 0: must be ≥ 1"},
		{"pct_depth without pct", []string{"run", good, "--set", "run.pct_depth=2"}, `run.strategy = "": must be "pct"`},
		{"explore past the last seed", []string{"explore", good, "--first", "9223372036854775807", "--seeds", "2"}, "the last seed passes"},
		{"reproduce a plain scenario", []string{"reproduce", good}, "not a reproduction: reproduce needs [[expect]] blocks, and a [reproduce] table"},
		{"compare --out is a file", []string{"compare", good, "--set", "heartbeat.interval=1s,3s", "--out", file}, "exists and is not a directory"},
		{"an unknown flag", []string{"run", "--jobz", "3"}, "flag provided but not defined: -jobz"},
		{"help for no command", []string{"help", "fly"}, `unknown command "fly"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			assert.Equal(t, 2, run(tc.args, &out, &errs), "%s%s", out.String(), errs.String())
			assert.Contains(t, errs.String(), tc.want)
			assert.NotContains(t, out.String(), "jobs      ", "nothing ran")
		})
	}
}

// Each command's flags are one -h or `help COMMAND` away, on stdout,
// exit 0.
func TestHelpForEachCommand(t *testing.T) {
	for _, c := range commands {
		var out, errs bytes.Buffer
		assert.Equal(t, 0, run([]string{"help", c.name}, &out, &errs), errs.String())
		assert.Contains(t, out.String(), "usage: clusteremu "+c.name)
		if c.name == "help" || c.name == "version" {
			continue
		}
		var dash bytes.Buffer
		assert.Equal(t, 0, run([]string{c.name, "-h"}, &dash, &errs), errs.String())
		assert.Equal(t, out.String(), dash.String())
		assert.Contains(t, out.String(), "\nflags:\n  -")
	}
	var out, errs bytes.Buffer
	assert.Equal(t, 0, run([]string{"run", "--help"}, &out, &errs))
	assert.Contains(t, out.String(), "-until")
	assert.Empty(t, errs.String())
}

// A reused output directory keeps nothing of the run before; other files
// there stay. Every file is whole: written under a temporary name and
// renamed.
func TestOutputsReplaceAnEarlierRunsOwn(t *testing.T) {
	dir := t.TempDir()
	path := writeScenario(t, smallScenario)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", path, "--quiet", "--out", dir, "--events"}, &out, &errs), errs.String())
	require.FileExists(t, filepath.Join(dir, "events.jsonl"))
	mine := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(mine, []byte("mine"), 0o644))

	require.Equal(t, 0, run([]string{"run", path, "--quiet", "--out", dir}, &out, &errs), errs.String())
	assert.NoFileExists(t, filepath.Join(dir, "events.jsonl"), "the earlier run's log is gone")
	assert.FileExists(t, mine)
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	assert.ElementsMatch(t, []string{"summary.json", "run.json", "jobs.csv", "tasks.csv", "trace.json", "report.html", "offers.jsonl", "links.csv", "scenario.toml", "notes.txt"}, got,
		"no temporary file is left")
}

// The output directory holds the scenario as it ran, which runs again to
// the same results, and a failed run's reason.
func TestOutputsHoldTheResolvedScenarioAndTheFailure(t *testing.T) {
	dir := t.TempDir()
	path := writeScenario(t, smallScenario)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", path, "--quiet", "--out", dir, "--seed", "7", "--set", "heartbeat.interval=2s"}, &out, &errs), errs.String())
	again := filepath.Join(t.TempDir(), "again")
	require.Equal(t, 0, run([]string{"run", filepath.Join(dir, "scenario.toml"), "--quiet", "--out", again}, &out, &errs), errs.String())
	for _, name := range []string{"jobs.csv", "tasks.csv"} {
		a, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(again, name))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), name)
	}
	var config bytes.Buffer
	require.Equal(t, 0, run([]string{"config", path, "--seed", "7", "--set", "heartbeat.interval=2s"}, &config, &errs), errs.String())
	saved, err := os.ReadFile(filepath.Join(dir, "scenario.toml"))
	require.NoError(t, err)
	assert.Equal(t, string(saved), config.String(), "config prints what run saves")
	assert.Contains(t, config.String(), "interval = \"2s\"")
}

// compare --out writes the comparison as CSV and JSON.
func TestCompareWritesItsTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cmp")
	var out, errs bytes.Buffer
	path := writeScenario(t, smallScenario)
	require.Equal(t, 0, run([]string{"compare", path, "--set", "heartbeat.interval=1s,30s", "--out", dir}, &out, &errs), errs.String())
	data, err := os.ReadFile(filepath.Join(dir, "comparison.csv"))
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	assert.Equal(t, "metric,heartbeat.interval=1s,heartbeat.interval=30s", lines[0])
	assert.Equal(t, "jobs.succeeded,12,12", lines[1])
	var doc struct {
		Variants []struct {
			Name    string             `json:"name"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"variants"`
	}
	data, err = os.ReadFile(filepath.Join(dir, "comparison.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Variants, 2)
	assert.Equal(t, 12.0, doc.Variants[1].Metrics["jobs.succeeded"])
}

// Interrupted, compare, reproduce and shrink stop, keep what was done and
// exit 130.
func TestEveryLongCommandStopsOnInterrupt(t *testing.T) {
	path := writeScenario(t, smallScenario+"\n[reproduce]\nsource = \"a test\"\n")
	for _, args := range [][]string{
		{"compare", path, "--set", "heartbeat.interval=1s,30s"},
		{"reproduce", path},
	} {
		pendingInterrupt(t)
		var out, errs bytes.Buffer
		assert.Equal(t, 130, run(args, &out, &errs), "%v: %s%s", args, out.String(), errs.String())
		assert.Contains(t, errs.String(), "interrupted")
	}
}

// A run cut off at its deadline keeps what was running: each cut-off
// job's start and each running attempt, as cut off, in tasks.csv.
func TestCutOffRunsKeepWhatWasRunning(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	run([]string{"run", "--quiet", "--until", "2m", "--set", "run.slowdown=false", "--out", dir}, &out, &errs)
	jobs := readCSV(t, filepath.Join(dir, "jobs.csv"))
	started := 0
	for _, row := range jobs[1:] {
		if row["status"] == "cut-off" && row["start"] != "" {
			started++
			assert.Equal(t, "120.000000", row["finish"])
		}
	}
	assert.Positive(t, started, "cut-off jobs that had started say when")
	cut := 0
	for _, row := range readCSV(t, filepath.Join(dir, "tasks.csv"))[1:] {
		if row["outcome"] == "cut-off" {
			cut++
			assert.Equal(t, "120.000000", row["end"])
			assert.NotEmpty(t, row["start"])
		}
		if row["kind"] == "reduce" {
			assert.Equal(t, "-", row["locality"], "a reduce has no input locality")
		}
	}
	assert.Positive(t, cut)
}

// A run whose jobs all fail says why, and shows no response times.
func TestRunPrintsWhyJobsFailed(t *testing.T) {
	var out, errs bytes.Buffer
	run([]string{"run", "--quiet", "--set", "cluster.intermediate_space=1MiB", "--set", "run.slowdown=false"}, &out, &errs)
	assert.Contains(t, out.String(), "failed    200× (job 1 first): a map spills 134217728 bytes, more than any node's intermediate space (1048576 bytes at most)")
	assert.Contains(t, out.String(), "response  none: no job succeeded")
	assert.NotContains(t, out.String(), "mean 0.0s")
}

// readCSV reads a CSV file as rows keyed by the header.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	rows := make([]map[string]string, len(records))
	for i, rec := range records {
		rows[i] = map[string]string{}
		for j, v := range rec {
			rows[i][records[0][j]] = v
		}
	}
	return rows
}

// --heap-trace writes a line every --heap-every of emulated time while
// the run goes, and --memprofile-at a profile at its instant; the run
// prints what it prints without them.
func TestHeapTraceLinesAtEmulatedInstants(t *testing.T) {
	dir := t.TempDir()
	trace, prof := filepath.Join(dir, "heap.csv"), filepath.Join(dir, "heap.prof")
	var plain, out, errs bytes.Buffer
	args := []string{"run", "--quiet", "--until", "3m", "--set", "run.slowdown=false"}
	code := run(args, &plain, &errs) // the expectations of a whole run fail
	args = append(args, "--heap-trace", trace, "--heap-every", "1m", "--memprofile", prof, "--memprofile-at", "90s")
	require.Equal(t, code, run(args, &out, &errs), errs.String())
	assert.Equal(t, withoutWall(plain.String()), withoutWall(out.String()))
	assert.Contains(t, out.String(), "time      3m0s emulated")
	rows := readCSV(t, trace)
	require.Len(t, rows, 4, "the header, 1m, 2m and 3m")
	for i, row := range rows[1:] {
		assert.Equal(t, strconv.Itoa(60*(i+1)), row["at_s"])
		assert.NotEqual(t, "0", row["heap_live_bytes"])
		assert.NotEqual(t, "0", row["jobs_running"])
	}
	st, err := os.Stat(prof)
	require.NoError(t, err)
	assert.Positive(t, st.Size())

	assert.Equal(t, exitUsage, run([]string{"run", "--memprofile-at", "1m"}, &out, &errs))
	assert.Contains(t, errs.String(), "--memprofile-at needs --memprofile FILE")
}

// withoutWall drops the summary's lines that show wall time.
func withoutWall(summary string) string {
	var kept []string
	for _, line := range strings.Split(summary, "\n") {
		if !strings.Contains(line, "wall") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// A run cut before some of its faults writes a scenario.toml that runs
// the same run again: faults.toml's partition and crash come past a 100 s
// cut, and a random crash stream and busy periods are drawn before it.
func TestCutRunsScenarioRunsAgain(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "examples", "faults.toml"))
	require.NoError(t, err)
	path := writeScenario(t, string(text)+`
[stragglers]
busy_rate = 30

[[fault]]
kind = "crash"
rate = 60
window = ["0s", "1h"]
restart_after = "1m"
`)
	first, again := t.TempDir(), t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", path, "--quiet", "--until", "100s", "--out", first}, &out, &errs), errs.String())
	require.Equal(t, 0, run([]string{"run", filepath.Join(first, "scenario.toml"), "--quiet", "--out", again}, &out, &errs), errs.String())
	for _, name := range []string{"jobs.csv", "tasks.csv", "trace.json"} {
		a, err := os.ReadFile(filepath.Join(first, name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(again, name))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(a, b), "%s differs", name)
	}
	assert.Regexp(t, `faults +\d+ fired \(crash [1-9]`, out.String())
}
