package main

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
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
	require.Len(t, titles, 6)
	assert.Equal(t, []string{"Runs", "By job size", "job response time", "slot utilisation", "rack uplink utilisation"}, titles[:5])
	assert.True(t, strings.HasPrefix(titles[5], "jobs of "), titles[5])
	assert.Len(t, svgs, 4, "response CDF, slots, uplinks, jobs (no slowdowns without reference runs)")
	assert.Empty(t, links, "no resource from outside the file")
	assert.GreaterOrEqual(t, pathPoints(svgs[0]), 12, "a point per succeeded job (12)")
	for i, s := range svgs[1:] {
		assert.Greater(t, pathPoints(s), 2, "plot %d has data", i+1)
	}
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
	assert.Equal(t, 5, strings.Count(string(dom), "<svg"), "the browser's DOM has the five plots")
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
