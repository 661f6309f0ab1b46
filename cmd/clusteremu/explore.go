package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"clusteremu/cluster"
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
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key: key=value (repeatable)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	sc, err := loadScenario(positional)
	if err == nil {
		sc, err = applySets(sc, sets)
	}
	if err == nil && sc.Config.Concurrent {
		err = fmt.Errorf("%s: explore needs deterministic virtual time (run.clock = \"virtual\", deterministic)", sc.Name)
	}
	if err == nil && *seeds < 1 {
		err = fmt.Errorf("--seeds %d: must be ≥ 1", *seeds)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *workers <= 0 {
		*workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	verdicts := make([]error, *seeds)
	parallel.For(*seeds, *workers, func(i int) {
		verdicts[i] = exploreSeed(sc, *first+uint64(i))
	})
	wall := time.Since(start)
	failed := 0
	for i, v := range verdicts {
		if v != nil {
			failed++
			fmt.Fprintf(stdout, "seed %d: FAIL %v\n", *first+uint64(i), v)
		}
	}
	fmt.Fprintf(stdout, "explored %d schedule seeds (%d–%d) of %s: %d failed, in %v wall (%.1f seeds/s, %d at once)\n",
		*seeds, *first, *first+uint64(*seeds)-1, sc.Name, failed, wall.Round(time.Millisecond), float64(*seeds)/wall.Seconds(), max(1, min(*workers, *seeds)))
	if failed > 0 {
		fmt.Fprintf(stdout, "replay one with: clusteremu run %s --schedule-seed %d --out DIR --events\n", sc.Name, *first+uint64(firstFailure(verdicts)))
		return 1
	}
	return 0
}

func firstFailure(verdicts []error) int {
	for i, v := range verdicts {
		if v != nil {
			return i
		}
	}
	return -1
}

// exploreSeed runs the scenario under one schedule seed and returns its
// first violation: the run's error (a broken invariant, a panic with its
// actor and emulated time) or the first failed expectation.
func exploreSeed(sc *scenarios.Scenario, seed uint64) error {
	cfg := sc.Config
	cfg.ScheduleSeed = seed
	cfg.Slowdown = false // the checks are the run's own
	c, err := cluster.Build(cfg)
	if err != nil {
		return err
	}
	rep, err := c.Run()
	if err != nil {
		return err
	}
	for i := range sc.Expect {
		if e := &sc.Expect[i]; e.Plain() {
			if err := e.Check(rep.Summary); err != nil {
				return err
			}
		}
	}
	return nil
}
