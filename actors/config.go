package actors

import (
	"fmt"
	"math"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// The scenario's tables that configure the actors. Each is decoded
// straight from its TOML table (the tags are the scenario keys), checked
// by its Validate, and handed whole to the actors that read it: a new key
// is one field here, its check, and the code that uses it.

// ClusterConfig is [cluster]: the cluster's shape and rates. Rates are
// bytes per second, each direction.
type ClusterConfig struct {
	Racks        int `toml:"racks"`
	NodesPerRack int `toml:"nodes_per_rack"`
	// MapSlots and ReduceSlots are each node's slots. A reduce slot
	// computes a reduce; without copy-compute splitting it also holds the
	// reducer while it copies (TasksConfig.Reducers).
	MapSlots    int `toml:"map_slots"`
	ReduceSlots int `toml:"reduce_slots"`
	// Containers, when > 0, makes each node's slots one pool, as YARN's
	// NodeManager offers containers that a map or a reduce takes: a map
	// takes one, a reduce ReduceContainers (0: one), as a MapReduce job
	// asks for more memory for its reduces than for its maps, and a node
	// runs what fits. MapSlots is then Containers and ReduceSlots
	// Containers / ReduceContainers (a scenario that sets containers
	// leaves them out). The job's application master releases reduces
	// into the pool by its ramp-up rule and takes them back when they hold
	// the containers its maps need (coordinator_containers.go).
	Containers       int `toml:"containers,omitzero" json:",omitempty"`
	ReduceContainers int `toml:"reduce_containers,omitzero" json:",omitempty"`
	// AMContainers, with containers, is what each running job's
	// application master holds of a node's containers, as YARN runs the
	// MRAppMaster in a container of the cluster (0: the AMs hold none). A
	// job waits for its AM's container before any task runs, and AMs hold
	// at most AMShare of the live containers (0: 0.1, the Capacity
	// Scheduler's maximum-am-resource-percent; at least one AM runs).
	AMContainers int        `toml:"am_containers,omitzero" json:",omitempty"`
	AMShare      float64    `toml:"am_share,omitzero" json:",omitempty"`
	DiskRead     units.Rate `toml:"disk_read"`
	DiskWrite    units.Rate `toml:"disk_write"`
	NIC          units.Rate `toml:"nic"`
	// RackUplink is each rack's link to the core; when 0, Oversubscription
	// sets it to NodesPerRack × NIC / Oversubscription.
	RackUplink       units.Rate `toml:"rack_uplink"`
	Oversubscription float64    `toml:"oversubscription"`
	Core             units.Rate `toml:"core"` // 0: no core link
	// RackAware tells Hadoop the racks (its topology script). When false,
	// as on EC2, HDFS places replicas and the scheduler judges locality as
	// if every node shared one rack, while the fabric keeps the racks and
	// their uplinks: reads Hadoop counts as rack-local may cross them.
	RackAware bool `toml:"rack_awareness"`
	// CompletionWindow lets flows finishing within it of each other
	// complete together (netmodel.Config); 0 is exact.
	CompletionWindow units.Duration `toml:"completion_window"`
	// SolveInterval lets the rate changes made within it of a re-solve
	// wait for one re-solve at its end, starting flows meanwhile on the
	// capacity their paths have left (netmodel.Config); 0 is exact.
	SolveInterval units.Duration `toml:"solve_interval,omitzero" json:",omitempty"`
	// IntermediateSpace, when > 0, is each node's disk space for map
	// outputs (Zaharia et al. §5.4). A running map reserves its spill; a
	// finished map's output stays until its job ends or is evicted. Evict
	// picks the job whose outputs go when the space deadlocks the cluster
	// (coordinator_space.go).
	IntermediateSpace units.Bytes `toml:"intermediate_space"`
	Evict             string      `toml:"evict"`
	// Cores is each node's processor cores (0: one per slot, the map slots
	// and the reducers that compute at once). The running computes share
	// the node's cores × Speed max-min, each at most one core.
	Cores int `toml:"cores"`
	// Speed is a core's speed relative to the one the jobs' CPU costs are
	// stated for.
	Speed float64 `toml:"speed"`
	// SendCPU and ReceiveCPU are the CPU a node spends per MiB it sends
	// or receives over the network (serving a remote block or a shuffle
	// output, receiving it, a pipeline hop); 0: moving bytes is free.
	SendCPU    units.Duration `toml:"send_cpu_per_mib"`
	ReceiveCPU units.Duration `toml:"receive_cpu_per_mib"`
	// Memory is each node's memory bandwidth for reading cached blocks
	// ([cache]); 0: no memory link, as a cluster without a cache needs
	// none.
	Memory units.Rate `toml:"memory,omitzero" json:",omitempty"`
	// Classes are the nodes whose hardware differs from the keys above
	// ([[cluster.class]], cluster_class.go); none: every node is alike.
	Classes []NodeClass `toml:"class,omitempty" json:",omitempty"`
}

// ReduceSize is how many of a node's containers a reduce takes: 1 unless
// ReduceContainers says.
func (c *ClusterConfig) ReduceSize() int { return max(1, c.ReduceContainers) }

// AMLimit is the share of the live containers the application masters
// may hold (AMShare).
func (c *ClusterConfig) AMLimit() float64 {
	if c.AMShare == 0 {
		return 0.1
	}
	return c.AMShare
}

// Takes is how many of a node's containers an attempt of the kind takes:
// a map one, a reduce ReduceSize.
func (c *ClusterConfig) Takes(kind sched.TaskKind) int {
	if kind == sched.Reduce {
		return c.ReduceSize()
	}
	return 1
}

// CoreRate is one core's work per second at speed 1: work is counted in
// nanoseconds of a nominal core, so a CPU link's capacity is cores ×
// speed × CoreRate.
const CoreRate = 1e9

// MaxSpeed is the fastest a core may be relative to nominal.
const MaxSpeed = 1e3

// CoresPerNode is each node's cores: Cores, or one per map slot and per
// reducer that computes at once.
func (c *ClusterConfig) CoresPerNode(t *TasksConfig) int {
	if c.Cores > 0 {
		return c.Cores
	}
	if c.Containers > 0 {
		return c.Containers
	}
	computing := t.ComputeSlots(c.ReduceSlots)
	if computing == 0 {
		computing = t.Reducers(c.ReduceSlots)
	}
	return max(1, c.MapSlots+computing)
}

// CPU is a node's CPU link capacity: cores × speed × CoreRate.
func (c *ClusterConfig) CPU(t *TasksConfig) float64 {
	return float64(c.CoresPerNode(t)) * c.Speed * CoreRate
}

// ByteCPU is the CPU work (nanoseconds of a nominal core) a node spends
// per byte it sends and per byte it receives over the network.
type ByteCPU struct {
	Send, Receive float64
}

// ByteCPU converts the per-MiB costs to work per byte.
func (c *ClusterConfig) ByteCPU() ByteCPU {
	perByte := func(d units.Duration) float64 { return float64(d) / (1 << 20) }
	return ByteCPU{Send: perByte(c.SendCPU), Receive: perByte(c.ReceiveCPU)}
}

// Limits of what one run can hold; Validate refuses more.
const (
	MaxNodes        = 100_000                          // racks × nodes_per_rack
	MaxSlotsPerNode = 1024                             // map slots, and reducers, per node
	MaxTasks        = 20_000_000                       // maps and reduces of the whole workload
	MinPeriod       = units.Duration(time.Millisecond) // heartbeat.interval, scheduler.tick
	MaxAttempts     = 100                              // tasks.max_attempts
	MaxFetches      = 1 << 30                          // shuffle transfers of the whole workload
	MinByteCPU      = units.Duration(time.Microsecond) // cluster.send_cpu_per_mib, receive_cpu_per_mib
	MaxByteCPU      = units.Duration(1000 * time.Second)
)

// Nodes is the cluster's node count; it saturates rather than overflow, so
// validation can report a product too large.
func (c *ClusterConfig) Nodes() int {
	if c.Racks > 0 && c.NodesPerRack > math.MaxInt/c.Racks {
		return math.MaxInt
	}
	return c.Racks * c.NodesPerRack
}

// HDFSConfig is [hdfs].
type HDFSConfig struct {
	BlockSize   units.Bytes `toml:"block_size"`
	Replication int         `toml:"replication"`
	// WriteTimeout drops a datanode from a write pipeline when the bytes
	// to it stall that long (HDFS's client socket timeout, 1 min): the
	// write goes on without it, the block one replica short. Stalls are
	// checked as tasks.fetch_timeout's are.
	WriteTimeout units.Duration `toml:"write_timeout"`
	// ReplicationStreams caps the block copies one datanode serves at
	// once when the NameNode restores the replicas of a lost node (HDFS's
	// replication streams, 2).
	ReplicationStreams int `toml:"replication_streams"`
}

// HeartbeatConfig is [heartbeat].
type HeartbeatConfig struct {
	// Reliable is set when the run's message rules may drop control
	// messages: the coordinator then answers each heartbeat
	// (HeartbeatAck), a node repeats the attempt ends it reported until
	// answered, and the coordinator forwards each end to its job manager
	// as TaskFinished, so a lost report is made good, as Hadoop's
	// heartbeat, a call with a response, does. Without rules the answer
	// would carry nothing a node needs and is left out.
	Reliable bool           `toml:"-" json:"-"`
	Interval units.Duration `toml:"interval"`
	// ControlLatency is each rack-switch hop of a control message.
	ControlLatency units.Duration `toml:"control_latency"`
	// DeadAfter is the missed heartbeats after which the coordinator
	// declares a node dead; 0 never does.
	DeadAfter int `toml:"dead_after"`
	// AssignMultiple fills every free slot of a heartbeating node; when
	// false a heartbeat gets at most one task of each kind.
	AssignMultiple bool `toml:"assign_multiple"`
	// OutOfBand sends a heartbeat as soon as an attempt ends, as Hadoop's
	// out-of-band heartbeat does, besides the periodic ones.
	OutOfBand bool `toml:"out_of_band"`
	// PerSecond, when positive, scales the interval with the cluster as
	// Hadoop 1's JobTracker does (mapreduce.jobtracker.heartbeats.in.second):
	// each node beats every ⌈nodes / PerSecond⌉ seconds, never more often
	// than Interval, so the coordinator hears about PerSecond heartbeats a
	// second however large the cluster.
	PerSecond int `toml:"per_second"`
	// ServiceTime is the emulated time the coordinator takes to handle
	// each message from a node, job manager, cache client or client; it
	// handles them one at a time, in turn, each taking effect when its
	// service ends (coordinator_service.go). 0: at once.
	ServiceTime units.Duration `toml:"service_time" json:",omitzero"`
	// ServicePerTask is added to a message's service for each task its
	// handling launches (the Omega simulator's t_task beside its t_job):
	// a heartbeat that fills many slots takes longer to answer. 0: none.
	ServicePerTask units.Duration `toml:"service_per_task" json:",omitzero"`
	// ServicePerJob is added to a message's service for each job the
	// scheduling policy looks at while deciding it (each job status the
	// coordinator's view hands it: sched.View's Job, BestLocality, and
	// each job Jobs yields): a policy that scans every job at every offer
	// pays for the scan. 0: none.
	ServicePerJob units.Duration `toml:"service_per_job" json:",omitzero"`
	// CallTimeout, with a service time, is how long a node waits for its
	// heartbeat call's answer before it gives the call up and sends the
	// next, as Hadoop IPC's ipc.client.rpc-timeout.ms does; the
	// coordinator skips a call whose node gave up by its turn. 0: a call
	// waits as long as its connection holds (coordinator_service.go).
	CallTimeout units.Duration `toml:"call_timeout" json:",omitzero"`
}

// Serves reports whether the coordinator serves its messages in turn,
// taking time over each (coordinator_service.go).
func (h *HeartbeatConfig) Serves() bool {
	return h.ServiceTime > 0 || h.ServicePerTask > 0 || h.ServicePerJob > 0
}

// Period is the interval between one node's heartbeats in a cluster of
// the given size: Interval, or the scaled one when PerSecond is set and
// that is longer.
func (h *HeartbeatConfig) Period(nodes int) units.Duration {
	if h.PerSecond <= 0 {
		return h.Interval
	}
	secs := (int64(nodes) + int64(h.PerSecond) - 1) / int64(h.PerSecond)
	return max(h.Interval, units.Duration(time.Duration(secs)*time.Second))
}

// DeadTimeout is the silence after which a node is dead; 0 never.
func (h *HeartbeatConfig) DeadTimeout() time.Duration {
	return time.Duration(h.DeadAfter) * h.Interval.Std()
}

// TasksConfig is [tasks]: how tasks run and are retried.
type TasksConfig struct {
	// SlowStart is the fraction of a job's maps that must finish before
	// its reduces run, unless the job sets its own.
	SlowStart float64 `toml:"slow_start"`
	// MaxAttempts is the failed attempts after which a task fails its job.
	MaxAttempts int `toml:"max_attempts"`
	// FailureProbability is each attempt's chance of failing at the end of
	// its compute, drawn per attempt from a stream keyed by the workload
	// seed and the attempt.
	FailureProbability float64 `toml:"failure_probability"`
	// ParallelCopies caps a reduce attempt's concurrent shuffle fetches
	// (Hadoop's mapred.reduce.parallel.copies).
	ParallelCopies int `toml:"parallel_copies"`
	// JobSetup is each job's initialisation before its tasks are
	// runnable; Zaharia et al. name it the bottleneck of 3-map jobs.
	JobSetup units.Duration `toml:"job_setup"`
	// CopyCompute splits reduces into copy and compute (Zaharia et al.
	// §5.2): a node runs Reducers reducers, of which its reduce slots
	// compute at once, and at most reduce-slots of one job's reducers that
	// have not begun computing. MaxReducers is those reducers (0: 3 ×
	// reduce slots).
	CopyCompute bool `toml:"copy_compute"`
	MaxReducers int  `toml:"max_reducers"`
	// ComputeAware, under copy-compute splitting, launches a reducer of a
	// job whose maps have all finished only on a node with a compute slot
	// that no reducer claims: it would compute at once, so it waits for
	// such a node in the job's queue rather than in one node's.
	ComputeAware bool `toml:"compute_aware"`
	// FetchPerHost fetches every announced map output of one node in a
	// single flow (later Hadoop's per-host shuffle fetchers) rather than a
	// flow per map output (Hadoop 1).
	FetchPerHost bool `toml:"fetch_per_host"`
	// FetchPerRack, an approximation (needs FetchPerHost), fetches every
	// announced map output of one other rack in a single flow: the
	// oldest queued output's rack, all its nodes at once. The flow
	// crosses that rack's uplink, the core, the reducer's rack downlink
	// and its NIC; the source nodes' disks, NICs and sending CPU are left
	// out of it (the approximation's error). The reducer's own rack is
	// still fetched node by node, exactly, and so is a rack whose queued
	// outputs are on one node. Off: the exact shuffle.
	FetchPerRack bool `toml:"fetch_per_rack" json:",omitzero"`
	// MapEventsEvery, when positive, has a job's reducers hear of its
	// finished maps in batches, one message a node every interval, as
	// Hadoop's reducers poll for map-completion events (job_events.go);
	// 0 relays a map's news to each reducer as the map ends.
	MapEventsEvery units.Duration `toml:"map_events_every" json:",omitzero"`
	// CommitPendingRunning reproduces Hadoop's commit-pending counting
	// (Zaharia et al. §4.1): a task that finished its work still counts as
	// running for its job while the heartbeat that reports it offers its
	// slot, so the slot goes to another job and sticky slots do not form.
	// Off, the job is told first and is the one furthest below its share.
	CommitPendingRunning bool `toml:"commit_pending_running"`
	// ProgressInterval, when positive, has every attempt report its
	// progress to its job manager (Hadoop's progress score) every Δ =
	// min(ProgressInterval, an eighth of its phase so far), and at least a
	// tenth of ProgressInterval apart: Mantri's "every 10 s or ten times
	// in their lifetime, whichever is smaller" with the lifetime not yet
	// known. 0: no reports.
	ProgressInterval units.Duration `toml:"progress_interval"`
	// FetchFailures is how many fetch failures reducers report for one
	// map output before its job manager runs the map again, also when its
	// node is alive but cannot be reached (Hadoop's fetch-failure rule,
	// 3 notifications).
	FetchFailures int `toml:"fetch_failures"`
	// FetchTimeout fails a shuffle fetch that delivers no byte for that
	// long (Hadoop's shuffle read timeout, 3 min): one stalled behind a
	// partition or a cut link. Stalls are checked every FetchTimeout while
	// a link is down, so one is found 1 to 2 × FetchTimeout after it began.
	FetchTimeout units.Duration `toml:"fetch_timeout"`
	// FetchRetry is how long a reducer waits before it fetches again an
	// output whose fetch failed.
	FetchRetry units.Duration `toml:"fetch_retry"`
	// LargestFirst queues a job's tasks by descending input (maps: their
	// block; reduces: their partition), Graham's LPT rule that Mantri
	// follows ("start the waiting task that has the largest data to
	// read"), instead of in task order.
	LargestFirst bool `toml:"largest_first" json:",omitzero"`
	// ReduceRampupLimit and ReducePreemptionLimit are the MapReduce
	// application master's rules on YARN containers (cluster.containers;
	// coordinator_containers.go): the most of what its job holds and may
	// get that its reduces take while maps wait
	// (yarn.app.mapreduce.am.job.reduce.rampup.limit), and the most of it
	// that it takes back from its reduces at once for maps that cannot get
	// a container (mapreduce.job.reduce.preemption.limit). 0: Hadoop's
	// 0.5.
	ReduceRampupLimit     float64 `toml:"reduce_rampup_limit,omitzero" json:",omitzero"`
	ReducePreemptionLimit float64 `toml:"reduce_preemption_limit,omitzero" json:",omitzero"`
	// ReducePreemptDelay and ReduceUnconditionalPreemptDelay are how long
	// a map waits before the AM takes reduces back for it: when no
	// container is left for it (mapreduce.job.reducer.preempt.delay.sec,
	// 0), and whatever is left (mapreduce.job.reducer.unconditional-
	// preempt.delay.sec; 0: Hadoop's 5 min).
	ReducePreemptDelay              units.Duration `toml:"reduce_preempt_delay,omitzero" json:",omitzero"`
	ReduceUnconditionalPreemptDelay units.Duration `toml:"reduce_unconditional_preempt_delay,omitzero" json:",omitzero"`
	// ReducePlacementConfig is where released reduces run
	// (job_placement.go): its keys sit in [tasks] itself, and the
	// configuration's hash leaves it out unless it places reduces.
	ReducePlacementConfig `json:"ReducePlacement,omitzero"`
	// RecomputeConfig is Mantri's recompute avoidance
	// (recompute_config.go), its keys in [tasks] itself; left out of the
	// hash unless named.
	RecomputeConfig `json:"Recompute,omitzero"`
}

// Reducers is the reduce attempts a node with reduceSlots runs at once:
// its reduce slots, or under copy-compute splitting MaxReducers (0: three
// times the reduce slots).
func (t *TasksConfig) Reducers(reduceSlots int) int {
	switch {
	case !t.CopyCompute:
		return reduceSlots
	case t.MaxReducers > 0:
		return t.MaxReducers
	}
	return 3 * reduceSlots
}

// ComputeSlots is the reducers of a node with reduceSlots that may
// compute at once, and under copy-compute splitting also the most of one
// job's reducers a node runs that have not begun computing; 0 is no limit
// (without splitting, a reducer computes in the slot it copied in).
func (t *TasksConfig) ComputeSlots(reduceSlots int) int {
	if !t.CopyCompute {
		return 0
	}
	return reduceSlots
}

// FieldError is one invalid configuration value. Key is the scenario key
// that sets the field ("cluster.racks", "heartbeat.interval"), so a
// scenario can place the error in its file.
type FieldError struct {
	Key   string
	Value any
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s = %v: %s", e.Key, e.Value, e.Msg) }

// Checks collects FieldErrors: Check adds one when bad holds.
type Checks []error

// Check records key = v as invalid, with what is allowed, when bad.
func (c *Checks) Check(bad bool, key string, v any, msg string) {
	if bad {
		*c = append(*c, &FieldError{Key: key, Value: v, Msg: msg})
	}
}

// Validate checks [cluster] on its own.
func (c *ClusterConfig) Validate(errs *Checks) {
	errs.Check(c.Racks < 1, "cluster.racks", c.Racks, "must be ≥ 1")
	errs.Check(c.NodesPerRack < 1, "cluster.nodes_per_rack", c.NodesPerRack, "must be ≥ 1")
	errs.Check(c.Racks >= 1 && c.NodesPerRack >= 1 && c.Nodes() > MaxNodes, "cluster.nodes_per_rack", c.NodesPerRack,
		fmt.Sprintf("racks × nodes_per_rack must be at most %d nodes; cluster.racks = %d", MaxNodes, c.Racks))
	errs.Check(!nonNegative(float64(c.RackUplink)), "cluster.rack_uplink", c.RackUplink, "must be ≥ 0 (0: set by oversubscription)")
	errs.Check(!nonNegative(c.Oversubscription), "cluster.oversubscription", c.Oversubscription, "must be ≥ 0")
	errs.Check(!nonNegative(float64(c.Core)), "cluster.core", c.Core, "must be ≥ 0 (0: no core link)")
	errs.Check(c.CompletionWindow < 0, "cluster.completion_window", c.CompletionWindow, "must be ≥ 0")
	errs.Check(c.ReduceContainers < 0 || c.Containers > 0 && c.ReduceContainers > c.Containers, "cluster.reduce_containers", c.ReduceContainers,
		fmt.Sprintf("must be 0 (one) … containers = %d: a reduce fits a node", c.Containers))
	errs.Check(c.ReduceContainers > 0 && c.Containers == 0, "cluster.reduce_containers", c.ReduceContainers,
		"needs cluster.containers > 0: the containers a reduce takes of a node's")
	errs.Check(c.AMContainers != 0 && c.Containers == 0, "cluster.am_containers", c.AMContainers,
		"needs cluster.containers > 0: the containers a job's application master takes of a node's")
	errs.Check(c.AMContainers < 0 || c.Containers > 0 && c.AMContainers > c.Containers, "cluster.am_containers", c.AMContainers,
		fmt.Sprintf("must be 0 (the AMs hold none) … containers = %d: an AM fits a node", c.Containers))
	errs.Check(c.AMShare != 0 && c.AMContainers == 0, "cluster.am_share", c.AMShare,
		"needs cluster.am_containers > 0: the share of the containers the AMs may hold")
	errs.Check(!(c.AMShare >= 0 && c.AMShare <= 1), "cluster.am_share", c.AMShare, "must be a share in (0, 1] (0: 0.1)")
	errs.Check(c.SolveInterval < 0, "cluster.solve_interval", c.SolveInterval, "must be ≥ 0")
	for _, b := range []struct {
		key string
		d   units.Duration
	}{{"cluster.send_cpu_per_mib", c.SendCPU}, {"cluster.receive_cpu_per_mib", c.ReceiveCPU}} {
		errs.Check(b.d != 0 && (b.d < MinByteCPU || b.d > MaxByteCPU), b.key, b.d, fmt.Sprintf("must be 0 or %v … %v of CPU per MiB", MinByteCPU, MaxByteCPU))
	}
	c.checkNode(errs, "cluster.")
	c.validateClasses(errs)
	errs.Check(c.Evict != "" && c.Evict != EvictLatest && c.Evict != EvictLeastProgress && c.Evict != EvictLargest,
		"cluster.evict", c.Evict, fmt.Sprintf("must be %q, %q or %q", EvictLatest, EvictLeastProgress, EvictLargest))
}

// checkNode checks the keys a [[cluster.class]] may set, each under
// prefix ("cluster." or the class's "cluster.class[k].").
func (c *ClusterConfig) checkNode(errs *Checks, prefix string) {
	errs.Check(c.MapSlots < 0 || c.MapSlots > MaxSlotsPerNode, prefix+"map_slots", c.MapSlots, fmt.Sprintf("must be 0 … %d", MaxSlotsPerNode))
	errs.Check(c.ReduceSlots < 0 || c.ReduceSlots > MaxSlotsPerNode, prefix+"reduce_slots", c.ReduceSlots, fmt.Sprintf("must be 0 … %d", MaxSlotsPerNode))
	errs.Check(!positive(float64(c.DiskRead)), prefix+"disk_read", c.DiskRead, "must be a rate > 0")
	errs.Check(!positive(float64(c.DiskWrite)), prefix+"disk_write", c.DiskWrite, "must be a rate > 0")
	errs.Check(!positive(float64(c.NIC)), prefix+"nic", c.NIC, "must be a rate > 0")
	errs.Check(c.Cores < 0 || c.Cores > MaxSlotsPerNode, prefix+"cores", c.Cores, fmt.Sprintf("must be 0 (one per slot) … %d", MaxSlotsPerNode))
	errs.Check(!(c.Speed > 0 && c.Speed <= MaxSpeed), prefix+"speed", c.Speed, fmt.Sprintf("must be > 0 and at most %v (1: the speed the jobs' CPU costs are for)", MaxSpeed))
	errs.Check(!nonNegative(float64(c.Memory)), prefix+"memory", c.Memory, "must be ≥ 0 (0: no memory link)")
	errs.Check(c.Containers < 0 || c.Containers > MaxSlotsPerNode, prefix+"containers", c.Containers, fmt.Sprintf("must be 0 (map and reduce slots apart) … %d", MaxSlotsPerNode))
	errs.Check(c.Containers > 0 && c.MapSlots != c.Containers, prefix+"map_slots", c.MapSlots,
		fmt.Sprintf("must be left out with containers = %d: a container runs a map or a reduce", c.Containers))
	errs.Check(c.Containers > 0 && c.ReduceSlots != c.Containers/c.ReduceSize(), prefix+"reduce_slots", c.ReduceSlots,
		fmt.Sprintf("must be left out with containers = %d: a container runs a map or a reduce", c.Containers))
	errs.Check(c.IntermediateSpace < 0, prefix+"intermediate_space", c.IntermediateSpace, "must be ≥ 0 (0: unlimited)")
}

// Validate checks [hdfs] on a cluster of nodes.
func (h *HDFSConfig) Validate(errs *Checks, nodes int) {
	errs.Check(h.BlockSize < 1, "hdfs.block_size", h.BlockSize, "must be ≥ 1 byte")
	shaped := nodes >= 1 && nodes <= MaxNodes // else [cluster] is reported
	errs.Check(h.Replication < 1 || shaped && h.Replication > nodes, "hdfs.replication", h.Replication,
		fmt.Sprintf("must be 1 … %d (the nodes)", max(min(nodes, MaxNodes), 1)))
	errs.Check(h.ReplicationStreams < 1, "hdfs.replication_streams", h.ReplicationStreams, "must be ≥ 1 (HDFS's default is 2)")
	errs.Check(h.WriteTimeout < MinPeriod, "hdfs.write_timeout", h.WriteTimeout, fmt.Sprintf("must be at least %v (HDFS's is 1m)", MinPeriod))
}

// Validate checks [heartbeat] on its own.
func (h *HeartbeatConfig) Validate(errs *Checks) {
	errs.Check(h.Interval < MinPeriod, "heartbeat.interval", h.Interval, fmt.Sprintf("must be at least %v: every node heartbeats every interval, so a shorter one is millions of messages per emulated second", MinPeriod))
	errs.Check(h.ControlLatency < 0, "heartbeat.control_latency", h.ControlLatency, "must be ≥ 0")
	errs.Check(h.DeadAfter < 0, "heartbeat.dead_after", h.DeadAfter, "must be ≥ 0 missed heartbeats (0: never)")
	errs.Check(h.PerSecond < 0, "heartbeat.per_second", h.PerSecond, "must be ≥ 0 (0: the interval does not scale with the cluster)")
	errs.Check(h.ServiceTime < 0, "heartbeat.service_time", h.ServiceTime, "must be ≥ 0 (0: the coordinator answers at once)")
	errs.Check(h.ServicePerTask < 0, "heartbeat.service_per_task", h.ServicePerTask, "must be ≥ 0 (0: a launch costs nothing)")
	errs.Check(h.ServicePerJob < 0, "heartbeat.service_per_job", h.ServicePerJob, "must be ≥ 0 (0: the policy's looking costs nothing)")
	errs.Check(h.CallTimeout < 0, "heartbeat.call_timeout", h.CallTimeout, "must be ≥ 0 (0: a call waits as long as its connection holds)")
	errs.Check(h.CallTimeout > 0 && !h.Serves(), "heartbeat.call_timeout", h.CallTimeout,
		"needs service_time, service_per_task or service_per_job: without a service time the coordinator answers at once and a heartbeat is no call")
}

// Validate checks [tasks] on nodes with reduceSlots.
func (t *TasksConfig) Validate(errs *Checks, reduceSlots int) {
	errs.Check(!(t.SlowStart >= 0 && t.SlowStart <= 1), "tasks.slow_start", t.SlowStart, "must be in [0, 1]")
	errs.Check(t.MaxAttempts < 1 || t.MaxAttempts > MaxAttempts, "tasks.max_attempts", t.MaxAttempts,
		fmt.Sprintf("must be 1 … %d (Hadoop's default is 4): with failures, every task may run that many times", MaxAttempts))
	errs.Check(!(t.FailureProbability >= 0 && t.FailureProbability <= 1), "tasks.failure_probability", t.FailureProbability, "must be in [0, 1]")
	errs.Check(t.ParallelCopies < 1, "tasks.parallel_copies", t.ParallelCopies, "must be ≥ 1")
	errs.Check(t.FetchFailures < 1, "tasks.fetch_failures", t.FetchFailures, "must be ≥ 1 (Hadoop's rule is 3)")
	errs.Check(t.FetchTimeout < MinPeriod, "tasks.fetch_timeout", t.FetchTimeout, fmt.Sprintf("must be at least %v (Hadoop's is 3m)", MinPeriod))
	errs.Check(t.FetchRetry < 0, "tasks.fetch_retry", t.FetchRetry, "must be ≥ 0s")
	errs.Check(t.MapEventsEvery != 0 && t.MapEventsEvery < MinPeriod, "tasks.map_events_every", t.MapEventsEvery,
		fmt.Sprintf("must be 0 (each map's news as it ends) or at least %v (Hadoop's reducers poll once a second)", MinPeriod))
	errs.Check(t.JobSetup < 0, "tasks.job_setup", t.JobSetup, "must be ≥ 0s")
	errs.Check(t.MaxReducers != 0 && (t.MaxReducers < reduceSlots || t.MaxReducers > MaxSlotsPerNode), "tasks.max_reducers", t.MaxReducers,
		fmt.Sprintf("must be 0 (3 × reduce_slots) or cluster.reduce_slots = %d … %d", reduceSlots, MaxSlotsPerNode))
	errs.Check(t.ComputeAware && !t.CopyCompute, "tasks.compute_aware", t.ComputeAware, "needs tasks.copy_compute = true")
	errs.Check(t.FetchPerRack && !t.FetchPerHost, "tasks.fetch_per_rack", t.FetchPerRack,
		"needs tasks.fetch_per_host = true (the reducer's own rack is fetched node by node)")
	t.ReducePlacementConfig.Validate(errs)
	t.RecomputeConfig.Validate(errs)
	errs.Check(t.ProgressInterval != 0 && t.ProgressInterval < 10*MinPeriod, "tasks.progress_interval", t.ProgressInterval,
		fmt.Sprintf("must be 0 (no reports) or at least %v: reports come at least a tenth of it apart", 10*MinPeriod))
}

func nonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
