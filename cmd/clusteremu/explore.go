package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"time"

	"clusteremu/explore"
	"clusteremu/internal/parallel"
	"clusteremu/internal/sweep"
	"clusteremu/scenarios"
)

// exploreCommand runs one scenario under many schedule seeds, the same
// workload each time, and reports every seed whose run breaks a runtime
// invariant or an [[expect]] block. The workload seed stays as written:
// only the order of same-instant messages changes from seed to seed.
func exploreCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explore", stdout, stderr)
	seeds := fs.Int("seeds", 100, "schedule seeds to run")
	first := seedVar(fs, "first", 1, "the first schedule seed")
	workers := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	shrinkFirst := fs.Bool("shrink", false, "shrink the first failing seed to a minimal set of decisions")
	strategy := fs.String("strategy", "random", `how each seed orders same-instant messages: "random" (a uniform draw at each choice) or "pct" (probabilistic concurrency testing: run.strategy)`)
	workerList := workersFlag(fs)
	depth := fs.Int("depth", 3, "with --strategy pct, the orderings a bug needs: d − 1 priority changes a run (run.pct_depth)")
	reduced := fs.Bool("reduced", false, "explore a reproduction's reduced form (reproduce --reduced): its [reproduce] reduced overrides, and its rows as that form checks them, those it skips left out")
	sc, err := parseDeterministicForm(fs, args, reduced)
	if err == nil {
		sc, err = withStrategy(sc, *strategy, *depth, stdout)
		if err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
		}
	}
	if err != nil {
		return exitCode(err)
	}
	switch {
	case *seeds < 1:
		fmt.Fprintf(stderr, "clusteremu: --seeds %d: must be ≥ 1\n", *seeds)
		return exitUsage
	case *workers < 1:
		fmt.Fprintf(stderr, "clusteremu: --parallel %d: must be ≥ 1 (the default is one run per CPU: %d)\n", *workers, runtime.GOMAXPROCS(0))
		return exitUsage
	case *first > math.MaxInt64-uint64(*seeds)+1:
		fmt.Fprintf(stderr, "clusteremu: --first %d --seeds %d: the last seed passes %d\n", *first, *seeds, int64(math.MaxInt64))
		return exitUsage
	}
	*workers = parallel.Workers(*workers)
	pool, err := connectWorkers(*workerList)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	start := time.Now()
	var printing sync.Mutex
	runs, endWatch := watchedRunSet(stderr)
	report := func(seed uint64, o explore.Outcome) {
		// Each failure as it is found: a long exploration shows what it
		// has, and an interrupted one loses nothing.
		printing.Lock()
		fmt.Fprintf(stdout, "seed %d: FAIL %v\n", seed, o.Err)
		printing.Unlock()
	}
	var outcomes []explore.Outcome
	atOnce := max(1, min(*workers, *seeds))
	if pool != nil {
		outcomes, err = exploreOn(pool, sc, *first, *seeds, runs, stderr, report)
		atOnce = pool.Parallel()
		pool.Close()
	} else {
		outcomes = explore.Seeds(sc, *first, *seeds, *workers, runs, report)
	}
	endWatch()
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	wall := time.Since(start)
	failed, explored := 0, 0
	for _, o := range outcomes {
		if o.Skipped {
			continue
		}
		explored++
		if o.Err != nil {
			failed++
		}
	}
	earliest := explore.Earliest(outcomes)
	if runs.Stopped() {
		fmt.Fprintf(stdout, "interrupted: explored %d of %d schedule seeds (%d–%d) of %s: %d failed, in %v wall\n",
			explored, *seeds, *first, *first+uint64(*seeds)-1, sc.Name, failed, wall.Round(time.Millisecond))
	} else {
		fmt.Fprintf(stdout, "explored %d schedule seeds (%d–%d) of %s: %d failed, in %v wall (%.1f seeds/s, %d at once)\n",
			*seeds, *first, *first+uint64(*seeds)-1, sc.Name, failed, wall.Round(time.Millisecond), float64(*seeds)/wall.Seconds(), atOnce)
	}
	code := 0
	switch {
	case failed == 0 && runs.Stopped():
		return exitInterrupted
	case failed == 0:
		return 0
	case runs.Stopped():
		code = exitInterrupted
	default:
		code = 1
	}
	seed := *first + uint64(earliest)
	fmt.Fprintf(stdout, "earliest failure: seed %d at %v\n", seed, outcomes[earliest].At)
	fmt.Fprintf(stdout, "replay it with:  clusteremu run %s --schedule-seed %d --out DIR --events\n", sc.Name, seed)
	if *shrinkFirst && !runs.Stopped() {
		fmt.Fprintln(stdout)
		if _, err := explore.Shrink(stdout, sc, seed, *workers, runs); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
		}
	} else {
		fmt.Fprintf(stdout, "shrink it with:  clusteremu shrink %s --schedule-seed %d\n", sc.Name, seed)
	}
	return code
}

// exploreOn runs the n schedule seeds from first on the pool's workers,
// each as explore.Seed runs it here, and returns their outcomes in seed
// order, calling failed with each failing seed in seed order; a seed an
// interrupt kept from finishing is Skipped.
func exploreOn(pool *sweep.Pool, sc *scenarios.Scenario, first uint64, n int, runs *explore.Runs, stderr io.Writer, failed func(uint64, explore.Outcome)) ([]explore.Outcome, error) {
	unit, err := newUnit(unitExploreSeed, sc)
	if err != nil {
		return nil, err
	}
	units := make([]sweep.RunUnit, n)
	outcomes := make([]explore.Outcome, n)
	for i := range units {
		units[i] = unit
		units[i].Seed = first + uint64(i)
		outcomes[i].Skipped = true
	}
	err = runUnits(pool, units, runs, stderr, func(i int, result json.RawMessage) error {
		var r seedResult
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		outcomes[i] = r.outcome()
		if o := outcomes[i]; o.Err != nil && !o.Skipped {
			failed(units[i].Seed, o)
		}
		return nil
	})
	return outcomes, err
}

// watchedRunSet is a run set that the first interrupt stops; end ends the
// watch.
func watchedRunSet(stderr io.Writer) (runs *explore.Runs, end func()) {
	runs = explore.NewRuns()
	return runs, onInterrupt(stderr, runs.Interrupt)
}
