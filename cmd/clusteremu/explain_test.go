package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/netmodel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata")

// explainedRun runs the default scenario with delay scheduling (3 s waits,
// so some maps run off their node) and flows kept, once per test binary.
func explainedRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"run", "--quiet", "--set", "run.slowdown=false", "--set", "scheduler.delay=true",
		"--set", "scheduler.t1=3s", "--set", "scheduler.t2=3s", "--trace-flows", "--out", dir}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	return dir
}

// explain on the first map that ran off its node tells the offers its job
// was skipped for while delay scheduling waited, the launch once it had
// waited t1, its phases and what bounded each of its flows. The output is
// pinned; go test -run TestExplainTellsAMapsStory -rewrite regenerates it.
func TestExplainTellsAMapsStory(t *testing.T) {
	dir := explainedRun(t)
	task := firstOffNode(t, dir)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"explain", dir, "--task", task}, &out, &errs), errs.String())
	got := out.String()
	assert.Contains(t, got, "skipped by delay scheduling")
	assert.Contains(t, got, "takes the slot for a rack-local map")
	assert.Contains(t, got, "flow      disk read")
	golden := filepath.Join("testdata", "explain_map.golden")
	if *rewrite {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "go test -run TestExplainTellsAMapsStory -rewrite writes it")
	assert.Equal(t, string(want), got)

	out.Reset()
	require.Equal(t, 0, run([]string{"explain", dir, "--job", strings.TrimPrefix(strings.Split(task, "-")[0], "j")}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "slowest   ")

	// Which links were the bottleneck at 1m30s: a window of 1 s holding
	// the instant, its busiest links first, at most 100% busy.
	out.Reset()
	require.Equal(t, 0, run([]string{"explain", dir, "--at", "1m30s"}, &out, &errs), errs.String())
	assert.Regexp(t, `(?s)^at        90\.000s: \d+ maps and \d+ reduces running\nlinks     the busiest from 89\.\d+s to 90\.\d+s:\n  \S`, out.String())
	assert.NotContains(t, out.String(), "100.1%")
}

// firstOffNode is the first map, in attempt order, that did not run
// node-local.
func firstOffNode(t *testing.T, dir string) string {
	t.Helper()
	rows := readCSV(t, filepath.Join(dir, "tasks.csv"))[1:]
	slices.SortStableFunc(rows, compareTaskRows)
	for _, r := range rows {
		if r["kind"] == "map" && r["locality"] != "node" {
			return strings.Split(r["attempt"], ".")[0]
		}
	}
	t.Fatal("every map ran node-local")
	return ""
}

// explain says what is missing: the directory's files, the job, the task,
// or a run written in another format.
func TestExplainSaysWhatIsMissing(t *testing.T) {
	dir := explainedRun(t)
	empty := t.TempDir()
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "run.json"), []byte(`{"format": 0}`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", empty, "--job", "1"}, "no run.json: explain reads a directory clusteremu run --out wrote"},
		{[]string{"explain", other, "--job", "1"}, "written by another version of clusteremu (outputs format 0; this one reads 1)"},
		{[]string{"explain", dir, "--job", "999"}, "--job 999: not in"},
		{[]string{"explain", dir, "--task", "j999-map0"}, "job 999 is not in"},
		{[]string{"explain", dir, "--task", "j1-map999"}, "no attempt of j1-map999 ran"},
		{[]string{"explain", dir, "--task", "map3"}, "want a task as j1-map3 or 1/map3"},
		{[]string{"explain", dir}, "give one run directory (written by run --out) and one of --task, --job or --at"},
		{[]string{"explain", dir, "--at", "soon"}, "--at soon: want an emulated instant such as 842s or 14m2s"},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, exitUsage, run(tc.args, &out, &errs), tc.args)
		assert.Contains(t, errs.String(), tc.want, tc.args)
	}
}

// explain reads a rack fetch's and a disk copy's transfer back from the
// flow records and walks a rack fetch's links as the fabric builds them:
// the source rack's uplink, the core (the default topology has none), the
// reducer's rack downlink and NIC, never a source node's link, where a
// disk read's path starts.
func TestExplainWalksARackFetchsLinks(t *testing.T) {
	assert.Equal(t, actors.RackFetch, transferNamed("rack fetch"))
	assert.Equal(t, actors.DiskCopy, transferNamed("disk copy"))
	cfg := cluster.DefaultConfig()
	cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = 2, 3
	net, err := netmodel.NewNetwork(netmodel.DefaultConfig())
	require.NoError(t, err)
	topo, err := netmodel.BuildTopology(net, cluster.TopologySpec(cfg))
	require.NoError(t, err)
	names := topo.Refs()
	path, err := flowPath(topo, actors.RackFetch, 1, 4)
	require.NoError(t, err)
	var got []string
	for _, l := range path {
		got = append(got, names[l].String())
	}
	assert.Equal(t, []string{"rack 0 uplink", "rack 1 downlink", "host 4 nic-down"}, got, "no core in the default topology")
	disk, err := flowPath(topo, actors.DiskRead, 1, 4)
	require.NoError(t, err)
	assert.Contains(t, names[disk[0]].String(), "host 1 ", "a disk read starts at its source")
	_, err = flowPath(topo, actors.RackFetch, 1, 2)
	assert.Error(t, err, "a rack fetch within one rack")
}

// With a service time, a task's launch says when its node's heartbeat
// reached the coordinator and how long it waited for and in its service;
// the two add up to the launch.
func TestExplainShowsTheCoordinatorsQueue(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", "--set", "heartbeat.service_time=60ms", "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	out.Reset()
	require.Equal(t, 0, run([]string{"explain", dir, "--task", "j5-map0"}, &out, &errs), errs.String())
	m := regexp.MustCompile(`launched  at (\d+\.\d{3})s .*\n +on the node's heartbeat that reached the coordinator at (\d+\.\d{3})s, (\d+\.\d{3})s in its queue and service\n`).
		FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	at, arrived, waited := parseSeconds(t, m[1]), parseSeconds(t, m[2]), parseSeconds(t, m[3])
	assert.InDelta(t, at, arrived+waited, 0.0015, "arrival and wait make the launch")
	assert.GreaterOrEqual(t, waited, 0.06, "at least its own service")
}

func parseSeconds(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// explain --job says what a workflow's job waited for and read.
func TestExplainSaysWhatAJobWaitedFor(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, flowScenario), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	jobs := readCSV(t, filepath.Join(dir, "jobs.csv"))
	out.Reset()
	require.Equal(t, 0, run([]string{"explain", dir, "--job", "2"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), fmt.Sprintf(`waited    for job 1 "extract": ended %ss (succeeded); reads its output: 2 parts, 134217728 bytes`, jobs[1]["finish"]))
	assert.Contains(t, out.String(), "          submitted 0.000000s after the last of them ended\n")
	out.Reset()
	require.Equal(t, 0, run([]string{"explain", dir, "--job", "3"}, &out, &errs), errs.String())
	assert.NotContains(t, out.String(), "waited", "a job that waits for none")
}

// explain --job says when a job's AM had its container, with am_containers.
func TestExplainSaysWhenAJobsAMHadAContainer(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	scenario := `
[cluster]
racks = 1
nodes_per_rack = 2
containers = 2
am_containers = 1
am_share = 0.5

[hdfs]
replication = 2

[[workload.jobs]]
job = [
  { name = "a", input_bytes = "2MiB", maps = 2, map_time = "20s" },
  { name = "b", input_bytes = "2MiB", maps = 2, map_time = "20s" },
  { name = "c", input_bytes = "2MiB", maps = 2, map_time = "20s" },
]
`
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, scenario), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	jobs := readCSV(t, filepath.Join(dir, "jobs.csv"))
	out.Reset()
	require.Equal(t, 0, run([]string{"explain", dir, "--job", "3"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), fmt.Sprintf("admitted  its AM had a container at %ss, ", jobs[3]["admitted"]))
	assert.Greater(t, parseSecs(jobs[3]["admitted"]), 20.0, "c waits for a's AM to end")
}
