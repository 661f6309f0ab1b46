package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/scenarios"
	"clusteremu/units"
)

// loadScenario reads the named scenario, or the embedded default.
func loadScenario(positional []string) (*scenarios.Scenario, error) {
	switch len(positional) {
	case 0:
		return scenarios.Load("default.toml (embedded)", scenarios.DefaultScenario, ".")
	case 1:
		return scenarios.LoadFile(positional[0])
	}
	return nil, fmt.Errorf("one scenario file at most, got %d", len(positional))
}

// runCommand runs a scenario, prints its summary, writes its outputs and
// checks its expectations.
func runCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", stdout, stderr)
	scenarioFlags := addScenarioFlags(fs)
	scheduleSeed := seedVar(fs, "schedule-seed", 0, "override the schedule seed only (replays a seed explore reported)")
	out := fs.String("out", "", "write summary.json, run.json, jobs.csv, tasks.csv, trace.json and scenario.toml into this directory")
	quiet := fs.Bool("quiet", false, "no progress bar")
	events := fs.Bool("events", false, "also write events.jsonl (every delivery), choices.jsonl (every scheduling choice) and decisions.jsonl (where the run left FIFO order or drew a delay) into --out")
	traceFlows := fs.Bool("trace-flows", false, "also show every flow in trace.json, as an async slice (a day of trace has millions)")
	listen := fs.String("listen", "", "serve a live status page and Prometheus /metrics on this loopback address (127.0.0.1:9090) while the run goes")
	decisions := fs.String("decisions", "", "follow these decisions (from shrink --out or decisions.jsonl) instead of the schedule seed's draws")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof reads it)")
	memProfile := fs.String("memprofile", "", "write a heap profile at the run's end (or at --memprofile-at) to this file (go tool pprof reads it)")
	var memProfileAt, heapEvery units.Duration = 0, units.Duration(10 * time.Minute)
	fs.Var(durationFlag{&memProfileAt}, "memprofile-at", "write --memprofile's heap profile when the emulated clock reaches this instant (7h20m) instead of at the end, sampled every 16 KiB allocated")
	heapTrace := fs.String("heap-trace", "", "write the live heap (after a full collection) and the jobs, attempts, flows and actors alive, every --heap-every of emulated time, to this file as CSV")
	fs.Var(durationFlag{&heapEvery}, "heap-every", "the emulated time between --heap-trace's lines")
	stats := fs.String("stats", "", "write the run's size and work counters to this file as JSON (what clusteremu bench reads)")
	check := fs.Bool("check-determinism", false, "run the scenario twice at once and report the first delivery where the runs part, or that they agree on every delivery and metric")
	stopAt := fs.Uint64("stop-at-step", 0, "stop the run right after the delivery of this step (events.jsonl's step) and print every actor's state, the queued messages and the next timers")
	watch := fs.String("watch", "", "print each delivery to or from this actor (a name, or a pattern such as \"node-*\") with its step, as the run goes")
	sc, err := scenarioFlags.load(fs, args)
	if err != nil {
		return exitCode(err)
	}
	if fs.set("schedule-seed") {
		sc.Config.Run.ScheduleSeed = *scheduleSeed // after --seed, which sets both
	}
	if *check {
		return checkDeterminism(sc, stdout, stderr)
	}
	if err := fitsMemory(sc); err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	cfg, outs, err := prepareRun(sc, *events, *traceFlows, *decisions, *out, fs.set("out"))
	var step *stepping
	var heap *heapWatch
	if err == nil {
		step, err = prepareStepping(sc, &cfg, *stopAt, *watch, stdout)
	}
	if err == nil {
		heap, err = newHeapWatch(sc, *heapTrace, heapEvery, memProfileAt, *memProfile)
	}
	if err != nil {
		if outs != nil {
			outs.abandon()
		}
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	if memProfileAt > 0 {
		*memProfile = "" // written at that instant, not at the end
	}
	var live *liveView
	if fs.set("listen") {
		if live, err = listenLive(*listen); err != nil {
			if outs != nil {
				outs.abandon()
			}
			fmt.Fprintln(stderr, "clusteremu:", err)
			return exitUsage
		}
		defer live.stop()
		cfg.Run.LinkSamples = linkWindow
		if cfg.Run.OnLinks == nil {
			cfg.Run.OnLinks = func(actors.LinkSample) {} // the live view reads the last window only
		}
	}
	c, err := cluster.Build(cfg)
	if err != nil {
		if outs != nil {
			outs.abandon()
		}
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	if outs != nil {
		outs.begin(c.Links())
	}
	heap.watch(c)
	if live != nil {
		live.serve(c)
		fmt.Fprintf(stderr, "live      http://%s/ (Prometheus metrics at /metrics)\n", live.addr())
	}
	stop := func() {}
	if !*quiet && isTerminal(stderr) {
		stop = showProgress(stderr, c, cfg.Run.Until.Std())
	}
	endWatch := onInterrupt(stderr, c.Interrupt)
	endProfile, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	start := time.Now()
	rep, runErr := c.Run()
	wall := time.Since(start) - rep.ReferenceWall // the run's own
	if err := errors.Join(endProfile(), heap.close()); err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
	}
	endWatch()
	stop()
	// The files first: printing to a closed pipe can end the process.
	if outs != nil {
		if err := outs.write(sc, cfg, rep, wall, runErr); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return exitFailed
		}
	}
	if *stats != "" {
		if err := writeStats(*stats, cfg, rep, wall); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return exitFailed
		}
	}
	if step.print(stdout) {
		return 0
	}
	printSummary(stdout, cfg, rep, wall)
	if runErr != nil {
		fmt.Fprintln(stderr, "clusteremu:", runErr)
		if errors.Is(runErr, cluster.ErrInterrupted) {
			return exitInterrupted
		}
		return exitFailed
	}
	return checkExpectations(stdout, sc, rep)
}

// prepareRun applies run's recording and replay flags to the scenario's
// configuration and opens the output directory (when --out was given),
// all before the run, so a bad flag or directory costs no run.
func prepareRun(sc *scenarios.Scenario, events, traceFlows bool, decisions, out string, outSet bool) (cluster.Config, *outputs, error) {
	cfg := sc.Config
	if events && !outSet {
		return cfg, nil, errors.New("--events needs --out DIR")
	}
	if traceFlows && !outSet {
		return cfg, nil, errors.New("--trace-flows needs --out DIR")
	}
	// Flows stream to flows.csv (outputs.record); KeepFlows stays set as
	// it always was, since the configuration's hash includes it.
	cfg.Run.KeepFlows = traceFlows
	// No output shows attempts' progress reports.
	cfg.Run.OnProgress = func(actors.AttemptProgress) {}
	if events {
		if err := needsDeterministic(sc, "--events"); err != nil {
			return cfg, nil, err
		}
		cfg.Run.RecordDecisions = true
	}
	if decisions != "" {
		if err := needsDeterministic(sc, "--decisions"); err != nil {
			return cfg, nil, err
		}
		ds, err := readDecisions(decisions, cfg)
		if err != nil {
			return cfg, nil, err
		}
		cfg.Run.Pinned, cfg.Run.Decisions = true, ds
	}
	if !outSet {
		cfg.Run.TallyAttempts = true // nothing reads the records but the summary
		return cfg, nil, nil
	}
	outs, err := openOutputs(out, cfg, events, traceFlows)
	if err != nil {
		return cfg, nil, err
	}
	outs.record(&cfg.Run)
	return cfg, outs, nil
}

func checkExpectations(w io.Writer, sc *scenarios.Scenario, rep *cluster.Report) int {
	failed, checked := 0, 0
	for i := range sc.Expect {
		if !sc.Expect[i].Plain() {
			continue
		}
		checked++
		if err := sc.Expect[i].Check(rep.Summary); err != nil {
			fmt.Fprintln(w, "FAIL", err)
			failed++
		}
	}
	if checked > 0 {
		fmt.Fprintf(w, "expect    %d of %d passed\n", checked-failed, checked)
	}
	if others := len(sc.Expect) - checked; others > 0 {
		fmt.Fprintf(w, "expect    %d more need runs with other settings: clusteremu reproduce %s\n", others, sc.Name)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// scenarioFlags pick and change the scenario a command runs: the file
// (or the embedded default), --set, --seed and --until.
type scenarioFlags struct {
	seed  *uint64
	until units.Duration
	sets  setFlags
}

func addScenarioFlags(fs *flags) *scenarioFlags {
	s := &scenarioFlags{seed: seedVar(fs, "seed", 0, "override the workload and schedule seeds")}
	fs.Var(durationFlag{&s.until}, "until", "cut the run off at this emulated time (as a scenario writes it: 90m, 2d)")
	fs.Var(&s.sets, "set", "override a scenario key: key=value (repeatable)")
	return s
}

// load parses the arguments and loads the scenario they name with the
// overrides applied: --set first, as it re-decodes the scenario, then the
// flags that override the decoded config. Errors are printed.
func (s *scenarioFlags) load(fs *flags, args []string) (*scenarios.Scenario, error) {
	positional, err := fs.parse(args)
	if err != nil {
		return nil, err // printed by parse
	}
	sc, err := loadScenario(positional)
	if err == nil {
		sc, err = applySets(sc, s.sets)
	}
	if err == nil && fs.set("seed") {
		sc, err = sc.WithSeed(*s.seed)
	}
	if err != nil {
		fmt.Fprintln(fs.stderr, err)
		return nil, err
	}
	if fs.set("until") {
		sc.Config.Run.Until = s.until
	}
	return sc, nil
}

// validateCommand decodes and validates scenario files only, with the
// overrides given.
func validateCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", stdout, stderr)
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key: key=value (repeatable)")
	paths, err := fs.parse(args)
	if err != nil {
		return exitCode(err)
	}
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "usage: clusteremu validate [--set key=value] scenario.toml ...")
		return exitUsage
	}
	code := exitOK
	for _, path := range paths {
		sc, err := scenarios.LoadFile(path)
		if err == nil {
			sc, err = applySets(sc, sets)
		}
		if err == nil {
			err = fitsMemory(sc)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "%s: ok: %v\n", path, sc.Config.Needs())
	}
	return code
}

// configCommand prints the scenario as it would run.
func configCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("config", stdout, stderr)
	scenarioFlags := addScenarioFlags(fs)
	sc, err := scenarioFlags.load(fs, args)
	if err != nil {
		return exitCode(err)
	}
	text, err := sc.Resolved()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	stdout.Write(text)
	return exitOK
}

// classCaches is what the cache line says of the classes with a cache of
// their own: " (old 8GB, new 0B)", or "".
func classCaches(c *actors.ClusterConfig) string {
	var parts []string
	for _, k := range c.Classes {
		if k.Cache != nil {
			parts = append(parts, fmt.Sprintf("%s %v", k.Name, *k.Cache))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// printFaults is the run's fault account: the faults fired by kind, what
// they cost, and where every byte asked of the fabric went.
func printFaults(w io.Writer, s cluster.Summary, f cluster.FlowTotals) {
	var fired []string
	total := 0.0
	for _, k := range actors.FaultKinds {
		if n := s["faults."+string(k)]; n > 0 {
			fired = append(fired, fmt.Sprintf("%s %.0f", k, n))
			total += n
		}
	}
	fmt.Fprintf(w, "faults    %.0f fired (%s), %.0f messages dropped and %.0f delayed by rules; %.0f nodes lost, %.0f came back\n",
		total, strings.Join(fired, ", "), s["messages.dropped"], s["messages.delayed"], s["nodes.lost"], s["nodes.rejoined"])
	fmt.Fprintf(w, "recovery  %.0f attempts lost, %.0f maps run again (%.0f node lost, %.0f fetch failures), %.0f blocks re-replicated (%.1f MB), %.0f stale reports ignored\n",
		s["tasks.lost"], s["maps.rerun.node_lost"]+s["maps.rerun.fetch_failures"], s["maps.rerun.node_lost"], s["maps.rerun.fetch_failures"],
		s["blocks.re_replicated"], s["blocks.re_replicated_bytes"]/1e6, s["reports.stale"])
	fmt.Fprintf(w, "bytes     %.0f requested = %d by %d completed flows + %d carried and %d abandoned by %d aborted + %d by %d cut off\n",
		s["flows.requested_bytes"], f.Bytes, f.Completed, f.AbortedBytes, f.Abandoned(), f.Aborted, f.CutOffDue, f.CutOff)
}

// printHardware prints a line per kind of node of a cluster with
// [[cluster.class]] entries: its nodes and slots, how busy they were, its
// share of the work, and its maps' mean time.
func printHardware(w io.Writer, s cluster.Summary, res *cluster.Records) {
	for _, k := range res.Hardware {
		p := cluster.HardwareMetrics + k.Name + "."
		fmt.Fprintf(w, "hardware  %s: %d nodes, %d map + %d reduce slots, map %.1f%%  reduce %.1f%% busy, %.1f%% of the slot-seconds, maps %.1fs on the mean\n",
			k.Name, k.Nodes, k.Slots[0], k.Slots[1], 100*s[p+"utilisation.map"], 100*s[p+"utilisation.reduce"], 100*s[p+"work"], s[p+"maps.seconds.mean"])
	}
}

// printPartitions prints a line per partition of a policy that splits the
// slots between queues: its slots, how busy they were, its share of the
// work.
func printPartitions(w io.Writer, s cluster.Summary, res *cluster.Records) {
	for k, slots := range res.PartitionSlots {
		p := fmt.Sprintf("%s%d.", cluster.PartitionMetrics, k+1)
		fmt.Fprintf(w, "partition %d: %d map + %d reduce slots, map %.1f%%  reduce %.1f%% busy, %.1f%% of the slot-seconds\n",
			k+1, slots[0], slots[1], 100*s[p+"utilisation.map"], 100*s[p+"utilisation.reduce"], 100*s[p+"work"])
	}
}

func printSummary(w io.Writer, cfg cluster.Config, rep *cluster.Report, wall time.Duration) {
	s := rep.Summary
	fmt.Fprintf(w, "cluster   %s, %s\n", cfg.Cluster.Describe(), cfg.Scheduler.Name)
	fmt.Fprintf(w, "jobs      %.0f submitted, %.0f succeeded, %.0f failed, %.0f cut off\n",
		s["jobs.submitted"], s["jobs.succeeded"], s["jobs.failed"], s["jobs.cut_off"])
	printFailures(w, rep.Records)
	if _, ok := s["jobs.response_time.mean"]; ok {
		fmt.Fprintf(w, "response  mean %.1fs  p50 %.1fs  p95 %.1fs  p99 %.1fs\n",
			s["jobs.response_time.mean"], s["jobs.response_time.p50"], s["jobs.response_time.p95"], s["jobs.response_time.p99"])
	} else {
		fmt.Fprintln(w, "response  none: no job succeeded")
	}
	if _, ok := s["jobs.slowdown.p50"]; ok {
		fmt.Fprintf(w, "slowdown  mean %.2f  p50 %.2f  p95 %.2f  p99 %.2f  (p95/p50 %.2f; vs. each job alone)\n",
			s["jobs.slowdown.mean"], s["jobs.slowdown.p50"], s["jobs.slowdown.p95"], s["jobs.slowdown.p99"], s["jobs.slowdown.v95"])
	}
	for _, pool := range s.Pools() {
		p := cluster.PoolMetrics + pool + "."
		fmt.Fprintf(w, "pool      %s: %.0f submitted, %.0f succeeded, %.0f failed, %.0f cut off",
			pool, s[p+"jobs.submitted"], s[p+"jobs.succeeded"], s[p+"jobs.failed"], s[p+"jobs.cut_off"])
		if _, ok := s[p+"jobs.response_time.mean"]; ok {
			fmt.Fprintf(w, "; response mean %.1fs  p95 %.1fs", s[p+"jobs.response_time.mean"], s[p+"jobs.response_time.p95"])
		}
		fmt.Fprintln(w)
	}
	if c := &cfg.Cluster; c.Containers > 0 && c.AMContainers > 0 {
		each := "1 container each"
		if c.AMContainers > 1 {
			each = fmt.Sprintf("%d containers each", c.AMContainers)
		}
		fmt.Fprintf(w, "AMs       %s, at most %.0f%% of the containers", each, 100*c.AMLimit())
		if _, ok := s["jobs.admission_wait.mean"]; ok {
			fmt.Fprintf(w, "; jobs waited for one mean %.1fs  p95 %.1fs", s["jobs.admission_wait.mean"], s["jobs.admission_wait.p95"])
		}
		fmt.Fprintf(w, "; %.0f lost\n", s[actors.MetricAMsLost])
	}
	if n, ok := s["workflows.submitted"]; ok {
		fmt.Fprintf(w, "workflows %.0f: %.0f succeeded, %.0f failed, %.0f cut off", n,
			s["workflows.succeeded"], s["workflows.failed"], s["workflows.cut_off"])
		if _, ok := s["workflows.makespan.mean"]; ok {
			fmt.Fprintf(w, "; makespan mean %.1fs  max %.1fs", s["workflows.makespan.mean"], s["workflows.makespan.max"])
		}
		fmt.Fprintln(w)
	}
	if _, ok := s["tasks.locality.node"]; ok {
		fmt.Fprint(w, "locality  ")
		if m, cached := s["tasks.locality.memory"]; cached {
			fmt.Fprintf(w, "memory %.1f%%  ", 100*m)
		}
		fmt.Fprintf(w, "node %.1f%%  rack %.1f%%  remote %.1f%%\n",
			100*s["tasks.locality.node"], 100*s["tasks.locality.rack"], 100*s["tasks.locality.remote"])
	} else {
		fmt.Fprintln(w, "locality  none: no map succeeded")
	}
	if cfg.Cluster.Containers > 0 {
		fmt.Fprintf(w, "slots     containers %.1f%% busy (maps %.1f%%, reduces %.1f%%), %.0f reduces preempted for maps",
			100*(s["slots.utilisation.map"]+s["slots.utilisation.reduce"]), 100*s["slots.utilisation.map"], 100*s["slots.utilisation.reduce"],
			s[actors.MetricReducesPreempted])
	} else {
		fmt.Fprintf(w, "slots     map %.1f%%  reduce %.1f%% busy", 100*s["slots.utilisation.map"], 100*s["slots.utilisation.reduce"])
	}
	if s["tasks.killed"]+s["tasks.failed"] > 0 {
		fmt.Fprintf(w, "; %.0f slot-s lost to %.0f killed, %.0f slot-s to %.0f failed attempts",
			s["tasks.killed.slot_seconds"], s["tasks.killed"], s["tasks.failed.slot_seconds"], s["tasks.failed"])
	}
	fmt.Fprintln(w)
	printPartitions(w, s, rep.Records)
	printHardware(w, s, rep.Records)
	if scv, ok := s["workload.size.scv"]; ok {
		fmt.Fprintf(w, "sizes     mean %.0f slot-s, SCV %.2f; the largest 8%% of jobs hold %.1f%% of the slot-seconds; %.1f%% below 10 s; reference runtimes sum to %.1f h, SCV %.2f\n",
			s["workload.size.mean"], scv, 100*s["workload.size.top_8pct"], 100*s["workload.size.below_10s"],
			s["workload.reference.sum"]/3600, s["workload.reference.scv"])
	}
	if load, ok := s["workload.load"]; ok {
		over := "the slots"
		if cfg.Cluster.Containers > 0 {
			over = "the containers"
		}
		fmt.Fprintf(w, "load      %.3f offered (map %.3f, reduce %.3f): the jobs' sizes alone over "+over+" × the span of the arrivals\n",
			load, s["workload.load.map"], s["workload.load.reduce"])
	}
	fmt.Fprintf(w, "flows     %.0f completed, %.0f aborted, %.1f GB moved\n",
		s["flows.completed"], s["flows.aborted"], s["flows.bytes"]/1e9)
	if cfg.Cache.On() {
		fmt.Fprintf(w, "cache     %s %v per node%s: hit ratio %.1f%%, %.1f%% of jobs all memory-local, %.0f blocks evicted; %.0f requests to the directory, at most %.0f in a second\n",
			cfg.Cache.Name, cfg.Cache.Capacity, classCaches(&cfg.Cluster), 100*s["cache.hit_ratio"], 100*s["jobs.all_memory_local"], s["cache.evictions"],
			s["cache.requests"], s["cache.requests.peak_per_second"])
	}
	if r := cfg.Replication; r != nil {
		fmt.Fprintf(w, "replicas  %s every %v, δ %d, budget %.0f%%, %s: %.0f added, %.0f removed; %.1f MB on the wire for %.1f MB raw (%.2f%% of the tasks' network bytes while copies ran); storage +%.1f%%, %.1f GB of removed replicas held, the fullest disk %.1f GB\n",
			r.Name, r.Epoch, r.Delta, 100*r.Budget, r.Compression, s["replicas.added"], s["replicas.removed"],
			s["replication.bytes"]/1e6, s["replication.bytes_raw"]/1e6, 100*s["replication.overhead"], 100*s["storage.overhead"],
			s["storage.held_bytes"]/1e9, s["storage.node_peak_bytes"]/1e9)
	}
	if h := cfg.Heartbeat; h.Serves() {
		cost := fmt.Sprintf("%v a message", h.ServiceTime)
		if h.ServicePerTask > 0 {
			cost += fmt.Sprintf(", %v a task launched", h.ServicePerTask)
		}
		if h.ServicePerJob > 0 {
			cost += fmt.Sprintf(", %v a job looked at", h.ServicePerJob)
		}
		looked := 0.0
		if n := s["coordinator.requests"]; n > 0 {
			looked = s[actors.MetricCoordinatorLooked] / n
		}
		skipped := ""
		if h.CallTimeout > 0 {
			cost += fmt.Sprintf(", calls given up after %v", h.CallTimeout)
			skipped = fmt.Sprintf(", %.0f skipped, given up", s[actors.MetricCoordinatorSkipped])
		}
		fmt.Fprintf(w, "master    %s: %.0f served%s, %.1f%% busy, %.3f s of mean wait, at most %.0f waiting or in service; the policy looked at %.1f jobs a message\n",
			cost, s["coordinator.requests"], skipped, 100*s["coordinator.busy"], s["coordinator.wait.mean"], s["coordinator.queue.peak"], looked)
	}
	if len(cfg.Faults) > 0 || len(cfg.Rules) > 0 {
		printFaults(w, s, rep.Records.Flows)
	}
	fmt.Fprintf(w, "solver    %d re-solves of %.0f flows on average; %d starts and ends applied without one\n",
		rep.Network.Solves, perSolve(rep.Network), rep.Network.Direct)
	emulated := rep.End.At
	fmt.Fprintf(w, "time      %v emulated (%s) in %v wall: %.0f× real time, %d messages, %s clock\n",
		emulated.Round(time.Second), rep.End.Reason, wall.Round(time.Millisecond), emulated.Seconds()/wall.Seconds(),
		rep.End.Steps, clockName(cfg))
	if rep.ReferenceWall > 0 {
		measured := 0
		for _, j := range rep.Records.Jobs {
			if j.Reference > 0 {
				measured++
			}
		}
		fmt.Fprintf(w, "reference %d of %d jobs measured alone for their slowdowns in %v wall (run.slowdown = false skips them)\n",
			measured, len(rep.Records.Jobs), rep.ReferenceWall.Round(time.Millisecond))
	}
	if rep.SizingWall > 0 {
		fmt.Fprintf(w, "sizing    every job of the load streams run alone for its size, before the run, in %v wall\n",
			rep.SizingWall.Round(time.Millisecond))
	}
	if rep.End.Lag > 0 {
		// Lag is wall time; at ×k it held back k times as much emulated
		// time, which the run then emulated at the pace it could.
		k := 1.0
		if cfg.Run.Clock == cluster.Scaled {
			k = cfg.Run.Speedup
		}
		fmt.Fprintf(w, "lag       the machine fell %v behind the wall clock (at most %v at once) and ran at %.0f× real time of the %g× asked: emulated time was held back, no timer fired late\n",
			rep.End.Lag.Round(time.Millisecond), rep.End.MaxLate.Round(time.Millisecond), emulated.Seconds()/wall.Seconds(), k)
	}
}

// durationFlag is a flag taking a span of emulated time as a scenario
// writes it ("90m", "1d12h"), so --until and run.until accept the same.
type durationFlag struct{ d *units.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := units.ParseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// seedFlag is a seed as a scenario can write it: TOML integers stop at
// 2^63−1, so --seed stops there too and every seed a flag takes can be
// written as run.seed.
type seedFlag struct{ v *uint64 }

func seedVar(fs *flags, name string, value uint64, usage string) *uint64 {
	v := new(value)
	fs.Var(seedFlag{v}, name, usage)
	return v
}

func (f seedFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f seedFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > math.MaxInt64 {
		return fmt.Errorf("a seed is an integer from 0 to %d (as run.seed in a scenario)", int64(math.MaxInt64))
	}
	*f.v = n
	return nil
}

// printFailures prints why jobs failed: each reason once, the most
// common first, with its count and the first job it failed.
func printFailures(w io.Writer, res *cluster.Records) {
	type reason struct {
		text  string
		count int
		first sched.JobID
	}
	var reasons []*reason
	byText := map[string]*reason{}
	for _, j := range res.Jobs {
		if j.Outcome != cluster.JobFailed {
			continue
		}
		r := byText[j.Reason]
		if r == nil {
			r = &reason{text: j.Reason, first: j.ID}
			byText[j.Reason] = r
			reasons = append(reasons, r)
		}
		r.count++
	}
	slices.SortStableFunc(reasons, func(a, b *reason) int { return b.count - a.count })
	const shown = 3
	for i, r := range reasons {
		if i == shown {
			fmt.Fprintf(w, "failed    … %d more reasons: jobs.csv has each job's\n", len(reasons)-shown)
			break
		}
		fmt.Fprintf(w, "failed    %d× (job %d first): %s\n", r.count, r.first, r.text)
	}
}

// perSolve is the mean number of flows a re-solve recomputed.
func perSolve(st netmodel.Stats) float64 {
	if st.Solves == 0 {
		return 0
	}
	return float64(st.FlowsSolved) / float64(st.Solves)
}
