package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
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
	fs := newFlags("shrink", stdout, stderr)
	seed := seedVar(fs, "schedule-seed", 0, "the failing schedule seed (as explore printed it); required")
	workers := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	out := fs.String("out", "", "write the minimal decisions to this file (JSON lines), for run --decisions")
	sc, err := parseDeterministic(fs, args)
	if err != nil {
		return exitCode(err)
	}
	switch {
	case !fs.set("schedule-seed"):
		err = errors.New("shrink needs --schedule-seed S, a seed that fails (clusteremu explore finds them)")
	case *workers < 1:
		err = fmt.Errorf("--parallel %d: must be ≥ 1", *workers)
	case fs.set("out"):
		err = checkOutFile(*out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	runs, endWatch := watchedRunSet(stderr)
	minimal, err := shrinkSeed(stdout, sc, *seed, *workers, runs)
	endWatch()
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	code := exitOK
	if runs.stopped() {
		code = exitInterrupted
	}
	if fs.set("out") {
		if err := writeDecisions(*out, sc, sc.Config, minimal); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return 1
		}
		fmt.Fprintf(stdout, "replay them with: clusteremu run %s --decisions %s\n", sc.Name, *out)
	}
	return code
}

// parseDeterministic registers --set on fs, parses args and loads the
// scenario they name (or the default) with its overrides, which must run
// in deterministic virtual time. Errors are printed to stderr.
func parseDeterministic(fs *flags, args []string) (*scenarios.Scenario, error) {
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key: key=value (repeatable)")
	positional, err := fs.parse(args)
	if err != nil {
		return nil, err // printed by parse
	}
	sc, err := loadScenario(positional)
	if err == nil {
		sc, err = applySets(sc, sets)
	}
	if err == nil {
		err = needsDeterministic(sc, fs.Name())
	}
	if err != nil {
		fmt.Fprintln(fs.stderr, err)
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
//
// An interrupt stops it where it is: it prints the smallest failing set
// found so far, which need not be minimal.
func shrinkSeed(w io.Writer, sc *scenarios.Scenario, seed uint64, workers int, runs *runSet) ([]cluster.Decision, error) {
	start := time.Now()
	cfg := sc.Config
	cfg.Run.ScheduleSeed, cfg.Run.Slowdown, cfg.Run.RecordDecisions = seed, false, true
	rep, first := verdict(sc, cfg, runs)
	if errors.Is(first, cluster.ErrInterrupted) {
		return nil, fmt.Errorf("interrupted before seed %d had run", seed)
	}
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
		if runs.stopped() {
			return false // keeps what is known to fail: the shrinking ends
		}
		c := cfg
		c.Run.RecordDecisions, c.Run.Pinned, c.Run.Decisions = false, true, ds
		_, err := verdict(sc, c, runs)
		return err != nil && signature(err) == want
	}
	if !fails(all) {
		if runs.stopped() {
			return nil, errors.New("interrupted before the shrinking began")
		}
		return nil, errors.New("pinning the recorded decisions does not repeat the failure; the run is not deterministic")
	}
	minimal, tests := shrink.Minimize(all, fails, workers)
	if runs.stopped() {
		fmt.Fprintf(w, "interrupted: the smallest failing set found so far has %d decision(s) (of %d; not shown minimal):\n", len(minimal), len(all))
		for _, d := range minimal {
			fmt.Fprintf(w, "  %v\n", d)
		}
		return minimal, nil
	}
	runCount := tests + 2 // the seeded run and the pinned check
	if len(minimal) == 0 {
		fmt.Fprintf(w, "the default course fails too: the failure needs no particular order or delay (%d runs, %v)\n",
			runCount, time.Since(start).Round(time.Millisecond))
		return minimal, nil
	}
	fmt.Fprintf(w, "shrunk to %d decision(s) in %d runs (%v); dropping any one of them makes the failure go away:\n",
		len(minimal), runCount, time.Since(start).Round(time.Millisecond))
	for _, d := range minimal {
		fmt.Fprintf(w, "  %v\n", d)
	}
	return minimal, nil
}

// verdict runs the configuration and returns its first violation: the
// run's error (a broken invariant, a panic, with the actor and the
// message being handled) or the first failed expectation.
// The run is one of runs, for interrupts.
func verdict(sc *scenarios.Scenario, cfg cluster.Config, runs *runSet) (*cluster.Report, error) {
	c, err := cluster.Build(cfg)
	if err != nil {
		return nil, err
	}
	return verdictOf(sc, c, runs)
}

// verdictOf runs a built cluster of the scenario and checks it as verdict
// does.
func verdictOf(sc *scenarios.Scenario, c *cluster.Cluster, runs *runSet) (*cluster.Report, error) {
	rep, err := runs.run(c)
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
	out := fmt.Sprintf("%d times (%d orders, %d relay delays, %d heartbeat delays",
		len(ds), n[cluster.DecideOrder], n[cluster.DecideRelay], n[cluster.DecideHeartbeat])
	if rules := n[cluster.DecideDrop] + n[cluster.DecideDelay]; rules > 0 {
		out += fmt.Sprintf(", %d messages dropped and %d delayed by rules", n[cluster.DecideDrop], n[cluster.DecideDelay])
	}
	return out + ")"
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

// decisionsHeader opens a decisions file: the scenario the decisions were
// taken in and its course hash, so they are not followed in another.
type decisionsHeader struct {
	Scenario string `json:"scenario"`
	Course   string `json:"course_sha256"`
}

// courseHash identifies what decides a deterministic run's course apart
// from the schedule seed, which pinned decisions replace: the cluster,
// the workload and its seed, the policy and the chaos. Until, the clock's
// recording options and the reference runs leave it unchanged.
func courseHash(cfg cluster.Config) string {
	cfg.Run = cluster.RunOptions{Seed: cfg.Run.Seed}
	return configHash(cfg)
}

// writeDecisions writes decisions taken in the scenario sc, configured as
// cfg, as JSON lines after a header line, for run --decisions.
func writeDecisions(path string, sc *scenarios.Scenario, cfg cluster.Config, ds []cluster.Decision) error {
	return writeAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		if err := enc.Encode(decisionsHeader{Scenario: sc.Name, Course: courseHash(cfg)}); err != nil {
			return err
		}
		for i := range ds {
			if err := enc.Encode(&ds[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// readDecisions reads a decision file written by shrink --out or run
// --events (one JSON object per line) to follow in a run configured as
// cfg. A file whose header names another course is refused: its
// decisions would be silently ignored or followed where they mean
// something else.
func readDecisions(path string, cfg cluster.Config) ([]cluster.Decision, error) {
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
		if line == 1 && bytes.Contains(sc.Bytes(), []byte(`"course_sha256"`)) {
			var h decisionsHeader
			if err := strictJSON(sc.Bytes(), &h); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			if want := courseHash(cfg); h.Course != want {
				return nil, fmt.Errorf("%s:1: decisions taken in %s under another configuration (course %.12s…, this run's %.12s…): they replay only the scenario, seed and settings that recorded them",
					path, h.Scenario, h.Course, want)
			}
			continue
		}
		var d cluster.Decision
		if err := strictJSON(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// strictJSON decodes one JSON object, refusing unknown fields.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
