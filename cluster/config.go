package cluster

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/netmodel"
	"clusteremu/policies/cache"
	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
	"clusteremu/units"
	"clusteremu/workload"
)

// Config is everything a run needs: the cluster's shape and rates, HDFS,
// heartbeats, the scheduling policy and the workload. Rates are bytes per
// second; durations are emulated time. Start from DefaultConfig.
type Config struct {
	// Run is how the run goes: seeds, clock, deadline ([run]).
	Run RunOptions
	// Chaos perturbs a deterministic run's control plane with delays
	// drawn from the schedule seed ([chaos]).
	Chaos Chaos

	Cluster   actors.ClusterConfig
	HDFS      actors.HDFSConfig
	Heartbeat actors.HeartbeatConfig
	Scheduler SchedulerConfig
	Tasks     actors.TasksConfig
	// Cache is [cache], PACMan's memory caches; nil or without a
	// capacity, none.
	Cache *actors.CacheConfig `json:",omitempty"`
	// Stragglers are per-attempt slowdowns and busy periods
	// ([stragglers]); left out of the configuration's hash when off.
	Stragglers actors.StragglersConfig `json:",omitzero"`
	// Speculation is the job managers' speculation policy
	// ([speculation]); Blacklist keeps straggling nodes out
	// ([blacklist]). Both are left out of the hash when off.
	Speculation SpeculationConfig      `json:",omitzero"`
	Blacklist   actors.BlacklistConfig `json:",omitzero"`
	// Cloning is Dolly's budgeted cloning ([cloning]).
	Cloning actors.CloningConfig `json:",omitzero"`
	// Replication is [replication], Scarlett's replicas by popularity;
	// nil, none.
	Replication *actors.ReplicationConfig `json:",omitempty"`
	// IntermediateLoss is [intermediate_loss], map outputs lost at their
	// first fetch; nil, none.
	IntermediateLoss *actors.IntermediateLossConfig `json:",omitempty"`
	// RackTraffic is [rack_traffic], other work's load on the rack
	// links; nil, none.
	RackTraffic *actors.RackTrafficConfig `json:",omitempty"`

	// Workload holds one job list per client stream, each sorted by
	// submission time.
	Workload [][]workload.JobSpec
	// Faults are the run's scripted failures, in the order the scenario
	// lists them ([[fault]]), and Rules its message rules ([[fault]] kind
	// = "message"), in order.
	Faults []actors.Fault
	Rules  []MessageRule

	// Loads are the streams of Workload whose arrivals are drawn when the
	// run is built, to offer a load (LoadStream); their jobs' Submit is
	// ignored until then.
	Loads []LoadStream

	// Closed holds one job list per closed-loop worker: its first job is
	// submitted at its Submit, each later one Submit (the think time)
	// after the one before it ended. Closed jobs are numbered after the
	// open streams' jobs.
	Closed [][]workload.JobSpec

	// QoS is [qos] and the [[workload.qos]] streams, Álvarez-Tabío et
	// al.'s QoS clients; nil: none.
	QoS *QoSConfig `json:",omitempty"`
	// straggle, when set, pins each attempt's slowdown instead of
	// drawing it from Stragglers (tests).
	straggle func(sched.Attempt) actors.Straggle

	// firstJob is the ID of the workload's first job (0: 1), so that a
	// reference run keeps the job's ID and with it its input file.
	firstJob sched.JobID
}

// SchedulerConfig is [scheduler]: the policy, its tick and its own
// parameters.
type SchedulerConfig struct {
	Name string `toml:"name"`
	// Tick is the period of the policy's Tick (preemption, share
	// updates); 0 never ticks.
	Tick units.Duration `toml:"tick"`
	// MaxRunning caps the jobs admitted at once, whatever the policy
	// (Hu et al.'s admission control, 30 in their testbed): a job
	// submitted while MaxRunning run waits, in submission order, until one
	// ends. 0: no cap.
	MaxRunning int `toml:"max_running"`
	// Params are the policy's parameters, of the type it registered
	// (sched.Register); nil is its defaults.
	Params sched.Params `toml:"-"`
}

// SpeculationConfig is [speculation]: the policy's name and its own
// parameters, of the type it registered (straggler.Register); nil Params
// are its defaults.
type SpeculationConfig struct {
	Name   string           `toml:"name"`
	Params straggler.Params `toml:"-"`
}

// On reports whether the job managers speculate.
func (s SpeculationConfig) On() bool { return s.Name != "" && s.Name != straggler.None }

// IsZero reports whether no policy speculates, which the configuration's
// hash leaves out.
func (s SpeculationConfig) IsZero() bool { return !s.On() }

// params are the policy's parameters, its defaults when none were given.
func (s SpeculationConfig) params() straggler.Params {
	if s.Params != nil {
		return s.Params
	}
	p, err := straggler.NewParams(s.Name)
	if err != nil {
		return &straggler.NoneParams{}
	}
	return p
}

// DefaultConfig is a small cluster with Hadoop's defaults: 2 racks of 10
// nodes with 4 map and 2 reduce slots, 100 MB/s disks, 1 Gb/s NICs with
// 5:1 rack oversubscription, 128 MiB blocks in 3 replicas, 3 s heartbeats
// with 1 ms per control hop, FIFO, slow-start 0.05, 4 attempts, 5
// parallel copies.
func DefaultConfig() Config {
	return Config{
		Cluster: actors.ClusterConfig{
			Racks: 2, NodesPerRack: 10, MapSlots: 4, ReduceSlots: 2,
			DiskRead: 100e6, DiskWrite: 100e6, NIC: 125e6, Oversubscription: 5, RackAware: true,
			Evict: actors.EvictLatest, Speed: 1,
		},
		Stragglers:  actors.DefaultStragglers(),
		Speculation: SpeculationConfig{Name: straggler.None},
		Blacklist:   actors.DefaultBlacklist(),
		Cloning:     actors.DefaultCloning(),
		HDFS:        actors.HDFSConfig{BlockSize: 128 << 20, Replication: 3, WriteTimeout: units.Duration(time.Minute), ReplicationStreams: 2},
		Heartbeat: actors.HeartbeatConfig{
			Interval: units.Duration(3 * time.Second), ControlLatency: units.Duration(time.Millisecond),
			DeadAfter: 10, AssignMultiple: true,
		},
		Scheduler: SchedulerConfig{Name: "fifo", Tick: units.Duration(time.Second)},
		Tasks: actors.TasksConfig{SlowStart: 0.05, MaxAttempts: 4, ParallelCopies: 5,
			FetchFailures: 3, FetchTimeout: units.Duration(3 * time.Minute), FetchRetry: units.Duration(10 * time.Second)},
	}
}

// MeasuresStragglers reports whether the run has stragglers, busy
// periods, data skew, largest-first queuing, speculation, a blacklist,
// cloning or a named reduce placement: then it measures its
// phases (Records.Phases) and the metrics of speculation, which a run
// without them leaves out, so its outputs stay what they were before
// those tables existed.
func (c *Config) MeasuresStragglers() bool {
	if !c.Stragglers.IsZero() || c.Tasks.LargestFirst || c.Speculation.On() || c.Blacklist.On() || c.Cloning.On() ||
		c.Tasks.ReducePlacementConfig.Named() {
		return true
	}
	for _, jobs := range append(slices.Clone(c.Workload), c.Closed...) {
		for i := range jobs {
			if jobs[i].InputCoV > 0 || jobs[i].PartitionCoV > 0 {
				return true
			}
		}
	}
	return false
}

// Reducers is the reduce attempts a node runs at once
// (actors.TasksConfig.Reducers).
func (c *Config) Reducers() int { return c.Tasks.Reducers(c.Cluster.ReduceSlots) }

// Nodes is the cluster's node count.
func (c *Config) Nodes() int { return c.Cluster.Nodes() }

// Shape is the cluster as its policy sees it: the nodes, and each node's
// map slots and reduce attempts (the reducers it runs at once).
func (c *Config) Shape() sched.Shape {
	return sched.Shape{Nodes: c.Nodes(), Slots: [2]int{c.Cluster.MapSlots, c.Reducers()}, NodeSlots: c.Cluster.NodeSlots(&c.Tasks)}
}

// Slots is the cluster's map slots and reduce attempts over all its
// nodes.
func (c *Config) Slots() [2]int { return c.Cluster.SlotTotals(&c.Tasks) }

// FieldError is one invalid configuration value (actors.FieldError).
type FieldError = actors.FieldError

// faultLinks reports link faults naming a link the topology does not
// have.
func (c *Config) faultLinks() []error {
	var errs []error
	var topo *netmodel.Topology
	for _, f := range c.Faults {
		if f.Kind != actors.FaultLink {
			continue
		}
		if topo == nil {
			net, err := netmodel.NewNetwork(netmodel.DefaultConfig())
			if err == nil {
				topo, err = netmodel.BuildTopology(net, TopologySpec(*c))
			}
			if err != nil {
				return nil // the cluster's own checks report why
			}
		}
		if _, err := topo.Link(f.Link); err != nil {
			errs = append(errs, &FieldError{Key: fmt.Sprintf("fault[%d].link", f.Entry), Value: f.Link.String(),
				Msg: "must be a link of the cluster: " + err.Error()})
		}
	}
	return errs
}

// MaxSpeedup is the fastest a scaled clock may run (run.speedup).
const MaxSpeedup = 1e5

// Validate checks the whole configuration and reports every invalid field
// at once, joined; each is a *FieldError naming the field, its value and
// what is allowed.
func (c *Config) Validate() error {
	var checks actors.Checks
	check := checks.Check
	c.Cluster.Validate(&checks)
	c.HDFS.Validate(&checks, c.Nodes())
	c.Heartbeat.Validate(&checks)
	c.Tasks.Validate(&checks, c.Cluster.ReduceSlots)
	for k := range c.Cluster.Classes {
		hw := c.Cluster.Class(k)
		check(c.Tasks.MaxReducers > 0 && hw.ReduceSlots > c.Tasks.MaxReducers, fmt.Sprintf("cluster.class[%d].reduce_slots", k), hw.ReduceSlots,
			fmt.Sprintf("must be at most tasks.max_reducers = %d: a node's reducers include those computing", c.Tasks.MaxReducers))
	}
	c.Stragglers.Validate(&checks)
	c.Blacklist.Validate(&checks)
	c.Cloning.Validate(&checks)
	check(c.Tasks.ReducePlacementConfig.On() && !c.Cluster.RackAware, "tasks.reduce_placement", c.Tasks.Name,
		"needs cluster.rack_awareness = true: reduces are placed by the racks Hadoop is told")
	_, known := straggler.NewParams(c.Speculation.Name)
	check(c.Speculation.On() && known == nil && c.Tasks.ProgressInterval <= 0, "speculation.name", c.Speculation.Name,
		`needs tasks.progress_interval > 0: a policy judges attempts by their progress reports (Mantri's are "10s")`)
	check(c.Scheduler.Tick < 0 || c.Scheduler.Tick > 0 && c.Scheduler.Tick < actors.MinPeriod, "scheduler.tick", c.Scheduler.Tick,
		fmt.Sprintf("must be 0 (no tick) or at least %v", actors.MinPeriod))
	check(c.Scheduler.MaxRunning < 0, "scheduler.max_running", c.Scheduler.MaxRunning, "must be ≥ 0 (0: no cap)")
	r := &c.Run
	check(r.Until < 0, "run.until", r.Until, "must be ≥ 0")
	check(r.Warmup < 0 || r.Until > 0 && r.Warmup >= r.Until, "run.warmup", r.Warmup,
		fmt.Sprintf("must be ≥ 0 and before the run's end, run.until = %v", r.Until))
	check(r.StallAfter < 0, "run.stall_after", r.StallAfter, "must be ≥ 0")
	check(r.Clock != "" && r.Clock != Virtual && r.Clock != Scaled && r.Clock != Wall, "run.clock", r.Clock,
		`must be "virtual", "scaled" or "wall"`)
	check(r.Clock == Scaled && !positive(r.Speedup), "run.speedup", r.Speedup, "must be > 0 for a scaled clock")
	check(r.Clock == Scaled && positive(r.Speedup) && !(r.Speedup <= MaxSpeedup), "run.speedup", r.Speedup,
		fmt.Sprintf("must be at most %g for a scaled clock: beyond, handling one message (about 5 µs) costs over half a second of emulated time and the run measures the machine, not the cluster; clock = \"virtual\" runs as fast as the machine can", MaxSpeedup))
	check(r.Concurrent() && r.Deterministic != nil && *r.Deterministic, "run.deterministic", true,
		"needs the virtual clock; scaled and wall runs are concurrent")
	check(r.Strategy != "" && r.Strategy != Random && r.Strategy != PCT, "run.strategy", r.Strategy, `must be "random" or "pct"`)
	check(r.Strategy == PCT && r.Concurrent(), "run.strategy", r.Strategy, "needs a deterministic virtual run, whose executor orders the messages")
	check(r.Strategy == PCT && (r.PCTDepth < 1 || r.PCTDepth > 100), "run.pct_depth", r.PCTDepth,
		"must be from 1 to 100 under strategy = \"pct\": the number of orderings a bug needs (d − 1 priority changes)")
	check(r.Strategy == PCT && r.PCTSteps < 1, "run.pct_steps", r.PCTSteps,
		"must be ≥ 1 under strategy = \"pct\": about how many deliveries the run makes, the range its priority changes are drawn from (clusteremu explore measures it)")
	check(r.Strategy != PCT && (r.PCTDepth != 0 || r.PCTSteps != 0), "run.strategy", r.Strategy,
		`must be "pct" for pct_depth and pct_steps to mean anything`)
	check(c.Chaos.RelayJitter < 0, "chaos.relay_jitter", c.Chaos.RelayJitter, "must be ≥ 0")
	hb := c.Heartbeat.Period(c.Nodes()).Std()
	check(r.StallAfter > 0 && hb > 0 && r.StallAfter.Std()/2 < hb, "run.stall_after", r.StallAfter,
		fmt.Sprintf("must be at least twice %s: slots are offered on heartbeats, so a healthy run waits that long without progress (0: no watchdog)", heartbeatNamed(c)))
	check(c.Chaos.HeartbeatJitter < 0 || hb > 0 && c.Chaos.HeartbeatJitter.Std() >= hb, "chaos.heartbeat_jitter", c.Chaos.HeartbeatJitter,
		fmt.Sprintf("must be ≥ 0 and below heartbeat.interval = %v, so heartbeats keep their order", c.Heartbeat.Interval))
	if d := c.Heartbeat.DeadAfter; d > 0 && hb > 0 {
		// A heartbeat late by more than the liveness window declares a
		// live node dead, which loses its work; chaos is for timing, faults for losses.
		window := time.Duration(mulSat(int64(d-1), int64(hb)))
		check(c.Chaos.RelayJitter.Std()+c.Chaos.HeartbeatJitter.Std() >= window, "chaos.relay_jitter", c.Chaos.RelayJitter,
			fmt.Sprintf("with chaos.heartbeat_jitter = %v must stay below (heartbeat.dead_after − 1) × heartbeat.interval = %v: a heartbeat held back longer makes a live node look dead, and it loses all it ran before it rejoins: chaos perturbs timing, [[fault]] entries lose nodes",
				c.Chaos.HeartbeatJitter, units.Duration(window)))
	}
	c.QoS.validate(c, check)
	validateRules(c.Rules, r.Until.Std(), check)
	if len(c.Rules) > 0 && r.Concurrent() {
		check(true, fmt.Sprintf("fault[%d].kind", c.Rules[0].Entry), "message",
			"needs a deterministic virtual run: a rule's outcomes are decisions drawn from the schedule seed")
	}
	if c.Chaos.On() && r.Concurrent() {
		if r.Clock == "" || r.Clock == Virtual {
			check(true, "run.deterministic", false, "must be true under [chaos], whose delays only a deterministic run draws")
		} else {
			check(true, "run.clock", r.Clock, `must be "virtual" under [chaos], whose delays only a deterministic run draws`)
		}
	}
	if c.Cache != nil {
		c.Cache.Validate(&checks, &c.Cluster)
	}
	if c.Replication != nil {
		c.Replication.Validate(&checks)
	}
	if c.IntermediateLoss != nil {
		c.IntermediateLoss.Validate(&checks)
		checks.Check(c.Tasks.FetchPerRack, "tasks.fetch_per_rack", c.Tasks.FetchPerRack,
			"cannot be used with [intermediate_loss], whose losses are drawn per source node of a fetch")
	}
	if c.RackTraffic != nil {
		c.RackTraffic.Validate(&checks)
	}
	actors.ValidateFaults(c.Faults, &c.Cluster, &checks)
	c.checkRackFetchFaults(&checks)
	checks = append(checks, c.faultLinks()...)
	c.validateContainers(check)
	errs := []error(checks)
	if p, err := sched.New(c.Scheduler.Name, c.Scheduler.Params, c.Shape()); err != nil {
		errs = append(errs, policyErrors(err, schedulerField)...)
	} else if sa, ok := p.(sched.SlotAware); ok && sa.SlotAware() && c.Cluster.Containers > 0 {
		errs = append(errs, &FieldError{Key: "scheduler.name", Value: c.Scheduler.Name,
			Msg: "cannot be used with cluster.containers: it splits each node's map and reduce slots between its queues, and a container is either"})
	}
	if err := straggler.Validate(c.Speculation.Name, c.Speculation.Params); err != nil {
		errs = append(errs, policyErrors(err, speculationField)...)
	}
	if ref := r.ReferenceScheduler; ref != "" {
		if _, err := sched.NewParams(ref); err != nil {
			errs = append(errs, &FieldError{Key: "run.reference_scheduler", Value: ref,
				Msg: fmt.Sprintf(`must be "" (the run's own) or one of %s`, strings.Join(sched.Names(), ", "))})
		}
	}
	errs = append(errs, c.validateLoads()...)
	errs = append(errs, c.ValidateWorkload())
	return errors.Join(errs...)
}

// validateContainers checks what cluster.containers asks of the rest:
// the application master's limits, and the features that count map and
// reduce slots apart.
func (c *Config) validateContainers(check func(bool, string, any, string)) {
	t := &c.Tasks
	for _, l := range []struct {
		key string
		v   float64
	}{{"tasks.reduce_rampup_limit", t.ReduceRampupLimit}, {"tasks.reduce_preemption_limit", t.ReducePreemptionLimit}} {
		check(!(l.v >= 0 && l.v <= 1), l.key, l.v, "must be in (0, 1] (0: Hadoop's 0.5)")
		check(l.v != 0 && c.Cluster.Containers == 0, l.key, l.v,
			"needs cluster.containers > 0: the application master's limit on reduces holding the containers its maps need")
	}
	for _, d := range []struct {
		key string
		v   units.Duration
	}{{"tasks.reduce_preempt_delay", t.ReducePreemptDelay}, {"tasks.reduce_unconditional_preempt_delay", t.ReduceUnconditionalPreemptDelay}} {
		check(d.v < 0, d.key, d.v, "must be ≥ 0")
		check(d.v != 0 && c.Cluster.Containers == 0, d.key, d.v,
			"needs cluster.containers > 0: how long a map waits before its application master takes reduces back for it")
	}
	if c.Cluster.Containers == 0 {
		return
	}
	check(t.CopyCompute, "tasks.copy_compute", t.CopyCompute,
		"cannot be used with cluster.containers: a reducer holds its container whole, copy and compute")
	check(c.Scheduler.Tick <= 0, "scheduler.tick", c.Scheduler.Tick,
		"must be > 0 with cluster.containers: the application masters take reduces back for their maps on it")
}

// ValidateWorkload checks the workload on its own and against the
// cluster: every job valid, each stream in submission order, and no task
// of a kind the cluster has no slot for. Validate includes it; a caller
// that generates the workload from a validated configuration runs it
// again afterwards.
func (c *Config) ValidateWorkload() error {
	errs := append(c.validateWorkload(), c.validateSlots()...)
	return errors.Join(append(errs, c.validateCacheWorkload()...)...)
}

// validateCacheWorkload checks what [cache] asks of the workload: the
// files it preloads, and an oracle for MIN (the open streams' job lists:
// a closed worker's next job is not known in advance).
func (c *Config) validateCacheWorkload() []error {
	if c.Cache == nil || c.HDFS.BlockSize < 1 || c.Nodes() < 1 || c.Nodes() > actors.MaxNodes {
		return nil
	}
	var checks actors.Checks
	checks.Check(c.Cache.Name == cache.MIN && len(c.Closed) > 0, "cache.name", c.Cache.Name,
		"MIN needs to know every future read, which closed workers do not tell: their next job waits for the last one's end")
	checks.Check(c.Cache.Name == cache.MIN && slices.ContainsFunc(c.Workload, Workflow), "cache.name", c.Cache.Name,
		"MIN needs to know every future read, which a workflow does not tell: its jobs wait for others to end")
	jobs := c.Jobs()
	if len(jobs) == 0 {
		return checks // not generated yet: checked again once it is
	}
	files := map[string]int{}
	for i := range jobs {
		if jobs[i].InputFile != "" { // stored in blocks of the cluster's size
			files[jobs[i].InputFile] = (&workload.JobSpec{InputBytes: jobs[i].InputBytes}).MapCount(int64(c.HDFS.BlockSize))
		}
		for _, f := range jobs[i].InputFiles {
			files[f.File] = (&workload.JobSpec{InputBytes: f.Bytes}).MapCount(int64(c.HDFS.BlockSize))
		}
	}
	capacity := func(node int) units.Bytes { return c.Cluster.CacheCapacity(node, c.Cache.Capacity) }
	c.Cache.ValidatePreload(&checks, c.Nodes(), int64(c.HDFS.BlockSize), capacity, func(name string) (int, bool) {
		n, ok := files[name]
		return n, ok
	})
	return checks
}

// validateSlots refuses what no run could finish: a workload with tasks of
// a kind on a cluster with no slot of that kind.
func (c *Config) validateSlots() []error {
	if c.HDFS.BlockSize < 1 {
		return nil // reported already; map counts need it
	}
	var errs []error
	jobs := c.Jobs()
	if total, biggest := workloadTasks(jobs, int64(c.HDFS.BlockSize)); total > actors.MaxTasks {
		errs = append(errs, &FieldError{Key: "hdfs.block_size", Value: c.HDFS.BlockSize, Msg: fmt.Sprintf(
			"the workload needs more than %d tasks at this block size, the most one run holds (job %d %q alone has %d maps): "+
				"raise the block size or trim the workload", actors.MaxTasks, biggest+1, jobs[biggest].Name, jobs[biggest].MapCount(int64(c.HDFS.BlockSize)))})
		return errs
	}
	if needs := c.Needs(); needs.Fetches > actors.MaxFetches {
		fix := "set tasks.fetch_per_host = true (a reduce fetches each node's outputs at once)"
		if c.Tasks.FetchPerHost {
			fix = "give the jobs fewer reduces (a SWIM stream's bytes_per_reduce or max_reduces)"
		}
		errs = append(errs, &FieldError{Key: "tasks.fetch_per_host", Value: c.Tasks.FetchPerHost, Msg: fmt.Sprintf(
			"the workload needs %d shuffle fetches, more than the %d one run holds (%v): %s or trim the workload",
			needs.Fetches, actors.MaxFetches, needs, fix)})
		return errs
	}
	for _, k := range []struct {
		key   string
		slots int
		tasks func(*workload.JobSpec) int
		kind  string
	}{
		{"cluster.map_slots", c.Slots()[0], func(j *workload.JobSpec) int { return j.MapCount(int64(c.HDFS.BlockSize)) }, "map"},
		{"cluster.reduce_slots", c.Cluster.Sum(func(hw *actors.ClusterConfig) int { return hw.ReduceSlots }), func(j *workload.JobSpec) int { return j.Reduces }, "reduce"},
	} {
		if k.slots > 0 {
			continue
		}
		first, n := -1, 0
		for i := range jobs {
			if k.tasks(&jobs[i]) > 0 {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		if n > 0 {
			errs = append(errs, &FieldError{Key: k.key, Value: k.slots, Msg: fmt.Sprintf(
				"must be ≥ 1: %d of the workload's jobs have %ss (the first, job %d %q, has %d), which no node could run",
				n, k.kind, first+1, jobs[first].Name, k.tasks(&jobs[first]))})
		}
	}
	return errs
}

// policyErrors turns a policy's errors into FieldErrors keyed by their
// scenario path ("scheduler.pools[1].weight", "speculation.gamma"), field
// placing the policy's *ParamError in its table; other errors pass as
// they are.
func policyErrors[P interface {
	*E
	error
}, E any](err error, field func(P) *FieldError) []error {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		var pe P
		if errors.As(e, &pe) {
			out[i] = field(pe)
		}
	}
	return out
}

func schedulerField(pe *sched.ParamError) *FieldError {
	return &FieldError{Key: "scheduler." + pe.Key, Value: pe.Value, Msg: pe.Msg}
}

func speculationField(pe *straggler.ParamError) *FieldError {
	return &FieldError{Key: "speculation." + pe.Key, Value: pe.Value, Msg: pe.Msg}
}

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

func (c *Config) validateWorkload() []error {
	var errs []error
	for s, jobs := range c.Workload {
		flow := Workflow(jobs)
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				errs = append(errs, fmt.Errorf("workload stream %d, job %d (%s): %w", s, i, jobs[i].Name, err))
			}
			if r := jobs[i].OutputReplication; r > c.Nodes() {
				errs = append(errs, fmt.Errorf("workload stream %d, job %d (%s): output_replication = %d: more replicas than the cluster's %d nodes",
					s, i, jobs[i].Name, r, c.Nodes()))
			}
			if i > 0 && !flow && jobs[i].Submit < jobs[i-1].Submit {
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

// Workflow reports whether a stream's jobs wait for one another
// (workload.JobSpec.After): its client submits each when those it waits
// for have ended, and its jobs keep their order, their submit times
// mostly delays.
func Workflow(jobs []workload.JobSpec) bool {
	return slices.ContainsFunc(jobs, func(j workload.JobSpec) bool { return len(j.After) > 0 })
}

// Workflows lists a stream's workflows: the jobs linked by waiting
// (workload.JobSpec.After), each set by index in the stream, in order,
// those of two jobs or more; the sets in the order of their first job.
func Workflows(jobs []workload.JobSpec) [][]int {
	index := make(map[string]int, len(jobs))
	for i := range jobs {
		index[jobs[i].Name] = i
	}
	root := make([]int, len(jobs))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			root[i] = root[root[i]]
			i = root[i]
		}
		return i
	}
	for i := range jobs {
		for _, name := range jobs[i].After {
			if p, ok := index[name]; ok {
				a, b := find(i), find(p)
				root[max(a, b)] = min(a, b)
			}
		}
	}
	sets := map[int][]int{}
	for i := range jobs {
		r := find(i)
		sets[r] = append(sets[r], i)
	}
	var out [][]int
	for i := range jobs {
		if set := sets[i]; len(set) > 1 {
			out = append(out, set)
		}
	}
	return out
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

// workloadTasks counts the workload's maps and reduces, saturating rather
// than overflowing, and finds the job with the most maps.
func workloadTasks(jobs []workload.JobSpec, blockSize int64) (total, biggest int) {
	for i := range jobs {
		n := jobs[i].MapCount(blockSize)
		if n > jobs[biggest].MapCount(blockSize) {
			biggest = i
		}
		total = min(total+min(n, actors.MaxTasks+1)+min(jobs[i].Reduces, actors.MaxTasks+1), math.MaxInt/2)
	}
	return total, biggest
}

// heartbeatNamed names the heartbeat interval a check compares with: the
// field, or what heartbeat.per_second made of it.
func heartbeatNamed(c *Config) string {
	if p := c.Heartbeat.Period(c.Nodes()); p != c.Heartbeat.Interval {
		return fmt.Sprintf("the heartbeat interval = %v (heartbeat.per_second = %d on %d nodes)", p, c.Heartbeat.PerSecond, c.Nodes())
	}
	return fmt.Sprintf("heartbeat.interval = %v", c.Heartbeat.Interval)
}

// checkRackFetchFaults refuses tasks.fetch_per_rack with a fault that cuts
// or slows a node's NIC or disk read: a rack fetch crosses neither of its
// source nodes' links, so it would go on through a partition or a cut NIC
// that stops the exact fetches.
func (c *Config) checkRackFetchFaults(checks *actors.Checks) {
	if !c.Tasks.FetchPerRack {
		return
	}
	for _, f := range c.Faults {
		if f.Kind == actors.FaultPartition || f.Kind == actors.FaultLink && (f.Link.Kind == netmodel.HostNICUp || f.Link.Kind == netmodel.HostDiskRead) {
			checks.Check(true, "tasks.fetch_per_rack", c.Tasks.FetchPerRack, fmt.Sprintf(
				"cannot be used with fault[%d] (%s %s): a rack fetch crosses no source node's NIC or disk, so it would not see them cut",
				f.Entry, f.Kind, f.Target()))
			return
		}
	}
}
