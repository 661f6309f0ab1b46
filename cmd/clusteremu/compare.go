package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/explore"
	"clusteremu/policies/sched"
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
	"jobs.slowdown.max", "jobs.slowdown.v95", "jobs.slowdown.bin_spread", "jobs.makespan", "jobs.throughput", "workload.load",
	"tasks.killed", "tasks.killed.slot_seconds",
	"tasks.locality.node", "tasks.locality.rack", "tasks.locality.remote",
	"slots.utilisation.map", "slots.utilisation.reduce", "flows.bytes",
}

// compareOptional are rows compare prints after those when a variant has
// them: the metrics of the features a run may turn on.
var compareOptional = []string{
	"cache.hit_ratio", "jobs.all_memory_local", "tasks.slot_seconds",
	"coordinator.busy", "coordinator.wait.mean", "coordinator.queue.peak", "coordinator.jobs_looked", "coordinator.skipped",
	"workflows.succeeded", "workflows.makespan.mean", "workflows.makespan.max",
}

// comparedMetrics are the rows of a comparison of these reports: then
// each kind of node's work and maps' mean time, when a variant's cluster
// has [[cluster.class]] entries.
func comparedMetrics(reports []*cluster.Report) []string {
	rows := slices.Clone(compareMetrics)
	for _, m := range compareOptional {
		if slices.ContainsFunc(reports, func(r *cluster.Report) bool { _, ok := r.Summary[m]; return ok }) {
			rows = append(rows, m)
		}
	}
	var hardware []string
	for _, r := range reports {
		for name := range r.Summary {
			if strings.HasPrefix(name, cluster.HardwareMetrics) && (strings.HasSuffix(name, ".work") || strings.HasSuffix(name, ".maps.seconds.mean")) &&
				!slices.Contains(hardware, name) {
				hardware = append(hardware, name)
			}
		}
	}
	slices.Sort(hardware)
	return append(rows, hardware...)
}

// compareCommand runs several scenarios, or one scenario with a key swept
// over values (--set key=v1,v2,...), on the same seeds and prints their
// metrics side by side, each with its ratio to the first.
func compareCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", stdout, stderr)
	var sets setFlags
	fs.Var(&sets, "set", "key=v1,v2,... sweeps a key over values (one --set sweeps; more fix other keys)")
	out := fs.String("out", "", "also write the comparison as comparison.csv and comparison.json into this directory")
	jobs := fs.Bool("jobs", false, "also print how far each variant moved each job's response time from the first variant's (p50, p99, max)")
	workerList := workersFlag(fs)
	positional, err := fs.parse(args)
	if err != nil {
		return exitCode(err)
	}
	variants, err := compareVariants(positional, sets)
	if err == nil && fs.set("out") && *workerList != "" {
		err = errors.New("compare --out with --workers: the report needs every run's records, which stay on the workers; compare without --workers to write it")
	}
	if err == nil && *jobs && *workerList != "" {
		err = errors.New("compare --jobs with --workers: the per-job errors need every run's jobs, which stay on the workers; compare without --workers to print them")
	}
	if err == nil && fs.set("out") {
		err = prepareDir(*out)
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
	runs, endWatch := watchedRunSet(stderr)
	defer endWatch()
	var reports []*cluster.Report
	slots := make([]slotLog, len(variants))
	next := func(i int) (*cluster.Report, error) {
		var slotsOf *slotLog
		if fs.set("out") {
			slotsOf = &slots[i]
		}
		return runConfig(compareConfig(variants[i], slotsOf), runs)
	}
	if pool != nil {
		sw := sweeper{pool: pool, runs: runs, stderr: stderr}
		sums, errs, err := sw.summaries(unitCompareVariant, len(variants), func(i int) (*scenarios.Scenario, error) { return variants[i], nil })
		pool.Close()
		if err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return exitFailed
		}
		next = func(i int) (*cluster.Report, error) {
			return &cluster.Report{Summary: sums[i], Records: &cluster.Records{}}, errs[i]
		}
	}
	code := exitOK
	for i, v := range variants {
		rep, err := next(i)
		var notBuilt *buildError
		if errors.As(err, &notBuilt) {
			fmt.Fprintln(stderr, "clusteremu:", notBuilt.err)
			return exitFailed
		}
		if errors.Is(err, cluster.ErrInterrupted) {
			fmt.Fprintf(stderr, "clusteremu: interrupted in %s: compared the %d variant(s) that finished\n", v.Name, len(reports))
			code = exitInterrupted
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "clusteremu: %s: %v\n", v.Name, err)
			return exitFailed
		}
		for _, a := range rep.Records.CutOff {
			slots[i].add(a)
		}
		reports = append(reports, rep)
	}
	if len(reports) == 0 {
		return code
	}
	variants = variants[:len(reports)]
	if fs.set("out") {
		if err := writeComparison(*out, variants, reports, slots); err != nil {
			fmt.Fprintln(stderr, "clusteremu:", err)
			return exitFailed
		}
	}
	printComparison(stdout, variants, reports)
	if *jobs {
		printJobErrors(stdout, variants, reports)
	}
	return code
}

// compareConfig is the configuration compare and reproduce run a variant
// in: without progress reports, which no output shows, and with the
// attempts' records going to slots for the report, or, when slots is nil,
// only tallied for the summary (as run tallies them without --out).
func compareConfig(v *scenarios.Scenario, slots *slotLog) cluster.Config {
	cfg := v.Config
	cfg.Run.OnProgress = func(actors.AttemptProgress) {}
	if slots != nil {
		cfg.Run.OnAttemptEnded = slots.add
	} else {
		cfg.Run.TallyAttempts = true
	}
	return cfg
}

// buildError is a variant's configuration that did not build, which
// compare reports apart from a run that failed.
type buildError struct{ err error }

func (e *buildError) Error() string { return e.err.Error() }

// runConfig builds and runs a configuration as one of runs; a
// configuration that does not build is a *buildError.
func runConfig(cfg cluster.Config, runs *explore.Runs) (*cluster.Report, error) {
	c, err := cluster.Build(cfg)
	if err != nil {
		return nil, &buildError{err}
	}
	return runs.Run(c)
}

// writeComparison writes the compared metrics as comparison.csv (a row
// per metric, a column per variant) and comparison.json (each variant's
// name and whole summary).
func writeComparison(dir string, variants []*scenarios.Scenario, reports []*cluster.Report, slots []slotLog) error {
	header := []string{"metric"}
	type variant struct {
		Name    string          `json:"name"`
		Metrics cluster.Summary `json:"metrics"`
	}
	all := make([]variant, len(variants))
	for i, v := range variants {
		header = append(header, shortName(v.Name))
		all[i] = variant{Name: v.Name, Metrics: reports[i].Summary}
	}
	rows := [][]string{header}
	for _, m := range comparedMetrics(reports) {
		row := []string{m}
		for _, rep := range reports {
			cell := ""
			if got, has := rep.Summary[m]; has {
				cell = strconv.FormatFloat(got, 'g', -1, 64)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	runs := make([]reportRun, len(variants))
	for i, v := range variants {
		runs[i] = reportRun{Name: shortName(v.Name), Cfg: v.Config, Rep: reports[i], Slots: &slots[i]}
	}
	return errors.Join(writeCSV(filepath.Join(dir, "comparison.csv"), rows),
		writeJSON(filepath.Join(dir, "comparison.json"), map[string]any{"variants": all}),
		writeAtomic(filepath.Join(dir, "report.html"), func(w io.Writer) error { return writeReport(w, "comparison", runs) }))
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
	for _, m := range comparedMetrics(reports) {
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
	printSizeBins(w, variants, reports)
}

// jobError is how far one variant moved each job's response time from
// the first variant's, over the jobs that succeeded in both.
type jobError struct {
	jobs                 int
	p50, p99, max        float64       // relative: |r − r₀| / r₀
	maxAbs               time.Duration // the largest |r − r₀|
	earlier, later       int           // jobs that ended earlier, later
	onlyFirst, onlyOther int           // jobs that succeeded in one only
}

// jobErrors compares b's jobs with a's, by job ID.
func jobErrors(a, b []cluster.JobResult) jobError {
	var e jobError
	ok := func(j *cluster.JobResult) bool { return j.Outcome == cluster.JobSucceeded }
	first := make(map[sched.JobID]*cluster.JobResult, len(a))
	for i := range a {
		if ok(&a[i]) {
			first[a[i].ID] = &a[i]
		}
	}
	var rel []float64
	for i := range b {
		j := &b[i]
		ref := first[j.ID]
		switch {
		case ref == nil && ok(j):
			e.onlyOther++
		case ref == nil || !ok(j):
		default:
			r0, r := ref.Finish-ref.Submit, j.Finish-j.Submit
			d := r - r0
			switch {
			case d < 0:
				e.earlier++
				d = -d
			case d > 0:
				e.later++
			}
			e.maxAbs = max(e.maxAbs, d)
			if r0 > 0 {
				rel = append(rel, float64(d)/float64(r0))
			}
			e.jobs++
		}
	}
	e.onlyFirst = len(first) - e.jobs
	if len(rel) > 0 {
		slices.Sort(rel)
		e.p50, e.p99, e.max = cluster.Percentile(rel, 50), cluster.Percentile(rel, 99), rel[len(rel)-1]
	}
	return e
}

// printJobErrors prints, for each variant after the first that ran the
// same jobs, how far it moved each job's response time from the first
// variant's: what an approximation (cluster.completion_window,
// cluster.solve_interval) costs against the exact run, job by job.
func printJobErrors(w io.Writer, variants []*scenarios.Scenario, reports []*cluster.Report) {
	if len(reports) < 2 || len(reports[0].Records.Jobs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nresponse time against %s, per job that succeeded in both (|r − r₀| / r₀):\n", shortName(variants[0].Name))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tjobs\tp50\tp99\tmax\tmax |r − r₀|\tearlier\tlater\tsucceeded in one only\t")
	for i := 1; i < len(reports); i++ {
		e := jobErrors(reports[0].Records.Jobs, reports[i].Records.Jobs)
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.4f\t%.4f\t%v\t%d\t%d\t%d\t\n", shortName(variants[i].Name), e.jobs,
			e.p50, e.p99, e.max, e.maxAbs, e.earlier, e.later, e.onlyFirst+e.onlyOther)
	}
	tw.Flush()
}

// printSizeBins prints, when the runs measured job sizes, the mean
// slowdown of each size bin that has jobs in any variant, with its jobs:
// Ghit & Epema's Fig. 12 as a table.
func printSizeBins(w io.Writer, variants []*scenarios.Scenario, reports []*cluster.Report) {
	var bins []int
	for i := range 41 {
		for _, rep := range reports {
			if _, ok := rep.Summary[cluster.SizeMetrics+cluster.SizeBinLabel(i)+".jobs.submitted"]; ok {
				bins = append(bins, i)
				break
			}
		}
	}
	if len(bins) == 0 {
		return
	}
	fmt.Fprintln(w, "\nmean slowdown by job size (the slot-seconds a job held alone), jobs in the bin in brackets:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "size\t")
	for _, v := range variants {
		fmt.Fprintf(tw, "%s\t", shortName(v.Name))
	}
	fmt.Fprintln(tw)
	for _, i := range bins {
		label := fmt.Sprintf("%s–%s s", cluster.SizeBinLabel(i), cluster.SizeBinLabel(i+1))
		if i == 0 {
			label = "below 10 s"
		}
		fmt.Fprintf(tw, "%s\t", label)
		prefix := cluster.SizeMetrics + cluster.SizeBinLabel(i) + ".jobs."
		for _, rep := range reports {
			n, has := rep.Summary[prefix+"submitted"]
			mean, hasMean := rep.Summary[prefix+"slowdown.mean"]
			switch {
			case !has:
				fmt.Fprint(tw, "-\t")
			case !hasMean:
				fmt.Fprintf(tw, "- (%.0f)\t", n)
			default:
				fmt.Fprintf(tw, "%.3g (%.0f)\t", mean, n)
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
