package main

import (
	"fmt"
	"io"
	"strconv"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// withStrategy applies explore's --strategy and --depth to the scenario
// as the [run] keys they stand for, so the replay command explore prints
// (the scenario's name carries its overrides) repeats the strategy. PCT
// draws its priority changes from the run's length in deliveries: unless
// the scenario sets run.pct_steps, one run in FIFO order measures it.
func withStrategy(sc *scenarios.Scenario, strategy string, depth int, w io.Writer) (*scenarios.Scenario, error) {
	switch cluster.Strategy(strategy) {
	case "", cluster.Random:
		return sc, nil
	case cluster.PCT:
	default:
		return nil, fmt.Errorf(`--strategy %q: must be "random" or "pct"`, strategy)
	}
	sets := []string{"run.strategy=pct", "run.pct_depth=" + strconv.Itoa(depth)}
	if sc.Config.Run.PCTSteps == 0 {
		cfg := sc.Config
		cfg.Run.Slowdown = false
		cfg.Run.Pinned = true // FIFO order, no perturbation
		c, err := cluster.Build(cfg)
		if err != nil {
			return nil, err
		}
		rep, _ := c.Run() // a failure still measures the run
		if rep == nil || rep.End.Steps == 0 {
			return nil, fmt.Errorf("%s: measuring the run's length for pct: it made no delivery", sc.Name)
		}
		fmt.Fprintf(w, "pct: depth %d, priority changes drawn from the %d deliveries of the run in FIFO order\n", depth, rep.End.Steps)
		sets = append(sets, "run.pct_steps="+strconv.FormatUint(rep.End.Steps, 10))
	}
	out, err := sc.WithSet(sets...)
	if err != nil {
		return nil, err
	}
	// WithSet reads the rows from the file again; the ones in force are
	// sc's, a reduced form's when explore has --reduced.
	out.Expect = sc.Expect
	return out, nil
}
