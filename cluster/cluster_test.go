package cluster

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

const mib = 1 << 20

// smallCluster is one rack of two nodes with two map and one reduce slot
// each, 100 MB/s disks and 1 Gb/s NICs, 1 MiB blocks and no control
// latency, so times come out round.
func smallCluster() Config {
	cfg := DefaultConfig()
	cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = 1, 2
	cfg.Cluster.MapSlots, cfg.Cluster.ReduceSlots = 2, 1
	cfg.HDFS.BlockSize = mib
	cfg.HDFS.Replication = 2
	cfg.Heartbeat.ControlLatency = 0
	cfg.Run.StallAfter = units.Duration(time.Hour)
	return cfg
}

func run(t *testing.T, cfg Config) *Report {
	t.Helper()
	c, err := Build(cfg)
	require.NoError(t, err)
	rep, err := c.Run()
	require.NoError(t, err)
	return rep
}

// mixedWorkload is 50 jobs of 1 to 60 maps, a third of them map-only,
// arriving every 0–20 s.
func mixedWorkload(seed uint64) []workload.JobSpec {
	rng := rand.New(rand.NewPCG(seed, 1))
	var jobs []workload.JobSpec
	at := time.Duration(0)
	for i := range 50 {
		maps := 1 + rng.IntN(60)
		j := workload.JobSpec{
			Name: fmt.Sprintf("job-%02d", i), Submit: at, InputBytes: int64(maps) * 128 * mib,
			MapCPU: workload.PerMiB(time.Duration(50+rng.IntN(200)) * time.Millisecond),
		}
		if i%3 != 0 {
			j.Reduces = 1 + maps/10
			j.ShuffleBytes = j.InputBytes / int64(1+rng.IntN(4))
			j.OutputBytes = j.ShuffleBytes / 2
			j.ReduceCPU = workload.PerMiB(20 * time.Millisecond)
		}
		jobs = append(jobs, j)
		at += time.Duration(rng.IntN(20_000)) * time.Millisecond
	}
	return jobs
}

func fourRacks() Config {
	cfg := DefaultConfig()
	cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = 4, 10
	cfg.Run.StallAfter = units.Duration(time.Hour)
	cfg.Workload = [][]workload.JobSpec{mixedWorkload(3)}
	return cfg
}

func TestFiftyJobsOnFortyNodesUnderFIFO(t *testing.T) {
	cfg := fourRacks()
	rep := run(t, cfg)
	require.Len(t, rep.Records.Jobs, 50)
	byJob := map[sched.JobID]int{}
	for _, a := range rep.Records.Attempts {
		if a.Outcome == sched.Succeeded {
			byJob[a.Attempt.Job]++
		}
	}
	for _, j := range rep.Records.Jobs {
		require.Equal(t, JobSucceeded, j.Outcome, "job %d: %s", j.ID, j.Reason)
		assert.GreaterOrEqual(t, j.Start, j.Submit)
		assert.Greater(t, j.Finish, j.Start)
		assert.Equal(t, j.Maps+j.Reduces, byJob[j.ID], "job %d: one success per task", j.ID)
	}
	s := rep.Summary
	assert.Equal(t, 50.0, s["jobs.succeeded"])
	assert.InDelta(t, 1, s["tasks.locality.node"]+s["tasks.locality.rack"]+s["tasks.locality.remote"], 1e-12)
	assert.InDelta(t, s["tasks.locality.node"]+s["tasks.locality.rack"], s["tasks.locality.within_rack"], 1e-12)
	assertNoSlotOvercommitted(t, rep, cfg)
}

// assertNoSlotOvercommitted sweeps the attempt records: at no instant does
// a node run more attempts of a kind than it has slots.
func assertNoSlotOvercommitted(t *testing.T, rep *Report, cfg Config) {
	t.Helper()
	type edge struct {
		at    time.Duration
		delta int
	}
	edges := map[[2]int][]edge{}
	for _, a := range rep.Records.Attempts {
		k := [2]int{int(a.Node), int(a.Attempt.Kind)}
		edges[k] = append(edges[k], edge{a.Start, 1}, edge{a.End, -1})
	}
	for k, es := range edges {
		slices.SortFunc(es, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), a.delta-b.delta) })
		busy, limit := 0, cfg.Cluster.MapSlots
		if k[1] == int(sched.Reduce) {
			limit = cfg.Reducers()
		}
		for _, e := range es {
			busy += e.delta
			require.LessOrEqual(t, busy, limit, "node %d %v slots at %v", k[0], sched.TaskKind(k[1]), e.at)
		}
	}
}

func TestSameSeedsSameRecords(t *testing.T) {
	a := run(t, fourRacks())
	b := run(t, fourRacks())
	assert.Equal(t, a.Records, b.Records)
	other := fourRacks()
	other.Run.Seed = 99
	c := run(t, other)
	assert.NotEqual(t, a.Records.Attempts, c.Records.Attempts, "another workload seed places blocks elsewhere")
}

func TestConfigValidateReportsEveryField(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cluster.Racks = 0
	cfg.Cluster.NIC = -1
	cfg.Heartbeat.Interval = 0
	cfg.Scheduler.Name = "lottery"
	cfg.Tasks.ComputeAware = true
	err := cfg.Validate()
	require.Error(t, err)
	assert.Equal(t, `cluster.racks = 0: must be ≥ 1
cluster.nic = -1B/s: must be a rate > 0
heartbeat.interval = 0s: must be at least 1ms: every node heartbeats every interval, so a shorter one is millions of messages per emulated second
tasks.compute_aware = true: needs tasks.copy_compute = true
scheduler.name = lottery: must be one of `+strings.Join(sched.Names(), ", "), err.Error())
	_, err = Build(cfg)
	assert.Error(t, err, "nothing is built from an invalid configuration")
}

func TestConfigValidateKeysThePolicysErrorsUnderScheduler(t *testing.T) {
	cfg := DefaultConfig()
	params := sched.DefaultFairParams()
	params.FairShareFraction, params.Pools = 2, []sched.PoolParams{{Name: "a"}, {MinMaps: 1}}
	cfg.Scheduler.Name, cfg.Scheduler.Params = "fair", params
	var got []FieldError
	for _, e := range cfg.Validate().(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		require.ErrorAs(t, e, &fe)
		got = append(got, *fe)
	}
	assert.Equal(t, []FieldError{
		{Key: "scheduler.fair_share_fraction", Value: 2.0, Msg: "must be a number in [0, 1]"},
		{Key: "scheduler.pools[1].name", Msg: "missing; every pool needs a name"},
	}, got)

	cfg.Scheduler.Name = "fifo"
	assert.EqualError(t, cfg.Validate(), `scheduler "fifo" takes parameters of type *sched.FIFOParams, not *sched.FairParams`)
}

// readyReducerRun has a job whose one reducer computes for 200 s, and a
// small job whose maps are all done by the time its reducer launches, on
// two nodes that compute one reducer at a time. It returns whether the
// small job's reducer ran on the long reducer's node, and whether the small
// job finished before that reducer.
func readyReducerRun(t *testing.T, seed uint64, computeAware bool) (sameNode, before bool) {
	t.Helper()
	cfg := smallCluster()
	cfg.Run.Seed = seed
	cfg.Tasks.CopyCompute, cfg.Tasks.MaxReducers, cfg.Tasks.ComputeAware = true, 3, computeAware
	cfg.Workload = [][]workload.JobSpec{{
		{Name: "long", InputBytes: 2 * mib, MapCPU: workload.PerMiB(time.Second),
			Reduces: 1, ShuffleBytes: 2 * mib, ReduceCPU: workload.PerMiB(100 * time.Second)},
		{Name: "small", Submit: 20 * time.Second, InputBytes: mib, MapCPU: workload.PerMiB(time.Second),
			Reduces: 1, ShuffleBytes: mib, ReduceCPU: workload.PerMiB(10 * time.Second)},
	}}
	rep := run(t, cfg)
	require.Len(t, rep.Records.Jobs, 2)
	reducer := map[sched.JobID]actors.AttemptRecord{}
	for _, a := range rep.Records.Attempts {
		if a.Attempt.Kind == sched.Reduce {
			reducer[a.Attempt.Job] = a
		}
	}
	long, small := reducer[rep.Records.Jobs[0].ID], reducer[rep.Records.Jobs[1].ID]
	require.Equal(t, JobSucceeded, rep.Records.Jobs[1].Outcome)
	return small.Node == long.Node, rep.Records.Jobs[1].Finish < long.End
}

func TestComputeAwareReducersDoNotQueueBehindALongComputation(t *testing.T) {
	// Plain copy-compute splitting places the small job's reducer on
	// whichever node heartbeats first; on the long reducer's node it waits
	// there for the 200 s computation. Compute-aware placement holds it
	// for the node whose compute slot is free. Over eight seeds (heartbeat
	// phases and block placement) plain placement lands behind at least
	// once; compute-aware placement never does.
	behind := 0
	for seed := uint64(1); seed <= 8; seed++ {
		if same, before := readyReducerRun(t, seed, false); same && !before {
			behind++
		}
		same, before := readyReducerRun(t, seed, true)
		assert.False(t, same, "seed %d: compute-aware placement put the ready reducer behind the long one", seed)
		assert.True(t, before, "seed %d: the small job waited for the long reducer", seed)
	}
	assert.Positive(t, behind, "plain placement never queued the small reducer behind the long one")
}

func TestChaosDrawsFromTheScheduleSeedAndReplaysPinned(t *testing.T) {
	chaotic := func(scheduleSeed uint64) Config {
		cfg := fourRacks()
		cfg.Run.ScheduleSeed = scheduleSeed
		cfg.Chaos = Chaos{RelayJitter: units.Duration(300 * time.Millisecond), HeartbeatJitter: units.Duration(2 * time.Second)}
		cfg.Run.RecordDecisions = true
		return cfg
	}
	calm := run(t, fourRacks())
	a, b := run(t, chaotic(1)), run(t, chaotic(1))
	assert.Equal(t, a.Records, b.Records, "one schedule seed, one run")
	assert.NotEqual(t, calm.Records.Jobs, a.Records.Jobs, "chaos moves job times")
	c := run(t, chaotic(2))
	assert.NotEqual(t, a.Records.Jobs, c.Records.Jobs, "another schedule seed draws other delays")
	assertNoSlotOvercommitted(t, a, chaotic(1))

	kinds := map[DecisionKind]int{}
	for _, d := range a.End.Decisions {
		kinds[d.Kind]++
		if d.Kind == DecideHeartbeat {
			assert.Less(t, d.Delay, 2*time.Second)
		}
	}
	assert.Positive(t, kinds[DecideOrder])
	assert.Positive(t, kinds[DecideRelay])
	assert.Positive(t, kinds[DecideHeartbeat])

	// The recorded departures, pinned, repeat the run under any seed;
	// with none pinned the run takes the default course: FIFO, no delays.
	pinned := chaotic(77)
	pinned.Run.Pinned, pinned.Run.Decisions = true, a.End.Decisions
	p := run(t, pinned)
	assert.Equal(t, a.Records, p.Records)
	assert.Equal(t, a.End.Decisions, p.End.Decisions)

	bare := chaotic(77)
	bare.Run.Pinned = true
	d := run(t, bare)
	assert.Empty(t, d.End.Decisions)
	assert.NotEqual(t, a.Records.Jobs, d.Records.Jobs)
}

// A workload with tasks of a kind no node has a slot for could never
// finish: it is refused before the run, naming the knob and a job.
func TestConfigRefusesTasksNoSlotCouldRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = [][]workload.JobSpec{{
		{Name: "maps-only", InputBytes: 1 << 20},
		{Name: "shuffles", InputBytes: 1 << 20, Reduces: 3, ShuffleBytes: 1 << 20},
	}}
	require.NoError(t, cfg.Validate())

	cfg.Cluster.ReduceSlots = 0
	assert.EqualError(t, cfg.Validate(), `cluster.reduce_slots = 0: must be ≥ 1: 1 of the workload's jobs have reduces `+
		`(the first, job 2 "shuffles", has 3), which no node could run`)

	cfg.Cluster.ReduceSlots, cfg.Cluster.MapSlots = 2, 0
	assert.EqualError(t, cfg.Validate(), `cluster.map_slots = 0: must be ≥ 1: 2 of the workload's jobs have maps `+
		`(the first, job 1 "maps-only", has 1), which no node could run`)
}

// interrupter interrupts its cluster when its timer fires, as a signal
// handler does in the middle of a run.
type interrupter struct{ c *Cluster }

func (i *interrupter) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*note); ok {
		i.c.Interrupt()
	}
}

// An interrupted run stops where it is and keeps what was done: the jobs
// that ended, and the ones still running cut off.
func TestInterruptKeepsWhatWasDone(t *testing.T) {
	for _, deterministic := range []bool{true, false} {
		t.Run(fmt.Sprintf("deterministic=%v", deterministic), func(t *testing.T) {
			cfg := smallCluster()
			cfg.Run.Deterministic = new(deterministic)
			cfg.Run.Slowdown = true // no reference runs after an interrupt
			cfg.Workload = [][]workload.JobSpec{{
				{Name: "quick", InputBytes: mib, MapCPU: workload.PerMiB(10 * time.Second)},
				{Name: "slow", Submit: time.Second, InputBytes: mib, MapCPU: workload.PerMiB(time.Hour)},
			}}
			c, err := Build(cfg)
			require.NoError(t, err)
			pid, err := c.Runtime().Spawn("interrupter", func() actor.Actor { return &interrupter{c} })
			require.NoError(t, err)
			c.Runtime().Clock().At(time.Minute, pid, &note{"stop"})
			rep, err := c.Run()
			require.ErrorIs(t, err, ErrInterrupted)
			assert.Equal(t, EndInterrupted, rep.End.Reason)
			assert.GreaterOrEqual(t, rep.End.At, time.Minute)
			if deterministic {
				assert.Equal(t, time.Minute, rep.End.At, "right after the message that interrupted")
			}
			require.Len(t, rep.Records.Jobs, 2)
			assert.Equal(t, JobSucceeded, rep.Records.Jobs[0].Outcome)
			assert.Equal(t, JobCutOff, rep.Records.Jobs[1].Outcome)
			assert.Zero(t, rep.ReferenceWall, "no reference runs")
		})
	}
}

// Waiting for the next arrival with no job running is not a stall: a job
// three hours after the first runs under a one-hour watchdog, on either
// runtime.
func TestWaitingForWorkIsNoStall(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		cfg := smallCluster()
		cfg.Run.Deterministic = new(!concurrent)
		cfg.Workload = [][]workload.JobSpec{{
			{Name: "early", InputBytes: mib},
			{Name: "late", InputBytes: mib, Submit: 3 * time.Hour},
		}}
		rep := run(t, cfg)
		assert.Equal(t, 2.0, rep.Summary["jobs.succeeded"], "concurrent %v", concurrent)
		assert.Greater(t, rep.End.At, 3*time.Hour)
	}
}

// A flow longer than the watchdog's limit is work moving, not a stall: a
// map reading one 400 GB block at 100 MB/s takes 4,000 s under a one-hour
// watchdog and ends, on either runtime.
func TestALongFlowIsNoStall(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		cfg := smallCluster()
		cfg.Run.Deterministic = new(!concurrent)
		cfg.HDFS.BlockSize = 400e9
		cfg.Workload = [][]workload.JobSpec{{{Name: "long", InputBytes: 400e9}}}
		rep := run(t, cfg)
		assert.Equal(t, 1.0, rep.Summary["jobs.succeeded"], "concurrent %v", concurrent)
		assert.Greater(t, rep.End.At, 4000*time.Second)
	}
}

// A watchdog shorter than two heartbeats would call every wait for a
// heartbeat a stall; a heartbeat past it could never come in time.
func TestStallAfterMustOutlastHeartbeats(t *testing.T) {
	cfg := smallCluster()
	cfg.Run.StallAfter = units.Duration(time.Second)
	assert.ErrorContains(t, cfg.Validate(), `run.stall_after = 1s: must be at least twice heartbeat.interval = 3s`)
	cfg.Run.StallAfter = units.Duration(time.Hour)
	cfg.Heartbeat.Interval = units.Duration(106751 * 24 * time.Hour)
	assert.ErrorContains(t, cfg.Validate(), `run.stall_after = 1h: must be at least twice heartbeat.interval = 106751d`)
	cfg.Run.StallAfter = 0
	assert.NoError(t, cfg.Validate())
}

// A scaled clock runs at most MaxSpeedup; past it the virtual clock is
// the one to use.
func TestScaledSpeedupHasACeiling(t *testing.T) {
	cfg := smallCluster()
	cfg.Run.Clock, cfg.Run.Speedup = Scaled, MaxSpeedup
	assert.NoError(t, cfg.Validate())
	cfg.Run.Speedup = 1e9
	assert.ErrorContains(t, cfg.Validate(), `run.speedup = 1e+09: must be at most 100000 for a scaled clock`)
	cfg.Run.Speedup = math.Inf(1)
	assert.ErrorContains(t, cfg.Validate(), `run.speedup = +Inf`)
}

// A shuffle of more transfers than a run holds is refused, with the
// count and the knob that makes it fewer.
func TestConfigRefusesMoreFetchesThanARunHolds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = [][]workload.JobSpec{{{Name: "wide", InputBytes: 40_000 * 128 * mib, Reduces: 30_000, ShuffleBytes: 1 << 40}}}
	needs := cfg.Needs()
	assert.Equal(t, Needs{Nodes: 20, Jobs: 1, Maps: 40_000, Reduces: 30_000, Replicas: 120_000, Fetches: 1_200_000_000,
		// 70,000 tasks pending, 40 reduces running with every map's state,
		// 20 idle nodes.
		Memory: 70_000*pendingTaskBytes + 40*40_000*fetchStateBytes + 20*idleNodeBytes}, needs)
	assert.ErrorContains(t, cfg.Validate(), "tasks.fetch_per_host = false: the workload needs 1200000000 shuffle fetches, more than the 1073741824 one run holds")
	cfg.Tasks.FetchPerHost = true
	assert.Equal(t, int64(20*30_000), cfg.Needs().Fetches, "one fetch per node's outputs")
	assert.NoError(t, cfg.Validate())
	cfg.Tasks.FetchPerRack = true
	racks, perRack := cfg.Cluster.Racks, cfg.Cluster.NodesPerRack
	require.Greater(t, racks, 1)
	assert.Equal(t, int64((perRack+racks-1)*30_000), cfg.Needs().Fetches, "one fetch per node of its own rack and per other rack")
	assert.NoError(t, cfg.Validate())
}

// Control-plane delays longer than the liveness window would declare live
// nodes dead, which a node cannot come back from: refused.
func TestChaosMustNotOutlastTheLivenessWindow(t *testing.T) {
	cfg := smallCluster()
	cfg.Heartbeat.DeadAfter = 10
	cfg.Chaos.RelayJitter = units.Duration(26 * time.Second)
	assert.NoError(t, cfg.Validate())
	cfg.Chaos.HeartbeatJitter = units.Duration(time.Second)
	assert.ErrorContains(t, cfg.Validate(), "chaos.relay_jitter = 26s: with chaos.heartbeat_jitter = 1s must stay below (heartbeat.dead_after − 1) × heartbeat.interval = 27s")
	cfg.Heartbeat.DeadAfter = 0 // never declared dead
	assert.NoError(t, cfg.Validate())
}

// heartbeat.per_second stretches every node's interval as Hadoop 1 does,
// and the watchdog is checked against the stretched interval.
func TestHeartbeatsScaleWithTheCluster(t *testing.T) {
	beats := func(perSecond int) int {
		cfg := smallCluster()
		cfg.Cluster.NodesPerRack = 8
		cfg.Heartbeat.PerSecond = perSecond
		cfg.Run.Until = units.Duration(time.Minute)
		cfg.Run.Events = true
		// A job due after the cut-off keeps the run from ending idle.
		cfg.Workload = [][]workload.JobSpec{{{InputBytes: mib, Submit: 2 * time.Minute}}}
		n := 0
		for _, e := range run(t, cfg).End.Events {
			if e.Type == "actors.Heartbeat" && e.Receiver == "coordinator" {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 8*20, beats(0), "every 3 s: 20 a minute from each of 8 nodes")
	scaled := beats(1) // every ⌈8 / 1⌉ = 8 s: 7 or 8 a minute, by each node's phase
	assert.GreaterOrEqual(t, scaled, 8*7)
	assert.LessOrEqual(t, scaled, 8*8)

	cfg := smallCluster()
	cfg.Cluster.NodesPerRack = 8
	cfg.Heartbeat.PerSecond = 1
	cfg.Run.StallAfter = units.Duration(10 * time.Second)
	assert.ErrorContains(t, cfg.Validate(), `run.stall_after = 10s: must be at least twice the heartbeat interval = 8s (heartbeat.per_second = 1 on 8 nodes)`)
}

// A run that tallies attempts keeps none of their records and summarises
// them the same.
func TestTallyAttemptsKeepsNoRecordsAndTheSameSummary(t *testing.T) {
	cfg := fourRacks()
	cfg.Tasks.FailureProbability = 0.1
	kept := run(t, cfg)
	cfg.Run.TallyAttempts = true
	tallied := run(t, cfg)
	require.NotEmpty(t, kept.Records.Attempts)
	assert.Empty(t, tallied.Records.Attempts)
	assert.Equal(t, kept.Summary, tallied.Summary)
	assert.Equal(t, len(kept.Records.Attempts), tallied.Records.Tally.Attempts)
	assert.Positive(t, tallied.Summary["tasks.failed"])
}

// tasks.fetch_per_rack needs per-host fetches, and is refused where a
// rack fetch would miss what the exact fetches see: a loss drawn per
// source node, a partition or a cut node NIC. A crash it handles.
func TestFetchPerRackIsRefusedWhereItCannotHold(t *testing.T) {
	cfg := smallCluster()
	cfg.Cluster.Racks = 2
	cfg.Tasks.FetchPerRack = true
	assert.ErrorContains(t, cfg.Validate(), "tasks.fetch_per_rack = true: needs tasks.fetch_per_host = true")
	cfg.Tasks.FetchPerHost = true
	assert.NoError(t, cfg.Validate())

	cfg.Faults = []actors.Fault{{Kind: actors.FaultCrash, Node: 1, At: time.Second}}
	assert.NoError(t, cfg.Validate())
	cfg.Faults = []actors.Fault{{Kind: actors.FaultPartition, Rack: 1, At: time.Second, For: time.Second}}
	assert.ErrorContains(t, cfg.Validate(), "tasks.fetch_per_rack = true: cannot be used with fault[0] (partition rack 1)")
	cfg.Faults = []actors.Fault{{Kind: actors.FaultLink, Link: netmodel.LinkRef{Kind: netmodel.HostNICUp, Host: 2}, At: time.Second, For: time.Second}}
	assert.ErrorContains(t, cfg.Validate(), "cannot be used with fault[0] (link host 2 nic-up)")
	cfg.Faults = nil

	cfg.IntermediateLoss = &actors.IntermediateLossConfig{Probability: 0.01}
	assert.ErrorContains(t, cfg.Validate(), "tasks.fetch_per_rack = true: cannot be used with [intermediate_loss]")
}
