package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
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
	fs := newFlags("explore", stdout, stderr)
	seeds := fs.Int("seeds", 100, "schedule seeds to run")
	first := seedVar(fs, "first", 1, "the first schedule seed")
	workers := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	shrinkFirst := fs.Bool("shrink", false, "shrink the first failing seed to a minimal set of decisions")
	strategy := fs.String("strategy", "random", `how each seed orders same-instant messages: "random" (a uniform draw at each choice) or "pct" (probabilistic concurrency testing: run.strategy)`)
	depth := fs.Int("depth", 3, "with --strategy pct, the orderings a bug needs: d − 1 priority changes a run (run.pct_depth)")
	sc, err := parseDeterministic(fs, args)
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
	start := time.Now()
	outcomes := make([]outcome, *seeds)
	var printing sync.Mutex
	runs, endWatch := watchedRunSet(stderr)
	parallel.For(*seeds, *workers, func(i int) {
		seed := *first + uint64(i)
		o := exploreSeed(sc, seed, runs)
		outcomes[i] = o
		if o.err != nil && !o.skipped {
			// Each failure as it is found: a long exploration shows
			// what it has, and an interrupted one loses nothing.
			printing.Lock()
			fmt.Fprintf(stdout, "seed %d: FAIL %v\n", seed, o.err)
			printing.Unlock()
		}
	})
	endWatch()
	wall := time.Since(start)
	failed, explored, earliest := 0, 0, -1
	for i, o := range outcomes {
		if o.skipped {
			continue
		}
		explored++
		if o.err == nil {
			continue
		}
		failed++
		if earliest < 0 || o.at < outcomes[earliest].at {
			earliest = i
		}
	}
	if runs.stopped() {
		fmt.Fprintf(stdout, "interrupted: explored %d of %d schedule seeds (%d–%d) of %s: %d failed, in %v wall\n",
			explored, *seeds, *first, *first+uint64(*seeds)-1, sc.Name, failed, wall.Round(time.Millisecond))
	} else {
		fmt.Fprintf(stdout, "explored %d schedule seeds (%d–%d) of %s: %d failed, in %v wall (%.1f seeds/s, %d at once)\n",
			*seeds, *first, *first+uint64(*seeds)-1, sc.Name, failed, wall.Round(time.Millisecond), float64(*seeds)/wall.Seconds(), max(1, min(*workers, *seeds)))
	}
	code := 0
	switch {
	case failed == 0 && runs.stopped():
		return exitInterrupted
	case failed == 0:
		return 0
	case runs.stopped():
		code = exitInterrupted
	default:
		code = 1
	}
	// The seed that failed earliest has the least history before its
	// failure, so it replays quickest and shrinks furthest.
	seed := *first + uint64(earliest)
	fmt.Fprintf(stdout, "earliest failure: seed %d at %v\n", seed, outcomes[earliest].at)
	fmt.Fprintf(stdout, "replay it with:  clusteremu run %s --schedule-seed %d --out DIR --events\n", sc.Name, seed)
	if *shrinkFirst && !runs.stopped() {
		fmt.Fprintln(stdout)
		if _, err := shrinkSeed(stdout, sc, seed, *workers, runs); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
		}
	} else {
		fmt.Fprintf(stdout, "shrink it with:  clusteremu shrink %s --schedule-seed %d\n", sc.Name, seed)
	}
	return code
}

// outcome is one explored seed's first violation and the emulated instant
// its run ended; skipped when an interrupt kept it from being explored.
type outcome struct {
	err     error
	at      time.Duration
	skipped bool
}

// exploreSeed runs the scenario under one schedule seed, as one of runs.
func exploreSeed(sc *scenarios.Scenario, seed uint64, runs *runSet) outcome {
	if runs.stopped() {
		return outcome{skipped: true}
	}
	cfg := sc.Config
	cfg.Run.ScheduleSeed = seed
	cfg.Run.Slowdown = false // the checks are the run's own
	c, err := cluster.Build(cfg)
	if err != nil {
		return outcome{err: err}
	}
	rep, err := verdictOf(sc, c, runs)
	if errors.Is(err, cluster.ErrInterrupted) {
		return outcome{skipped: true}
	}
	o := outcome{err: err}
	if rep != nil {
		o.at = rep.End.At
	}
	return o
}

// run runs c as one of the set. Once the set is interrupted c still
// runs, stopping at once, so its actors are released.
func (s *runSet) run(c *cluster.Cluster) (*cluster.Report, error) {
	s.add(c)
	defer s.remove(c)
	return c.Run()
}

// runSet is the runs going on at once, so an interrupt reaches them all,
// and no run starts after it.
type runSet struct {
	mu      sync.Mutex
	running map[*cluster.Cluster]bool
	stop    bool
}

func newRunSet() *runSet { return &runSet{running: map[*cluster.Cluster]bool{}} }

// watchedRunSet is a run set that the first interrupt stops; end ends the
// watch.
func watchedRunSet(stderr io.Writer) (runs *runSet, end func()) {
	runs = newRunSet()
	return runs, onInterrupt(stderr, runs.interrupt)
}

// add registers a run about to start, and reports false once interrupted.
func (s *runSet) add(c *cluster.Cluster) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop {
		c.Interrupt()
		return false
	}
	s.running[c] = true
	return true
}

func (s *runSet) remove(c *cluster.Cluster) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.running, c)
}

// interrupt stops every run going on and every one to come.
func (s *runSet) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop = true
	for c := range s.running {
		c.Interrupt()
	}
}

func (s *runSet) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop
}
