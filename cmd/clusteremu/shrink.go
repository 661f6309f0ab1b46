package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"clusteremu/cluster"
	"clusteremu/explore"
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
	minimal, err := explore.Shrink(stdout, sc, *seed, *workers, runs)
	endWatch()
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	code := exitOK
	if runs.Stopped() {
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
	return parseDeterministicForm(fs, args, nil)
}

// parseDeterministicForm is parseDeterministic; with reduced set, the
// scenario is a reproduction's reduced form: its [reproduce] reduced
// overrides applied before --set's (the scenario's name lists both, so
// a seed replays with it), its rows as that form checks them
// (reducedRows).
func parseDeterministicForm(fs *flags, args []string, reduced *bool) (*scenarios.Scenario, error) {
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key: key=value (repeatable)")
	positional, err := fs.parse(args)
	if err != nil {
		return nil, err // printed by parse
	}
	form := reduced != nil && *reduced
	sc, err := loadScenario(positional)
	if err == nil && form {
		if sc.Reproduce.Source == "" {
			err = fmt.Errorf("%s: --reduced needs a reproduction (a [reproduce] table with its source)", sc.Name)
		} else {
			sc, err = applySets(sc, sc.Reproduce.Reduced)
		}
	}
	if err == nil {
		sc, err = applySets(sc, sets)
	}
	if err == nil && form {
		sc = reducedRows(sc)
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

// signature is explore.Signature: a violation with its instant and
// numbers left out.
func signature(err error) string { return explore.Signature(err) }

// writeDecisions writes decisions taken in the scenario sc, configured as
// cfg, as JSON lines after a header line, for run --decisions.
func writeDecisions(path string, sc *scenarios.Scenario, cfg cluster.Config, ds []cluster.Decision) error {
	return writeAtomic(path, func(w io.Writer) error {
		return explore.EncodeDecisions(w, sc.Name, cfg, ds)
	})
}

// readDecisions reads a decision file written by shrink --out or run
// --events to follow in a run configured as cfg; explore.ReadDecisions
// refuses one of another course.
func readDecisions(path string, cfg cluster.Config) ([]cluster.Decision, error) {
	return explore.ReadDecisions(path, cfg)
}
