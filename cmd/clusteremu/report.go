package main

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
)

// report.html is a run (or a comparison's runs, overlaid) as one
// self-contained page: no script, no network, every plot an inline SVG
// drawn by gonum's plot package, which renders SVG in Go without a
// browser-side library: job response-time and slowdown CDFs, a table per
// job-size bin, slot and link utilisation over time, locality, and a job
// Gantt chart.

// reportRun is one run of the report: its report, and what it plots over
// time, gathered as the run went (Links nil when it did not sample them).
type reportRun struct {
	Name  string
	Cfg   cluster.Config
	Rep   *cluster.Report
	Slots *slotLog
	Links *linkLog
}

// The report's limits: points of a time series, jobs in the Gantt chart.
const (
	maxSeriesPoints = 1000
	maxGanttJobs    = 300
)

// sizeBins are the report's job sizes, by map count.
var sizeBins = []struct {
	name     string
	min, max int
}{{"1–2 maps", 1, 2}, {"3–10", 3, 10}, {"11–50", 11, 50}, {"51–200", 51, 200}, {"201+", 201, math.MaxInt}}

// runColours tell the runs apart in overlaid plots.
var runColours = []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {255, 127, 14, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}}

func runColour(i int) color.RGBA { return runColours[i%len(runColours)] }

// writeReport writes report.html for runs.
func writeReport(w io.Writer, title string, runs []reportRun) error {
	page := reportPage{Title: title}
	for i, r := range runs {
		page.Runs = append(page.Runs, runSummary(i, r))
	}
	page.Bins = binRows(runs)
	page.Hardware = hardwareRows(runs)
	add := func(name, note string, p *plot.Plot, err error) error {
		if err != nil {
			return fmt.Errorf("report: %s: %w", name, err)
		}
		svg, err := renderSVG(p)
		page.Plots = append(page.Plots, reportPlot{Name: name, SVG: svg, Note: note})
		return err
	}
	p, err := cdfPlot("Job response time (CDF)", "response time (s)", runs, responseTimes)
	if err := add("job response time", "", p, err); err != nil {
		return err
	}
	if slices.ContainsFunc(runs, func(r reportRun) bool { return len(slowdowns(r)) > 0 }) {
		p, err := cdfPlot("Job slowdown vs. alone (CDF)", "slowdown", runs, slowdowns)
		if err := add("job slowdown", "", p, err); err != nil {
			return err
		}
	}
	p, err = slotPlot(runs)
	if err := add("slot utilisation", "map slots solid, reduce slots dashed", p, err); err != nil {
		return err
	}
	p, sampled, err := linkPlot(runs)
	page.NoLinks = !sampled && err == nil
	if sampled || err != nil {
		if err := add("rack uplink utilisation", "mean over the uplinks solid, the busiest dashed; 1 s windows", p, err); err != nil {
			return err
		}
	}
	if p, w, err := localityPlot(runs); p != nil || err != nil {
		note := fmt.Sprintf("the share of the map attempts launched in each %v that read their input on their own node", w)
		if err := add("map locality", note, p, err); err != nil {
			return err
		}
	}
	if p, err := replicaPlot(runs); p != nil || err != nil {
		if err := add("replicas", "up as a copy lands, down as an epoch removes replicas", p, err); err != nil {
			return err
		}
	}
	if p, err := queuePlot(runs); p != nil || err != nil {
		if err := add("coordinator queue", "the most messages waiting for or in the coordinator's service (heartbeat.service_time) in each second", p, err); err != nil {
			return err
		}
	}
	for i, r := range runs {
		p, shown, err := workflowPlot(i, r)
		if p == nil && err == nil {
			continue
		}
		note := fmt.Sprintf("%d workflows; a job is submitted once those it waits for have ended", shown)
		if n := len(r.Rep.Records.Workflows); shown < n {
			note = fmt.Sprintf("the first %d of %d workflows; a job is submitted once those it waits for have ended", shown, n)
		}
		if err := add("workflows of "+r.Name, note, p, err); err != nil {
			return err
		}
	}
	for i, r := range runs {
		p, of, err := ganttPlot(i, r)
		note := ""
		if of > 0 {
			note = fmt.Sprintf("%d of %d jobs, evenly sampled", maxGanttJobs, of)
		}
		if err := add("jobs of "+r.Name, note, p, err); err != nil {
			return err
		}
	}
	return reportTemplate.Execute(w, &page)
}

// reportPage is what the template shows.
type reportPage struct {
	Title    string
	Runs     []runLine
	Bins     []binRow
	Hardware []hardwareRow
	Plots    []reportPlot
	NoLinks  bool
}

// hardwareRow is what one kind of node did in one run
// ([[cluster.class]]).
type hardwareRow struct {
	Kind, Run, Nodes, Slots, MapBusy, ReduceBusy, Work, Maps string
}

// hardwareRows are a row per kind of node and run, for the runs whose
// nodes differ.
func hardwareRows(runs []reportRun) []hardwareRow {
	var rows []hardwareRow
	for _, r := range runs {
		s := r.Rep.Summary
		for _, k := range r.Rep.Records.Hardware {
			p := cluster.HardwareMetrics + k.Name + "."
			maps := "–"
			if v, ok := s[p+"maps.seconds.mean"]; ok {
				maps = fmt.Sprintf("%.1f s", v)
			}
			rows = append(rows, hardwareRow{
				Kind: k.Name, Run: r.Name, Nodes: fmt.Sprint(k.Nodes), Slots: fmt.Sprintf("%d + %d", k.Slots[0], k.Slots[1]),
				MapBusy: fmt.Sprintf("%.1f%%", 100*s[p+"utilisation.map"]), ReduceBusy: fmt.Sprintf("%.1f%%", 100*s[p+"utilisation.reduce"]),
				Work: fmt.Sprintf("%.1f%%", 100*s[p+"work"]), Maps: maps,
			})
		}
	}
	return rows
}

type reportPlot struct {
	Name string
	SVG  template.HTML
	Note string
}

// runLine is a run's configuration and headline figures.
type runLine struct {
	Name, Colour, Cluster, Policy, Clock, End string
	Seed, ScheduleSeed                        uint64
	Jobs, Succeeded                           int
	Mean, P95, Slowdown                       string
	Node, Rack, Remote                        string
	MapBusy, ReduceBusy                       string
}

func runSummary(i int, r reportRun) runLine {
	c, s := &r.Cfg, r.Rep.Summary
	pct := func(k string) string { return fmt.Sprintf("%.1f%%", 100*s[k]) }
	secsOf := func(k string) string {
		if v, ok := s[k]; ok {
			return fmt.Sprintf("%.1f s", v)
		}
		return "–"
	}
	sd := "–"
	if v, ok := s["jobs.slowdown.mean"]; ok {
		sd = fmt.Sprintf("%.2f", v)
	}
	col := runColour(i)
	return runLine{
		Name: r.Name, Colour: fmt.Sprintf("#%02x%02x%02x", col.R, col.G, col.B),
		Cluster: c.Cluster.Describe(),
		Policy:  c.Scheduler.Name, Clock: clockName(*c), End: fmt.Sprintf("%s at %v", r.Rep.End.Reason, r.Rep.End.At.Round(time.Millisecond)),
		Seed: c.Run.Seed, ScheduleSeed: c.Run.ScheduleSeed,
		Jobs: len(r.Rep.Records.Jobs), Succeeded: int(s["jobs.succeeded"]),
		Mean: secsOf("jobs.response_time.mean"), P95: secsOf("jobs.response_time.p95"), Slowdown: sd,
		Node: pct("tasks.locality.node"), Rack: pct("tasks.locality.rack"), Remote: pct("tasks.locality.remote"),
		MapBusy: pct("slots.utilisation.map"), ReduceBusy: pct("slots.utilisation.reduce"),
	}
}

// binRow is one run's figures for one job-size bin.
type binRow struct {
	Run, Bin, Mean, P95, Slowdown string
	Jobs                          int
}

func binRows(runs []reportRun) []binRow {
	var rows []binRow
	for _, b := range sizeBins {
		for _, r := range runs {
			var resp, sd []float64
			for _, j := range r.Rep.Records.Jobs {
				if j.Outcome != cluster.JobSucceeded || j.Maps < b.min || j.Maps > b.max {
					continue
				}
				resp = append(resp, (j.Finish - j.Submit).Seconds())
				if v := j.Slowdown(); v > 0 {
					sd = append(sd, v)
				}
			}
			if len(resp) == 0 {
				continue
			}
			row := binRow{Run: r.Name, Bin: b.name, Jobs: len(resp), Mean: fmt.Sprintf("%.1f s", cluster.Mean(resp)),
				P95: fmt.Sprintf("%.1f s", cluster.Percentile(slices.Sorted(slices.Values(resp)), 95)), Slowdown: "–"}
			if len(sd) > 0 {
				row.Slowdown = fmt.Sprintf("%.2f", cluster.Mean(sd))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// responseTimes are a run's succeeded jobs' response times in seconds.
func responseTimes(r reportRun) []float64 {
	var out []float64
	for _, j := range r.Rep.Records.Jobs {
		if j.Outcome == cluster.JobSucceeded {
			out = append(out, (j.Finish - j.Submit).Seconds())
		}
	}
	return out
}

// slowdowns are a run's measured slowdowns.
func slowdowns(r reportRun) []float64 {
	var out []float64
	for _, j := range r.Rep.Records.Jobs {
		if v := j.Slowdown(); v > 0 {
			out = append(out, v)
		}
	}
	return out
}

// cdfPlot plots each run's empirical CDF of the values of, one step per
// value.
func cdfPlot(title, xLabel string, runs []reportRun, of func(reportRun) []float64) (*plot.Plot, error) {
	p := newPlot(title, xLabel, "fraction of jobs")
	p.Legend.Top = false // a CDF leaves its lower right empty; it ends at the top right
	p.Y.Min, p.Y.Max = 0, 1
	for i, r := range runs {
		vs := slices.Sorted(slices.Values(of(r)))
		if len(vs) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(vs))
		for k, v := range vs {
			pts = append(pts, plotter.XY{X: v, Y: float64(k+1) / float64(len(vs))})
		}
		if _, err := addLine(p, r.Name, i, thin(pts)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// slotPlot plots the share of map and reduce slots busy over time.
func slotPlot(runs []reportRun) (*plot.Plot, error) {
	p := newPlot("Slots busy", "emulated time (s)", "share of slots")
	for i, r := range runs {
		slots := r.Cfg.Slots()
		for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
			if slots[kind] == 0 {
				continue
			}
			pts := steps(levelSpans(r.Slots.busy[kind], float64(slots[kind]), r.Rep.End.At), false)
			l, err := addLine(p, fmt.Sprintf("%s: %v", r.Name, kind), i, pts)
			if err != nil {
				return nil, err
			}
			if kind == sched.Reduce {
				dash(l)
			}
		}
	}
	return p, nil
}

// span is a level y held from from to to (seconds).
type span struct{ from, to, y float64 }

// levelSpans is the step function of a level (the changes summed in time
// order, from 0 at 0) over scale, as spans from 0 to end.
func levelSpans(changes []levelChange, scale float64, end time.Duration) []span {
	var out []span
	from, y := 0.0, 0.0
	for _, l := range stepLevels(changes) {
		x := l.at.Seconds()
		if x > from {
			out = append(out, span{from, x, y})
		}
		from, y = x, float64(l.n)/scale
	}
	if e := end.Seconds(); e > from || len(out) == 0 {
		out = append(out, span{from, max(e, from), y})
	}
	return out
}

// steps draws contiguous spans as a step line. More spans than
// maxSeriesPoints/2 are merged into that many bins of equal length, each
// drawn at the time-weighted mean of the spans it holds or, with peak, at
// their highest level, so that a long run's line keeps its busy and idle
// stretches and its peaks (a point taken every so often would skip them).
func steps(spans []span, peak bool) plotter.XYs {
	if len(spans) == 0 {
		return nil
	}
	if len(spans) > maxSeriesPoints/2 {
		spans = binned(spans, maxSeriesPoints/2, peak)
	}
	pts := make(plotter.XYs, 0, 2*len(spans))
	for _, s := range spans {
		pts = append(pts, plotter.XY{X: s.from, Y: s.y}, plotter.XY{X: s.to, Y: s.y})
	}
	return pts
}

// binned merges contiguous spans, of levels never below 0, into n bins of
// equal length over theirs.
func binned(spans []span, n int, peak bool) []span {
	start, end := spans[0].from, spans[len(spans)-1].to
	width := (end - start) / float64(n)
	if width <= 0 {
		return spans[len(spans)-1:]
	}
	out := make([]span, n)
	for b := range out {
		out[b] = span{start + float64(b)*width, start + float64(b+1)*width, 0}
	}
	out[n-1].to = end
	for _, s := range spans {
		first := max(0, min(n-1, int((s.from-start)/width))-1) // a bin early, against rounding
		for b := first; b < n && out[b].from < s.to; b++ {
			overlap := min(s.to, out[b].to) - max(s.from, out[b].from)
			switch {
			case overlap <= 0 && s.to > s.from:
				continue // only touches the bin
			case peak:
				out[b].y = max(out[b].y, s.y)
			default:
				out[b].y += s.y * overlap / (out[b].to - out[b].from)
			}
		}
	}
	return out
}

// linkPlot plots the mean and the highest utilisation of the rack
// uplinks over time, when the run sampled its links.
func linkPlot(runs []reportRun) (*plot.Plot, bool, error) {
	p := newPlot("Rack uplinks", "emulated time (s)", "utilisation")
	sampled := false
	for i, r := range runs {
		links := r.Links
		if links == nil {
			continue
		}
		var ups []int // of the rack links
		for k, l := range links.racks {
			if strings.HasSuffix(links.names[l], "uplink") {
				ups = append(ups, k)
			}
		}
		if len(ups) == 0 || len(links.windows) == 0 {
			continue
		}
		sampled = true
		means := make([]span, len(links.windows))
		tops := make([]span, len(links.windows))
		for w, s := range links.windows {
			sum, top := 0.0, 0.0
			for _, k := range ups {
				u := links.rackUse(k, w)
				sum, top = sum+u, max(top, u)
			}
			means[w] = span{s.from.Seconds(), s.to.Seconds(), sum / float64(len(ups))}
			tops[w] = span{s.from.Seconds(), s.to.Seconds(), top}
		}
		if _, err := addLine(p, r.Name+": mean", i, steps(means, false)); err != nil {
			return nil, true, err
		}
		l, err := addLine(p, r.Name+": busiest", i, steps(tops, true))
		if err != nil {
			return nil, true, err
		}
		dash(l)
	}
	return p, sampled, nil
}

// localityPlot plots each run's share of node-local map launches, window
// by window (about a hundredth of the longest run, at least a second), or
// returns nil when no run launched a map; windows without a launch have
// no point.
func localityPlot(runs []reportRun) (*plot.Plot, time.Duration, error) {
	var end time.Duration
	some := false
	for _, r := range runs {
		end = max(end, r.Rep.End.At)
		some = some || len(r.Slots.maps) > 0
	}
	if !some {
		return nil, 0, nil
	}
	w := roundWindow(end / 100)
	p := newPlot("Map locality", "emulated time (s)", "node-local share")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, end.Seconds(), 0, 1
	for i, r := range runs {
		pts := localitySeries(r.Slots.maps, w)
		if len(pts) == 0 {
			continue
		}
		if _, err := addLine(p, r.Name, i, thin(pts)); err != nil {
			return nil, w, err
		}
	}
	return p, w, nil
}

// roundWindow is the shortest of 1, 2, 5, 10, 15 and 30 s, 1, 2, 5, 10,
// 15 and 30 min and whole hours that is at least d.
func roundWindow(d time.Duration) time.Duration {
	for _, w := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
		30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute} {
		if w >= d {
			return w
		}
	}
	return (d + time.Hour - 1).Truncate(time.Hour)
}

// localitySeries is the node-local share of the map launches in each
// window w, at the window's middle; a window without a launch has no
// point.
func localitySeries(launches []mapLaunch, w time.Duration) plotter.XYs {
	type tally struct{ local, all int }
	by := map[int64]*tally{}
	for _, m := range launches {
		k := int64(m.at / w)
		if by[k] == nil {
			by[k] = &tally{}
		}
		by[k].all++
		if m.local {
			by[k].local++
		}
	}
	var pts plotter.XYs
	for _, k := range slices.Sorted(maps.Keys(by)) {
		pts = append(pts, plotter.XY{X: (time.Duration(k)*w + w/2).Seconds(), Y: float64(by[k].local) / float64(by[k].all)})
	}
	return pts
}

// replicaPlot plots the replicas Scarlett added that are still live, over
// time, for the runs with [replication], or returns nil when none has it.
func replicaPlot(runs []reportRun) (*plot.Plot, error) {
	if !slices.ContainsFunc(runs, func(r reportRun) bool { return r.Rep.Records.Replication != nil }) {
		return nil, nil
	}
	p := newPlot("Replicas added by Scarlett, live", "emulated time (s)", "replicas")
	for i, r := range runs {
		repl := r.Rep.Records.Replication
		if repl == nil {
			continue
		}
		if _, err := addLine(p, r.Name, i, steps(replicaSeries(repl.Changes, r.Rep.End.At), false)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// queuePlot plots the coordinator's queue over time for the runs with a
// service time, or returns nil when none has one.
func queuePlot(runs []reportRun) (*plot.Plot, error) {
	if !slices.ContainsFunc(runs, func(r reportRun) bool { return r.Rep.Records.CoordinatorQueue != nil }) {
		return nil, nil
	}
	p := newPlot("Coordinator queue", "emulated time (s)", "messages")
	p.Y.Min = 0
	for i, r := range runs {
		q := r.Rep.Records.CoordinatorQueue
		if q == nil {
			continue
		}
		spans := make([]span, len(q))
		for k, s := range q {
			spans[k] = span{s.From.Seconds(), s.To.Seconds(), float64(s.Most)}
		}
		if _, err := addLine(p, r.Name, i, steps(spans, true)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// replicaSeries is the step function of the replicas added and not yet
// removed, from 0 to end.
func replicaSeries(changes []actors.ReplicaChange, end time.Duration) []span {
	return levelSpans(replicaSteps(changes), 1, end)
}

// replicaSteps are the replicas' changes as steps of a level: +1 for each
// added, −1 for each removed.
func replicaSteps(changes []actors.ReplicaChange) []levelChange {
	steps := make([]levelChange, len(changes))
	for k, c := range changes {
		steps[k] = levelChange{c.At, -1}
		if c.Added {
			steps[k].delta = 1
		}
	}
	return steps
}

// ganttPlot draws a bar per job from submission to end, darker from its
// first launch; with more than maxGanttJobs jobs it samples them evenly
// and returns how many there were.
func ganttPlot(i int, r reportRun) (*plot.Plot, int, error) {
	jobs := r.Rep.Records.Jobs
	sampled := 0
	if len(jobs) > maxGanttJobs {
		sampled = len(jobs)
		pick := make([]cluster.JobResult, 0, maxGanttJobs)
		for k := range maxGanttJobs {
			pick = append(pick, jobs[k*len(jobs)/maxGanttJobs])
		}
		jobs = pick
	}
	p := newPlot("Jobs: waiting (light) and running (dark)", "emulated time (s)", "job")
	return p, sampled, ganttLines(p, jobs, runColour(i))
}

// ganttLines draws each job's row, the k-th at k + 1: from its submission
// to its start light, then to its end dark.
func ganttLines(p *plot.Plot, jobs []cluster.JobResult, col color.RGBA) error {
	light := color.RGBA{col.R, col.G, col.B, 90}
	for k, j := range jobs {
		y := float64(k + 1)
		start := j.Finish
		if j.Start >= 0 {
			start = j.Start
		}
		for _, seg := range []struct {
			from, to time.Duration
			c        color.RGBA
		}{{j.Submit, start, light}, {start, j.Finish, col}} {
			if seg.to <= seg.from {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: seg.from.Seconds(), Y: y}, {X: seg.to.Seconds(), Y: y}})
			if err != nil {
				return err
			}
			l.Color, l.Width = seg.c, vg.Points(2)
			p.Add(l)
		}
	}
	return nil
}

// workflowPlot is a run's workflows (Records.Workflows), one after
// another in the order of their first jobs, each job on a row named for
// it, as many whole workflows as maxGanttJobs rows hold; nil when the run
// has none. shown is how many workflows it shows.
func workflowPlot(i int, r reportRun) (p *plot.Plot, shown int, err error) {
	rec := r.Rep.Records
	if len(rec.Workflows) == 0 {
		return nil, 0, nil
	}
	byID := make(map[sched.JobID]cluster.JobResult, len(rec.Jobs))
	for _, j := range rec.Jobs {
		byID[j.ID] = j
	}
	var jobs []cluster.JobResult
	var ticks []plot.Tick
	for _, w := range rec.Workflows {
		if len(jobs)+len(w) > maxGanttJobs && shown > 0 {
			break
		}
		shown++
		for _, id := range w {
			if j, ok := byID[id]; ok { // not submitted when the run ended: no row
				jobs = append(jobs, j)
				ticks = append(ticks, plot.Tick{Value: float64(len(jobs)), Label: j.Name})
			}
		}
	}
	// The first job on top, as a Gantt chart reads.
	slices.Reverse(jobs)
	for k := range ticks {
		ticks[k].Value = float64(len(jobs)) + 1 - ticks[k].Value
	}
	p = newPlot("Workflows: each job waiting (light) and running (dark)", "emulated time (s)", "")
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return p, shown, ganttLines(p, jobs, runColour(i))
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// addLine adds a run's series in the run's colour, named in the legend.
func addLine(p *plot.Plot, name string, i int, pts plotter.XYs) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = runColour(i), vg.Points(1.5)
	p.Add(l)
	p.Legend.Add(name, l)
	return l, nil
}

// dash dashes a run's second series.
func dash(l *plotter.Line) { l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)} }

// thin keeps at most maxSeriesPoints of a series, evenly, with its ends.
func thin(pts plotter.XYs) plotter.XYs {
	if len(pts) <= maxSeriesPoints {
		return pts
	}
	out := make(plotter.XYs, 0, maxSeriesPoints)
	for k := range maxSeriesPoints - 1 {
		out = append(out, pts[k*len(pts)/(maxSeriesPoints-1)])
	}
	return append(out, pts[len(pts)-1])
}

// renderSVG draws a plot as an SVG element.
func renderSVG(p *plot.Plot) (template.HTML, error) {
	c := vgsvg.New(9*vg.Inch, 4*vg.Inch)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	svg := b.Bytes()
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:] // the element, without the XML prolog an HTML page does not take
	}
	return template.HTML(svg), nil
}

var reportTemplate = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}: clusteremu report</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
.swatch{display:inline-block;width:.9em;height:.9em;margin-right:.4em;vertical-align:middle}
figure{margin:1em 0}figcaption{color:#555;font-size:.9em}svg{max-width:100%;height:auto}
</style></head><body>
<h1>{{.Title}}</h1>
<h2>Runs</h2>
<table><tr><th>run</th><th>cluster</th><th>policy</th><th>clock</th><th>seeds</th><th>ended</th></tr>
{{range .Runs}}<tr><td><span class="swatch" style="background:{{.Colour}}"></span>{{.Name}}</td><td>{{.Cluster}}</td><td>{{.Policy}}</td><td>{{.Clock}}</td><td>{{.Seed}} / {{.ScheduleSeed}}</td><td>{{.End}}</td></tr>
{{end}}</table>
<table><tr><th>run</th><th>jobs</th><th>succeeded</th><th>mean response</th><th>p95 response</th><th>mean slowdown</th><th>node-local</th><th>rack-local</th><th>remote</th><th>map slots busy</th><th>reduce slots busy</th></tr>
{{range .Runs}}<tr><td>{{.Name}}</td><td>{{.Jobs}}</td><td>{{.Succeeded}}</td><td>{{.Mean}}</td><td>{{.P95}}</td><td>{{.Slowdown}}</td><td>{{.Node}}</td><td>{{.Rack}}</td><td>{{.Remote}}</td><td>{{.MapBusy}}</td><td>{{.ReduceBusy}}</td></tr>
{{end}}</table>
<h2>By job size</h2>
<table><tr><th>maps</th><th>run</th><th>jobs</th><th>mean response</th><th>p95 response</th><th>mean slowdown</th></tr>
{{range .Bins}}<tr><td>{{.Bin}}</td><td>{{.Run}}</td><td>{{.Jobs}}</td><td>{{.Mean}}</td><td>{{.P95}}</td><td>{{.Slowdown}}</td></tr>
{{end}}</table>
{{if .Hardware}}<h2>By kind of node</h2>
<table><tr><th>nodes</th><th>run</th><th>count</th><th>map + reduce slots</th><th>map slots busy</th><th>reduce slots busy</th><th>share of the slot-seconds</th><th>mean map</th></tr>
{{range .Hardware}}<tr><td>{{.Kind}}</td><td>{{.Run}}</td><td>{{.Nodes}}</td><td>{{.Slots}}</td><td>{{.MapBusy}}</td><td>{{.ReduceBusy}}</td><td>{{.Work}}</td><td>{{.Maps}}</td></tr>
{{end}}</table>
{{end}}{{range .Plots}}<h2>{{.Name}}</h2><figure class="plot">{{.SVG}}{{if .Note}}<figcaption>{{.Note}}</figcaption>{{end}}</figure>
{{end}}{{if .NoLinks}}<h2>rack uplink utilisation</h2><p>Not sampled in this run: runs with --out sample their links.</p>{{end}}
</body></html>
`))
