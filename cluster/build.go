package cluster

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// Cluster is a built, not yet running, emulated cluster.
type Cluster struct {
	cfg     Config
	rt      Runtime
	rec     *recorder
	network *netmodel.Network
	nodes   []*actor.PID
	// coordinator is read once the run has stopped, to say what a stalled
	// run's jobs wait for.
	coordinator *actors.Coordinator
	// sizingWall is the wall time the load streams' sizing pass took.
	sizingWall time.Duration
	// future is MIN's oracle (Config.futureReads), nil for other policies.
	future map[string][]actors.FutureRead
}

// Report is what a run produced.
type Report struct {
	// End is how the run ended; Records its jobs, attempts and flows.
	End     RunEnd
	Records *Records
	Summary Summary
	// Network holds the solver's work counters.
	Network netmodel.Stats
	// ReferenceWall is the wall time the reference runs took
	// (Config.Run.Slowdown), which the run's own speed leaves out.
	ReferenceWall time.Duration
	// SizingWall is the wall time the load streams' sizing pass took
	// when the cluster was built (LoadStream).
	SizingWall time.Duration
}

// TopologySpec is the fabric's topology for a configuration.
func TopologySpec(cfg Config) netmodel.TopologySpec {
	shape := &cfg.Cluster
	spec := netmodel.TopologySpec{
		Racks: shape.Racks, HostsPerRack: shape.NodesPerRack,
		DiskRead: float64(shape.DiskRead), DiskWrite: float64(shape.DiskWrite),
		NICUp: float64(shape.NIC), NICDown: float64(shape.NIC),
		RackUp: float64(shape.RackUplink), RackDown: float64(shape.RackUplink),
		Oversubscription: shape.Oversubscription, Core: float64(shape.Core),
		CPU: shape.CPU(&cfg.Tasks), Memory: float64(shape.Memory),
	}
	if shape.Heterogeneous() {
		spec.Hosts = make([]netmodel.HostSpec, 0, shape.Nodes())
		shape.EachNode(func(_ int, hw *actors.ClusterConfig) {
			spec.Hosts = append(spec.Hosts, netmodel.HostSpec{
				DiskRead: float64(hw.DiskRead), DiskWrite: float64(hw.DiskWrite),
				NICUp: float64(hw.NIC), NICDown: float64(hw.NIC),
				CPU: hw.CPU(&cfg.Tasks), Memory: float64(hw.Memory),
			})
		})
	}
	return spec
}

// Build validates the configuration and spawns the cluster's actors:
// the fabric, one rack switch per rack, the coordinator, one node per
// host and one client per workload stream. Nothing runs until Run.
func Build(cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg, sizing, err := cfg.drawArrivals()
	if err == nil {
		err = cfg.ValidateWorkload()
	}
	if err != nil {
		return nil, err
	}
	cfg.Heartbeat.Interval = cfg.Heartbeat.Period(cfg.Nodes())
	cfg.Heartbeat.Reliable = len(cfg.Rules) > 0
	policy, err := sched.New(cfg.Scheduler.Name, cfg.Scheduler.Params, cfg.Shape())
	if err != nil {
		return nil, err
	}
	if nw, ok := policy.(sched.NeedsWork); ok && nw.NeedsWork() {
		start := time.Now()
		cfg, err = cfg.withWork()
		sizing += time.Since(start)
		if err != nil {
			return nil, err
		}
	}
	future, err := cfg.futureReads()
	if err != nil {
		return nil, err
	}
	shape := &cfg.Cluster
	net, err := netmodel.NewNetwork(netmodel.Config{
		CompletionWindow: shape.CompletionWindow.Std(),
		SolveInterval:    shape.SolveInterval.Std(),
	})
	if err != nil {
		return nil, err
	}
	topo, err := netmodel.BuildTopology(net, TopologySpec(cfg))
	if err != nil {
		return nil, err
	}
	opts := cfg.Run
	opts.Chaos, opts.Rules = cfg.Chaos, cfg.Rules
	c := &Cluster{
		cfg: cfg, network: net, rec: newRecorder(),
		rt: NewRuntime(opts), sizingWall: sizing, future: future,
	}
	c.rt.WatchWork(func() bool {
		submitted, ended := c.rec.counts()
		return submitted > ended
	})
	if err := c.spawn(topo, policy); err != nil {
		c.rt.Run() // stops what was spawned
		return nil, err
	}
	return c, nil
}

// deps gives the named actor its clock, stream and sinks.
func (c *Cluster) deps(name string) actors.Deps {
	return actors.Deps{
		Clock: c.rt.Clock(), Rand: c.rt.Rand(name), Metrics: c.rec,
		Fail: c.rt.Fail, Done: c.rt.Done, Progress: c.rt.Progress, Props: c.rt.Props,
		Perturb: c.rt.Perturb(), Intercept: c.rt.Intercept(),
	}
}

func (c *Cluster) spawnActor(name string, a actor.Actor) (*actor.PID, error) {
	return c.rt.Spawn(name, func() actor.Actor { return a })
}

func (c *Cluster) spawn(topo *netmodel.Topology, policy sched.Policy) error {
	cfg := &c.cfg
	c.rec.configure(&cfg.Run)
	c.rec.hardware = newHardwareTally(&cfg.Cluster, &cfg.Tasks)
	c.rec.ams = cfg.Cluster.Containers > 0 && cfg.Cluster.AMContainers > 0
	c.rec.admission = cfg.Scheduler.MaxRunning > 0 || c.rec.ams
	c.rec.cloning = cfg.Cloning.On()
	if cfg.Cluster.Containers > 0 {
		c.rec.reduceContainers = cfg.Cluster.ReduceSize()
	}
	id := max(1, cfg.firstJob)
	for _, jobs := range cfg.Workload {
		for _, set := range Workflows(jobs) {
			ids := make([]sched.JobID, len(set))
			for k, i := range set {
				ids[k] = id + sched.JobID(i)
			}
			c.rec.workflows = append(c.rec.workflows, ids)
		}
		id += sched.JobID(len(jobs))
	}
	if cfg.Heartbeat.Serves() {
		c.rec.queue = newQueueTally()
		c.rec.callsTimeOut = cfg.Heartbeat.CallTimeout > 0
	}
	if cfg.IntermediateLoss != nil || cfg.Tasks.ProtectOutputs {
		c.rec.countRecomputes()
	}
	if e, ok := cfg.Scheduler.Params.(sched.Evicting); ok {
		c.rec.evicting = e.EvictsForLocality()
	}
	if p, ok := policy.(sched.Partitioned); ok {
		c.rec.partitioned(p, cfg.Shape())
	}
	if cfg.Cache != nil { // with a capacity of 0 too: the runs it is compared with
		c.rec.countCaches()
	}
	if cfg.MeasuresStragglers() {
		c.rec.phases = newPhaseTally()
		c.rec.phases.byKind = cfg.Tasks.ReducePlacementConfig.Named()
		if cfg.Stragglers.Mild > 0 {
			c.rec.phases.mapCompute = mapComputes(cfg.Jobs())
		}
	}
	if cfg.Replication != nil {
		c.rec.countReplication()
	}
	f := actors.NewFabric(topo, c.network, cfg.Cluster.ByteCPU(), c.deps("fabric"))
	if every := cfg.Run.LinkSamples; every > 0 {
		f.SampleLinks(every)
		c.rec.links = linkNames(topo, c.network)
	}
	if l := cfg.IntermediateLoss; l != nil {
		f.LoseOutputs(*l, cfg.Run.Seed, cfg.Nodes())
	}
	if t := cfg.RackTraffic; t != nil {
		if err := f.LoadRackLinks(*t, cfg.Run.Seed); err != nil {
			return err
		}
	}
	fabric, err := c.spawnActor("fabric", f)
	if err != nil {
		return err
	}
	n := cfg.Nodes()
	dir := &actors.Directory{Nodes: make([]*actor.PID, n), Switches: make([]*actor.PID, n)}
	rackOf := make([]sched.RackID, n)
	switches := make([]*actor.PID, cfg.Cluster.Racks)
	for r := range cfg.Cluster.Racks {
		name := fmt.Sprintf("rack-%d", r)
		if switches[r], err = c.spawnActor(name, actors.NewRackSwitch(sched.RackID(r), &cfg.Heartbeat, c.deps(name))); err != nil {
			return err
		}
	}
	for i := range n {
		rackOf[i] = sched.RackID(i / cfg.Cluster.NodesPerRack)
		dir.Switches[i] = switches[rackOf[i]]
	}
	known := rackOf // the racks Hadoop is told of
	if !cfg.Cluster.RackAware {
		known = make([]sched.RackID, n)
	}
	preloaded := cfg.preloaded()
	streams := len(cfg.Workload) + len(cfg.Closed) + cfg.QoS.clients()
	c.coordinator = actors.NewCoordinator(actors.CoordinatorConfig{
		Cluster: cfg.Cluster, HDFS: cfg.HDFS, Heartbeat: cfg.Heartbeat, Tasks: cfg.Tasks, Stragglers: cfg.Stragglers, Straggle: cfg.straggle,
		Speculation: speculationFor(cfg), Blacklist: cfg.Blacklist, Cloning: cfg.Cloning, NewSpeculation: newSpeculation(cfg),
		MeasureNodes: cfg.Blacklist.On() || cfg.Cloning.On() || cfg.Speculation.On() && cfg.Speculation.params().SlowNodes() > 0,
		PolicyTick:   cfg.Scheduler.Tick.Std(), MaxRunning: cfg.Scheduler.MaxRunning, RackOf: known,
		Streams: streams, Idle: streams == 0 && cfg.Run.Until > 0,
		Fabric: fabric, Directory: dir, Explain: cfg.Run.Explain,
		NewPolicy: func() (sched.Policy, error) { return sched.New(cfg.Scheduler.Name, cfg.Scheduler.Params, cfg.Shape()) },
		Cache:     cfg.Cache, Preloaded: preloaded, CacheFuture: c.future, Replication: cfg.Replication,
		IntermediateLoss: cfg.IntermediateLoss,
	}, policy, c.deps("coordinator"))
	coordinator, err := c.spawnActor("coordinator", c.coordinator)
	if err != nil {
		return err
	}
	if cfg.Cache.On() {
		if dir.Caches, err = c.spawnCaches(dir, coordinator, preloaded); err != nil {
			return err
		}
	}
	for i := range n {
		name := fmt.Sprintf("node-%d", i)
		nc := actors.NodeConfig{
			ID: sched.NodeID(i), Rack: rackOf[i], Cluster: cfg.Cluster.ForNode(i), HDFS: cfg.HDFS, Heartbeat: cfg.Heartbeat, Tasks: cfg.Tasks,
			Switch: dir.Switches[i], Coordinator: coordinator, Fabric: fabric, QoSWeights: cfg.QoS.weights(),
			NameOutputs: cfg.IntermediateLoss != nil || cfg.Tasks.ProtectOutputs,
		}
		if dir.Caches != nil {
			nc.Cache = dir.Caches[i]
		}
		node := actors.NewNode(nc, c.deps(name))
		if dir.Nodes[i], err = c.spawnActor(name, node); err != nil {
			return err
		}
	}
	c.nodes = dir.Nodes
	if len(cfg.Faults) > 0 || len(cfg.Rules) > 0 || cfg.Heartbeat.Serves() {
		// A node may be declared dead while it lives: cut off by a fault,
		// its heartbeats lost to a message rule, or waiting in a busy
		// coordinator's queue past the silence allowed. Its attempts are
		// booked lost, and their ends it reports later are stale.
		c.rec.lost = make(map[sched.Attempt]bool)
	}
	if len(cfg.Faults) > 0 {
		targets := actors.FaultTargets{Nodes: dir.Nodes, Switches: switches, Fabric: fabric, Coordinator: coordinator,
			NodesPerRack: cfg.Cluster.NodesPerRack}
		if _, err := c.spawnActor("faults", actors.NewFaultInjector(cfg.Faults, targets, c.deps("faults"))); err != nil {
			return err
		}
	}
	first := max(1, cfg.firstJob)
	for s, jobs := range cfg.Workload {
		name := fmt.Sprintf("client-%d", s)
		client := actors.NewClient(jobs, first, coordinator, c.deps(name))
		if Workflow(jobs) {
			client = actors.NewWorkflowClient(jobs, first, coordinator, c.deps(name))
		}
		if _, err := c.spawnActor(name, client); err != nil {
			return err
		}
		first += sched.JobID(len(jobs))
	}
	for w, jobs := range cfg.Closed {
		name := fmt.Sprintf("worker-%d", w)
		if _, err := c.spawnActor(name, actors.NewClosedClient(jobs, first, coordinator, c.deps(name))); err != nil {
			return err
		}
		first += sched.JobID(len(jobs))
	}
	return c.spawnQoSClients(coordinator)
}

// spawnQoSClients starts the QoS streams' clients, "qos-<stream>-<i>".
func (c *Cluster) spawnQoSClients(coordinator *actor.PID) error {
	q := c.cfg.QoS
	if q == nil {
		return nil
	}
	for s, stream := range q.Streams {
		for i := range stream.Clients {
			name := fmt.Sprintf("qos-%d-%d", s, i)
			cfg := actors.QoSClientConfig{Classes: q.Classes, Recovery: q.BasicRecovery, Workload: stream.QoSWorkload,
				Nodes: c.nodes, Coordinator: coordinator}
			if _, err := c.spawnActor(name, actors.NewQoSClient(cfg, c.deps(name))); err != nil {
				return err
			}
		}
	}
	return nil
}

// spawnCaches starts a cache client per node, "cache-<node>", each holding
// its preloaded blocks.
func (c *Cluster) spawnCaches(dir *actors.Directory, coordinator *actor.PID, preloaded []actors.Preloaded) ([]*actor.PID, error) {
	cfg := &c.cfg
	pids := make([]*actor.PID, cfg.Nodes())
	held := make([][]actors.CachedBlock, cfg.Nodes())
	for _, p := range preloaded {
		held[p.Node] = append(held[p.Node], p.CachedBlock)
	}
	for i := range pids {
		name := fmt.Sprintf("cache-%d", i)
		own := *cfg.Cache
		own.Capacity = cfg.Cluster.CacheCapacity(i, own.Capacity)
		client := actors.NewCacheClient(actors.CacheClientConfig{
			Node: sched.NodeID(i), Cache: own, Switch: dir.Switches[i], Coordinator: coordinator, Preloaded: held[i],
		}, c.deps(name))
		var err error
		if pids[i], err = c.spawnActor(name, client); err != nil {
			return nil, err
		}
	}
	return pids, nil
}

// Node returns a node's actor, so tests can stop one to emulate a crash.
func (c *Cluster) Node(i int) *actor.PID { return c.nodes[i] }

// Progress reports how far a running cluster has got: its emulated time
// and the jobs submitted and ended. It may be called from any goroutine.
func (c *Cluster) Progress() (now time.Duration, submitted, ended int) {
	submitted, ended = c.rec.counts()
	return c.rt.Now(), submitted, ended
}

// Runtime exposes the run, for tests that script extra events.
func (c *Cluster) Runtime() Runtime { return c.rt }

// ErrInterrupted is the error of a run Interrupt stopped; its report holds
// what was done, the jobs still running cut off.
var ErrInterrupted = errors.New("interrupted")

// Interrupt stops a running cluster after the message being delivered, as
// Ctrl-C does; it may be called from any goroutine.
func (c *Cluster) Interrupt() { c.rt.Interrupt() }

// Run runs the cluster to its end and assembles the report. The error is a
// broken invariant or a failed run; the report is filled either way.
func (c *Cluster) Run() (*Report, error) {
	res := c.rt.Run()
	var stall *StallError
	if errors.As(res.Err, &stall) {
		stall.Waiting = c.coordinator.Waiting()
	}
	c.lastLinkSample()
	results, err := c.rec.results(res.At)
	var refWall time.Duration
	if c.cfg.Run.Slowdown && res.Err == nil && res.Reason != EndInterrupted {
		start := time.Now()
		// Only jobs that succeeded have a slowdown; each is run alone
		// from the instant it was submitted.
		var done []soloJob
		for _, j := range results.Jobs {
			if j.Outcome == JobSucceeded {
				done = append(done, soloJob{index: int(j.ID) - 1, at: j.Submit})
			}
		}
		refs, rerr := referenceRuns(c.cfg, done, 0)
		if rerr != nil {
			return &Report{End: res, Records: results, SizingWall: c.sizingWall}, rerr
		}
		for i := range results.Jobs {
			ref := refs[results.Jobs[i].ID-1]
			results.Jobs[i].Reference, results.Jobs[i].Size = ref.Runtime, ref.Held
		}
		refWall = time.Since(start)
	}
	rep := &Report{
		End: res, Records: results, Network: c.network.Stats(), ReferenceWall: refWall, SizingWall: c.sizingWall,
		Summary: Summarize(results, c.cfg.Slots(), res.At),
	}
	if res.Err != nil {
		return rep, res.Err
	}
	if err != nil {
		return rep, fmt.Errorf("invariant: %w", err)
	}
	if res.Reason == EndInterrupted {
		return rep, fmt.Errorf("%w at %v with %v jobs unfinished", ErrInterrupted, res.At, unfinished(results))
	}
	if res.Reason != EndDone && res.Reason != EndDeadline {
		return rep, fmt.Errorf("run ended %s at %v with %v jobs unfinished", res.Reason, res.At, unfinished(results))
	}
	return rep, nil
}

// unfinished counts the jobs cut off, those of a warm-up too, which the
// summary leaves out.
func unfinished(res *Records) int {
	n := 0
	for _, j := range res.Jobs {
		if j.Outcome == JobCutOff {
			n++
		}
	}
	return n
}

// lastLinkSample closes the link samples with the window from the last
// one to the network's last instant, which the fabric did not live to
// sample.
func (c *Cluster) lastLinkSample() {
	links := c.Links()
	if c.cfg.Run.LinkSamples <= 0 || len(links.Names) == 0 {
		return
	}
	from, sampled := c.rec.sampledSoFar()
	s := actors.LinkSample{From: from, To: c.network.Now(), Carried: make([]int64, len(links.Names))}
	if s.To <= s.From {
		return
	}
	for l := range s.Carried {
		total, err := c.network.Carried(netmodel.LinkID(l))
		if err != nil {
			return // a link the network has: cannot fail
		}
		s.Carried[l] = total
		if l < len(sampled) {
			s.Carried[l] -= sampled[l]
		}
	}
	c.rec.LinksSampled(s)
}

// Links names the links a run samples (RunOptions.LinkSamples) and gives
// their capacities, by LinkID, without samples; empty when the run does
// not sample them. It is known once the cluster is built.
func (c *Cluster) Links() LinkSeries {
	c.rec.mu.Lock()
	defer c.rec.mu.Unlock()
	return LinkSeries{Names: slices.Clone(c.rec.links.Names), Capacity: slices.Clone(c.rec.links.Capacity)}
}

// linkNames names the topology's links and their capacities, by LinkID.
func linkNames(topo *netmodel.Topology, net *netmodel.Network) LinkSeries {
	var s LinkSeries
	for l, ref := range topo.Refs() {
		for int(l) >= len(s.Names) {
			s.Names, s.Capacity = append(s.Names, ""), append(s.Capacity, 0)
		}
		s.Names[l] = ref.String()
		s.Capacity[l], _ = net.Capacity(l)
	}
	return s
}

// speculationFor is what the coordinator keeps to of the run's
// speculation policy.
func speculationFor(cfg *Config) actors.SpeculationConfig {
	if !cfg.Speculation.On() {
		return actors.SpeculationConfig{}
	}
	p := cfg.Speculation.params()
	return actors.SpeculationConfig{On: true, Cap: p.Cap(), SlowNodes: p.SlowNodes()}
}

// newSpeculation makes each job's speculation policy, nil when the run
// does not speculate. Δ is the progress-report period; a copy's launch
// is assumed half a heartbeat after its request until one is measured.
func newSpeculation(cfg *Config) func(tasks [2]int) straggler.Policy {
	if !cfg.Speculation.On() {
		return nil
	}
	name, params := cfg.Speculation.Name, cfg.Speculation.params()
	lag := cfg.Heartbeat.Interval.Std() / 2
	delta := cfg.Tasks.ProgressInterval.Std()
	return func(tasks [2]int) straggler.Policy {
		p, err := straggler.New(name, params, straggler.Setup{Tasks: tasks, Delta: delta, Lag: lag})
		if err != nil {
			panic(fmt.Sprintf("cluster: speculation %q validated but not built: %v", name, err))
		}
		return p
	}
}
