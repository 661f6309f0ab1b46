package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
)

// What the size-based policies (fbq, tags, sita, comp), load streams and
// their metrics refuse, each at its file:line:col with the key and what is
// allowed.
func TestSizeQueuesBadInput(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.tsv"), []byte("j0\t0\t0\t1000\t0\t500\nj1\t5\t5\t300000000\t0\t1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zero.tsv"), []byte("j0\t0\t0\t0\t0\t0\nj1\t5\t5\t0\t0\t0\n"), 0o644))
	const swim = "\n[[workload.swim]]\ntrace = \"t.tsv\"\n"
	for _, tc := range []struct{ name, text, want string }{
		{"one queue", "[scheduler]\nname = \"fbq\"\nqueues = 1\n" + swim,
			`s.toml:3:1: scheduler.queues = 1: must be a whole number in [2, 64]: one queue is fifo`},
		{"limits not K − 1 long", "[scheduler]\nname = \"fbq\"\nqueues = 4\nlimits = [\"4000s\", \"10000s\"]\n" + swim,
			`s.toml:4:1: scheduler.limits = ["1h6m40s", "2h46m40s"]: must list queues − 1 = 3 limits`},
		{"limits not increasing", "[scheduler]\nname = \"fbq\"\nqueues = 3\nlimits = [\"4000s\", \"4000s\"]\n" + swim,
			`s.toml:4:1: scheduler.limits[1] = "1h6m40s": must be above limits[0] = 1h6m40s: limits are cumulative`},
		{"a limit of 0", "[scheduler]\nname = \"tags\"\nlimits = [\"0s\"]\n" + swim,
			`s.toml:3:1: scheduler.limits[0] = "0s": must be a duration > 0`},
		{"partitions on fbq", "[scheduler]\nname = \"fbq\"\npartitions = [50, 50]\n" + swim,
			`s.toml:3:1: scheduler.partitions = [50, 50]: fbq does not partition the slots: only tags and sita take partitions`},
		{"partitions on comp", "[scheduler]\nname = \"comp\"\npartitions = [50, 50]\n" + swim,
			`s.toml:3:1: scheduler.partitions = [50, 50]: comp does not partition the slots`},
		{"partitions not K long", "[scheduler]\nname = \"tags\"\npartitions = [100]\n" + swim,
			`s.toml:3:1: scheduler.partitions = [100]: must list a percentage of the slots for each of the 2 queues`},
		{"a negative partition", "[scheduler]\nname = \"sita\"\npartitions = [-30, 130]\n" + swim,
			`s.toml:3:1: scheduler.partitions[0] = -30: must be a percentage in [0, 100]`},
		{"partitions not adding to 100", "[scheduler]\nname = \"sita\"\npartitions = [30, 60]\n" + swim,
			`s.toml:3:1: scheduler.partitions = [30, 60]: must add up to 100 (they add up to 90)`},
		{"a load of 0", swim + "load = 0\n",
			`s.toml:4:1: workload.swim[0].load = 0: must be a finite number > 0`},
		{"a negative load", swim + "load = -0.7\n",
			`s.toml:4:1: workload.swim[0].load = -0.7: must be a finite number > 0`},
		{"an infinite load", swim + "load = inf\n",
			`s.toml:4:1: workload.swim[0].load = +Inf: must be a finite number > 0`},
		{"a load with time_scale", swim + "load = 0.7\ntime_scale = 0.5\n",
			`s.toml:5:1: workload.swim[0].time_scale = 0.5: does not apply with load`},
		{"slots without load", swim + "slots = 100\n",
			`s.toml:4:1: workload.swim[0].slots = 100: applies only with load`},
		{"a load of zero-size jobs", "\n[[workload.swim]]\ntrace = \"zero.tsv\"\nload = 0.7\n",
			`s.toml:4:1: workload.swim[0].load = 0.7: the stream's 2 jobs move and compute nothing`},
		{"max_tasks of 0", swim + "max_tasks = 0\n",
			`s.toml:4:1: workload.swim[0].max_tasks = 0: must be ≥ 1`},
		{"a negative min_input", swim + "min_input = -1\n",
			`s.toml:4:1: workload.swim[0].min_input = -1: must be ≥ 0`},
		{"a negative min_shuffle", swim + "min_shuffle = -1\n",
			`s.toml:4:1: workload.swim[0].min_shuffle = -1: must be ≥ 0`},
		{"an unknown reference scheduler", "[run]\nreference_scheduler = \"lottery\"\n" + swim,
			`s.toml:2:1: run.reference_scheduler = "lottery": must be "" (the run's own) or one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags`},
		{"a bin off the ladder", swim + "[[expect]]\nmetric = \"sizes.50.jobs.slowdown.mean\"\nop = \"<\"\nvalue = 2\n",
			`s.toml:5:1: expect[0].metric = "sizes.50.jobs.slowdown.mean": sizes.50: no such size bin: the bins are 0 (below 10 s), then √10 apart from 10 s: 0, 10, 32, 100, 316, 1000, 3162, 10000, …`},
		{"a bin's metric that is no job metric", swim + "[[expect]]\nmetric = \"sizes.32.tasks.attempts\"\nop = \"<\"\nvalue = 2\n",
			`s.toml:5:1: expect[0].metric = "sizes.32.tasks.attempts": sizes.32.tasks.attempts: a size bin holds the jobs metrics`},
		{"partition 0", swim + "[[expect]]\nmetric = \"partitions.0.work\"\nop = \"<\"\nvalue = 0.5\n",
			`s.toml:5:1: expect[0].metric = "partitions.0.work": partitions.0: partitions are numbered 1 to 64`},
		{"a reduced form without a reason", swim + "[[expect]]\nmetric = \"jobs.slowdown.p50\"\nop = \"<\"\nvalue = 1\nreduced = { skip = true }\n",
			`s.toml:8:1: expect[0].reduced.why: missing; say why the reduced form checks the row otherwise`},
		{"a skipped row with a value", swim + "[[expect]]\nmetric = \"jobs.slowdown.p50\"\nop = \"<\"\nvalue = 1\nreduced = { skip = true, value = 2, why = \"w\" }\n",
			`s.toml:8:13: expect[0].reduced.skip = true: a skipped row takes no op, value, tolerance or set`},
		{"a reduced set that is no override", swim + "[[expect]]\nmetric = \"jobs.slowdown.p50\"\nop = \"<\"\nvalue = 1\nreduced = { set = [\"cluster.racks\"], why = \"w\" }\n",
			`s.toml:8:13: expect[0].reduced.set[0] = "cluster.racks": must be key=value`},
		{"a reduced value of the wrong kind", swim + "[[expect]]\nmetric = \"partitions.1.work\"\nop = \"<\"\nvalue = 0.5\nreduced = { value = 50, why = \"w\" }\n",
			`s.toml:8:13: expect[0].reduced.value = 50: partitions.1.work is a fraction from 0 to 1`},
		{"baseline_metric without a baseline", swim + "[[expect]]\nmetric = \"jobs.slowdown.p50\"\nbaseline_metric = \"jobs.slowdown.p95\"\nop = \"<\"\nvalue = 1\n",
			`s.toml:6:1: expect[0].baseline_metric = "jobs.slowdown.p95": applies only with baseline`},
		{"saved_from without a baseline", swim + "[[expect]]\nmetric = \"jobs.slowdown.p50\"\nsaved_from = [\"cache.capacity=0B\"]\nop = \">\"\nvalue = 1\n",
			`s.toml:6:1: expect[0].saved_from = ["cache.capacity=0B"]: applies only with baseline`},
		{"saved_from of no key=value", swim + "[[expect]]\nmetric = \"jobs.slowdown.p50\"\nbaseline = []\nsaved_from = [\"none\"]\nop = \">\"\nvalue = 1\n",
			`expect[0].saved_from[0] = "none": must be key=value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("s.toml", []byte(tc.text), dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A SWIM stream's max_tasks drops the records of more maps and reduces
// than it allows before max_jobs counts the first ones; with load the
// stream's jobs wait for their arrivals until the run is built.
func TestSWIMMaxTasksAndLoad(t *testing.T) {
	dir := t.TempDir()
	// 1 MiB blocks: j1 has 300 maps, j3 3 maps and 2 reduces.
	trace := "j0\t0\t0\t1000\t0\t500\nj1\t5\t5\t314572800\t0\t1\nj2\t6\t1\t1\t0\t1\nj3\t7\t1\t3145728\t2097152\t1\nj4\t9\t2\t5\t0\t1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.tsv"), []byte(trace), 0o644))
	const head = "[hdfs]\nblock_size = \"1MiB\"\n[[workload.swim]]\ntrace = \"t.tsv\"\nbytes_per_reduce = \"1MiB\"\n"
	names := func(text string) ([]string, *Scenario) {
		sc, err := Load("s.toml", []byte(head+text), dir)
		require.NoError(t, err)
		var out []string
		for _, j := range sc.Config.Jobs() {
			out = append(out, j.Name)
		}
		return out, sc
	}
	got, _ := names("max_jobs = 3\n")
	assert.Equal(t, []string{"j0", "j1", "j2"}, got)
	got, _ = names("max_tasks = 5\nmax_jobs = 3\n")
	assert.Equal(t, []string{"j0", "j2", "j3"}, got, "j1's 300 maps are dropped first")
	got, _ = names("max_tasks = 4\n")
	assert.Equal(t, []string{"j0", "j2", "j4"}, got, "j3 has 3 maps and 2 reduces")
	got, sc := names("max_tasks = 5\nload = 0.5\nslots = 10\n")
	assert.Equal(t, []string{"j0", "j2", "j3", "j4"}, got)
	assert.Equal(t, []cluster.LoadStream{{Key: "workload.swim[0]", Stream: 0, Load: 0.5, Slots: 10}}, sc.Config.Loads)
}

// A load stream's arrivals are drawn when the run is built: the same jobs
// in a seeded order, Poisson gaps with the mean that offers the load, the
// same for every policy and redrawn for another seed. The achieved load
// the summary reports is near the one asked.
func TestLoadStreamArrivals(t *testing.T) {
	dir := t.TempDir()
	var trace []byte
	for i := range 40 {
		// 1 to 4 blocks of 1 MiB, at 2 s per MiB: maps of 2 s.
		trace = append(trace, []byte(swimLine(i, int64(1+i%4)<<20))...)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.tsv"), trace, 0o644))
	const text = `[run]
reference_scheduler = "fifo"
[cluster]
racks = 1
nodes_per_rack = 4
map_slots = 2
reduce_slots = 1
[hdfs]
block_size = "1MiB"
[heartbeat]
interval = "1s"
out_of_band = true
[[workload.swim]]
trace = "t.tsv"
load = 0.5
slots = 8
map_cpu_per_mib = "2s"
`
	sc, err := Load("s.toml", []byte(text), dir)
	require.NoError(t, err)
	for _, j := range sc.Config.Jobs() {
		assert.Zero(t, j.Submit, "arrivals are drawn when the run is built")
	}
	arrivals := func(sc *Scenario, set ...string) ([]string, cluster.Summary) {
		if len(set) > 0 {
			sc, err = sc.WithSet(set...)
			require.NoError(t, err)
		}
		rep := runScenario(t, sc)
		var order []string
		prev := time.Duration(-1)
		for _, j := range rep.Records.Jobs {
			assert.Greater(t, j.Submit, prev)
			prev = j.Submit
			order = append(order, j.Name)
		}
		return order, rep.Summary
	}
	fifo, s := arrivals(sc)
	fbq, _ := arrivals(sc, "scheduler.name=fbq")
	assert.Equal(t, fifo, fbq, "every policy sees the same order")
	reseeded, err := sc.WithSeed(7)
	require.NoError(t, err)
	other, _ := arrivals(reseeded)
	assert.NotEqual(t, fifo, other, "another seed, another order")
	assert.ElementsMatch(t, fifo, other)
	assert.False(t, slices.IsSorted(fifo), "a shuffled order")
	// The load is of the 8 map slots the jobs use (slots = 8), and
	// workload.load.map is over the same 8: 40 Poisson arrivals land near
	// it. workload.load is over all 12 slots.
	assert.InDelta(t, 0.5, s["workload.load.map"], 0.15)
	assert.InDelta(t, s["workload.load.map"]*8/12, s["workload.load"], 1e-9)
	assert.Zero(t, s["workload.load.reduce"])
}

// swimLine is trace line i: a map-only job of input bytes, a second after
// the one before.
func swimLine(i int, input int64) string {
	gap := 1
	if i == 0 {
		gap = 0
	}
	return fmt.Sprintf("j%02d\t%d\t%d\t%d\t0\t0\n", i, i, gap, input)
}
