package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"clusteremu/cluster"
	"clusteremu/internal/shrink"
	"clusteremu/scenarios"
)

// shrinkCommand reduces a failing schedule seed to the fewest departures
// from the default course (FIFO delivery, no chaos delays) that still
// fail the same way, prints them and optionally writes them for `run
// --decisions`.
func shrinkCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("schedule-seed", 0, "the failing schedule seed (as explore printed it)")
	workers := fs.Int("parallel", 0, "runs at once (0: one per CPU)")
	out := fs.String("out", "", "write the minimal decisions to this file (JSON lines), for run --decisions")
	sc, err := parseDeterministic(fs, args, stderr)
	if err != nil {
		return 2
	}
	minimal, err := shrinkSeed(stdout, sc, *seed, *workers)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return 1
	}
	if *out != "" {
		if err := writeJSONL(*out, minimal); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return 1
		}
		fmt.Fprintf(stdout, "replay them with: clusteremu run %s --decisions %s\n", sc.Name, *out)
	}
	return 0
}

// parseDeterministic registers --set on fs, parses args and loads the
// scenario they name (or the default) with its overrides, which must run
// in deterministic virtual time. Errors are printed to stderr.
func parseDeterministic(fs *flag.FlagSet, args []string, stderr io.Writer) (*scenarios.Scenario, error) {
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key: key=value (repeatable)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err // printed by the flag set
	}
	sc, err := loadScenario(positional)
	if err == nil {
		sc, err = applySets(sc, sets)
	}
	if err == nil {
		err = needsDeterministic(sc, fs.Name())
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
	}
	return sc, err
}

func needsDeterministic(sc *scenarios.Scenario, command string) error {
	if sc.Config.Run.Concurrent() || sc.Config.Run.Clock != cluster.Virtual {
		return fmt.Errorf("%s: %s needs deterministic virtual time (run.clock = \"virtual\", deterministic)", sc.Name, command)
	}
	return nil
}

// shrinkSeed runs the scenario under the schedule seed, recording where it
// left the default course; pins those departures and drops them with
// delta debugging while the run still fails with the same violation; and
// prints what is left, a 1-minimal set: dropping any one decision makes
// the failure go away.
func shrinkSeed(w io.Writer, sc *scenarios.Scenario, seed uint64, workers int) ([]cluster.Decision, error) {
	start := time.Now()
	cfg := sc.Config
	cfg.Run.ScheduleSeed, cfg.Run.Slowdown, cfg.Run.RecordDecisions = seed, false, true
	rep, first := verdict(sc, cfg)
	if first == nil {
		return nil, fmt.Errorf("schedule seed %d of %s does not fail", seed, sc.Name)
	}
	fmt.Fprintf(w, "seed %d: FAIL %v\n", seed, first)
	all := rep.End.Decisions
	if rep.End.Err != nil {
		// A broken invariant ends the run: nothing after it mattered.
		kept := all[:0:0]
		for _, d := range all {
			if d.At <= rep.End.At {
				kept = append(kept, d)
			}
		}
		all = kept
	}
	fmt.Fprintf(w, "the run left the default course (FIFO delivery, no delays) %s before it failed\n", countKinds(all))
	want := signature(first)
	fails := func(ds []cluster.Decision) bool {
		c := cfg
		c.Run.RecordDecisions, c.Run.Pinned, c.Run.Decisions = false, true, ds
		_, err := verdict(sc, c)
		return err != nil && signature(err) == want
	}
	if !fails(all) {
		return nil, errors.New("pinning the recorded decisions does not repeat the failure; the run is not deterministic")
	}
	minimal, tests := shrink.Minimize(all, fails, workers)
	runs := tests + 2 // the seeded run and the pinned check
	if len(minimal) == 0 {
		fmt.Fprintf(w, "the default course fails too: the failure needs no particular order or delay (%d runs, %v)\n",
			runs, time.Since(start).Round(time.Millisecond))
		return minimal, nil
	}
	fmt.Fprintf(w, "shrunk to %d decision(s) in %d runs (%v); dropping any one of them makes the failure go away:\n",
		len(minimal), runs, time.Since(start).Round(time.Millisecond))
	for _, d := range minimal {
		fmt.Fprintf(w, "  %v\n", d)
	}
	return minimal, nil
}

// verdict runs the configuration and returns its first violation: the
// run's error (a broken invariant, a panic, with the actor and the
// message being handled) or the first failed expectation.
func verdict(sc *scenarios.Scenario, cfg cluster.Config) (*cluster.Report, error) {
	c, err := cluster.Build(cfg)
	if err != nil {
		return nil, err
	}
	return verdictOf(sc, c)
}

// verdictOf runs a built cluster of the scenario and checks it as verdict
// does.
func verdictOf(sc *scenarios.Scenario, c *cluster.Cluster) (*cluster.Report, error) {
	rep, err := c.Run()
	if err != nil {
		return rep, err
	}
	for i := range sc.Expect {
		if e := &sc.Expect[i]; e.Plain() {
			if err := e.Check(rep.Summary); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// countKinds describes a decision list by kind.
func countKinds(ds []cluster.Decision) string {
	n := map[cluster.DecisionKind]int{}
	for _, d := range ds {
		n[d.Kind]++
	}
	return fmt.Sprintf("%d times (%d orders, %d relay delays, %d heartbeat delays)",
		len(ds), n[cluster.DecideOrder], n[cluster.DecideRelay], n[cluster.DecideHeartbeat])
}

var (
	failedAt = regexp.MustCompile(`^at [^,:]+[,:] `)
	numbers  = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
)

// signature is a violation with its instant and numbers left out: a
// shrunk run must fail the same way, though perhaps at another instant,
// on another node or job.
func signature(err error) string {
	return numbers.ReplaceAllString(failedAt.ReplaceAllString(err.Error(), ""), "N")
}

// readDecisions reads a decision file written by shrink --out or run
// --events (one JSON object per line).
func readDecisions(path string) ([]cluster.Decision, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []cluster.Decision
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var d cluster.Decision
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}
