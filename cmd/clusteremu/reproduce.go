package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// reproduceCommand runs paper-reproduction scenarios: every run their
// [[expect]] blocks name (the scenario with each block's set, and each
// baseline), runs at once as many as there are CPUs, then prints one row
// per expectation: the run, the metric, the paper's figure, the
// emulator's, the tolerance and pass or FAIL; a row with a known cause
// of failure shows "FAIL (known)" and its cause under the table and does
// not fail the command. --reduced applies each
// scenario's [reproduce] reduced overrides first: the form CI runs;
// --set then overrides keys of every run, under each row's own set (the
// command clusteremu run names for a scenario run with --set). The
// collector runs less often meanwhile (batchGC).
func reproduceCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("reproduce", stdout, stderr)
	reduced := fs.Bool("reduced", false, "apply each scenario's [reproduce] reduced overrides (the CI form)")
	workers := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	workerList := workersFlag(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of every run to this file (go tool pprof reads it)")
	memProfile := fs.String("memprofile", "", "write a heap profile after the last run to this file (go tool pprof reads it)")
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key in every run, under each row's own set: key=value (repeatable)")
	positional, err := fs.parse(args)
	if err != nil {
		return exitCode(err)
	}
	switch {
	case len(positional) == 0:
		err = errors.New("usage: clusteremu reproduce [--reduced] [--set key=value] scenario.toml [scenario.toml]")
	case *workers < 1:
		err = fmt.Errorf("clusteremu: --parallel %d: must be ≥ 1", *workers)
	}
	// Every file is read before any runs: a typo in the last costs
	// nothing.
	var scs []*scenarios.Scenario
	for _, path := range positional {
		if err != nil {
			break
		}
		var sc *scenarios.Scenario
		if sc, err = reproduction(path, *reduced); err == nil {
			sc, err = applySets(sc, sets)
		}
		if err == nil {
			scs = append(scs, sc)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	pool, err := connectWorkers(*workerList)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	if pool != nil {
		defer pool.Close()
	}
	defer batchGC()()
	endProfile, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	defer func() {
		if err := endProfile(); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
		}
	}()
	runs, endWatch := watchedRunSet(stderr)
	defer endWatch()
	code := exitOK
	for _, sc := range scs {
		ok, err := reproduce(stdout, sc, *reduced, sweeper{parallel: *workers, pool: pool, runs: runs, stderr: stderr})
		if err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return exitFailed
		}
		if !ok {
			code = exitFailed
		}
		if runs.Stopped() {
			fmt.Fprintln(stderr, "clusteremu: interrupted: the rows above that ran are kept; runs cut short show as interrupted")
			return exitInterrupted
		}
	}
	return code
}

// comparesRuns reports whether an expectation needs a run other than the
// scenario's own, which `run` leaves to reproduce.
func comparesRuns(expect []scenarios.Expectation) bool {
	for _, e := range expect {
		if len(e.Set) > 0 || len(e.Baseline) > 0 {
			return true
		}
	}
	return false
}

// reproduction loads a paper reproduction, or a scenario whose
// expectations compare runs, in its reduced form if asked.
func reproduction(path string, reduced bool) (*scenarios.Scenario, error) {
	sc, err := scenarios.LoadFile(path)
	if err != nil {
		return nil, err
	}
	if len(sc.Expect) == 0 || sc.Reproduce.Source == "" && !comparesRuns(sc.Expect) {
		return nil, fmt.Errorf("%s: not a reproduction: reproduce needs [[expect]] blocks, and a [reproduce] table with its source or blocks that compare runs (set or baseline); clusteremu run checks a scenario's own expectations", path)
	}
	if !reduced {
		return sc, nil
	}
	return reducedForm(sc)
}

// reducedForm is a reproduction with its [reproduce] reduced overrides.
func reducedForm(sc *scenarios.Scenario) (*scenarios.Scenario, error) {
	name := sc.Name
	sc, err := applySets(sc, sc.Reproduce.Reduced)
	if err != nil {
		return nil, err
	}
	sc.Name = name + " (reduced)"
	return sc, nil
}

// reducedRows keeps of a reproduction's rows those its reduced form
// checks, as it checks them (rows): what explore --reduced checks.
func reducedRows(sc *scenarios.Scenario) *scenarios.Scenario {
	var kept []scenarios.Expectation
	for _, r := range rows(sc, true) {
		if !r.skip {
			kept = append(kept, r.Expectation)
		}
	}
	out := *sc
	out.Expect = kept
	return &out
}

// row is an expectation as a reproduction checks it: in the reduced
// form, as its reduced line says (scenarios.ReducedRow).
type row struct {
	scenarios.Expectation
	skip bool   // the reduced form skips it
	why  string // why the reduced form checks it otherwise
}

// rows are the scenario's expectations as the form checks them.
func rows(sc *scenarios.Scenario, reduced bool) []row {
	out := make([]row, len(sc.Expect))
	for i, e := range sc.Expect {
		out[i] = row{Expectation: e}
		if reduced && e.Reduced != nil {
			out[i].Expectation, out[i].skip = e.ReducedForm()
			out[i].why = e.Reduced.Why
		}
	}
	return out
}

// variantKey names the run of a list of overrides.
func variantKey(sets []string) string {
	if len(sets) == 0 {
		return "as written"
	}
	return strings.Join(sets, " ")
}

// reproduce runs a scenario's variants and prints its rows; it reports
// whether every expectation held, or the error of a sweep over workers
// that could not finish. In the reduced form a row may be skipped or
// checked otherwise, as it says.
func reproduce(w io.Writer, sc *scenarios.Scenario, reduced bool, sw sweeper) (bool, error) {
	checked := rows(sc, reduced)
	variants := map[string][]string{}
	for _, e := range checked {
		if e.skip {
			continue
		}
		variants[variantKey(e.Set)] = e.Set
		if e.Baseline != nil {
			variants[variantKey(e.Baseline)] = e.Baseline
		}
		if e.SavedFrom != nil {
			variants[variantKey(e.SavedFrom)] = e.SavedFrom
		}
	}
	keys := slices.Sorted(maps.Keys(variants))
	seeds := sc.Reproduce.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{sc.Config.Run.Seed} // the scenario's own seeds, once
	}
	// Every variant under every seed, seed-major: the variants of one
	// seed share one workload and, under a shared reference scheduler,
	// their reference runs.
	variant := func(i int) (*scenarios.Scenario, error) {
		seeded, err := sc, error(nil)
		if len(sc.Reproduce.Seeds) > 0 {
			seeded, err = sc.WithSeed(seeds[i/len(keys)])
		}
		if err != nil {
			return nil, err
		}
		return applySets(seeded, variants[keys[i%len(keys)]])
	}
	sums, runErrs, err := sw.summaries(unitReproduceVariant, len(keys)*len(seeds), variant)
	if err != nil {
		return false, err
	}
	summaries := make(map[string]cluster.Summary, len(keys))
	errs := make(map[string]error, len(keys))
	for v, k := range keys {
		var each []cluster.Summary
		for s := range seeds {
			if err := runErrs[s*len(keys)+v]; err != nil && errs[k] == nil {
				errs[k] = err
			}
			each = append(each, sums[s*len(keys)+v])
		}
		if errs[k] == nil {
			summaries[k] = meanSummary(each)
		}
	}

	// The whole name: the file and any --set of the command.
	source := sc.Reproduce.Source
	if source == "" {
		source = "its [[expect]] blocks"
	}
	fmt.Fprintf(w, "%s: %s\n", sc.Name, source)
	switch {
	case len(sc.Reproduce.Seeds) == 1:
		fmt.Fprintf(w, "  (seed %d)\n", seeds[0])
	case len(sc.Reproduce.Seeds) > 1:
		fmt.Fprintf(w, "  (each figure the mean over seeds %s)\n", joinSeeds(seeds))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  run\tmetric\tpaper\temulator\texpected\t")
	ok := true
	var notes []string // why the reduced form checks rows otherwise
	var known []string // why rows are known to fail, and those that now hold
	for _, e := range checked {
		run := variantKey(e.Set)
		label := run
		if e.Run != "" {
			label = e.Run
		}
		metric := e.Metric
		switch {
		case e.SavedFrom != nil:
			metric += " savings ratio"
		case e.Baseline != nil:
			metric += " ratio"
		}
		if e.skip {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t-\t%s %v%s\tskipped*\n", label, metric, e.Paper, e.Op, e.Value, tolerance(e.Expectation))
			notes = append(notes, fmt.Sprintf("%s, %s: %s", label, metric, e.why))
			continue
		}
		measured, err := math.NaN(), errs[run]
		switch {
		case err != nil:
		case e.SavedFrom != nil:
			if err = cmp.Or(errs[variantKey(e.Baseline)], errs[variantKey(e.SavedFrom)]); err == nil {
				measured, err = e.CheckSavings(summaries[run], summaries[variantKey(e.Baseline)], summaries[variantKey(e.SavedFrom)])
			}
		case e.Baseline != nil:
			if err = errs[variantKey(e.Baseline)]; err == nil {
				measured, err = e.CheckRatio(summaries[run], summaries[variantKey(e.Baseline)])
			}
		default:
			if got, has := summaries[run][e.Metric]; has {
				measured = got
			}
			err = e.Check(summaries[run])
		}
		verdict := "pass"
		switch {
		case errors.Is(err, cluster.ErrInterrupted):
			verdict, ok = "interrupted", false
		case err != nil && e.Known != "" && errs[run] == nil:
			verdict = "FAIL (known)"
			known = append(known, fmt.Sprintf("known failing, %s, %s: %s", label, metric, e.Known))
		case err != nil:
			verdict, ok = "FAIL", false
		case e.Known != "":
			verdict = "pass (was known failing)"
			known = append(known, fmt.Sprintf("was known failing and now holds, %s, %s: drop its known (%s)", label, metric, e.Known))
		}
		if e.why != "" {
			verdict += "*"
			notes = append(notes, fmt.Sprintf("%s, %s: %s", label, metric, e.why))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.4g\t%s %v%s\t%s\n", label, metric, e.Paper, measured, e.Op, e.Value, tolerance(e.Expectation), verdict)
		if err != nil && errs[run] != nil {
			fmt.Fprintf(tw, "  \t%v\t\t\t\t\n", errs[run])
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintf(w, "  * reduced form, %s\n", n)
	}
	for _, n := range known {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	return ok, nil
}

// meanSummary is the metrics every summary holds, each the mean of its
// values.
func meanSummary(each []cluster.Summary) cluster.Summary {
	if len(each) == 1 {
		return each[0]
	}
	out := cluster.Summary{}
	for _, name := range each[0].Names() {
		sum := 0.0
		for _, s := range each {
			v, ok := s[name]
			if !ok {
				sum = math.NaN()
				break
			}
			sum += v
		}
		if !math.IsNaN(sum) {
			out[name] = sum / float64(len(each))
		}
	}
	return out
}

func joinSeeds(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}

func tolerance(e scenarios.Expectation) string {
	if e.Op != "~" {
		return ""
	}
	return fmt.Sprintf(" ± %g", e.Tolerance)
}
