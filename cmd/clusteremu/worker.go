package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"clusteremu/explore"
	"clusteremu/internal/sweep"
	"clusteremu/scenarios"
)

// workerCommand serves units of explore, compare and reproduce sweeps to
// coordinators started with --workers, until interrupted.
func workerCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("worker", stdout, stderr)
	listen := fs.String("listen", "127.0.0.1:7070", "host:port to take units on (port 0: a free port, printed)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "units run at once")
	exitOn := fs.Int("exit-on-unit", 0, "for tests: exit (code 3) on taking the k-th unit, before running it, as a worker whose machine went away")
	positional, err := fs.parse(args)
	switch {
	case err != nil:
		return exitCode(err)
	case len(positional) > 0:
		fmt.Fprintf(stderr, "clusteremu worker: no arguments, got %q (the scenario comes with each unit)\n", positional)
		return exitUsage
	case *parallel < 1:
		fmt.Fprintf(stderr, "clusteremu: --parallel %d: must be ≥ 1\n", *parallel)
		return exitUsage
	}
	runs := explore.NewRuns()
	stop := make(chan struct{})
	endWatch := onInterrupt(stderr, func() {
		runs.Interrupt()
		close(stop)
	})
	defer endWatch()
	w := &unitRunner{runs: runs, exitOn: int64(*exitOn)}
	err = sweep.Serve(sweep.WorkerOptions{
		Listen: *listen, Version: buildID(), Parallel: *parallel, Run: w.run,
		Ready: func(addr string) {
			fmt.Fprintf(stdout, "worker listening on %s (clusteremu %s, %d at once)\n", addr, buildID(), *parallel)
		},
		Unhandled: func(msg any) {
			fmt.Fprintf(stderr, "clusteremu worker: ignoring what no coordinator sends: %.200v\n", msg)
		},
	}, stop)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	return exitInterrupted
}

// The kinds of unit a worker runs, each by the code a local run of the
// command takes.
const (
	unitExploreSeed      = "explore seed"      // explore.Seed: one schedule seed
	unitReproduceVariant = "reproduce variant" // runHere: one variant under one seed
	unitCompareVariant   = "compare variant"   // runHere: one variant, configured by compareConfig
)

// unitRunner runs a worker's units. The scenario of the last unit is kept:
// a sweep sends the same scenario with every seed.
type unitRunner struct {
	runs   *explore.Runs
	exitOn int64
	taken  atomic.Int64

	mu     sync.Mutex
	hash   string
	latest *scenarios.Scenario
}

// run runs one unit and encodes its result, or says why it refuses it.
func (r *unitRunner) run(u sweep.RunUnit) (json.RawMessage, string) {
	if r.taken.Add(1) == r.exitOn {
		os.Exit(3)
	}
	sc, refused := r.scenario(u)
	if refused != "" {
		return nil, refused
	}
	var result any
	switch u.Kind {
	case unitExploreSeed:
		result = seedResultOf(explore.Seed(sc, u.Seed, r.runs))
	case unitReproduceVariant, unitCompareVariant:
		result = summaryResultOf(runHere(u.Kind, sc, r.runs))
	default:
		return nil, fmt.Sprintf("a unit of kind %q, which this worker does not know", u.Kind)
	}
	if r.runs.Stopped() {
		return nil, "" // cut short by the worker's interrupt: no answer, and the coordinator runs it elsewhere
	}
	data, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Sprintf("encoding the result: %v", err)
	}
	return data, ""
}

// scenario loads the unit's scenario, refusing it when it does not load
// here or resolves to another configuration than the coordinator's: the
// worker's clusteremu, or the trace files it reads, differ.
func (r *unitRunner) scenario(u sweep.RunUnit) (*scenarios.Scenario, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.latest != nil && r.hash == u.Hash {
		return r.latest, ""
	}
	sc, err := scenarios.Load(u.Name, []byte(u.Scenario), ".")
	if err != nil {
		return nil, fmt.Sprintf("the scenario does not load on this worker: %v", err)
	}
	if got := configHash(sc.Config); got != u.Hash {
		return nil, fmt.Sprintf("%s resolves on this worker to configuration %.12s…, on the coordinator to %.12s…: the worker's clusteremu or the files the scenario reads differ from the coordinator's",
			u.Name, got, u.Hash)
	}
	r.hash, r.latest = u.Hash, sc
	return sc, ""
}
