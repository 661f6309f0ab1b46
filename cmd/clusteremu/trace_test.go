package main

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceEvents reads the events of a run directory's trace.json.
func traceEvents(t *testing.T, dir string) []checkedEvent {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	var doc struct {
		TraceEvents []checkedEvent `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	return doc.TraceEvents
}

// checkedEvent is what the trace checks read of an event; pointers tell a
// missing field from a zero.
type checkedEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   *string        `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	Args map[string]any `json:"args"`
}

// The trace of a run with maps, reduces and a cut-off is trace-event JSON
// whose slices are well formed, whose attempts never overlap on a slot
// and hold their phases, one after another, and which agrees with
// tasks.csv attempt for attempt.
func TestTraceIsWellFormedAndAgreesWithTasks(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	noExpect, _, _ := strings.Cut(smallScenario, "[[expect]]") // cut off, it would not meet them
	code := run([]string{"run", "--quiet", writeScenario(t, noExpect), "--until", "5m", "--set", "run.slowdown=false",
		"--set", "tasks.copy_compute=true", "--out", dir}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	raw, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	var doc struct {
		TraceEvents []checkedEvent `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	require.NotEmpty(t, doc.TraceEvents)

	type track struct{ pid, tid int }
	attempts := map[track][]checkedEvent{}
	phases := map[track][]checkedEvent{}
	kinds := map[string]int{}
	counterNames := map[string]bool{}
	for i, e := range doc.TraceEvents {
		require.NotNil(t, e.Ph, "event %d has ph", i)
		require.NotNil(t, e.Pid, "event %d has pid", i)
		require.NotNil(t, e.Tid, "event %d has tid", i)
		require.NotNil(t, e.Ts, "event %d has ts", i)
		kinds[*e.Ph]++
		if *e.Ph == "C" {
			counterNames[e.Name] = true
			v, ok := e.Args["value"].(float64)
			require.True(t, ok, "counter %d has a value", i)
			if strings.HasSuffix(e.Name, "utilisation") {
				assert.LessOrEqual(t, v, 1+1e-6, "%s at %v", e.Name, *e.Ts)
			}
		}
		if *e.Ph != "X" {
			continue
		}
		require.NotNil(t, e.Dur, "slice %d has dur", i)
		require.GreaterOrEqual(t, *e.Dur, 0.0, "slice %d", i)
		k := track{*e.Pid, *e.Tid}
		if e.Cat == "phase" {
			phases[k] = append(phases[k], e)
		} else {
			attempts[k] = append(attempts[k], e)
		}
	}
	for _, ph := range []string{"M", "X", "i", "C"} {
		assert.Positive(t, kinds[ph], "events of phase %q", ph)
	}
	for _, c := range []string{"busy map slots", "busy reduce slots", "tasks not yet started", "rack 0 uplink utilisation", "rack 1 downlink utilisation"} {
		assert.True(t, counterNames[c], "a %q counter track", c)
	}

	byName := map[string]checkedEvent{}
	for k, as := range attempts {
		slices.SortFunc(as, func(a, b checkedEvent) int { return compareFloat(*a.Ts, *b.Ts) })
		for i := 1; i < len(as); i++ {
			assert.LessOrEqual(t, *as[i-1].Ts+*as[i-1].Dur, *as[i].Ts+1e-3, "%v: %s overlaps %s", k, as[i-1].Name, as[i].Name)
		}
		ps := phases[k]
		slices.SortFunc(ps, func(a, b checkedEvent) int { return compareFloat(*a.Ts, *b.Ts) })
		for i, p := range ps {
			holder := slices.IndexFunc(as, func(a checkedEvent) bool {
				return *a.Ts <= *p.Ts+1e-3 && *p.Ts+*p.Dur <= *a.Ts+*a.Dur+1e-3
			})
			assert.GreaterOrEqual(t, holder, 0, "%v: phase %s at %v inside an attempt", k, p.Name, *p.Ts)
			if i > 0 {
				assert.LessOrEqual(t, *ps[i-1].Ts+*ps[i-1].Dur, *p.Ts+1e-3, "%v: phases overlap", k)
			}
		}
		for _, a := range as {
			byName[a.Name] = a
		}
	}

	tasks := readCSV(t, filepath.Join(dir, "tasks.csv"))[1:]
	traced := 0
	for _, row := range tasks {
		if row["start"] == "" {
			continue // lost with its node before it began
		}
		traced++
		name := row["attempt"]
		if row["outcome"] != "succeeded" {
			name = fmt.Sprintf("%s (%s)", name, row["outcome"])
		}
		e, ok := byName[name]
		require.True(t, ok, "tasks.csv's %s is in the trace", name)
		assert.InDelta(t, seconds(t, row["start"])*1e6, *e.Ts, 1, name)
		assert.InDelta(t, (seconds(t, row["end"])-seconds(t, row["start"]))*1e6, *e.Dur, 1, name)
	}
	assert.Equal(t, traced, len(byName), "one slice per attempt")
	names := map[string]bool{}
	for _, ps := range phases {
		for _, p := range ps {
			names[p.Name] = true
		}
	}
	for _, n := range []string{"read", "copy", "compute"} {
		assert.True(t, names[n], "some attempt has a %s phase", n)
	}
	cut := slices.ContainsFunc(tasks, func(row map[string]string) bool { return row["outcome"] == "cut-off" })
	assert.True(t, cut, "the run cut attempts off, and the trace shows them")
}

func seconds(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return f
}

func compareFloat(a, b float64) int { return cmp.Compare(a, b) }

// With --trace-flows every flow the run carried is an async slice, begun
// and ended once, from its start to its end.
func TestTraceFlowsShowsEveryFlow(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"run", "--quiet", writeScenario(t, smallScenario), "--set", "run.slowdown=false",
		"--trace-flows", "--out", dir}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	raw, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	var doc struct {
		TraceEvents []struct {
			Ph string  `json:"ph"`
			ID int     `json:"id"`
			Ts float64 `json:"ts"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	begins, ends := map[int]float64{}, map[int]float64{}
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "b":
			begins[e.ID] = e.Ts
		case "e":
			ends[e.ID] = e.Ts
		}
	}
	var summary struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	sj, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(sj, &summary))
	flows := int(summary.Metrics["flows.completed"] + summary.Metrics["flows.aborted"])
	require.Positive(t, flows)
	assert.Len(t, begins, flows, "a slice per flow")
	assert.Len(t, ends, flows)
	for id, b := range begins {
		assert.LessOrEqual(t, b, ends[id], "flow %d", id)
	}
}

var traceScreenshot = flag.String("trace-screenshot", "", "also save the viewer's screenshot of the default scenario's trace here (docs/trace.png)")

// speedscopePage is the page of the speedscope viewer make test installs
// (CLUSTEREMU_SPEEDSCOPE, or the newest under .bin).
func speedscopePage(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CLUSTEREMU_SPEEDSCOPE")
	if dir == "" {
		found, _ := filepath.Glob(filepath.Join("..", "..", ".bin", "speedscope-*"))
		slices.Sort(found)
		if len(found) > 0 {
			dir = found[len(found)-1]
		}
	}
	page, err := filepath.Abs(filepath.Join(dir, "node_modules", "speedscope", "dist", "release", "index.html"))
	require.NoError(t, err)
	_, err = os.Stat(page)
	require.NoError(t, err, "the trace is checked in speedscope, which make test installs (make viewer)")
	return page
}

// The default scenario's trace opens in an independent trace-event
// viewer (speedscope, in Debian's headless chromium): it reads a track
// per node slot, 40 nodes × 6 slots, and names the first.
func TestTraceOpensInAViewer(t *testing.T) {
	page := speedscopePage(t)
	browser, err := exec.LookPath("chromium")
	require.NoError(t, err, "the viewer runs in Debian's chromium: apt-get install -y chromium (make test does)")
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"run", "--quiet", "--set", "run.slowdown=false", "--out", dir}, &out, &errs), errs.String())
	raw, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	loader := filepath.Join(dir, "trace.js") // how speedscope's own command line hands it a file
	require.NoError(t, os.WriteFile(loader, []byte(fmt.Sprintf("speedscope.loadFileFromBase64(%q, %q)",
		"trace.json", base64.StdEncoding.EncodeToString(raw))), 0o644))
	url := "file://" + page + "#localProfilePath=" + loader
	flags := []string{"--headless", "--no-sandbox", "--hide-scrollbars", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
		"--window-size=1400,800", "--virtual-time-budget=3000"}
	dom, err := exec.Command(browser, append(flags, "--dump-dom", url)...).Output()
	require.NoError(t, err)
	assert.Contains(t, string(dom), "rack 0 (pid 1), node 0 map slot 0 (tid 1)")
	assert.Contains(t, string(dom), "(1/240)", "a track per slot: 40 nodes × (4 map + 2 reduce)")
	if *traceScreenshot != "" {
		_, err := exec.Command(browser, append(flags, "--screenshot="+*traceScreenshot, url)...).CombinedOutput()
		require.NoError(t, err)
	}
}

// The trace marks each fault as it takes effect and as it ends, on the
// track of the rack it hits.
func TestTraceShowsFaults(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	path := filepath.Join("..", "..", "scenarios", "examples", "faults.toml")
	require.Equal(t, 0, run([]string{"run", "--quiet", path, "--until", "6m", "--out", dir}, &out, &errs), errs.String())
	var faults []string
	for _, e := range traceEvents(t, dir) {
		if e.Cat == "fault" {
			faults = append(faults, fmt.Sprintf("%s at %gs on process %d", e.Name, *e.Ts/1e6, *e.Pid))
		}
	}
	assert.Equal(t, []string{
		"partition rack 2: switch down at 120s on process 3",
		"partition rack 2: switch up at 165s on process 3",
		"crash node 7: crashed at 180s on process 1",
		"crash node 7: restarted at 300s on process 1",
	}, faults)
}
