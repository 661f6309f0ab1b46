package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// setFlags collects repeated --set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// applySets applies --set overrides, all before validating.
func applySets(sc *scenarios.Scenario, sets []string) (*scenarios.Scenario, error) {
	if len(sets) == 0 {
		return sc, nil
	}
	return sc.WithSet(sets...)
}

// compareMetrics are the rows compare prints.
var compareMetrics = []string{
	"jobs.succeeded", "jobs.failed", "jobs.response_time.mean", "jobs.response_time.p50",
	"jobs.response_time.p95", "jobs.response_time.p99", "jobs.small.response_time.mean", "jobs.slowdown.mean", "jobs.slowdown.p50", "jobs.slowdown.p95",
	"jobs.slowdown.max", "jobs.makespan", "jobs.throughput",
	"tasks.killed", "tasks.killed.slot_seconds",
	"tasks.locality.node", "tasks.locality.rack", "tasks.locality.remote",
	"slots.utilisation.map", "slots.utilisation.reduce", "flows.bytes",
}

// compareCommand runs several scenarios, or one scenario with a key swept
// over values (--set key=v1,v2,...), on the same seeds and prints their
// metrics side by side, each with its ratio to the first.
func compareCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sets setFlags
	fs.Var(&sets, "set", "key=v1,v2,... sweeps a key over values (one --set sweeps; more fix other keys)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	variants, err := compareVariants(positional, sets)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	var reports []*cluster.Report
	for _, v := range variants {
		c, err := cluster.Build(v.Config)
		if err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return 1
		}
		rep, err := c.Run()
		if err != nil {
			fmt.Fprintf(stderr, "clusteremu: %s: %v\n", v.Name, err)
			return 1
		}
		reports = append(reports, rep)
	}
	printComparison(stdout, variants, reports)
	return 0
}

// compareVariants builds the scenarios to compare: every file named, or
// the one scenario (the default when none is named) under each value of
// the first --set that lists several.
func compareVariants(positional []string, sets []string) ([]*scenarios.Scenario, error) {
	if len(positional) > 1 {
		var out []*scenarios.Scenario
		for _, path := range positional {
			sc, err := scenarios.LoadFile(path)
			if err != nil {
				return nil, err
			}
			if sc, err = applySets(sc, sets); err != nil {
				return nil, err
			}
			out = append(out, sc)
		}
		return out, nil
	}
	base, err := loadScenario(positional)
	if err != nil {
		return nil, err
	}
	for i, set := range sets {
		key, values, _ := strings.Cut(set, "=")
		if !strings.Contains(values, ",") {
			continue
		}
		fixed := append(append([]string(nil), sets[:i]...), sets[i+1:]...)
		if base, err = applySets(base, fixed); err != nil {
			return nil, err
		}
		var out []*scenarios.Scenario
		for _, v := range strings.Split(values, ",") {
			sc, err := base.WithSet(key + "=" + v)
			if err != nil {
				return nil, err
			}
			out = append(out, sc)
		}
		return out, nil
	}
	return nil, fmt.Errorf("compare needs two scenarios, or --set key=v1,v2,... to sweep")
}

func printComparison(w io.Writer, variants []*scenarios.Scenario, reports []*cluster.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\t")
	for _, v := range variants {
		fmt.Fprintf(tw, "%s\t", shortName(v.Name))
	}
	fmt.Fprintln(tw)
	for _, m := range compareMetrics {
		fmt.Fprintf(tw, "%s\t", m)
		first, ok := reports[0].Summary[m]
		for i, rep := range reports {
			got, has := rep.Summary[m]
			switch {
			case !has:
				fmt.Fprint(tw, "-\t")
			case i == 0 || !ok || first == 0:
				fmt.Fprintf(tw, "%.4g\t", got)
			default:
				fmt.Fprintf(tw, "%.4g (%.2f×)\t", got, got/first)
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// shortName keeps what tells variants apart: the override, or the file.
func shortName(name string) string {
	if i := strings.LastIndex(name, " --set "); i >= 0 {
		return name[i+len(" --set "):]
	}
	return name
}
