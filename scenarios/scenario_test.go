package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

func TestDefaultScenarioLoads(t *testing.T) {
	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	c := sc.Config
	assert.Equal(t, 4, c.Cluster.Racks)
	assert.Equal(t, 10, c.Cluster.NodesPerRack)
	assert.Equal(t, units.Rate(125e6), c.Cluster.NIC, "1 Gb/s in bytes per second")
	assert.Equal(t, units.Bytes(128<<20), c.HDFS.BlockSize)
	assert.Equal(t, 3*time.Second, c.Heartbeat.Interval.Std())
	assert.Equal(t, time.Hour, c.Run.StallAfter.Std())
	require.Len(t, c.Workload, 1)
	assert.Len(t, c.Workload[0], 200)
	assert.Len(t, sc.Expect, 2)
}

func TestScenarioErrorsHavePositions(t *testing.T) {
	text := `[cluster]
racks = -2
nodes_per_rak = 10

[hdfs]
replication = 0

[scheduler]
name = "lottery"

[[expect]]
metric = "jobs.speed"
op = "=~"
value = "soon"
`
	_, err := Load("bad.toml", []byte(text), ".")
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	assert.Equal(t, []string{
		"bad.toml:2:1: cluster.racks = -2: must be ≥ 1",
		"bad.toml:3:1: cluster.nodes_per_rak: unknown key; allowed: racks, nodes_per_rack, map_slots, reduce_slots, containers, reduce_containers, am_containers, am_share, disk_read, disk_write, nic, rack_uplink, oversubscription, core, rack_awareness, completion_window, solve_interval, intermediate_space, evict, cores, speed, send_cpu_per_mib, receive_cpu_per_mib, memory, class",
		"bad.toml:6:1: hdfs.replication = 0: must be 1 … 1 (the nodes)",
		`bad.toml:9:1: scheduler.name = "lottery": must be one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags`,
		`bad.toml:12:1: expect[0].metric = "jobs.speed": must be one of ` + strings.Join(cluster.MetricNames, ", ") +
			", a jobs metric of one pool (pools.<pool>.jobs.succeeded) or of one size bin (sizes.<bin>.jobs.slowdown.mean), or a partition's (partitions.<k>.work)",
		`bad.toml:13:1: expect[0].op = "=~": must be one of < <= > >= == != ~`,
		`bad.toml:14:1: expect[0].value = "soon": must be a number or a duration like 90s`,
	}, lines)
}

func TestExpectations(t *testing.T) {
	s := cluster.Summary{"jobs.response_time.p95": 80, "tasks.locality.node": 0.5}
	pass := Expectation{Metric: "jobs.response_time.p95", Op: "<", Value: "90s"}
	assert.NoError(t, pass.Check(s))
	fail := Expectation{Metric: "tasks.locality.node", Op: ">=", Value: 0.9}
	assert.EqualError(t, fail.Check(s), "expect tasks.locality.node >= 0.9: measured 0.5")
	missing := Expectation{Metric: "jobs.makespan", Op: "<", Value: int64(10)}
	assert.EqualError(t, missing.Check(s), "expect jobs.makespan < 10: the run measured no jobs.makespan")
}

func TestWithSet(t *testing.T) {
	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	tests := []struct {
		set   string
		check func(t *testing.T, c cluster.Config)
	}{
		{"heartbeat.interval=1s", func(t *testing.T, c cluster.Config) { assert.Equal(t, time.Second, c.Heartbeat.Interval.Std()) }},
		{`heartbeat.interval="500ms"`, func(t *testing.T, c cluster.Config) {
			assert.Equal(t, 500*time.Millisecond, c.Heartbeat.Interval.Std())
		}},
		{"cluster.racks=2", func(t *testing.T, c cluster.Config) { assert.Equal(t, 2, c.Cluster.Racks) }},
		{"cluster.nic=10Gbps", func(t *testing.T, c cluster.Config) { assert.Equal(t, units.Rate(1.25e9), c.Cluster.NIC) }},
		{"heartbeat.assign_multiple=false", func(t *testing.T, c cluster.Config) { assert.False(t, c.Heartbeat.AssignMultiple) }},
		{"scheduler.name=fifo", func(t *testing.T, c cluster.Config) { assert.Equal(t, "fifo", c.Scheduler.Name) }},
		{"workload.synthetic[0].jobs=30", func(t *testing.T, c cluster.Config) { assert.Len(t, c.Workload[0], 30) }},
		{"replication.delta=2", func(t *testing.T, c cluster.Config) {
			want := actors.DefaultReplicationConfig()
			want.Delta = 2
			assert.Equal(t, &want, c.Replication, "a [replication] set into being has its defaults")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			got, err := sc.WithSet(tt.set)
			require.NoError(t, err)
			tt.check(t, got.Config)
		})
	}
	assert.Equal(t, 3*time.Second, sc.Config.Heartbeat.Interval.Std(), "the original is unchanged")
	assert.Len(t, sc.Config.Workload[0], 200)
	assert.Nil(t, sc.Config.Replication, "no [replication]: none")

	for set, want := range map[string]string{
		"cluster.rackz=3":              "--set cluster.rackz=3: cluster.rackz: no such key",
		"cluster.racks=-1":             "--set cluster.racks=-1: cluster.racks = -1: must be ≥ 1",
		"workload.synthetic[4].jobs=1": "--set workload.synthetic[4].jobs=1: workload.synthetic[4].jobs: the scenario has no element 4 of synthetic",
		"heartbeat.interval=soon":      `--set heartbeat.interval=soon: "soon": must look like 250ms`,
		"racks":                        "--set racks: must be key=value",
		"scheduler.name=lottery":       `--set scheduler.name=lottery: scheduler.name = "lottery": must be one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags`,
	} {
		_, err := sc.WithSet(set)
		require.Error(t, err, set)
		assert.True(t, strings.HasPrefix(err.Error(), want), "%s: %v", set, err)
	}
}

func TestWithSetInsideParameterTablesAndClosedStreams(t *testing.T) {
	// Keys below [scheduler] arrays of tables and in closed workers are
	// set on copies: the scenario the sets start from keeps its values,
	// so variants can be built from it side by side.
	sc, err := Load("pools.toml", []byte(`
[scheduler]
name = "fair"
[[scheduler.pools]]
name = "scan"
t1 = "10s"
[[scheduler.pools]]
name = "compute"
t1 = "10s"

[[workload.closed]]
workers = 2
jobs = 1
[workload.closed.job]
input_bytes = "1GiB"
`), ".")
	require.NoError(t, err)
	biased, err := sc.WithSet("scheduler.pools[1].t1=0s")
	require.NoError(t, err)
	more, err := sc.WithSet("workload.closed[0].workers=5")
	require.NoError(t, err)
	assert.Len(t, more.Config.Closed, 5)
	assert.Len(t, sc.Config.Closed, 2)

	pools := func(s *Scenario) []any { return s.file.Scheduler["pools"].([]any) }
	assert.Equal(t, "0s", pools(biased)[1].(map[string]any)["t1"])
	assert.Equal(t, "10s", sc.file.Scheduler["pools"].([]map[string]any)[1]["t1"], "the original is unchanged")
	again, err := sc.WithSet("workload.closed[0].jobs=3")
	require.NoError(t, err)
	assert.Len(t, again.Config.Closed, 2, "the earlier set did not leak into the original")

	_, err = sc.WithSet("scheduler.pools[2].t1=0s")
	assert.ErrorContains(t, err, "the scenario has no element 2 of pools")
	_, err = sc.WithSet("scheduler.pools[1].t1=soon")
	assert.ErrorContains(t, err, "scheduler.pools[1].t1")
}

func TestChaosNeedsADeterministicRunAndOrderedHeartbeats(t *testing.T) {
	text := `[run]
clock = "scaled"
speedup = 10

[chaos]
relay_jitter = "100ms"
heartbeat_jitter = "3s"
`
	_, err := Load("chaos.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`chaos.toml:2:1: run.clock = "scaled": must be "virtual" under [chaos], whose delays only a deterministic run draws`,
		`chaos.toml:7:1: chaos.heartbeat_jitter = "3s": must be ≥ 0 and below heartbeat.interval = 3s, so heartbeats keep their order`,
	}, strings.Split(err.Error(), "\n"))

	sc, err := Load("ok.toml", []byte("[chaos]\nrelay_jitter = \"250ms\"\nheartbeat_jitter = \"1s\"\n"+someWork), ".")
	require.NoError(t, err)
	assert.Equal(t, cluster.Chaos{RelayJitter: units.Duration(250 * time.Millisecond), HeartbeatJitter: units.Duration(time.Second)}, sc.Config.Chaos)
}

func TestWithSetValidatesAfterEveryOverride(t *testing.T) {
	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	// A scaled clock needs a speedup: set together they are valid in
	// either order.
	for _, sets := range [][]string{{"run.clock=scaled", "run.speedup=2"}, {"run.speedup=2", "run.clock=scaled"}} {
		got, err := sc.WithSet(sets...)
		require.NoError(t, err, "%v", sets)
		assert.Equal(t, cluster.Scaled, got.Config.Run.Clock)
		assert.Equal(t, 2.0, got.Config.Run.Speedup)
	}
	_, err = sc.WithSet("run.clock=scaled")
	assert.ErrorContains(t, err, "--set run.clock=scaled: run.speedup = 0: must be > 0 for a scaled clock")
}

func TestWithSetReachesEmbeddedKeys(t *testing.T) {
	// The CPU costs are keys of every stream's table, decoded through an
	// embedded struct; --set reaches them too, on a copy.
	sc, err := Load("cpu.toml", []byte(`
[[workload.closed]]
workers = 1
jobs = 1
[workload.closed.job]
input_bytes = "1GiB"
map_cpu_per_mib = "10ms"
`), ".")
	require.NoError(t, err)
	slow, err := sc.WithSet("workload.closed[0].job.map_cpu_per_mib=1s", "workload.closed[0].job.reduce_cpu_per_mib=2s")
	require.NoError(t, err)
	job := func(s *Scenario) workload.JobSpec { return s.Config.Closed[0][0] }
	assert.Equal(t, workload.PerMiB(time.Second), job(slow).MapCPU)
	assert.Equal(t, workload.PerMiB(2*time.Second), job(slow).ReduceCPU)
	assert.Equal(t, workload.PerMiB(10*time.Millisecond), job(sc).MapCPU, "the original is unchanged")
}

func TestSchedulerParameterErrorsComeWithTheFilesOthers(t *testing.T) {
	// Every bad policy parameter is reported at its key with what is
	// allowed, together with the rest of the file's errors: here
	// cluster.map_slots.
	const head = "[cluster]\nmap_slots = -1\n\n[scheduler]\n"
	const mapSlots = "s.toml:2:1: cluster.map_slots = -1: must be 0 … 1024"
	tests := []struct {
		name, scheduler string
		want            []string
	}{
		{"unknown parameter", `name = "fifo"
weight = 2
`, []string{"s.toml:6:1: scheduler.weight: unknown key; allowed: delay, t1, t2"}},
		{"wrong types", `name = "fair"
preemption = "yes"
t1 = 15
fair_share_fraction = 0.5
`, []string{
			`s.toml:6:1: scheduler.preemption = "yes": want true or false, got a string`,
			"s.toml:7:1: scheduler.t1 = 15: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)",
		}},
		{"out of range, with an unknown key", `name = "fair"
fair_share_fraction = 1.5
t3 = "1s"
`, []string{
			"s.toml:6:1: scheduler.fair_share_fraction = 1.5: must be a number in [0, 1]",
			"s.toml:7:1: scheduler.t3: unknown key; allowed: delay, t1, t2, preemption, min_share_timeout, fair_share_timeout, fair_share_fraction, pool_per_job, pools, evict_for_locality, eviction_notice",
		}},
		{"out of range next to a wrong type", `name = "fair"
min_share_timeout = 300
fair_share_fraction = -1
`, []string{
			`s.toml:6:1: scheduler.min_share_timeout = 300: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)`,
			"s.toml:7:1: scheduler.fair_share_fraction = -1: must be a number in [0, 1]",
		}},
		{"bad pools", `name = "fair"
[[scheduler.pools]]
name = "prod"
min_maps = 2
[[scheduler.pools]]
name = "batch"
weight = 0
wieght = 2
[[scheduler.pools]]
min_reduces = 1
`, []string{
			"s.toml:11:1: scheduler.pools[1].weight = 0: must be a number in [0.001, 1000]",
			"s.toml:12:1: scheduler.pools[1].wieght: unknown key; allowed: name, weight, min_maps, min_reduces, t1, t2",
			"s.toml:13:13: scheduler.pools[2].name: missing; every pool needs a name",
		}},
		{"a pool of the wrong type", `name = "fair"
pools = [{name = "a"}, {name = "b", min_maps = 1.5}]
`, []string{"s.toml:6:37: scheduler.pools[1].min_maps = 1.5: want an integer, got a number with a fraction"}},
		{"lasmq out of range", `name = "lasmq"
queues = 0
first_threshold = "0s"
step = 1
weight_base = 0.5
min_progress = 1.5
`, []string{
			"s.toml:6:1: scheduler.queues = 0: must be a whole number in [1, 64]",
			`s.toml:7:1: scheduler.first_threshold = "0s": must be a duration > 0 (slot-seconds of service) like "100s"`,
			"s.toml:8:1: scheduler.step = 1: must be a finite number > 1",
			"s.toml:9:1: scheduler.weight_base = 0.5: must be a finite number ≥ 1",
			"s.toml:10:1: scheduler.min_progress = 1.5: must be a number in (0, 1]",
		}},
		{"a negative admission cap, for any policy", `name = "fifo"
max_running = -1
`, []string{"s.toml:6:1: scheduler.max_running = -1: must be ≥ 0 (0: no cap)"}},
		{"unknown policy", `name = "lottery"
t1 = "5s"
`, []string{`s.toml:5:1: scheduler.name = "lottery": must be one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags`}},
		{"bad name and tick", `name = 5
tick = 1
`, []string{
			`s.toml:5:1: scheduler.name = 5: want a string (in "quotes"), got an integer`,
			"s.toml:6:1: scheduler.tick = 1: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)",
		}},
		{"bad tick", `name = "fair"
tick = 1
delay = 0
`, []string{
			"s.toml:6:1: scheduler.tick = 1: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)",
			"s.toml:7:1: scheduler.delay = 0: want true or false, got an integer",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("s.toml", []byte(head+tt.scheduler), ".")
			require.Error(t, err)
			assert.Equal(t, append([]string{mapSlots}, tt.want...), strings.Split(err.Error(), "\n"))
		})
	}
}

func TestWithSetChecksSchedulerParameters(t *testing.T) {
	sc, err := Load("fair.toml", []byte(`
[scheduler]
name = "fair"
[[scheduler.pools]]
name = "prod"
`+someWork), ".")
	require.NoError(t, err)
	got, err := sc.WithSet("scheduler.t1=5s", "scheduler.pools[0].weight=2")
	require.NoError(t, err)
	params := got.Config.Scheduler.Params.(*sched.FairParams)
	assert.Equal(t, units.Duration(5*time.Second), params.T1)
	assert.Equal(t, 2.0, *params.Pools[0].Weight)
	assert.Nil(t, sc.Config.Scheduler.Params.(*sched.FairParams).Pools[0].Weight, "the original is unchanged")

	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"scheduler.t1=soon"}, `--set scheduler.t1=soon: scheduler.t1 = "soon": must look like 250ms, 3s, 1h30m or 2d`},
		{[]string{"scheduler.t3=1s"}, "--set scheduler.t3=1s: scheduler.t3: unknown key; allowed: delay, t1, t2, preemption, " +
			"min_share_timeout, fair_share_timeout, fair_share_fraction, pool_per_job, pools, evict_for_locality, eviction_notice"},
		{[]string{"scheduler.fair_share_fraction=2", "scheduler.pools[0].weight=1e6"},
			"--set scheduler.fair_share_fraction=2: scheduler.fair_share_fraction = 2: must be a number in [0, 1]\n" +
				"--set scheduler.pools[0].weight=1e6: scheduler.pools[0].weight = 1e+06: must be a number in [0.001, 1000]"},
		{[]string{"scheduler.name=fifo"}, "--set scheduler.name=fifo: scheduler.pools: unknown key; allowed: delay, t1, t2"},
	} {
		_, err := sc.WithSet(tt.sets...)
		assert.EqualError(t, err, tt.want, "%v", tt.sets)
	}
}

// Tasks no slot could run are refused at the slot key, once the workload
// is known, by Load and by --set alike.
func TestTasksNoSlotCouldRunAreRefusedAtTheKey(t *testing.T) {
	text := `[cluster]
racks = 1
reduce_slots = 0

[hdfs]
replication = 1

[[workload.jobs]]
job = [{ name = "a", input_bytes = "1MiB", reduces = 2, shuffle_bytes = "1MiB" }]
`
	_, err := Load("slots.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Equal(t, `slots.toml:3:1: cluster.reduce_slots = 0: must be ≥ 1: 1 of the workload's jobs have reduces `+
		`(the first, job 1 "a", has 2), which no node could run`, err.Error())

	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	_, err = sc.WithSet("cluster.map_slots=0", "workload.synthetic[0].slots=80")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cluster.map_slots = 0: must be ≥ 1: 200 of the workload's jobs have maps")
}

// What one run cannot hold, and numbers the decoder would wrap around,
// are refused at their keys before the run, with no error that follows
// only from another.
func TestBadInputBeyondWhatARunHolds(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"a negative seed", "[run]\nseed = -1\nschedule_seed = -2\n", []string{
			"x.toml:2:1: run.seed = -1: must be ≥ 0",
			"x.toml:3:1: run.schedule_seed = -2: must be ≥ 0",
		}},
		{"a billion racks", "[cluster]\nracks = 1000000000\n", []string{
			"x.toml:1:2: cluster.nodes_per_rack = 10: racks × nodes_per_rack must be at most 100000 nodes; cluster.racks = 1000000000",
		}},
		{"a product that overflows", "[cluster]\nracks = 4611686018427387904\nnodes_per_rack = 4\n", []string{
			"x.toml:3:1: cluster.nodes_per_rack = 4: racks × nodes_per_rack must be at most 100000 nodes; cluster.racks = 4611686018427387904",
		}},
		{"slots beyond a node", "[cluster]\nmap_slots = 5000\n", []string{
			"x.toml:2:1: cluster.map_slots = 5000: must be 0 … 1024",
		}},
		{"an input of 2^63 bytes", "[[workload.jobs]]\njob = [{ name = \"huge\", input_bytes = 9223372036854775807 }]\n", []string{
			`x.toml:1:1: hdfs.block_size = "128MiB": the workload needs more than 20000000 tasks at this block size, ` +
				`the most one run holds (job 1 "huge" alone has 68719476736 maps): raise the block size or trim the workload`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("x.toml", []byte(tt.text), ".")
			require.Error(t, err)
			assert.Equal(t, tt.want, strings.Split(err.Error(), "\n"))
		})
	}

	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	_, err = sc.WithSet("run.seed=-1")
	assert.EqualError(t, err, "--set run.seed=-1: -1: must be ≥ 0")
}

// A resolved scenario loads into the same configuration as the scenario.
func TestResolvedLoadsTheSameConfig(t *testing.T) {
	paths, err := filepath.Glob("examples/*.toml")
	require.NoError(t, err)
	papers, err := filepath.Glob("papers/*/*.toml")
	require.NoError(t, err)
	validation, err := filepath.Glob("validation/*.toml")
	require.NoError(t, err)
	paths = append(append(paths, papers...), validation...)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			sc, err := LoadFile(path)
			require.NoError(t, err)
			sc, err = sc.WithSet("cluster.racks=3", "run.until=2d")
			require.NoError(t, err)
			text, err := sc.Resolved()
			require.NoError(t, err)
			again, err := Load("resolved.toml", text, t.TempDir())
			require.NoError(t, err, "%s", text)
			require.Equal(t, sc.Config, again.Config)
			require.Equal(t, sc.Expect, again.Expect)
		})
	}
}

// An empty [replication] is Scarlett with the thesis's defaults.
func TestReplicationDefaults(t *testing.T) {
	sc, err := Load("s.toml", []byte("[replication]\n"+someWork), ".")
	require.NoError(t, err)
	want := actors.DefaultReplicationConfig()
	assert.Equal(t, &want, sc.Config.Replication)
	assert.Equal(t, "scarlett", want.Name)
	assert.Equal(t, 24*time.Hour, want.Learn.Std())
	assert.Equal(t, 12*time.Hour, want.Epoch.Std())
	assert.Equal(t, 1, want.Delta)
	assert.Equal(t, 0.1, want.Budget)
	assert.Equal(t, "largest_first", want.Order)
	assert.Equal(t, "ppmvc", want.Compression)
}

// someWork is a workload for scenarios written to test other tables.
const someWork = `
[[workload.synthetic]]
jobs = 1
interarrival = "10s"
`

// What the decoder takes but cannot mean what was written is refused,
// with the position of the key that makes it so.
func TestNonsenseIsRefused(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"an empty file", "", `s.toml:1:1: workload: no workload: add a [[workload.synthetic]]`},
		{"no workload", "[cluster]\nracks = 2\n", `s.toml:1:1: workload: no workload`},
		{"both uplink keys", "[cluster]\nrack_uplink = \"1Gbps\"\noversubscription = 4\n" + someWork,
			`s.toml:3:1: cluster.oversubscription = 4: sets the rack uplink, which cluster.rack_uplink = "125MB/s" sets too`},
		{"a duration for a count", someWork + "[[expect]]\nmetric = \"jobs.succeeded\"\nop = \">\"\nvalue = \"10m\"\n",
			`s.toml:8:1: expect[0].value = "10m": jobs.succeeded is a count, not a time`},
		{"a percentage for a fraction", someWork + "[[expect]]\nmetric = \"tasks.locality.node\"\nop = \">\"\nvalue = 95\n",
			`s.toml:8:1: expect[0].value = 95: tasks.locality.node is a fraction from 0 to 1`},
		{"a pool no job is in", someWork + "[[expect]]\nmetric = \"pools.prod.jobs.succeeded\"\nop = \">\"\nvalue = 1\n",
			`s.toml:6:1: expect[0].metric = "pools.prod.jobs.succeeded": no job of the workload is in pool "prod" (pools: none)`},
		{"a pool declared twice", "[scheduler]\nname = \"fair\"\n[[scheduler.pools]]\nname = \"a\"\n[[scheduler.pools]]\nname = \"a\"\n" + someWork,
			`s.toml:6:1: scheduler.pools[1].name = "a": names pools[0] again`},
		{"retries without end", "[tasks]\nmax_attempts = 1000000\n" + someWork,
			`s.toml:2:1: tasks.max_attempts = 1000000: must be 1 … 100`},
		{"a run nothing ends", "[run]\nstall_after = \"0s\"\n" + someWork,
			`s.toml:2:1: run.stall_after = "0s": with no run.until, nothing would end a run that stops making progress`},
		{"a bare number for a rate", "[cluster]\nnic = 1000\n" + someWork,
			`s.toml:2:1: cluster.nic = 1000: a rate needs a unit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("s.toml", []byte(tc.text), ".")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// An idle cluster for a while is a meaning.
	_, err := Load("s.toml", []byte("[run]\nuntil = \"1h\"\n"), ".")
	assert.NoError(t, err)
}

// A file's errors all come at once, in file order, whatever their kind:
// wrong types, bad units, unknown keys, values out of range, a policy's
// parameters, a trace's bad line; each in the words of the file.
func TestEveryErrorAtOnce(t *testing.T) {
	var wrongTypes strings.Builder
	var want []string
	line := 0
	for _, table := range []struct {
		name  string
		keys  []string
		value string
	}{
		{"cluster", []string{"racks", "nodes_per_rack", "map_slots", "reduce_slots", "completion_window", "solve_interval"}, `"x"`},
		{"heartbeat", []string{"interval", "control_latency", "assign_multiple"}, "1"},
		{"tasks", []string{"slow_start", "max_attempts", "parallel_copies", "copy_compute", "compute_aware", "fetch_per_host", "fetch_per_rack", "max_reducers"}, "[1]"},
	} {
		fmt.Fprintf(&wrongTypes, "[%s]\n", table.name)
		line++
		for _, key := range table.keys {
			fmt.Fprintf(&wrongTypes, "%s = %s\n", key, table.value)
			line++
			want = append(want, fmt.Sprintf(`s.toml:%d:1: %s.%s`, line, table.name, key))
		}
	}
	wrongTypes.WriteString(someWork)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.tsv"), []byte("j0\t0\t0\t1\t1\t1\nj1\t5\t5\t-1\t1\t1\n"), 0o644))
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"a wrong type for each key", wrongTypes.String(), want},
		{"types, units, unknown keys and ranges together", `[cluster]
racks = 0
nodes_per_rack = "ten"
nic = "fast"
color = "blue"
[hdfs]
replication = 0
` + someWork, []string{
			`s.toml:2:1: cluster.racks = 0: must be ≥ 1`,
			`s.toml:3:1: cluster.nodes_per_rack = "ten": want an integer, got a string`,
			`s.toml:4:1: cluster.nic = "fast": must look like 1Gbps`,
			`s.toml:5:1: cluster.color: unknown key`,
			`s.toml:7:1: hdfs.replication = 0: must be 1 …`,
		}},
		{"a table written as an array of tables", "[[workload]]\nsynthetic = 1\n[cluster]\nracks = \"a\"\n", []string{
			`s.toml:1:3: workload: want a table ([workload]), got an array of tables ([[workload]])`,
			`s.toml:4:1: cluster.racks = "a": want an integer, got a string`,
		}},
		{"a trace's bad line", "[cluster]\nracks = 0\n[[workload.swim]]\ntrace = \"t.tsv\"\n", []string{
			`s.toml:2:1: cluster.racks = 0: must be ≥ 1`,
			`s.toml:4:1: workload.swim[0].trace = "t.tsv": ` + filepath.Join(dir, "t.tsv") + `:2:8: column 4 (map input bytes) = "-1": must be a whole number of bytes ≥ 0`,
		}},
		{"a policy's parameters", "[scheduler]\nname = \"fair\"\nt1 = 5\npreemption = \"yes\"\nfair_share_fraction = 2.0\n" + someWork, []string{
			`s.toml:3:1: scheduler.t1 = 5: must look like 250ms`,
			`s.toml:4:1: scheduler.preemption = "yes": want true or false, got a string`,
			`s.toml:5:1: scheduler.fair_share_fraction = 2: must be`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("s.toml", []byte(tc.text), dir)
			requireErrors(t, err, tc.want)
		})
	}
}

// Every --set that cannot apply is reported at once, in the words of the
// file.
func TestWithSetReportsEveryBadOverride(t *testing.T) {
	sc, err := Load("default.toml", DefaultScenario, ".")
	require.NoError(t, err)
	_, err = sc.WithSet("cluster.racks=x", "tasks.copy_compute=3", "cluster.nic=1000", "bogus=1")
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		"--set cluster.racks=x: x: want an integer, got a string",
		"--set tasks.copy_compute=3: 3: want true or false, got an integer",
		"--set cluster.nic=1000: 1000: a rate needs a unit: must look like 1Gbps, 125MB/s or 1GiB/s (a quoted string)",
		"--set bogus=1: bogus: no such key",
	}, "\n"), err.Error())
}

// Periods so short a run would never get anywhere are refused.
func TestPeriodsTooShortAreRefused(t *testing.T) {
	_, err := Load("s.toml", []byte("[heartbeat]\ninterval = \"1ns\"\n[scheduler]\ntick = \"500us\"\n"+someWork), ".")
	require.Error(t, err)
	assert.Equal(t, `s.toml:2:1: heartbeat.interval = "1ns": must be at least 1ms: every node heartbeats every interval, so a shorter one is millions of messages per emulated second
s.toml:4:1: scheduler.tick = "500µs": must be 0 (no tick) or at least 1ms`, err.Error())
}

// Cores, speeds and per-byte CPU costs that no node could have are
// refused at their keys, all at once.
func TestBadCPUIsRefusedAtItsKeys(t *testing.T) {
	text := `[cluster]
cores = -1
speed = nan
send_cpu_per_mib = "-1s"
receive_cpu_per_mib = "2000s"
`
	_, err := Load("cpu.toml", []byte(text), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		"cpu.toml:2:1: cluster.cores = -1: must be 0 (one per slot) … 1024",
		"cpu.toml:3:1: cluster.speed = NaN: must be > 0 and at most 1000 (1: the speed the jobs' CPU costs are for)",
		`cpu.toml:4:1: cluster.send_cpu_per_mib = "-1s": must be ≥ 0`,
		`cpu.toml:5:1: cluster.receive_cpu_per_mib = "33m20s": must be 0 or 1µs … 16m40s of CPU per MiB`,
	}, strings.Split(err.Error(), "\n"))
	sc, err := Load("idle.toml", []byte("[run]\nuntil = \"1h\"\n"), ".")
	require.NoError(t, err)
	for _, set := range []string{"cluster.speed=inf", "cluster.speed=0", "cluster.speed=-2", "cluster.cores=2000"} {
		_, err = sc.WithSet(set)
		assert.ErrorContains(t, err, "must be", set)
	}
}

// The coordinator's service keys and the call timeout take no negative
// time, each refused at its key.
func TestServiceKeysAreRefusedBelowZero(t *testing.T) {
	_, err := Load("h.toml", []byte(`[heartbeat]
service_time = "-1s"
service_per_task = "-1ms"
service_per_job = "-1µs"
call_timeout = "-1s"
[run]
until = "1m"
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`h.toml:2:1: heartbeat.service_time = "-1s": must be ≥ 0`,
		`h.toml:3:1: heartbeat.service_per_task = "-1ms": must be ≥ 0`,
		`h.toml:4:1: heartbeat.service_per_job = "-1µs": must be ≥ 0`,
		`h.toml:5:1: heartbeat.call_timeout = "-1s": must be ≥ 0`,
	}, strings.Split(err.Error(), "\n"))
}

// A call timeout is refused without a service time, when a heartbeat is
// no call.
func TestCallTimeoutNeedsAServiceTime(t *testing.T) {
	_, err := Load("h.toml", []byte("[heartbeat]\ncall_timeout = \"10s\"\n[run]\nuntil = \"1m\"\n"), ".")
	require.Error(t, err)
	assert.Equal(t, []string{`h.toml:2:1: heartbeat.call_timeout = "10s": needs service_time, service_per_task or service_per_job: ` +
		`without a service time the coordinator answers at once and a heartbeat is no call`}, strings.Split(err.Error(), "\n"))
	sc, err := Load("h.toml", []byte("[heartbeat]\nservice_time = \"1ms\"\ncall_timeout = \"10s\"\n[run]\nuntil = \"1m\"\n"), ".")
	require.NoError(t, err)
	_, err = sc.WithSet("heartbeat.service_time=0s")
	assert.ErrorContains(t, err, "heartbeat.call_timeout")
}

// Containers replace a node's map and reduce slots: a file that sets
// them otherwise, a feature that counts the two kinds apart, a policy
// that partitions them, the application master's limits without
// containers, and a class's containers on a cluster of slots are each
// refused at their key.
func TestContainersAreRefusedBesideSlotKeys(t *testing.T) {
	_, err := Load("c.toml", []byte(`[cluster]
containers = 6
map_slots = 4
[[cluster.class]]
name = "big"
racks = [1]
reduce_slots = 3
[tasks]
copy_compute = true
reduce_rampup_limit = 1.5
[scheduler]
name = "tags"
tick = "0s"
[run]
until = "1m"
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`c.toml:3:1: cluster.map_slots = 4: must be left out with containers = 6: a container runs a map or a reduce`,
		`c.toml:7:1: cluster.class[0].reduce_slots = 3: must be left out with containers = 6: a container runs a map or a reduce`,
		`c.toml:9:1: tasks.copy_compute = true: cannot be used with cluster.containers: a reducer holds its container whole, copy and compute`,
		`c.toml:10:1: tasks.reduce_rampup_limit = 1.5: must be in (0, 1] (0: Hadoop's 0.5)`,
		`c.toml:12:1: scheduler.name = "tags": cannot be used with cluster.containers: it splits each node's map and reduce slots between its queues, and a container is either`,
		`c.toml:13:1: scheduler.tick = "0s": must be > 0 with cluster.containers: the application masters take reduces back for their maps on it`,
	}, strings.Split(err.Error(), "\n"))

	_, err = Load("s.toml", []byte("[cluster]\nmap_slots = 2\nreduce_containers = 2\n[[cluster.class]]\nname = \"y\"\nracks = [0]\ncontainers = 4\n[tasks]\nreduce_preemption_limit = 0.25\nreduce_unconditional_preempt_delay = \"1m\"\n[run]\nuntil = \"1m\"\n"), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`s.toml:3:1: cluster.reduce_containers = 2: needs cluster.containers > 0: the containers a reduce takes of a node's`,
		`s.toml:7:1: cluster.class[0].containers = 4: needs cluster.containers > 0: a cluster's nodes have containers or map and reduce slots, not both`,
		`s.toml:9:1: tasks.reduce_preemption_limit = 0.25: needs cluster.containers > 0: the application master's limit on reduces holding the containers its maps need`,
		`s.toml:10:1: tasks.reduce_unconditional_preempt_delay = "1m0s": needs cluster.containers > 0: how long a map waits before its application master takes reduces back for it`,
	}, strings.Split(err.Error(), "\n"))
	_, err = Load("r.toml", []byte("[cluster]\ncontainers = 4\nreduce_containers = 5\n[run]\nuntil = \"1m\"\n"), ".")
	assert.EqualError(t, err, `r.toml:3:1: cluster.reduce_containers = 5: must be 0 (one) … containers = 4: a reduce fits a node`)
	_, err = Load("a.toml", []byte("[cluster]\ncontainers = 4\nam_containers = 5\nam_share = 1.5\n[run]\nuntil = \"1m\"\n"), ".")
	assert.EqualError(t, err, "a.toml:3:1: cluster.am_containers = 5: must be 0 (the AMs hold none) … containers = 4: an AM fits a node\n"+
		"a.toml:4:1: cluster.am_share = 1.5: must be a share in (0, 1] (0: 0.1)")
	_, err = Load("a.toml", []byte("[cluster]\nam_containers = 1\nam_share = 0.5\n[run]\nuntil = \"1m\"\n"), ".")
	assert.EqualError(t, err, "a.toml:2:1: cluster.am_containers = 1: needs cluster.containers > 0: the containers a job's application master takes of a node's")

	// Left out, the slot keys follow the containers, an override's too;
	// set by an override, they are refused as the file's are.
	sc, err := Load("ok.toml", []byte("[cluster]\ncontainers = 6\n[[cluster.class]]\nname = \"big\"\nracks = [1]\ncontainers = 10\n[run]\nuntil = \"1m\"\n"), ".")
	require.NoError(t, err)
	assert.Equal(t, [2]int{6, 6}, [2]int{sc.Config.Cluster.MapSlots, sc.Config.Cluster.ReduceSlots})
	big := sc.Config.Cluster.Class(0)
	assert.Equal(t, [3]int{10, 10, 10}, [3]int{big.Containers, big.MapSlots, big.ReduceSlots})
	assert.Equal(t, 6+10, sc.Config.Cluster.CoresPerNode(&sc.Config.Tasks)+big.CoresPerNode(&sc.Config.Tasks))
	assert.Equal(t, 6*10+10*10, sc.Config.Cluster.Attempts(&sc.Config.Tasks))
	more, err := sc.WithSet("cluster.containers=8", "cluster.reduce_containers=3")
	require.NoError(t, err)
	assert.Equal(t, [2]int{8, 2}, [2]int{more.Config.Cluster.MapSlots, more.Config.Cluster.ReduceSlots}, "8 maps, or 2 reduces of 3 containers")
	big = more.Config.Cluster.Class(0)
	assert.Equal(t, [2]int{10, 3}, [2]int{big.MapSlots, big.ReduceSlots})
	_, err = sc.WithSet("cluster.reduce_slots=2")
	assert.ErrorContains(t, err, "--set cluster.reduce_slots=2: cluster.reduce_slots = 2: must be left out with containers = 6")
}
