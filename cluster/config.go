package cluster

import (
	"errors"
	"fmt"
	"math"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// Config is everything a run needs: the cluster's shape and rates, HDFS,
// heartbeats, the scheduling policy and the workload. Rates are bytes per
// second; durations are emulated time. Start from DefaultConfig.
type Config struct {
	// Seed drives everything the workload generates (block placement,
	// heartbeat phases); ScheduleSeed only the order of same-instant
	// messages.
	Seed, ScheduleSeed uint64
	// Until cuts the run off at this emulated instant; 0 runs to the end.
	Until time.Duration
	// StallAfter fails a run that makes no progress for this long; 0
	// never does.
	StallAfter time.Duration
	// Clock is virtual (the default), scaled or wall; Speedup is a scaled
	// run's emulated seconds per wall second. Concurrent runs virtual time
	// on protoactor's goroutines instead of the deterministic executor;
	// scaled and wall runs are always concurrent and not reproducible.
	Clock      ClockMode
	Speedup    float64
	Concurrent bool

	Racks, NodesPerRack   int
	MapSlots, ReduceSlots int // per node
	DiskRead, DiskWrite   float64
	NIC                   float64 // each direction
	// RackUplink is each rack's link to the core, each direction; when 0,
	// Oversubscription sets it to NodesPerRack × NIC / Oversubscription.
	RackUplink       float64
	Oversubscription float64
	Core             float64 // 0: no core link
	// RackAware tells Hadoop the racks (its topology script). When false,
	// as on EC2, HDFS places replicas and the scheduler judges locality as
	// if every node shared one rack, while the fabric keeps the racks and
	// their uplinks: reads Hadoop counts as rack-local may cross them.
	RackAware bool
	// CompletionWindow lets flows finishing within it of each other
	// complete together (netmodel.Config); 0 is exact.
	CompletionWindow time.Duration
	// IntermediateSpace, when > 0, is each node's disk space for map
	// outputs (Zaharia et al. §5.4); Evict picks the job whose outputs go
	// when the space deadlocks the cluster: "latest", "least_progress" or
	// "largest" (the paper's counter-example, which can livelock).
	IntermediateSpace int64
	Evict             string

	BlockSize   int64
	Replication int

	Heartbeat      time.Duration
	ControlLatency time.Duration // per rack-switch hop of a control message
	DeadAfter      int           // missed heartbeats before a node is dead; 0 never
	AssignMultiple bool          // fill every free slot per heartbeat
	OutOfBand      bool          // heartbeat as soon as an attempt ends

	Scheduler       string
	SchedulerParams map[string]any
	PolicyTick      time.Duration // 0: the policy never ticks

	SlowStart float64
	JobSetup  time.Duration // per-job initialisation before its tasks run
	// CopyCompute splits reduces into copy and compute (Zaharia et al.
	// §5.2): a node runs MaxReducers reducers (0: 3 × ReduceSlots), of
	// which ReduceSlots may compute at once, and at most ReduceSlots of a
	// job's reducers that have not begun computing.
	CopyCompute bool
	MaxReducers int
	// ComputeAware, under copy-compute splitting, launches a reducer whose
	// job's maps have all finished only where a compute slot is free, so
	// it does not queue behind a long computation on its node while
	// another node's compute slot idles.
	ComputeAware bool
	// FetchPerHost fetches every announced map output of one node in a
	// single flow (later Hadoop's per-host shuffle fetchers) rather than a
	// flow per map output (Hadoop 1).
	FetchPerHost bool
	// MaxAttempts is the failed attempts after which a task fails its
	// job; FailureProbability the chance that an attempt fails at the end
	// of its compute, drawn per attempt from the workload seed.
	MaxAttempts        int
	FailureProbability float64
	ParallelCopies     int
	// CommitPendingRunning counts a finished task as its job's until the
	// heartbeat that reports it has offered its slot: Hadoop's behaviour
	// that hides sticky slots (actors.CoordinatorConfig).
	CommitPendingRunning bool

	// Workload holds one job list per client stream, each sorted by
	// submission time.
	Workload [][]workload.JobSpec
	// Closed holds one job list per closed-loop worker: its first job is
	// submitted at its Submit, each later one Submit (the think time)
	// after the one before it ended. Closed jobs are numbered after the
	// open streams' jobs.
	Closed [][]workload.JobSpec

	// Chaos perturbs a deterministic run's control plane with delays
	// drawn from the schedule seed.
	Chaos Chaos
	// Pinned follows Decisions instead of drawing (RunOptions.Pinned);
	// RecordDecisions records where the run left the default course.
	Pinned          bool
	Decisions       []Decision
	RecordDecisions bool

	Events, Choices bool // record the event and choice logs
	// Slowdown runs every job alone on an empty copy of the cluster after
	// the run, for its reference runtime (ReferenceRuntimes), and reports
	// slowdowns. It costs one extra run per distinct job.
	Slowdown bool

	// firstJob is the ID of the workload's first job (0: 1), so that a
	// reference run keeps the job's ID and with it its input file.
	firstJob sched.JobID
}

// DefaultConfig is a small cluster with Hadoop's defaults: 2 racks of 10
// nodes with 4 map and 2 reduce slots, 100 MB/s disks, 1 Gb/s NICs with
// 5:1 rack oversubscription, 128 MiB blocks in 3 replicas, 3 s heartbeats
// with 1 ms per control hop, FIFO, slow-start 0.05, 4 attempts, 5
// parallel copies.
func DefaultConfig() Config {
	return Config{
		Racks: 2, NodesPerRack: 10, MapSlots: 4, ReduceSlots: 2,
		DiskRead: 100e6, DiskWrite: 100e6, NIC: 125e6, Oversubscription: 5, RackAware: true,
		BlockSize: 128 << 20, Replication: 3,
		Heartbeat: 3 * time.Second, ControlLatency: time.Millisecond, DeadAfter: 10,
		AssignMultiple: true, Scheduler: "fifo", PolicyTick: time.Second, Evict: "latest",
		SlowStart: 0.05, MaxAttempts: 4, ParallelCopies: 5,
	}
}

// Reducers is the reducers a node runs at once: its reduce slots, or
// MaxReducers under copy-compute splitting.
func (c *Config) Reducers() int {
	switch {
	case !c.CopyCompute:
		return c.ReduceSlots
	case c.MaxReducers > 0:
		return c.MaxReducers
	}
	return 3 * c.ReduceSlots
}

// Nodes is the cluster's node count.
func (c *Config) Nodes() int { return c.Racks * c.NodesPerRack }

// FieldError is one invalid configuration value. Key is the scenario key
// that sets the field ("cluster.racks", "heartbeat.interval"), so a
// scenario can place the error in its file.
type FieldError struct {
	Key   string
	Value any
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s = %v: %s", e.Key, e.Value, e.Msg) }

// Validate checks the whole configuration and reports every invalid field
// at once, joined; each is a *FieldError naming the field, its value and
// what is allowed.
func (c *Config) Validate() error {
	var errs []error
	check := func(bad bool, key string, v any, msg string) {
		if bad {
			errs = append(errs, &FieldError{Key: key, Value: v, Msg: msg})
		}
	}
	check(c.Racks < 1, "cluster.racks", c.Racks, "must be ≥ 1")
	check(c.NodesPerRack < 1, "cluster.nodes_per_rack", c.NodesPerRack, "must be ≥ 1")
	check(c.MapSlots < 0, "cluster.map_slots", c.MapSlots, "must be ≥ 0")
	check(c.ReduceSlots < 0, "cluster.reduce_slots", c.ReduceSlots, "must be ≥ 0")
	check(!positive(c.DiskRead), "cluster.disk_read", c.DiskRead, "must be a rate > 0")
	check(!positive(c.DiskWrite), "cluster.disk_write", c.DiskWrite, "must be a rate > 0")
	check(!positive(c.NIC), "cluster.nic", c.NIC, "must be a rate > 0")
	check(!nonNegative(c.RackUplink), "cluster.rack_uplink", c.RackUplink, "must be ≥ 0 (0: set by oversubscription)")
	check(!nonNegative(c.Oversubscription), "cluster.oversubscription", c.Oversubscription, "must be ≥ 0")
	check(!nonNegative(c.Core), "cluster.core", c.Core, "must be ≥ 0 (0: no core link)")
	check(c.CompletionWindow < 0, "cluster.completion_window", c.CompletionWindow, "must be ≥ 0")
	check(c.IntermediateSpace < 0, "cluster.intermediate_space", c.IntermediateSpace, "must be ≥ 0 (0: unlimited)")
	check(c.Evict != "" && c.Evict != actors.EvictLatest && c.Evict != actors.EvictLeastProgress && c.Evict != actors.EvictLargest,
		"cluster.evict", c.Evict, fmt.Sprintf("must be %q, %q or %q", actors.EvictLatest, actors.EvictLeastProgress, actors.EvictLargest))
	check(c.BlockSize < 1, "hdfs.block_size", c.BlockSize, "must be ≥ 1 byte")
	check(c.Replication < 1 || c.Replication > c.Nodes(), "hdfs.replication", c.Replication,
		fmt.Sprintf("must be 1 … %d (the nodes)", max(c.Nodes(), 1)))
	check(c.Heartbeat <= 0, "heartbeat.interval", c.Heartbeat, "must be > 0")
	check(c.ControlLatency < 0, "heartbeat.control_latency", c.ControlLatency, "must be ≥ 0")
	check(c.DeadAfter < 0, "heartbeat.dead_after", c.DeadAfter, "must be ≥ 0 missed heartbeats (0: never)")
	check(c.PolicyTick < 0, "scheduler.tick", c.PolicyTick, "must be ≥ 0")
	check(!(c.SlowStart >= 0 && c.SlowStart <= 1), "tasks.slow_start", c.SlowStart, "must be in [0, 1]")
	check(c.MaxAttempts < 1, "tasks.max_attempts", c.MaxAttempts, "must be ≥ 1")
	check(!(c.FailureProbability >= 0 && c.FailureProbability <= 1), "tasks.failure_probability", c.FailureProbability, "must be in [0, 1]")
	check(c.ParallelCopies < 1, "tasks.parallel_copies", c.ParallelCopies, "must be ≥ 1")
	check(c.JobSetup < 0, "tasks.job_setup", c.JobSetup, "must be ≥ 0s")
	check(c.MaxReducers != 0 && c.MaxReducers < c.ReduceSlots, "tasks.max_reducers", c.MaxReducers,
		fmt.Sprintf("must be 0 (3 × reduce_slots) or ≥ cluster.reduce_slots = %d", c.ReduceSlots))
	check(c.ComputeAware && !c.CopyCompute, "tasks.compute_aware", c.ComputeAware, "needs tasks.copy_compute = true")
	check(c.Until < 0, "run.until", c.Until, "must be ≥ 0")
	check(c.StallAfter < 0, "run.stall_after", c.StallAfter, "must be ≥ 0")
	check(c.Clock != "" && c.Clock != Virtual && c.Clock != Scaled && c.Clock != Wall, "run.clock", c.Clock,
		`must be "virtual", "scaled" or "wall"`)
	check(c.Clock == Scaled && !positive(c.Speedup), "run.speedup", c.Speedup, "must be > 0 for a scaled clock")
	deterministic := (c.Clock == "" || c.Clock == Virtual) && !c.Concurrent
	check(c.Chaos.RelayJitter < 0, "chaos.relay_jitter", c.Chaos.RelayJitter, "must be ≥ 0")
	check(c.Chaos.HeartbeatJitter < 0 || c.Heartbeat > 0 && c.Chaos.HeartbeatJitter >= c.Heartbeat, "chaos.heartbeat_jitter", c.Chaos.HeartbeatJitter,
		fmt.Sprintf("must be ≥ 0 and below heartbeat.interval = %v, so heartbeats keep their order", c.Heartbeat))
	if c.Chaos.On() && !deterministic {
		if c.Clock == "" || c.Clock == Virtual {
			check(true, "run.deterministic", false, "must be true under [chaos], whose delays only a deterministic run draws")
		} else {
			check(true, "run.clock", c.Clock, `must be "virtual" under [chaos], whose delays only a deterministic run draws`)
		}
	}
	if _, err := sched.New(c.Scheduler, c.SchedulerParams); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.validateWorkload()...)
	return errors.Join(errs...)
}

func nonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

func (c *Config) validateWorkload() []error {
	var errs []error
	for s, jobs := range c.Workload {
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				errs = append(errs, fmt.Errorf("workload stream %d, job %d (%s): %w", s, i, jobs[i].Name, err))
			}
			if i > 0 && jobs[i].Submit < jobs[i-1].Submit {
				errs = append(errs, fmt.Errorf("workload stream %d, job %d (%s): submit = %v: before the job ahead of it (%v)",
					s, i, jobs[i].Name, jobs[i].Submit, jobs[i-1].Submit))
			}
		}
	}
	for w, jobs := range c.Closed {
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				errs = append(errs, fmt.Errorf("closed worker %d, job %d (%s): %w", w, i, jobs[i].Name, err))
			}
		}
	}
	return errs
}

// Jobs lists every job of the workload in ID order (ID = index + 1): the
// open streams' jobs, then the closed workers'. A closed job's Submit is
// its think time.
func (c *Config) Jobs() []workload.JobSpec {
	var jobs []workload.JobSpec
	for _, stream := range c.Workload {
		jobs = append(jobs, stream...)
	}
	for _, worker := range c.Closed {
		jobs = append(jobs, worker...)
	}
	return jobs
}
