package explore

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"clusteremu/cluster"
	"clusteremu/internal/parallel"
	"clusteremu/scenarios"
)

// Verdict builds and runs the configuration cfg of the scenario sc as one
// of runs and returns its first violation: the run's error (a broken
// invariant or a panic, with the emulated instant, the actor and the
// message being handled) or the first of the scenario's plain [[expect]]
// blocks that fails. The report is nil only when the build failed.
func Verdict(sc *scenarios.Scenario, cfg cluster.Config, runs *Runs) (*cluster.Report, error) {
	c, err := cluster.Build(cfg)
	if err != nil {
		return nil, err
	}
	return VerdictOf(sc, c, runs)
}

// VerdictOf runs a cluster built from the scenario sc and checks it as
// Verdict does. It must be called on the goroutine that built c.
func VerdictOf(sc *scenarios.Scenario, c *cluster.Cluster, runs *Runs) (*cluster.Report, error) {
	rep, err := runs.Run(c)
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

// checksReferences reports whether a plain [[expect]] block of the
// scenario checks a metric its reference runs measure (a slowdown, a
// size bin's, the workload's load).
func checksReferences(sc *scenarios.Scenario) bool {
	for i := range sc.Expect {
		if e := &sc.Expect[i]; e.Plain() && cluster.FromReferences(e.Metric) {
			return true
		}
	}
	return false
}

// Outcome is one explored seed's first violation (nil when it passed)
// and the emulated instant its run ended; Skipped when an interrupt kept
// it from being explored.
type Outcome struct {
	Err     error
	At      time.Duration
	Skipped bool
}

// Seed runs the scenario under one schedule seed, with its own workload
// seed, as one of runs. The scenario's reference runs (run.slowdown) are
// left out unless a plain [[expect]] block checks a metric measured from
// them: the checks are the run's own.
func Seed(sc *scenarios.Scenario, seed uint64, runs *Runs) Outcome {
	if runs.Stopped() {
		return Outcome{Skipped: true}
	}
	cfg := sc.Config
	cfg.Run.ScheduleSeed = seed
	cfg.Run.Slowdown = cfg.Run.Slowdown && checksReferences(sc)
	c, err := cluster.Build(cfg)
	if err != nil {
		return Outcome{Err: err}
	}
	rep, err := VerdictOf(sc, c, runs)
	if errors.Is(err, cluster.ErrInterrupted) {
		return Outcome{Skipped: true}
	}
	o := Outcome{Err: err}
	if rep != nil {
		o.At = rep.End.At
	}
	return o
}

// Seeds runs the scenario under the n schedule seeds first, first+1, …,
// at most workers at once (≤ 0: one per CPU), and returns their outcomes
// in seed order. failed, when not nil, is called with each failing seed
// as it is found, from the goroutine that ran it; calls may overlap.
func Seeds(sc *scenarios.Scenario, first uint64, n, workers int, runs *Runs, failed func(seed uint64, o Outcome)) []Outcome {
	outcomes := make([]Outcome, n)
	parallel.For(n, workers, func(i int) {
		seed := first + uint64(i)
		o := Seed(sc, seed, runs)
		outcomes[i] = o
		if o.Err != nil && !o.Skipped && failed != nil {
			failed(seed, o)
		}
	})
	return outcomes
}

// Earliest returns the index of the outcome that failed at the earliest
// emulated instant, the first of them on a tie, or −1 when none failed.
// That seed has the least history before its failure, so it replays
// quickest and shrinks furthest.
func Earliest(outcomes []Outcome) int {
	earliest := -1
	for i, o := range outcomes {
		if o.Skipped || o.Err == nil {
			continue
		}
		if earliest < 0 || o.At < outcomes[earliest].At {
			earliest = i
		}
	}
	return earliest
}

var (
	failedAt = regexp.MustCompile(`^at [^,:]+[,:] `)
	numbers  = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
)

// Signature is a violation with its instant and numbers left out: a
// shrunk run must fail the same way, though perhaps at another instant,
// on another node or job. A stall is the same stall whatever timers were
// pending when the watchdog fired: its signature is what the jobs waited
// for.
func Signature(err error) string {
	msg := err.Error()
	var stall *cluster.StallError
	if errors.As(err, &stall) {
		msg = "stalled; waiting: " + strings.Join(stall.Waiting, "; ")
	}
	return numbers.ReplaceAllString(failedAt.ReplaceAllString(msg, ""), "N")
}
