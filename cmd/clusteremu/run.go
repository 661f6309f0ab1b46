package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"clusteremu/cluster"
	"clusteremu/scenarios"
	"clusteremu/units"
)

// parseInterspersed parses flags that may stand before or after the
// positional arguments, which Go's flag package alone does not allow.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

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
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "override the workload and schedule seeds")
	scheduleSeed := fs.Uint64("schedule-seed", 0, "override the schedule seed only (replays a seed explore reported)")
	var until units.Duration
	fs.Var(durationFlag{&until}, "until", "cut the run off at this emulated time (as a scenario writes it: 90m, 2d)")
	out := fs.String("out", "", "write summary.json, run.json, jobs.csv and tasks.csv into this directory")
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key: key=value (repeatable)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	events := fs.Bool("events", false, "also write events.jsonl (every delivery), choices.jsonl (every scheduling choice) and decisions.jsonl (where the run left FIFO order or drew a delay) into --out")
	decisions := fs.String("decisions", "", "follow these decisions (from shrink --out or decisions.jsonl) instead of the schedule seed's draws")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	sc, err := loadScenario(positional)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	// --set re-decodes the scenario, so the flags that override the
	// decoded config come after it.
	sc, err = applySets(sc, sets)
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case f.Name == "seed":
			sc, err = sc.WithSeed(*seed)
		case f.Name == "until":
			sc.Config.Run.Until = until
		}
	})
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "schedule-seed" {
			sc.Config.Run.ScheduleSeed = *scheduleSeed // after --seed, which sets both
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *events && *out == "" {
		fmt.Fprintln(stderr, "clusteremu: --events needs --out DIR")
		return 2
	}
	cfg := sc.Config
	cfg.Run.Events, cfg.Run.Choices, cfg.Run.RecordDecisions = *events, *events, *events
	if *decisions != "" {
		if err := needsDeterministic(sc, "--decisions"); err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		ds, err := readDecisions(*decisions)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		cfg.Run.Pinned, cfg.Run.Decisions = true, ds
	}
	c, err := cluster.Build(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return 1
	}
	stop := func() {}
	if !*quiet && isTerminal(stderr) {
		stop = showProgress(stderr, c, cfg.Run.Until.Std())
	}
	endWatch := onInterrupt(stderr, c.Interrupt)
	start := time.Now()
	rep, runErr := c.Run()
	wall := time.Since(start) - rep.ReferenceWall // the run's own
	endWatch()
	stop()
	printSummary(stdout, cfg, rep, wall)
	if *out != "" {
		if err := writeOutputs(*out, sc, cfg, rep, wall); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return 1
		}
	}
	if errors.Is(runErr, cluster.ErrInterrupted) {
		fmt.Fprintln(stderr, "clusteremu:", runErr)
		return exitInterrupted
	}
	if runErr != nil {
		fmt.Fprintln(stderr, "clusteremu:", runErr)
		return 1
	}
	return checkExpectations(stdout, sc, rep)
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

// validateCommand decodes and validates scenario files only.
func validateCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: clusteremu validate scenario.toml ...")
		return 2
	}
	code := 0
	for _, path := range args {
		if _, err := scenarios.LoadFile(path); err != nil {
			fmt.Fprintln(stderr, err)
			code = 1
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", path)
	}
	return code
}

func printSummary(w io.Writer, cfg cluster.Config, rep *cluster.Report, wall time.Duration) {
	s := rep.Summary
	fmt.Fprintf(w, "cluster   %d racks × %d nodes, %d map + %d reduce slots each, %s\n",
		cfg.Cluster.Racks, cfg.Cluster.NodesPerRack, cfg.Cluster.MapSlots, cfg.Cluster.ReduceSlots, cfg.Scheduler.Name)
	fmt.Fprintf(w, "jobs      %.0f submitted, %.0f succeeded, %.0f failed, %.0f cut off\n",
		s["jobs.submitted"], s["jobs.succeeded"], s["jobs.failed"], s["jobs.cut_off"])
	fmt.Fprintf(w, "response  mean %.1fs  p50 %.1fs  p95 %.1fs  p99 %.1fs\n",
		s["jobs.response_time.mean"], s["jobs.response_time.p50"], s["jobs.response_time.p95"], s["jobs.response_time.p99"])
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
	fmt.Fprintf(w, "locality  node %.1f%%  rack %.1f%%  remote %.1f%%\n",
		100*s["tasks.locality.node"], 100*s["tasks.locality.rack"], 100*s["tasks.locality.remote"])
	fmt.Fprintf(w, "slots     map %.1f%%  reduce %.1f%% busy", 100*s["slots.utilisation.map"], 100*s["slots.utilisation.reduce"])
	if s["tasks.killed"]+s["tasks.failed"] > 0 {
		fmt.Fprintf(w, "; %.0f slot-s lost to %.0f killed, %.0f slot-s to %.0f failed attempts",
			s["tasks.killed.slot_seconds"], s["tasks.killed"], s["tasks.failed.slot_seconds"], s["tasks.failed"])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "flows     %.0f completed, %.0f aborted, %.1f GB moved\n", s["flows.completed"], s["flows.aborted"], s["flows.bytes"]/1e9)
	emulated := rep.End.At
	fmt.Fprintf(w, "time      %v emulated (%s) in %v wall: %.0f× real time, %d messages, %s clock\n",
		emulated.Round(time.Second), rep.End.Reason, wall.Round(time.Millisecond), emulated.Seconds()/wall.Seconds(),
		rep.End.Steps, clockName(cfg))
	if rep.ReferenceWall > 0 {
		fmt.Fprintf(w, "reference %d jobs run alone for their slowdowns in %v wall (run.slowdown = false skips them)\n",
			len(rep.Records.Jobs), rep.ReferenceWall.Round(time.Millisecond))
	}
	if rep.End.Lag > 0 {
		fmt.Fprintf(w, "lag       emulated time held back %v (at most %v at once): the machine could not keep up\n",
			rep.End.Lag.Round(time.Millisecond), rep.End.MaxLate.Round(time.Millisecond))
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
