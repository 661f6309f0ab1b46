package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scenario's errors come all at once and in file order, each as
// file:line:col: key = value: message in the words of the file: wrong
// types in nested arrays of tables, tables written with the wrong header,
// values out of range, a trace's bad line and a policy's parameters. A
// key of the wrong type is reported once, not again for the default it
// keeps.
func TestErrorsInFileOrder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.tsv"), []byte("j0\t0\t0\t1\t1\t1\nj1\t5\t5\t1\tlots\t1\n"), 0o644))
	for _, tc := range []struct {
		name, text string
		want       []string // in order, each the start of one error
	}{
		{"fifteen wrong types, in arrays of tables too", `[run]
seed = "one"
[[workload.synthetic]]
jobs = "ten"
interarrival = 5
sizes = 3
[[workload.synthetic]]
jobs = 10
interarrival = "1s"
max_maps = 1.5
[[workload.jobs]]
[[workload.jobs.job]]
maps = "x"
reduces = true
[[workload.jobs.job]]
input_bytes = [1]
model = 1
[[workload.closed]]
workers = "w"
jobs = 1
[workload.closed.job]
slow_start = "s"
[[expect]]
metric = 5
op = "=="
value = 1
set = "x"
[scheduler]
name = "fair"
delay = "no"
pools = [{name = "a", min_maps = "m"}]
`, []string{
			`s.toml:2:1: run.seed = "one": want an integer ≥ 0, got a string`,
			`s.toml:4:1: workload.synthetic[0].jobs = "ten": want an integer, got a string`,
			`s.toml:5:1: workload.synthetic[0].interarrival = 5: must look like 250ms, 3s, 1h30m or 2d`,
			`s.toml:6:1: workload.synthetic[0].sizes = 3: want a string (in "quotes"), got an integer`,
			`s.toml:10:1: workload.synthetic[1].max_maps = 1.5: want an integer, got a number with a fraction`,
			`s.toml:13:1: workload.jobs[0].job[0].maps = "x": want an integer, got a string`,
			`s.toml:14:1: workload.jobs[0].job[0].reduces = true: want an integer, got a boolean`,
			`s.toml:16:1: workload.jobs[0].job[1].input_bytes = [1]: must look like 128MiB`,
			`s.toml:17:1: workload.jobs[0].job[1].model = 1: want a string (in "quotes"), got an integer`,
			`s.toml:19:1: workload.closed[0].workers = "w": want an integer, got a string`,
			`s.toml:22:1: workload.closed[0].job.slow_start = "s": want a number, got a string`,
			`s.toml:24:1: expect[0].metric = 5: want a string (in "quotes"), got an integer`,
			`s.toml:27:1: expect[0].set = "x": want an array of strings (in "quotes"), got a string`,
			`s.toml:30:1: scheduler.delay = "no": want true or false, got a string`,
			`s.toml:31:23: scheduler.pools[0].min_maps = "m": want an integer, got a string`,
		}},
		{"a wrong type is not also out of range", `[cluster]
racks = 0
nodes_per_rack = "ten"
[[workload.synthetic]]
jobs = 1.5
load = "high"
slots = 10
[[workload.synthetic]]
jobs = 0
interarrival = "1s"
`, []string{
			`s.toml:2:1: cluster.racks = 0: must be ≥ 1`,
			`s.toml:3:1: cluster.nodes_per_rack = "ten": want an integer, got a string`,
			`s.toml:5:1: workload.synthetic[0].jobs = 1.5: want an integer, got a number with a fraction`,
			`s.toml:6:1: workload.synthetic[0].load = "high": want a number, got a string`,
			`s.toml:9:1: workload.synthetic[1].jobs = 0: must be ≥ 1`,
		}},
		{"nested arrays of tables of the wrong shape", `[[workload.jobs]]
job = 5
[[workload.jobs]]
[workload.jobs.job]
name = "a"
[[workload.closed]]
workers = 1
jobs = 1
[[workload.closed.job]]
input_bytes = "1GiB"
[scheduler]
name = "fair"
[scheduler.pools]
name = "a"
`, []string{
			`s.toml:2:1: workload.jobs[0].job = 5: want an array of tables ([[workload.jobs.job]]), got an integer`,
			`s.toml:4:16: workload.jobs[1].job: want an array of tables ([[workload.jobs.job]]), got a table ([workload.jobs.job])`,
			`s.toml:9:19: workload.closed[0].job: want a table ([workload.closed.job]), got an array of tables ([[workload.closed.job]])`,
			`s.toml:13:12: scheduler.pools: want an array of tables ([[scheduler.pools]]), got a table ([scheduler.pools])`,
		}},
		{"a trace's bad line with its stream's wrong type", `[cluster]
racks = "four"
[[workload.swim]]
trace = "t.tsv"
max_jobs = "all"
`, []string{
			`s.toml:2:1: cluster.racks = "four": want an integer, got a string`,
			`s.toml:4:1: workload.swim[0].trace = "t.tsv": ` + filepath.Join(dir, "t.tsv") +
				`:2:10: column 5 (shuffle bytes) = "lots": must be a whole number of bytes ≥ 0`,
			`s.toml:5:1: workload.swim[0].max_jobs = "all": want an integer, got a string`,
		}},
		{"a policy's parameters of the wrong type", `[scheduler]
name = "fair"
t1 = [5]
preemption = 1
min_share_timeout = 10
fair_share_fraction = 2.0
[[scheduler.pools]]
name = "a"
min_maps = "two"
weight = "heavy"
[[scheduler.pools]]
name = 7
[[workload.synthetic]]
jobs = 1
interarrival = "1s"
`, []string{
			`s.toml:3:1: scheduler.t1 = [5]: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)`,
			`s.toml:4:1: scheduler.preemption = 1: want true or false, got an integer`,
			`s.toml:5:1: scheduler.min_share_timeout = 10: must look like 250ms`,
			`s.toml:6:1: scheduler.fair_share_fraction = 2: must be a number in [0, 1]`,
			`s.toml:9:1: scheduler.pools[0].min_maps = "two": want an integer, got a string`,
			`s.toml:10:1: scheduler.pools[0].weight = "heavy": want a number, got a string`,
			`s.toml:12:1: scheduler.pools[1].name = 7: want a string (in "quotes"), got an integer`,
		}},
		{"values in arrays, dates, and units given a table or an array", `[run]
seed = [1, 2]
until = {h = 1}
schedule_seed = 1979-05-27
stall_after = 07:32:00
[reproduce]
reduced = ["a=1", 2]
[cluster]
nic = ["1Gbps"]
disk_read = true
`, []string{
			`s.toml:2:1: run.seed = [1, 2]: want an integer ≥ 0, got an array`,
			`s.toml:3:1: run.until: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit), got a table`,
			`s.toml:4:1: run.schedule_seed = 1979-05-27: want an integer ≥ 0, got a date or time`,
			`s.toml:5:1: run.stall_after = 07:32:00: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)`,
			`s.toml:7:1: reproduce.reduced[1] = 2: want a string (in "quotes"), got an integer`,
			`s.toml:9:1: cluster.nic = ["1Gbps"]: must look like 1Gbps, 125MB/s or 1GiB/s`,
			`s.toml:10:1: cluster.disk_read = true: must look like 1Gbps, 125MB/s or 1GiB/s`,
		}},
		{"faults: unknown targets, kinds and messages, times outside the run, contradictions", `[cluster]
racks = 2
nodes_per_rack = 3
[run]
until = "1h"
[[workload.jobs]]
job = [{name = "a", input_bytes = "24MiB"}]
[[fault]]
kind = "message"
message = "TaskFinishd"
action = "drop"
probability = 1.5
[[fault]]
kind = "crash"
node = 2
at = "2h"
[[fault]]
kind = "crash"
node = 1
at = "10m"
restart_after = "5m"
[[fault]]
kind = "crash"
node = 1
at = "12m"
[[fault]]
kind = "partition"
rack = 5
at = "1m"
[[fault]]
kind = "link"
link = "rack 1 sideways"
at = "1m"
[[fault]]
kind = "slowdown"
at = "1m"
[[fault]]
kind = "quake"
at = "1m"
`, []string{
			`s.toml:10:1: fault[0].message = "TaskFinishd": must be "*" or a control message a rack switch carries: RegisterNode, Heartbeat, TaskFinished,`,
			`s.toml:12:1: fault[0].probability = 1.5: must be in [0, 1]`,
			`s.toml:16:1: fault[1].at = "2h": must be before the run's end, run.until = 1h`,
			`s.toml:25:1: fault[3].at = "12m0s": the crash fault on node 1 at 12m0s overlaps fault[2]'s at 10m0s on node 1, which it contradicts`,
			`s.toml:28:1: fault[4].rack = 5: must be a rack of the cluster, 0 … 1`,
			`s.toml:32:1: fault[5].link = "rack 1 sideways": must name a link: "host N KIND"`,
			`s.toml:35:1: fault[6].node: missing: a slowdown fault names its node`,
			`s.toml:38:1: fault[7].kind = "quake": must be one of [crash slowdown partition link coordinator] or "message"`,
		}},
		{"a cache: its own keys, and the workload's popularity", `[cluster]
racks = 1
nodes_per_rack = 2
[hdfs]
replication = 2
[cache]
capacity = "-1GB"
name = "arc"
width = "bytes"
window = "-1s"
report_interval = "0s"
timeout = "0s"
[[workload.synthetic]]
jobs = 5
interarrival = "1s"
files = 3
zipf = 0.0
size_correlation = 1.5
drift = 1.5
drift_period = "-1h"
drift_within = "rank"
[[workload.recurring]]
every = "0s"
count = 2
window = -1
[workload.recurring.job]
input_bytes = "1GiB"
`, []string{
			`s.toml:7:1: cache.capacity = "-1GB": must look like 128MiB`,
			`s.toml:8:1: cache.name = "arc": must be one of ["life" "lfu-f" "lru" "lfu" "min"]`,
			`s.toml:9:1: cache.width = "bytes": must be "wave" (the measured wave-width) or "size" (LIFE~: the file's size)`,
			`s.toml:10:1: cache.window = "-1s": must be ≥ 0`,
			`s.toml:11:1: cache.report_interval = "0s": must be at least 1ms`,
			`s.toml:12:1: cache.timeout = "0s": must be at least 1ms`,
			`s.toml:17:1: workload.synthetic[0].zipf = 0: must be a finite number > 0: the exponent of popularity rank`,
			`s.toml:18:1: workload.synthetic[0].size_correlation = 1.5: must be in [−1, 1]`,
			`s.toml:19:1: workload.synthetic[0].drift = 1.5: must be in [0, 1]`,
			`s.toml:20:1: workload.synthetic[0].drift_period = "-1h": must be ≥ 0`,
			`s.toml:21:1: workload.synthetic[0].drift_within = "rank": must be "all" (any file may take a rank) or "size" (only a file of the same maps)`,
			`s.toml:23:1: workload.recurring[0].every = "0s": must be > 0: the period between runs`,
			`s.toml:25:1: workload.recurring[0].window = -1: must be 0 (one file) … 10000: the time-range files a run reads`,
		}},
		{"replication: every key out of range", `[replication]
name = "hdfs"
learn = "0s"
epoch = "-1h"
delta = -1
budget = 1.5
order = "priority"
compression = "zip"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:2:1: replication.name = "hdfs": must be "scarlett"`,
			`s.toml:3:1: replication.learn = "0s": must be > 0: T_L, the window c_f is measured over`,
			`s.toml:4:1: replication.epoch = "-1h": must be ≥ 0`,
			`s.toml:5:1: replication.delta = -1: must be ≥ 0`,
			`s.toml:6:1: replication.budget = 1.5: must be in [0, 1]`,
			`s.toml:7:1: replication.order = "priority": must be one of ["largest_first" "round_robin"]`,
			`s.toml:8:1: replication.compression = "zip": must be one of ["none" "gzip" "bzip2" "lzma" "ppmvc"]`,
		}},
		{"a warm-up at the run's end", `[run]
until = "1h"
warmup = "1h"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:3:1: run.warmup = "1h": must be ≥ 0 and before the run's end, run.until = 1h`,
		}},
		{"replication: a negative budget", `[replication]
budget = -0.1
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:2:1: replication.budget = -0.1: must be in [0, 1]`,
		}},
		{"reduce placement: unknown names and negative waits", `[tasks]
reduce_placement = "nearest"
link_estimate = "oracle"
short_phase = "-1s"
rack_wait = "-10s"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:2:1: tasks.reduce_placement = "nearest": must be "any" or "mantri"`,
			`s.toml:3:1: tasks.link_estimate = "oracle": must be "hybrid", "start" or "equal"`,
			`s.toml:4:1: tasks.short_phase = "-1s": must be ≥ 0`,
			`s.toml:5:1: tasks.rack_wait = "-10s": must be ≥ 0`,
		}},
		{"recompute avoidance: a trigger under 1, shares and probabilities out of range, an unknown mode", `[tasks]
protect_outputs = true
replicate_budget = 1.5
recompute_trigger = 0
recompute_window = "0s"
[intermediate_loss]
probability = -0.1
hot_nodes = 2
episodes = 0.05
mode = "gone"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:3:1: tasks.replicate_budget = 1.5: must be a share of the bytes processed in [0, 1]`,
			`s.toml:4:1: tasks.recompute_trigger = 0: must be ≥ 1 loss`,
			`s.toml:5:1: tasks.recompute_window = "0s": must be at least 1ms`,
			`s.toml:6:2: intermediate_loss.burst = true: must be false with episodes, which replace the burst after a loss`,
			`s.toml:7:1: intermediate_loss.probability = -0.1: must be a probability in [0, 1]`,
			`s.toml:8:1: intermediate_loss.hot_nodes = 2: must be a share of the nodes in [0, 1]`,
			`s.toml:9:1: intermediate_loss.episodes = 0.05: must be a share of a node's time in [0, 0.05)`,
			`s.toml:10:1: intermediate_loss.mode = "gone": must be "lost" or "unresponsive"`,
		}},
		{"rack traffic: a mean load over half a link, a period of 0", `[rack_traffic]
load = 0.6
period = "0s"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:2:1: rack_traffic.load = 0.6: must be a mean share of a link's capacity in [0, 0.5]`,
			`s.toml:3:1: rack_traffic.period = "0s": must be at least 1ms`,
		}},
		{"reduce placement on racks Hadoop is not told", `[cluster]
rack_awareness = false
[tasks]
reduce_placement = "mantri"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:4:1: tasks.reduce_placement = "mantri": needs cluster.rack_awareness = true`,
		}},
		{"a cache without memory bandwidth", `[cache]
capacity = "20GB"
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:2:1: cache.capacity = "20GB": needs cluster.memory, the nodes' memory bandwidth that cached blocks are read at`,
		}},
		{"a negative capacity in bytes", `[cluster]
memory = "4GB/s"
[cache]
capacity = -1
[[workload.jobs]]
job = [{name = "a", input_bytes = "1GiB"}]
`, []string{
			`s.toml:4:1: cache.capacity = -1: must be ≥ 0`,
		}},
		{"preloads that overfill a node's cache, the first named", `[cluster]
racks = 1
nodes_per_rack = 2
memory = "4GB/s"
[hdfs]
replication = 2
[cache]
capacity = "300MiB"
[[cache.preload]]
file = "table"
blocks = 2
nodes = [0]
[[cache.preload]]
file = "logs"
blocks = 2
nodes = [0]
[[cache.preload]]
file = "logs"
blocks = 4
[[workload.jobs]]
job = [{name = "a", input_file = "table", input_bytes = "512MiB"}, {name = "b", input_file = "logs", input_bytes = "512MiB"}]
`, []string{
			`s.toml:15:1: cache.preload[1].blocks = 2: brings node 0's preloaded blocks to 512MiB (128MiB each), more than its cache of 300MiB`,
		}},
		{"preloads of a file no job reads and of too many blocks; MIN with closed workers", `[cluster]
racks = 1
nodes_per_rack = 2
memory = "4GB/s"
[hdfs]
replication = 2
[cache]
capacity = "20GB"
name = "min"
[[cache.preload]]
file = "logs"
blocks = 2
[[cache.preload]]
file = "table"
blocks = 9
[[workload.jobs]]
job = [{name = "a", input_file = "table", input_bytes = "512MiB"}]
[[workload.closed]]
workers = 1
jobs = 1
[workload.closed.job]
input_bytes = "1GiB"
`, []string{
			`s.toml:9:1: cache.name = "min": MIN needs to know every future read, which closed workers do not tell`,
			`s.toml:11:1: cache.preload[0].file = "logs": no job reads this file`,
			`s.toml:15:1: cache.preload[1].blocks = 9: must be at most the file's 4 blocks`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("s.toml", []byte(tc.text), dir)
			requireErrors(t, err, tc.want)
		})
	}
}

// requireErrors checks that err has one line per entry of want, in order,
// each starting with its entry and naming no Go type after it.
func requireErrors(t *testing.T, err error, want []string) {
	t.Helper()
	require.Error(t, err)
	got := strings.Split(err.Error(), "\n")
	require.Len(t, got, len(want), "%s", err)
	for i := range got {
		assert.True(t, strings.HasPrefix(got[i], want[i]), "error %d:\n got %s\nwant %s…", i, got[i], want[i])
		assert.NotRegexp(t, `\[\]|map\[|interface|scenarios\.|sched\.|units\.`, strings.TrimPrefix(got[i], want[i]),
			"error %d names a Go type", i)
	}
}

// The errors of --set come at once in the order of the overrides, each
// naming its override and none a position: overrides that cannot be
// applied, policy parameters of the wrong type and values out of range.
// An error of a key no override sets names them all.
func TestWithSetErrorsNameTheirOverride(t *testing.T) {
	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	_, err = sc.WithSet("cluster.racks=x", "scheduler.name=fair", "scheduler.t1=5", "tasks.max_attempts=0",
		"scheduler.preemption=yes", "heartbeat.interval=soon", "scheduler.pools=5")
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		"--set cluster.racks=x: x: want an integer, got a string",
		"--set scheduler.t1=5: scheduler.t1 = 5: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)",
		"--set tasks.max_attempts=0: tasks.max_attempts = 0: must be 1 … 100",
		`--set scheduler.preemption=yes: scheduler.preemption = "yes": want true or false, got a string`,
		`--set heartbeat.interval=soon: "soon": must look like 250ms, 3s, 1h30m or 2d`,
		"--set scheduler.pools=5: scheduler.pools = 5: want an array of tables ([[scheduler.pools]]), got an integer",
	}, "\n"), cutAt(err.Error(), " (Hadoop's default"))

	// The default scenario's stream offers a load of the map slots.
	_, err = sc.WithSet("tasks.max_attempts=5", "cluster.map_slots=0")
	assert.EqualError(t, err, "--set tasks.max_attempts=5 --set cluster.map_slots=0: "+
		"workload.synthetic[0].slots: missing; load needs the slots it is a share of (the cluster's map slots unless given), ≥ 1")
}

// cutAt cuts each line of s at its first sep.
func cutAt(s, sep string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i], _, _ = strings.Cut(l, sep)
	}
	return strings.Join(lines, "\n")
}

// Mild slowdowns refuse a share that leaves no room beside the
// stragglers and factors reaching into a straggler's band, each at its key.
func TestMildSlowdownsRefuseNonsense(t *testing.T) {
	text := `[cluster]
racks = 1
[stragglers]
probability = 0.5
mild = 0.6
mild_factor = [1.2, 2]
[[workload.synthetic]]
jobs = 3
interarrival = "10s"
`
	_, err := Load("s.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`s.toml:5:1: stragglers.mild = 0.6: must be a probability in [0, 1 − stragglers.probability] (0: no mild slowdowns)`,
		`s.toml:6:1: stragglers.mild_factor = [1.2, 2]: must be two slowdown factors [lo, hi] with 1 < lo ≤ hi ≤ 1.5: a straggler's band starts at ×1.5`,
	}, strings.Split(err.Error(), "\n"))
}

// The stragglers issue's tables refuse what makes no sense, each error at
// its key: probabilities and shares outside [0, 1], bands that are not
// three weights summing to 1, factors below 1 and reversed ranges, a
// negative CoV, jobs splitting one file two ways, an unknown policy,
// Mantri's γ or ρ below 0, keep outside [1, max_copies], a cap outside
// (0, 1], early off LATE, speculation without progress reports.
func TestStragglersAndSpeculationRefuseNonsense(t *testing.T) {
	text := `[tasks]
progress_interval = "10s"
[stragglers]
probability = -0.1
bands = [0.5, 0.2, 0.2]
max_factor = 5
onset = 1.0
busy_nodes = 1.5
busy_factor = [0.5, 2.0]
busy_length = ["10m", "1m"]
[speculation]
name = "mantri"
gamma = -1
rho = -2
keep = 5
cap = 0
early = true
[blacklist]
name = "ewma"
threshold = 1.2
window = "0s"
[[workload.synthetic]]
jobs = 3
interarrival = "10s"
input_cov = -1
partition_cov = "lots"
[[workload.jobs]]
job = [
  { name = "a", input_file = "f", input_bytes = "1GiB", input_cov = 0.5 },
  { name = "b", input_file = "f", input_bytes = "1GiB", input_cov = 1 },
]
`
	_, err := Load("s.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`s.toml:4:1: stragglers.probability = -0.1: must be a probability in [0, 1] (0: no stragglers)`,
		`s.toml:5:1: stragglers.bands = [0.5, 0.2, 0.2]: must be three weights in [0, 1] summing to 1: of ×U[1.5, 2.5), ×log-U[2.5, 10) and the Pareto tail from 10`,
		`s.toml:6:1: stragglers.max_factor = 5: must be a factor in [10, 1000]: the tail starts at ×10`,
		`s.toml:7:1: stragglers.onset = 1: must be "uniform" or a fraction of the compute in [0, 1)`,
		`s.toml:8:1: stragglers.busy_nodes = 1.5: must be a share of the nodes in [0, 1]`,
		`s.toml:9:1: stragglers.busy_factor = [0.5, 2]: must be two slowdown factors [lo, hi] with 1 ≤ lo ≤ hi ≤ 1000`,
		`s.toml:10:1: stragglers.busy_length = ["10m0s", "1m0s"]: must be two lengths ["lo", "hi"] with 1ms ≤ lo ≤ hi`,
		`s.toml:13:1: speculation.gamma = -1: must be ≥ 0 kills of a task`,
		`s.toml:14:1: speculation.rho = -2: must be ≥ 0 report periods`,
		`s.toml:15:1: speculation.keep = 5: must be 1 … max_copies = 3`,
		`s.toml:16:1: speculation.cap = 0: must be a share in (0, 1]`,
		`s.toml:17:1: speculation.early = true: applies only to name = "late" (Early-LATE is LATE acting early)`,
		`s.toml:20:1: blacklist.threshold = 1.2: must be a probability in [0, 1] (the thesis tried 0.3, 0.5 and 0.7)`,
		`s.toml:21:1: blacklist.window = "0s": must be at least 1ms (the thesis tried 5m and 1h)`,
		`s.toml:25:1: workload.synthetic[0].input_cov = -1: must be a coefficient of variation in [0, 10000] (0: even) or "thesis"`,
		`s.toml:26:1: workload.synthetic[0].partition_cov = "lots": must be a coefficient of variation ≥ 0 or "thesis"`,
		`s.toml:30:57: workload.jobs[0].job[1].input_cov = 1: job[0] reads input_file "f" with input_cov = 0.5: jobs sharing a file split it alike`,
	}, strings.Split(err.Error(), "\n"))

	for _, tc := range []struct{ text, want string }{
		{"[tasks]\nprogress_interval = \"10s\"\n[speculation]\nname = \"speculative\"\n" + someWork,
			`s.toml:4:1: speculation.name = "speculative": must be one of dryad, hadoop, late, mantri, none`},
		{"[speculation]\nname = \"late\"\n" + someWork,
			`s.toml:2:1: speculation.name = "late": needs tasks.progress_interval > 0`},
		{"[tasks]\nprogress_interval = \"10s\"\n[speculation]\nname = \"late\"\nearly = true\nslow_task = 2\n" + someWork,
			`s.toml:6:1: speculation.slow_task = 2: must be a share in (0, 1]`},
		{"[blacklist]\nname = \"often\"\n" + someWork, `s.toml:2:1: blacklist.name = "often": must be "none" or "ewma"`},
	} {
		_, err := Load("s.toml", []byte(tc.text), ".")
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
		assert.Equal(t, 1, strings.Count(err.Error(), "\n")+1, "one error: %v", err)
	}
}
