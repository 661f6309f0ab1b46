package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"gonum.org/v1/plot/plotter"

	"clusteremu/actors"
)

var screenshot = flag.String("screenshot", "", "also save the browser's screenshot of the default scenario's report here (docs/report.png)")

// reportOf parses a report and returns its plots' SVG elements, its
// section titles and every resource it links to.
func reportOf(t *testing.T, path string) (svgs []*html.Node, titles, links []string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	doc, err := html.Parse(f)
	require.NoError(t, err)
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "svg":
				svgs = append(svgs, n)
			case "h2":
				titles = append(titles, n.FirstChild.Data)
			case "script":
				t.Errorf("the report has a script")
			}
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" || (a.Key == "xlink:href" && !strings.HasPrefix(a.Val, "#")) {
					links = append(links, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return svgs, titles, links
}

// pathPoints counts the points of an SVG element's longest path.
func pathPoints(n *html.Node) int {
	most := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Key == "d" {
				most = max(most, strings.Count(a.Val, "L")+strings.Count(a.Val, "M"))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return most
}

// A run's report is one self-contained page with every section, and its
// response-time CDF has a point per succeeded job.
func TestReportHasEveryPlotAndNoOutsideResource(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, smallScenario), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	svgs, titles, links := reportOf(t, filepath.Join(dir, "report.html"))
	require.Len(t, titles, 7)
	assert.Equal(t, []string{"Runs", "By job size", "job response time", "slot utilisation", "rack uplink utilisation", "map locality"}, titles[:6])
	assert.True(t, strings.HasPrefix(titles[6], "jobs of "), titles[6])
	assert.Len(t, svgs, 5, "response CDF, slots, uplinks, locality, jobs (no slowdowns without reference runs, no replicas without [replication])")
	assert.Empty(t, links, "no resource from outside the file")
	assert.GreaterOrEqual(t, pathPoints(svgs[0]), 12, "a point per succeeded job (12)")
	for i, s := range svgs[1:] {
		assert.Greater(t, pathPoints(s), 2, "plot %d has data", i+1)
	}
}

// A cluster of two kinds of node adds a table of them after the sizes:
// a row for [cluster]'s nodes and one for the class.
func TestReportTablesEachKindOfNode(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	classed := smallScenario + "\n[[cluster.class]]\nname = \"old\"\nracks = [1]\nspeed = 0.5\nmap_slots = 1\n"
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, classed), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	_, titles, _ := reportOf(t, filepath.Join(dir, "report.html"))
	assert.Equal(t, []string{"Runs", "By job size", "By kind of node", "job response time"}, titles[:4])
	text, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Regexp(t, `<td>cluster</td><td>[^<]+</td><td>3</td><td>12 &#43; 6</td>`, string(text))
	assert.Regexp(t, `<td>old</td><td>[^<]+</td><td>3</td><td>3 &#43; 6</td>`, string(text))
}

// compare's report overlays every variant.
func TestCompareReportOverlaysTheVariants(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"compare", writeScenario(t, smallScenario), "--set", "run.slowdown=false",
		"--set", "scheduler.name=fifo,fair", "--out", dir}, &out, &errs), errs.String())
	raw, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	for _, v := range []string{"scheduler.name=fifo", "scheduler.name=fair"} {
		assert.Contains(t, string(raw), v)
	}
	_, titles, _ := reportOf(t, filepath.Join(dir, "report.html"))
	assert.Contains(t, titles, "jobs of scheduler.name=fair")
}

// The default scenario's report, opened in a real headless browser
// (Debian's chromium; .ci/run installs it), renders its plots: the DOM the
// browser built still has them, and its screenshot is a page of the
// expected size with more than one colour.
func TestReportInABrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	require.NoError(t, err, "the report is checked in Debian's chromium: apt-get install -y chromium (.ci/run does)")
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", "--out", dir}, &out, &errs), errs.String())
	page := "file://" + filepath.Join(dir, "report.html")
	shot := filepath.Join(dir, "report.png")
	flags := []string{"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--window-size=1280,3200"}
	dom, err := exec.Command(browser, append(flags, "--dump-dom", page)...).Output()
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(dom), "<svg"), "the browser's DOM has the six plots")
	assert.NotContains(t, string(dom), "<script")
	_, err = exec.Command(browser, append(flags, "--screenshot="+shot, page)...).CombinedOutput()
	require.NoError(t, err)
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, 1280, img.Bounds().Dx())
	colours := map[uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|b>>8] = true
		}
	}
	assert.Greater(t, len(colours), 20, "the page is drawn, not blank")
	if *screenshot != "" {
		raw, err := os.ReadFile(shot)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(*screenshot, raw, 0o644))
	}
}

// The map locality plot is the node-local share of each window's map
// launches, at the window's middle, with no point for a window without
// one; the window is a round duration of about a hundredth of the run.
func TestLocalitySeries(t *testing.T) {
	s := time.Second
	got := localitySeries([]mapLaunch{{1 * s, true}, {3 * s, false}, {9 * s, true}, {25 * s, true}, {29 * s, true}, {27 * s, false}, {28 * s, false}}, 10*s)
	assert.Equal(t, plotter.XYs{{X: 5, Y: 2.0 / 3}, {X: 25, Y: 0.5}}, got)
	for d, want := range map[time.Duration]time.Duration{0: s, 900 * time.Millisecond: s, 3 * s: 5 * s, 503 * s: 10 * time.Minute,
		40 * time.Minute: time.Hour, 90 * time.Minute: 2 * time.Hour} {
		assert.Equal(t, want, roundWindow(d), "%v", d)
	}
}

// The replicas plot steps up as a copy lands and down as an epoch removes
// one, several at an instant in one step, and holds to the run's end.
func TestReplicaSeries(t *testing.T) {
	s := time.Second
	got := replicaSeries([]actors.ReplicaChange{{At: 10 * s, Added: true}, {At: 12 * s, Added: true}, {At: 12 * s, Added: true},
		{At: 20 * s}, {At: 20 * s}}, 30*s)
	assert.Equal(t, []span{{0, 10, 0}, {10, 12, 1}, {12, 20, 3}, {20, 30, 1}}, got)
	assert.Equal(t, plotter.XYs{{X: 0, Y: 0}, {X: 10, Y: 0}, {X: 10, Y: 1}, {X: 12, Y: 1}, {X: 12, Y: 3}, {X: 20, Y: 3}, {X: 20, Y: 1}, {X: 30, Y: 1}},
		steps(got, false))
}

// A long series is drawn in at most maxSeriesPoints points, each bin at the
// time-weighted mean of what it holds, so the line's area is the level's;
// with peak, at its highest level, so that a one-second spike in an hour
// still shows, which a point taken every so often would skip.
func TestStepsBinLongSeries(t *testing.T) {
	var spans []span
	area := 0.0
	for k := range 3600 {
		y := float64(k%7) / 10
		if k == 1801 {
			y = 1 // the spike
		}
		spans = append(spans, span{float64(k), float64(k + 1), y})
		area += y
	}
	for _, peak := range []bool{false, true} {
		pts := steps(spans, peak)
		require.LessOrEqual(t, len(pts), maxSeriesPoints)
		assert.Equal(t, 0.0, pts[0].X)
		assert.Equal(t, 3600.0, pts[len(pts)-1].X)
		drawn, top := 0.0, 0.0
		for k := 0; k+1 < len(pts); k += 2 {
			assert.Equal(t, pts[k].Y, pts[k+1].Y, "a bin is flat")
			if k+2 < len(pts) {
				assert.Equal(t, pts[k+1].X, pts[k+2].X, "bins are contiguous")
			}
			drawn += pts[k].Y * (pts[k+1].X - pts[k].X)
			top = max(top, pts[k].Y)
		}
		if peak {
			assert.Equal(t, 1.0, top, "the spike")
		} else {
			assert.InDelta(t, area, drawn, 1e-6, "the area")
			assert.Less(t, top, 0.7, "a mean over a bin of 7.2 s")
		}
	}
	assert.Equal(t, plotter.XYs{{X: 5, Y: 2}, {X: 7, Y: 2}}, steps([]span{{5, 7, 2}}, true))
	assert.Nil(t, steps(nil, false))
}

// The slots plot's level starts at 0 and holds its last value to the run's
// end; an instant's launches and ends make one step.
func TestLevelSpans(t *testing.T) {
	s := time.Second
	got := levelSpans([]levelChange{{2 * s, 1}, {2 * s, 1}, {5 * s, -1}, {5 * s, 1}, {6 * s, -2}}, 4, 10*s)
	assert.Equal(t, []span{{0, 2, 0}, {2, 5, 0.5}, {5, 6, 0.5}, {6, 10, 0}}, got)
	assert.Equal(t, []span{{0, 3, 0}}, levelSpans(nil, 4, 3*s))
}

// A run with [replication] has the replicas plot, drawn from the copies
// that landed, a counter track of them in its trace, which ends at the
// replicas added less those removed, and replicas.csv, a row for each.
func TestReplicasArePlottedTracedAndListed(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, replicatedScenario), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	svgs, titles, _ := reportOf(t, filepath.Join(dir, "report.html"))
	k := slices.Index(titles, "replicas")
	require.Positive(t, k, "titles %v", titles)
	assert.Greater(t, pathPoints(svgs[k-2]), 3, "the replicas' steps") // the two tables come first

	var values []float64
	for _, e := range traceEvents(t, dir) {
		if e.Name == "replicas added by Scarlett" {
			values = append(values, e.Args["value"].(float64))
		}
	}
	var summary struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &summary))
	require.NotEmpty(t, values)
	added, removed := summary.Metrics["replicas.added"], summary.Metrics["replicas.removed"]
	assert.Positive(t, removed)
	assert.Equal(t, added-removed, values[len(values)-1], "added %v, removed %v", added, removed)

	f, err := os.Open(filepath.Join(dir, "replicas.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"at", "file", "block", "node", "bytes", "change"}, rows[0])
	changes := map[string]float64{}
	last := 0.0
	for _, r := range rows[1:] {
		changes[r[5]]++
		at, err := strconv.ParseFloat(r[0], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, at, last, "in time order")
		last = at
		assert.True(t, strings.HasPrefix(r[1], "s0-file"), "a file of the stream: %s", r[1])
	}
	assert.Equal(t, map[string]float64{"added": added, "removed": removed}, changes)
}

// replicatedScenario has Scarlett's epochs every 2 minutes over jobs
// reading two files: replicas are added and removed.
const replicatedScenario = `
[cluster]
racks = 2
nodes_per_rack = 3

[replication]
learn = "2m"
epoch = "2m"
budget = 1
compression = "none"

[[workload.synthetic]]
jobs = 60
interarrival = "4s"
sizes = "pareto"
max_maps = 4
files = 2

[[expect]]
metric = "replicas.added"
op = ">"
value = 0
`

// A run whose coordinator has a service time has the coordinator queue
// plot and counter track, whose most in a second reaches the summary's
// peak; a run without one has neither.
func TestCoordinatorQueueIsPlottedAndTraced(t *testing.T) {
	for _, service := range []string{"60ms", "0s"} {
		dir := t.TempDir()
		var out, errs bytes.Buffer
		require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, smallScenario), "--set", "heartbeat.service_time=" + service, "--out", dir}, &out, &errs), errs.String())
		svgs, titles, _ := reportOf(t, filepath.Join(dir, "report.html"))
		k := slices.Index(titles, "coordinator queue")
		var most float64
		for _, e := range traceEvents(t, dir) {
			if e.Name == coordinatorQueueTrack {
				most = max(most, e.Args["value"].(float64))
			}
		}
		if service == "0s" {
			assert.Equal(t, -1, k, "titles %v", titles)
			assert.Zero(t, most)
			continue
		}
		require.Positive(t, k, "titles %v", titles)
		assert.Greater(t, pathPoints(svgs[k-2]), 3, "the queue's steps") // the two tables come first
		var summary struct {
			Metrics map[string]float64 `json:"metrics"`
		}
		raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &summary))
		assert.Positive(t, summary.Metrics["coordinator.queue.peak"])
		assert.Equal(t, summary.Metrics["coordinator.queue.peak"], most)
	}
}

// flowScenario is a workflow of two jobs, the second reading the first's
// output, beside a job of its own.
const flowScenario = `
[cluster]
racks = 1
nodes_per_rack = 4

[[workload.jobs]]
job = [
  { name = "extract", input_bytes = "256MiB", reduces = 2, shuffle_bytes = "64MiB", output_bytes = "128MiB" },
  { name = "load", reads = ["extract"], reduces = 1, shuffle_bytes = "1MiB", output_bytes = "1MiB" },
  { name = "alone", input_bytes = "128MiB" },
]
`

// A run with workflows plots them before the jobs: a row a job, named.
func TestReportPlotsTheWorkflows(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", writeScenario(t, flowScenario), "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	svgs, titles, _ := reportOf(t, filepath.Join(dir, "report.html"))
	k := slices.IndexFunc(titles, func(s string) bool { return strings.HasPrefix(s, "workflows of ") })
	require.Positive(t, k, "%v", titles)
	assert.True(t, strings.HasPrefix(titles[k+1], "jobs of "), "then the jobs")
	labels := svgTexts(svgs[k-2]) // the two tables have no plot
	assert.Contains(t, labels, "extract")
	assert.Contains(t, labels, "load")
	assert.NotContains(t, labels, "alone", "a job linked to none is in no workflow")
}

// svgTexts lists a plot's text, in document order.
func svgTexts(n *html.Node) []string {
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			out = append(out, strings.TrimSpace(n.Data))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}
