package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"clusteremu/internal/parallel"
	"clusteremu/scenarios"
)

// exploreCommand runs one scenario under many schedule seeds, the same
// workload each time, and reports every seed whose run breaks a runtime
// invariant or an [[expect]] block. The workload seed stays as written:
// only the order of same-instant messages changes from seed to seed.
func exploreCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 100, "schedule seeds to run")
	first := fs.Uint64("first", 1, "the first schedule seed")
	workers := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	shrinkFirst := fs.Bool("shrink", false, "shrink the first failing seed to a minimal set of decisions")
	sc, err := parseDeterministic(fs, args, stderr)
	if err != nil {
		return 2
	}
	if *seeds < 1 {
		fmt.Fprintf(stderr, "--seeds %d: must be ≥ 1\n", *seeds)
		return 2
	}
	*workers = parallel.Workers(*workers)
	start := time.Now()
	outcomes := make([]outcome, *seeds)
	parallel.For(*seeds, *workers, func(i int) {
		outcomes[i] = exploreSeed(sc, *first+uint64(i))
	})
	wall := time.Since(start)
	failed, earliest := 0, -1
	for i, o := range outcomes {
		if o.err == nil {
			continue
		}
		failed++
		fmt.Fprintf(stdout, "seed %d: FAIL %v\n", *first+uint64(i), o.err)
		if earliest < 0 || o.at < outcomes[earliest].at {
			earliest = i
		}
	}
	fmt.Fprintf(stdout, "explored %d schedule seeds (%d–%d) of %s: %d failed, in %v wall (%.1f seeds/s, %d at once)\n",
		*seeds, *first, *first+uint64(*seeds)-1, sc.Name, failed, wall.Round(time.Millisecond), float64(*seeds)/wall.Seconds(), max(1, min(*workers, *seeds)))
	if failed == 0 {
		return 0
	}
	// The seed that failed earliest has the least history before its
	// failure, so it replays quickest and shrinks furthest.
	seed := *first + uint64(earliest)
	fmt.Fprintf(stdout, "earliest failure: seed %d at %v\n", seed, outcomes[earliest].at)
	fmt.Fprintf(stdout, "replay it with:  clusteremu run %s --schedule-seed %d --out DIR --events\n", sc.Name, seed)
	if *shrinkFirst {
		fmt.Fprintln(stdout)
		if _, err := shrinkSeed(stdout, sc, seed, *workers); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
		}
	} else {
		fmt.Fprintf(stdout, "shrink it with:  clusteremu shrink %s --schedule-seed %d\n", sc.Name, seed)
	}
	return 1
}

// outcome is one explored seed's first violation and the emulated instant
// its run ended.
type outcome struct {
	err error
	at  time.Duration
}

// exploreSeed runs the scenario under one schedule seed.
func exploreSeed(sc *scenarios.Scenario, seed uint64) outcome {
	cfg := sc.Config
	cfg.Run.ScheduleSeed = seed
	cfg.Run.Slowdown = false // the checks are the run's own
	rep, err := verdict(sc, cfg)
	o := outcome{err: err}
	if rep != nil {
		o.at = rep.End.At
	}
	return o
}
