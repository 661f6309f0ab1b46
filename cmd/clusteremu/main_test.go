package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// asCLI, set in a child's environment, makes the test binary the
// command itself: bench's test runs it as the cases' processes.
const asCLI = "CLUSTEREMU_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

func TestUnknownCommandFails(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"frobnicate"}, &out, &errs))
	assert.Contains(t, errs.String(), `unknown command "frobnicate"`)
}

func TestVersion(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 0, run([]string{"version"}, &out, &errs))
	assert.Equal(t, "clusteremu dev\n", out.String())
}

func TestRunDefaultScenario(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run"}, &out, &errs)
	assert.Equal(t, 0, code, errs.String())
	assert.Contains(t, out.String(), "jobs      200 submitted, 200 succeeded, 0 failed, 0 cut off")
	assert.Contains(t, out.String(), "expect    2 of 2 passed")
	// Slowdowns are against each job's reference run: none is below 1
	// beyond placement luck (a job whose tasks land on better-placed
	// slots under contention than alone; see cluster/solo.go).
	m := regexp.MustCompile(`slowdown  mean (\S+)  p50 (\S+)  p95 (\S+)`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	for _, v := range m[1:] {
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, f, 0.98, v)
	}
}

func TestRunWritesIdenticalOutputs(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	scenario := writeScenario(t, smallScenario)
	for _, dir := range dirs {
		var out, errs bytes.Buffer
		// Flags stand before and after the scenario.
		code := run([]string{"run", "--seed", "7", scenario, "--out", dir}, &out, &errs)
		require.Equal(t, 0, code, errs.String())
	}
	assertSameFiles(t, dirs[0], dirs[1], "summary.json", "jobs.csv", "tasks.csv", "trace.json")
	jobs, err := os.ReadFile(filepath.Join(dirs[0], "jobs.csv"))
	require.NoError(t, err)
	assert.Equal(t, 1+12, strings.Count(string(jobs), "\n"), "a header and 12 jobs")
	rows, err := csv.NewReader(bytes.NewReader(jobs)).ReadAll()
	require.NoError(t, err)
	col := slices.Index(rows[0], "slowdown")
	require.GreaterOrEqual(t, col, 0, rows[0])
	for _, row := range rows[1:] {
		sd, err := strconv.ParseFloat(row[col], 64)
		require.NoError(t, err, row)
		assert.GreaterOrEqual(t, sd, 0.98, row)
	}
	assert.FileExists(t, filepath.Join(dirs[0], "run.json"))
}

const smallScenario = `
[cluster]
racks = 2
nodes_per_rack = 3

[[workload.jobs]]
[[workload.jobs.job]]
name = "sort"
input_bytes = "1GiB"
reduces = 2
shuffle_bytes = "1GiB"
output_bytes = "1GiB"

[[workload.synthetic]]
jobs = 11
interarrival = "20s"
sizes = "pareto"
max_maps = 20

[[expect]]
metric = "jobs.succeeded"
op = "=="
value = 12
`

// assertSameFiles checks that two run directories hold the same bytes in
// the named files.
func assertSameFiles(t *testing.T, a, b string, names ...string) {
	t.Helper()
	for _, name := range names {
		x, err := os.ReadFile(filepath.Join(a, name))
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(b, name))
		require.NoError(t, err)
		assert.Equal(t, string(x), string(y), name)
	}
}

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.toml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestRunWritesEventLog(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"run", writeScenario(t, smallScenario), "--events", "--out", dir}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	events, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	require.NoError(t, err)
	first := strings.SplitN(string(events), "\n", 2)[0]
	assert.Regexp(t, `^\{"step":1,"at":\d+,"sender":"[^"]+","receiver":"[^"]+","type":"[^"]+"\}$`, first)
	for i, line := range strings.Split(strings.TrimSpace(string(events)), "\n") {
		var e cluster.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		require.Equal(t, uint64(i+1), e.Step, "deliveries are numbered in order: %s", line)
	}
	assert.Contains(t, string(events), `"type":"actors.SubmitJob"`)
	choices, err := os.ReadFile(filepath.Join(dir, "choices.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, strings.Count(string(choices), "\n"), strings.Count(string(events), "\n"),
		"every delivery, user or system message, is one choice and one event")
	assert.Contains(t, string(events), `"sender":"system","receiver":"coordinator","type":"actor.Started"`, "lifecycle messages are deliveries too")
}

func TestRunFailsOnExpectation(t *testing.T) {
	var out, errs bytes.Buffer
	path := writeScenario(t, strings.Replace(smallScenario, "value = 12", "value = 13", 1))
	assert.Equal(t, 1, run([]string{"run", path}, &out, &errs))
	assert.Contains(t, out.String(), "FAIL expect jobs.succeeded == 13: measured 12")
}

func TestRunCutOff(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--until", "30s"}, &out, &errs)
	assert.Equal(t, 1, code, "the default scenario expects every job to succeed")
	assert.Contains(t, out.String(), "30s emulated (deadline)")
	assert.NotContains(t, out.String(), " 0 cut off")
}

// A coordinator whose service falls so far behind that it declares live
// nodes dead (their heartbeats waiting in its queue past the silence
// allowed) books their attempts lost; the ends those nodes report later
// are stale, and a run that tallies its attempts drops them as one that
// keeps them does, rather than stop on "ended twice". The default
// scenario under FAIR at 300 ms a message loses 2 jobs to it.
func TestAServiceTimeThatLosesLiveNodesBreaksNoInvariant(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--set", "scheduler.name=fair", "--set", "heartbeat.service_time=300ms", "--set", "run.slowdown=false"}, &out, &errs)
	assert.NotContains(t, errs.String()+out.String(), "invariant")
	assert.NotEqual(t, 2, code, errs.String())
	assert.Regexp(t, `(?m)^jobs      200 submitted, \d+ succeeded`, out.String())
}

// A coordinator with a service time gets a line of its queue; without one,
// none.
func TestRunPrintsTheMastersQueue(t *testing.T) {
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", writeScenario(t, smallScenario), "--set", "heartbeat.service_time=40ms"}, &out, &errs), errs.String())
	assert.Regexp(t, `(?m)^master    40ms a message: \d+ served, \d+\.\d% busy, \d\.\d{3} s of mean wait, at most \d+ waiting or in service; the policy looked at \d+\.\d jobs a message$`, out.String())
	out.Reset()
	require.Equal(t, 0, run([]string{"run", writeScenario(t, smallScenario), "--set", "heartbeat.service_per_task=5ms"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "master    0s a message, 5ms a task launched: ")
	out.Reset()
	require.Equal(t, 0, run([]string{"run", writeScenario(t, smallScenario), "--set", "heartbeat.service_per_job=1ms"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "master    0s a message, 1ms a job looked at: ")
	assert.NotContains(t, out.String(), "skipped", "no call_timeout: no call is given up")
	out.Reset()
	require.Equal(t, 0, run([]string{"run", writeScenario(t, smallScenario), "--set", "heartbeat.service_time=40ms", "--set", "heartbeat.call_timeout=10s"}, &out, &errs), errs.String())
	assert.Regexp(t, `(?m)^master    40ms a message, calls given up after 10s: \d+ served, \d+ skipped, given up, `, out.String())
	out.Reset()
	require.Equal(t, 0, run([]string{"run", writeScenario(t, smallScenario)}, &out, &errs), errs.String())
	assert.NotContains(t, out.String(), "master")
}

func TestRunPrintsEachPool(t *testing.T) {
	scenario, _, _ := strings.Cut(smallScenario, "[[expect]]") // cut off, jobs fall short of it
	scenario = strings.Replace(scenario, `name = "sort"`, "name = \"sort\"\npool = \"prod\"", 1)
	scenario = strings.Replace(scenario, `max_maps = 20`, "max_maps = 20\npool = \"adhoc\"", 1)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", writeScenario(t, scenario), "--until", "100s"}, &out, &errs), errs.String())
	// Pools in name order, each job counted in its own. The sort job ends
	// at 91 s; by 100 s the synthetic stream's jobs are all still running,
	// so their pool has no response times to show.
	assert.Regexp(t, `(?m)^jobs      6 submitted, 1 succeeded, 0 failed, 5 cut off\n`, out.String())
	assert.Regexp(t, `(?m)^pool      adhoc: 5 submitted, 0 succeeded, 0 failed, 5 cut off\n`+
		`pool      prod: 1 submitted, 1 succeeded, 0 failed, 0 cut off; response mean \S+s  p95 \S+s\n`, out.String())
}

func TestValidate(t *testing.T) {
	var out, errs bytes.Buffer
	good := writeScenario(t, smallScenario)
	assert.Equal(t, 0, run([]string{"validate", good}, &out, &errs), errs.String())
	assert.Regexp(t, `: ok: \d+ nodes, 12 jobs, \d+ maps and \d+ reduces, \d+ block replicas, \d+ shuffle fetches, at least \d+\.\d (MiB|GiB) of memory\n$`, out.String(),
		"validate says how big the scenario is")
	bad := writeScenario(t, "[cluster]\nracks = 0\n")
	assert.Equal(t, 2, run([]string{"validate", bad}, &out, &errs))
	assert.Contains(t, errs.String(), bad+":2:1: cluster.racks = 0: must be ≥ 1")
	errs.Reset()
	assert.Equal(t, 2, run([]string{"validate", "--set", "cluster.map_slots=0", good}, &out, &errs), "validate applies --set")
	assert.Contains(t, errs.String(), "cluster.map_slots")
}

func TestRunBadFlag(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"run", "--jobz", "3"}, &out, &errs))
	assert.Contains(t, errs.String(), "flag provided but not defined: -jobz")
}

// TestExamplesRun runs every example scenario for 10 emulated minutes. An
// example that replays a SWIM trace is skipped when the shared traces are
// not beside the repository.
func TestExamplesRun(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "examples", "*.toml"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			require.NoError(t, err)
			if strings.Contains(string(text), "shared/traces/") {
				if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "traces")); err != nil {
					t.Skip("the SWIM traces are not beside the repository (../shared/traces)")
				}
			}
			args := []string{"run", path}
			sc, err := scenarios.LoadFile(path)
			require.NoError(t, err)
			switch {
			case scaleExample(sc):
				args = append(args, "--until", exampleCut(sc, ""), "--set", "run.slowdown=false")
			case !strings.Contains(string(text), "\nuntil = "):
				args = append(args, "--until", "10m")
			}
			var out, errs bytes.Buffer
			code := run(args, &out, &errs)
			require.NotEqual(t, 2, code, errs.String())
			assert.Regexp(t, `emulated \((done|deadline)\)`, out.String(), errs.String())
		})
	}
}

func TestCompareSweepsAKey(t *testing.T) {
	var out, errs bytes.Buffer
	path := writeScenario(t, smallScenario)
	code := run([]string{"compare", path, "--set", "heartbeat.interval=1s,30s"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Regexp(t, `metric\s+heartbeat.interval=1s\s+heartbeat.interval=30s$`, lines[0])
	assert.Regexp(t, `jobs.succeeded\s+12\s+12 \(1.00×\)$`, lines[1])
	// Slots are offered only on heartbeats: 30 s heartbeats make the
	// mean response time longer.
	m := regexp.MustCompile(`jobs.response_time.mean\s+\S+\s+\S+ \((\d+\.\d\d)×\)$`).FindStringSubmatch(lines[3])
	require.Len(t, m, 2, lines[3])
	ratio, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	assert.Greater(t, ratio, 1.0)
}

// A feature's metrics are rows of a comparison when a variant has them:
// the coordinator's queue, a dash for the variant without a service time.
func TestCompareAddsTheRowsOfFeaturesOn(t *testing.T) {
	var out, errs bytes.Buffer
	path := writeScenario(t, smallScenario)
	require.Equal(t, 0, run([]string{"compare", path, "--set", "heartbeat.service_time=0s,40ms"}, &out, &errs), errs.String())
	assert.Regexp(t, `(?m)^\s+coordinator.busy\s+-\s+0\.\d+\s*$`, out.String())
	assert.Regexp(t, `(?m)^\s+coordinator.queue.peak\s+-\s+\d+\s*$`, out.String())
	assert.NotContains(t, out.String(), "cache.hit_ratio")
	out.Reset()
	require.Equal(t, 0, run([]string{"compare", path, "--set", "heartbeat.interval=1s,30s"}, &out, &errs), errs.String())
	assert.NotContains(t, out.String(), "coordinator.")
	assert.NotContains(t, out.String(), "hardware.")

	// Each kind of node's work and maps' time, when nodes differ: the
	// variant of one kind has none.
	classed := writeScenario(t, smallScenario+"\n[[cluster.class]]\nname = \"old\"\nracks = [1]\nspeed = 0.5\n")
	out.Reset()
	require.Equal(t, 0, run([]string{"compare", classed, path}, &out, &errs), errs.String())
	assert.Regexp(t, `(?m)^\s+hardware.old.work\s+0\.\d+\s+-\s*$`, out.String())
	assert.Regexp(t, `(?m)^\s+hardware.cluster.maps.seconds.mean\s+\d+(\.\d+)?\s+-\s*$`, out.String())
}

// compare --jobs ends with each variant's per-job error against the
// first: none for the same run, some for 30 s heartbeats.
func TestCompareJobsPrintsPerJobErrors(t *testing.T) {
	var out, errs bytes.Buffer
	path := writeScenario(t, smallScenario)
	code := run([]string{"compare", path, "--jobs", "--set", "heartbeat.interval=1s,1s,30s"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	text := out.String()
	require.Contains(t, text, "response time against heartbeat.interval=1s, per job")
	assert.Regexp(t, `heartbeat.interval=1s\s+12\s+0\.0000\s+0\.0000\s+0\.0000\s+0s\s+0\s+0\s+0`, text)
	m := regexp.MustCompile(`heartbeat.interval=30s\s+12\s+\S+\s+\S+\s+(\d+\.\d+)`).FindStringSubmatch(text)
	require.Len(t, m, 2, text)
	worst, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	assert.Positive(t, worst)
	assert.Equal(t, 2, run([]string{"compare", path, "--jobs", "--workers", "127.0.0.1:1", "--set", "heartbeat.interval=1s,30s"}, &out, &errs))
}

func TestCompareNeedsVariants(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"compare"}, &out, &errs))
	assert.Contains(t, errs.String(), "compare needs two scenarios, or --set key=v1,v2,... to sweep")
}

func TestRunSet(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--set", "workload.synthetic[0].jobs=5", "--set", "cluster.racks=1"}, &out, &errs)
	assert.Equal(t, 1, code, "the default expects 200 jobs")
	assert.Contains(t, out.String(), "cluster   1 racks × 10 nodes")
	assert.Contains(t, out.String(), "jobs      5 submitted, 5 succeeded")
	assert.Contains(t, out.String(), "FAIL expect jobs.succeeded == 200: measured 5")
}

func TestRunFlagsOverrideSets(t *testing.T) {
	// --set re-decodes the scenario; --until and --seed still hold,
	// before or after it.
	for _, args := range [][]string{
		{"run", "--until", "30s", "--seed", "3", "--set", "run.seed=9"},
		{"run", "--set", "run.seed=9", "--until", "30s", "--seed", "3"},
	} {
		var out, errs bytes.Buffer
		dir := t.TempDir()
		run(append(args, "--quiet", "--out", dir), &out, &errs)
		assert.Contains(t, out.String(), "30s emulated (deadline)", args)
		summary, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		require.NoError(t, err)
		assert.Contains(t, string(summary), "\"seed\": 3\n", args)
	}
}

func TestProgressLine(t *testing.T) {
	cfg := cluster.DefaultConfig()
	c, err := cluster.Build(cfg)
	require.NoError(t, err)
	assert.Equal(t, "[..............................] emulated 0s of 10m0s  jobs 0 ended of 0 submitted", progressLine(c, 10*time.Minute))
	assert.Equal(t, "emulated 0s  jobs 0 ended of 0 submitted", progressLine(c, 0))
	_, err = c.Run()
	require.NoError(t, err)
	assert.Equal(t, "##########..........", bar(10, 20))
	var buf bytes.Buffer
	assert.False(t, isTerminal(&buf))
}

func TestProgressStopsAndErasesItsLine(t *testing.T) {
	c, err := cluster.Build(cluster.DefaultConfig())
	require.NoError(t, err)
	var buf bytes.Buffer
	stop := showProgress(&buf, c, 0)
	_, err = c.Run()
	require.NoError(t, err)
	stop() // joins the drawing goroutine; goleak checks it is gone
	assert.True(t, strings.HasSuffix(buf.String(), "\r\033[K"))
}

func TestReproductionsPassReduced(t *testing.T) {
	// Every paper reproduction and the queueing validation run in CI in
	// their reduced forms, and their expectations hold there too. make
	// test runs them all without the race detector, which makes the
	// emulator about 10× slower, and under it only three cheap ones, which
	// between them run FAIR with pools, per-pool delay-scheduling waits,
	// closed-loop workers, per-job set-up and variants side by side.
	files, err := filepath.Glob("../../scenarios/papers/*/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	validation, err := filepath.Glob("../../scenarios/validation/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, validation)
	files = append(files, validation...)
	if raceEnabled {
		cheap := []string{"io-rate-biasing.toml", "pipelining.toml", "response-time.toml"}
		files = slices.DeleteFunc(files, func(f string) bool { return !slices.Contains(cheap, filepath.Base(f)) })
		require.Len(t, files, len(cheap))
	}
	for _, f := range files {
		var out, errs bytes.Buffer
		code := run([]string{"reproduce", "--reduced", f}, &out, &errs)
		assert.Equal(t, 0, code, "%s\n%s%s", f, out.String(), errs.String())
		assert.Contains(t, out.String(), "(reduced)")
		assert.NotContains(t, out.String(), "FAIL")
	}
}

// twiceAsMany is smallScenario as a reproduction: its own row, and one
// run on a single rack expected to succeed twice as many jobs.
const twiceAsMany = smallScenario + `
[reproduce]
source = "a test"

[[expect]]
set = ["cluster.racks=1"]
baseline = []
metric = "jobs.succeeded"
op = "~"
value = 2
tolerance = 0.5
paper = "twice as many"
`

func TestReproduceReportsFailures(t *testing.T) {
	path := writeScenario(t, twiceAsMany)
	var out, errs bytes.Buffer
	code := run([]string{"reproduce", path}, &out, &errs)
	assert.Equal(t, 1, code, errs.String())
	assert.Regexp(t, `as written\s+jobs.succeeded\s+12\s+== 12\s+pass`, out.String())
	assert.Regexp(t, `cluster.racks=1\s+jobs.succeeded ratio\s+twice as many\s+1\s+~ 2 ± 0.5\s+FAIL`, out.String())

	// run checks the expectations on its own run and points at the rest.
	out.Reset()
	assert.Equal(t, 0, run([]string{"run", path, "--quiet"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "expect    1 of 1 passed")
	assert.Contains(t, out.String(), "expect    1 more need runs with other settings: clusteremu reproduce")
}

// A scenario without [reproduce] whose expectations compare runs is
// reproduce's too, as run's hint says: the rows run, under a header that
// names its expectations for the missing source.
func TestReproduceTakesAScenarioThatComparesRuns(t *testing.T) {
	path := writeScenario(t, strings.Replace(twiceAsMany, "[reproduce]\nsource = \"a test\"\n", "", 1))
	var out, errs bytes.Buffer
	assert.Equal(t, 1, run([]string{"reproduce", path}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), ": its [[expect]] blocks\n")
	assert.Regexp(t, `cluster.racks=1\s+jobs.succeeded ratio\s+twice as many\s+1\s+~ 2 ± 0.5\s+FAIL`, out.String())
}

// The command run names for the rows it leaves runs a scenario run with
// --set as run ran it: reproduce takes the overrides.
func TestReproduceTakesTheSetsRunNames(t *testing.T) {
	path := writeScenario(t, twiceAsMany)
	var out, errs bytes.Buffer
	require.Equal(t, 1, run([]string{"run", path, "--quiet", "--set", "workload.synthetic[0].jobs=5"}, &out, &errs), errs.String())
	_, hint, found := strings.Cut(out.String(), "other settings: clusteremu reproduce ")
	require.True(t, found, out.String())
	args := append([]string{"reproduce"}, strings.Fields(strings.TrimSpace(hint))...)

	out.Reset()
	code := run(args, &out, &errs)
	require.Equal(t, 1, code, "%v\n%s", args, errs.String())
	assert.Contains(t, out.String(), path+" --set workload.synthetic[0].jobs=5: a test\n")
	// 6 jobs, not 12: the override reached the row as written.
	assert.Regexp(t, `as written\s+jobs.succeeded\s+6\s+== 12\s+FAIL`, out.String())
}

func TestReproduceWritesProfiles(t *testing.T) {
	path := writeScenario(t, smallScenario+`
[reproduce]
source = "a test"

[[expect]]
metric = "jobs.succeeded"
op = "=="
value = 12
`)
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"reproduce", "--cpuprofile", cpu, "--memprofile", mem, path}, &out, &errs), errs.String())
	for _, f := range []string{cpu, mem} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(data, []byte{0x1f, 0x8b}), "%s is a gzipped pprof profile", f)
	}
}

func TestDeterministicExamplesReplayByteForByte(t *testing.T) {
	// Every example in deterministic virtual time, run twice with the
	// same seed, writes the same summary, jobs, tasks, event log and
	// choice log; under another seed the event log differs.
	paths, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "examples", "*.toml"))
	require.NoError(t, err)
	nested, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "examples", "*", "*.toml"))
	require.NoError(t, err)
	paths = append(paths, nested...)
	checked := 0
	for _, path := range paths {
		sc, err := scenarios.LoadFile(path)
		if err != nil {
			t.Logf("%s: %v (skipped)", path, err) // a trace not beside the repository
			continue
		}
		if sc.Config.Run.Concurrent() {
			continue // scaled, wall and concurrent runs do not replay
		}
		checked++
		t.Run(filepath.Base(path), func(t *testing.T) {
			outputs := func(seed string) map[string]string {
				dir := t.TempDir()
				var out, errs bytes.Buffer
				code := run([]string{"run", path, "--until", exampleCut(sc, "5m"), "--seed", seed, "--events", "--out", dir,
					"--set", "run.slowdown=false"}, &out, &errs)
				require.NotEqual(t, 2, code, errs.String())
				files := map[string]string{}
				for _, name := range []string{"summary.json", "jobs.csv", "tasks.csv", "events.jsonl", "choices.jsonl", "decisions.jsonl"} {
					data, err := os.ReadFile(filepath.Join(dir, name))
					require.NoError(t, err)
					files[name] = string(data)
				}
				return files
			}
			first, again, other := outputs("1"), outputs("1"), outputs("2")
			for name, data := range first {
				assert.True(t, data == again[name], "%s differs between two runs with seed 1", name)
			}
			assert.NotEmpty(t, first["events.jsonl"])
			assert.False(t, first["events.jsonl"] == other["events.jsonl"], "seeds 1 and 2 give the same event log")
		})
	}
	assert.Positive(t, checked)
}

func TestExploreReportsFailingSeeds(t *testing.T) {
	var out, errs bytes.Buffer
	pass := writeScenario(t, smallScenario)
	assert.Equal(t, 0, run([]string{"explore", pass, "--seeds", "3", "--first", "5"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "explored 3 schedule seeds (5–7) of")
	assert.Contains(t, out.String(), ": 0 failed")

	out.Reset()
	fail := writeScenario(t, strings.Replace(smallScenario, "value = 12", "value = 13", 1))
	assert.Equal(t, 1, run([]string{"explore", fail, "--seeds", "2"}, &out, &errs))
	assert.Contains(t, out.String(), "seed 1: FAIL expect jobs.succeeded == 13: measured 12")
	assert.Contains(t, out.String(), "seed 2: FAIL expect jobs.succeeded == 13: measured 12")
	assert.Contains(t, out.String(), "earliest failure: seed 1 at ")
	assert.Contains(t, out.String(), "--schedule-seed 1 --out DIR --events")

	assert.Equal(t, 2, run([]string{"explore", fail, "--seeds", "0"}, &out, &errs))
}

func TestRunScheduleSeedSetsOnlyTheScheduleSeed(t *testing.T) {
	var out, errs bytes.Buffer
	dir := t.TempDir()
	path := writeScenario(t, smallScenario)
	require.Equal(t, 0, run([]string{"run", path, "--seed", "4", "--schedule-seed", "9", "--out", dir, "--quiet"}, &out, &errs), errs.String())
	summary, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "\"schedule_seed\": 9,")
	assert.Contains(t, string(summary), "\"seed\": 4\n")
}

// The race tutorial (README.md): explore finds the planted race within 200
// seeds, run replays a failing seed the same way every time, shrink
// reduces it to a handful of decisions that replay to the same failure
// with nothing else perturbed, and the fixed policy passes every seed.
// TestLossyTutorial is the faults tutorial's last part (README.md,
// "Faults"): explore finds the race policy failing when a message rule
// drops TaskFinished messages, shrink narrows a failure to the one drop
// that matters, and the fixed policy passes.
func TestLossyTutorial(t *testing.T) {
	path := filepath.Join("..", "..", "scenarios", "examples", "race", "lossy.toml")
	var out, errs bytes.Buffer
	require.Equal(t, 1, run([]string{"explore", path, "--seeds", "30"}, &out, &errs), errs.String())
	m := regexp.MustCompile(`earliest failure: seed (\d+) at`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())

	out.Reset()
	file := filepath.Join(t.TempDir(), "min.jsonl")
	require.Equal(t, 0, run([]string{"shrink", path, "--schedule-seed", m[1], "--out", file}, &out, &errs), errs.String())
	minimal, err := readDecisions(file, loadedConfig(t, path))
	require.NoError(t, err)
	require.Len(t, minimal, 1, out.String())
	assert.Equal(t, cluster.DecideDrop, minimal[0].Kind, "the one decision that matters is a dropped message")
	assert.True(t, strings.HasPrefix(minimal[0].Target, "coordinator/job-"), "a TaskFinished to a job manager: %v", minimal[0])
	errs.Reset()
	assert.Equal(t, 1, run([]string{"run", path, "--quiet", "--decisions", file}, &out, &errs))
	assert.Contains(t, errs.String(), "race-fifo assigned job")

	out.Reset()
	require.Equal(t, 0, run([]string{"explore", path, "--seeds", "30", "--set", "scheduler.fixed=true"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), ": 0 failed")
}

func TestRaceTutorial(t *testing.T) {
	path := filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")
	var out, errs bytes.Buffer
	require.Equal(t, 1, run([]string{"explore", path, "--seeds", "200"}, &out, &errs), errs.String())
	explored := out.String()
	assert.Regexp(t, `seed \d+: FAIL at [^,]+, coordinator handling actors.Heartbeat: coordinator: race-fifo assigned job \d+ a reduce slot on node \d+, but it has no such task`, explored)
	m := regexp.MustCompile(`earliest failure: seed (\d+) at`).FindStringSubmatch(explored)
	require.NotNil(t, m, explored)
	seed := m[1]

	replay := func(args ...string) string {
		out.Reset()
		assert.Equal(t, 1, run(append([]string{"run", path, "--quiet"}, args...), &out, &errs))
		return errs.String()
	}
	errs.Reset()
	first := replay("--schedule-seed", seed)
	errs.Reset()
	again := replay("--schedule-seed", seed)
	assert.Contains(t, first, "race-fifo assigned job")
	assert.Equal(t, first, again, "a failing seed fails the same way every time")

	// The output directory says why the run failed.
	dir := t.TempDir()
	replay("--schedule-seed", seed, "--out", dir)
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var summary map[string]any
	require.NoError(t, json.Unmarshal(data, &summary))
	assert.Equal(t, "failed", summary["end_reason"])
	assert.Contains(t, summary["error"], "race-fifo assigned job")

	out.Reset()
	file := filepath.Join(t.TempDir(), "min.jsonl")
	require.Equal(t, 0, run([]string{"shrink", path, "--schedule-seed", seed, "--out", file}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "dropping any one of them makes the failure go away")
	minimal, err := readDecisions(file, loadedConfig(t, path))
	require.NoError(t, err)
	assert.NotEmpty(t, minimal)
	assert.LessOrEqual(t, len(minimal), 10, out.String())
	errs.Reset()
	assert.Equal(t, signature(errors.New(strings.TrimPrefix(strings.TrimSpace(first), "clusteremu: "))),
		signature(errors.New(strings.TrimPrefix(strings.TrimSpace(replay("--decisions", file)), "clusteremu: "))),
		"the shrunk decisions alone repeat the failure")

	// Decisions of another configuration are refused, not ignored.
	errs.Reset()
	assert.Equal(t, 2, run([]string{"run", path, "--quiet", "--seed", "5", "--decisions", file}, &out, &errs))
	assert.Contains(t, errs.String(), file+":1: decisions taken in "+path+" under another configuration")

	// Without the decisions the default course passes.
	empty := filepath.Join(t.TempDir(), "none.jsonl")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	out.Reset()
	assert.Equal(t, 0, run([]string{"run", path, "--quiet", "--decisions", empty}, &out, &errs), errs.String())

	out.Reset()
	require.Equal(t, 0, run([]string{"explore", path, "--seeds", "200", "--set", "scheduler.fixed=true"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), ": 0 failed")
}

func TestDecisionFileErrorsNameTheLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"at":1,"kind":"relay","target":"node-1","count":0,"delay":5}
{"at":2,"kind":"swap","target":"node-1","count":0}
`), 0o644))
	_, err := readDecisions(path, cluster.DefaultConfig())
	require.Error(t, err)
	assert.Equal(t, path+`:2: decision kind "swap": must be "order", "relay", "heartbeat", "drop" or "delay"`, err.Error())
}

// --until takes a span as a scenario writes it, days included.
func TestUntilTakesTheScenariosDurations(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--until", "1d", "--set", "run.slowdown=false"}, &out, &errs)
	assert.Equal(t, 0, code, errs.String())
	out.Reset()
	errs.Reset()
	code = run([]string{"run", "--until", "90"}, &out, &errs)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs.String(), `invalid value "90" for flag -until: "90": must look like 250ms, 3s, 1h30m or 2d`)
}

// An interrupt keeps what the run found: the outputs are written, the
// summary says it was interrupted, and the exit code is 130. The test's
// interrupt is pending before the run starts, so the run stops at its
// first step.
func TestRunInterruptedKeepsItsOutputs(t *testing.T) {
	pendingInterrupt(t)
	dir := filepath.Join(t.TempDir(), "out")
	var out, errs bytes.Buffer
	code := run([]string{"run", "--out", dir}, &out, &errs)
	assert.Equal(t, 130, code, errs.String())
	assert.Contains(t, errs.String(), "clusteremu: interrupted at 0s")
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var summary map[string]any
	require.NoError(t, json.Unmarshal(data, &summary))
	assert.Equal(t, "interrupted", summary["end_reason"])
	_, err = os.Stat(filepath.Join(dir, "jobs.csv"))
	assert.NoError(t, err)
}

// An interrupted exploration starts no more runs, reports what it
// explored and exits 130.
func TestExploreInterrupted(t *testing.T) {
	pendingInterrupt(t)
	var out, errs bytes.Buffer
	code := run([]string{"explore", writeScenario(t, smallScenario), "--seeds", "4"}, &out, &errs)
	assert.Equal(t, 130, code, errs.String())
	assert.Contains(t, out.String(), "interrupted: explored 0 of 4 schedule seeds (1–4) of")
	assert.NotContains(t, out.String(), "FAIL")
}

// pendingInterrupt makes the next command find an interrupt waiting, as
// if Ctrl-C came while it set up.
func pendingInterrupt(t *testing.T) {
	saved := interrupts
	t.Cleanup(func() { interrupts = saved })
	interrupts = func() (<-chan os.Signal, func()) {
		ch := make(chan os.Signal, 1)
		ch <- os.Interrupt
		return ch, func() {}
	}
}

// loadedConfig is the configuration of the scenario file at path.
func loadedConfig(t *testing.T, path string) cluster.Config {
	t.Helper()
	sc, err := scenarios.LoadFile(path)
	require.NoError(t, err)
	return sc.Config
}

// scaleExample reports an example of thousands of nodes, which the tests
// run for their first seconds only: under the race detector a minute of
// them takes minutes.
func scaleExample(sc *scenarios.Scenario) bool { return sc.Config.Nodes() > 1000 }

// exampleCut is the emulated time a test runs an example for: cut, or
// the first 5 s of a scale example.
func exampleCut(sc *scenarios.Scenario, cut string) string {
	if scaleExample(sc) {
		return "5s"
	}
	return cut
}

func TestExploreReducedChecksTheRowsTheReducedFormChecks(t *testing.T) {
	// A reproduction of 12 jobs whose reduced form runs 6 (5 synthetic
	// and the sort): its first row holds only at full size and is
	// skipped reduced, its second is checked reduced at 6.
	var out, errs bytes.Buffer
	text := smallScenario + `reduced = { skip = true, why = "12 jobs only at full size" }

[[expect]]
metric = "jobs.succeeded"
op = ">="
value = 12
reduced = { value = 6, why = "6 jobs reduced" }

[reproduce]
source = "a test"
reduced = ["workload.synthetic[0].jobs=5"]
`
	path := writeScenario(t, text)
	assert.Equal(t, 0, run([]string{"explore", path, "--seeds", "2"}, &out, &errs), errs.String())
	out.Reset()
	// --set applies after the reduced overrides and keeps the rows as
	// the reduced form checks them.
	assert.Equal(t, 0, run([]string{"explore", path, "--reduced", "--seeds", "2", "--set", "run.seed=2"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), " --set workload.synthetic[0].jobs=5 --set run.seed=2: 0 failed")
	out.Reset()
	// So does --strategy pct, whose own overrides come last.
	assert.Equal(t, 0, run([]string{"explore", path, "--reduced", "--seeds", "2", "--strategy", "pct"}, &out, &errs), out.String()+errs.String())
	assert.Contains(t, out.String(), " --set workload.synthetic[0].jobs=5 --set run.strategy=pct")
	out.Reset()
	failing := strings.Replace(text, `value = 6, why`, `value = 7, why`, 1)
	assert.Equal(t, 1, run([]string{"explore", writeScenario(t, failing), "--reduced", "--seeds", "1"}, &out, &errs))
	assert.Contains(t, out.String(), "seed 1: FAIL expect jobs.succeeded >= 7: measured 6")
	assert.Contains(t, out.String(), "--set workload.synthetic[0].jobs=5 --schedule-seed 1 --out DIR", "the seed replays in the reduced form")
	out.Reset()
	assert.Equal(t, 2, run([]string{"explore", writeScenario(t, smallScenario), "--reduced"}, &out, &errs))
	assert.Contains(t, errs.String(), "--reduced needs a reproduction")
}
