package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"clusteremu/cluster"
	"clusteremu/internal/parallel"
	"clusteremu/scenarios"
)

// reproduceCommand runs paper-reproduction scenarios: every run their
// [[expect]] blocks name (the scenario with each block's set, and each
// baseline), runs at once as many as there are CPUs, then prints one row
// per expectation: the run, the metric, the paper's figure, the
// emulator's, the tolerance and pass or FAIL. --reduced applies each
// scenario's [reproduce] reduced overrides first: the form CI runs.
func reproduceCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reduced := fs.Bool("reduced", false, "apply each scenario's [reproduce] reduced overrides (the CI form)")
	workers := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(positional) == 0 {
		fmt.Fprintln(stderr, "usage: clusteremu reproduce [--reduced] scenario.toml ...")
		return 2
	}
	code := 0
	for _, path := range positional {
		sc, err := scenarios.LoadFile(path)
		if err == nil && *reduced {
			name := sc.Name
			sc, err = applySets(sc, sc.Reproduce.Reduced)
			if err == nil {
				sc.Name = name + " (reduced)"
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		if !reproduce(stdout, sc, *workers) {
			code = 1
		}
	}
	return code
}

// variantKey names the run of a list of overrides.
func variantKey(sets []string) string {
	if len(sets) == 0 {
		return "as written"
	}
	return strings.Join(sets, " ")
}

// reproduce runs a scenario's variants and prints its rows; it reports
// whether every expectation held.
func reproduce(w io.Writer, sc *scenarios.Scenario, workers int) bool {
	variants := map[string][]string{}
	for _, e := range sc.Expect {
		variants[variantKey(e.Set)] = e.Set
		if e.Baseline != nil {
			variants[variantKey(e.Baseline)] = e.Baseline
		}
	}
	keys := slices.Sorted(maps.Keys(variants))
	sums := make([]cluster.Summary, len(keys))
	runErrs := make([]error, len(keys))
	parallel.For(len(keys), workers, func(i int) {
		sums[i], runErrs[i] = runVariant(sc, variants[keys[i]])
	})
	summaries := make(map[string]cluster.Summary, len(keys))
	errs := make(map[string]error, len(keys))
	for i, k := range keys {
		summaries[k], errs[k] = sums[i], runErrs[i]
	}

	fmt.Fprintf(w, "%s: %s\n", shortName(sc.Name), sc.Reproduce.Source)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  run\tmetric\tpaper\temulator\texpected\t")
	ok := true
	for _, e := range sc.Expect {
		run := variantKey(e.Set)
		label := run
		if e.Run != "" {
			label = e.Run
		}
		measured, err := math.NaN(), errs[run]
		metric := e.Metric
		switch {
		case err != nil:
		case e.Baseline != nil:
			if err = errs[variantKey(e.Baseline)]; err == nil {
				measured, err = e.CheckRatio(summaries[run], summaries[variantKey(e.Baseline)])
			}
			metric += " ratio"
		default:
			if got, has := summaries[run][e.Metric]; has {
				measured = got
			}
			err = e.Check(summaries[run])
		}
		verdict := "pass"
		if err != nil {
			verdict, ok = "FAIL", false
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.4g\t%s %v%s\t%s\n", label, metric, e.Paper, measured, e.Op, e.Value, tolerance(e), verdict)
		if err != nil && errs[run] != nil {
			fmt.Fprintf(tw, "  \t%v\t\t\t\t\n", errs[run])
		}
	}
	tw.Flush()
	return ok
}

func tolerance(e scenarios.Expectation) string {
	if e.Op != "~" {
		return ""
	}
	return fmt.Sprintf(" ± %g", e.Tolerance)
}

// runVariant runs the scenario with overrides and returns its summary.
func runVariant(sc *scenarios.Scenario, sets []string) (cluster.Summary, error) {
	v, err := applySets(sc, sets)
	if err != nil {
		return nil, err
	}
	c, err := cluster.Build(v.Config)
	if err != nil {
		return nil, err
	}
	rep, err := c.Run()
	if err != nil {
		return nil, err
	}
	return rep.Summary, nil
}
