package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scaled run with --listen answers /metrics and its status page while
// it goes, and stops listening when it ends.
func TestLiveViewAnswersDuringAScaledRun(t *testing.T) {
	scenario := writeScenario(t, smallScenario)
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	var out bytes.Buffer
	go func() {
		defer pw.Close()
		code <- run([]string{"run", "--quiet", scenario, "--until", "20s", "--set", "run.slowdown=false",
			"--set", "run.clock=scaled", "--set", "run.speedup=10", "--listen", "127.0.0.1:0"}, &out, pw)
	}()
	lines := bufio.NewReader(pr)
	first, err := lines.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(first, "live      http://127.0.0.1:"), first)
	base := strings.Fields(first)[1]

	metrics := get(t, base+"metrics")
	for _, m := range []string{"clusteremu_emulated_seconds", `clusteremu_jobs{state="submitted"}`, `clusteremu_slots{kind="map"} 24`} {
		assert.Contains(t, metrics, m)
	}
	assert.Contains(t, get(t, base), "<h1>clusteremu</h1>")

	rest, _ := io.ReadAll(lines)
	assert.Equal(t, 1, <-code, string(rest)) // cut off at 20 s, so the expectation fails
	_, err = http.Get(base + "metrics")
	assert.Error(t, err, "the view stops with the run")
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// Watching a run changes none of its figures.
func TestLiveViewChangesNothing(t *testing.T) {
	scenario := writeScenario(t, smallScenario)
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, dir := range dirs {
		args := []string{"run", "--quiet", scenario, "--set", "run.slowdown=false", "--out", dir}
		if i == 1 {
			args = append(args, "--listen", "127.0.0.1:0")
		}
		var out, errs bytes.Buffer
		require.Equal(t, 0, run(args, &out, &errs), errs.String())
	}
	assertSameFiles(t, dirs[0], dirs[1], "summary.json", "jobs.csv", "tasks.csv", "trace.json")
}

// A busy port or an address others could reach fails before the run.
func TestLiveViewRefusesBeforeTheRun(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	for addr, want := range map[string]string{
		busy.Addr().String(): "address already in use",
		"0.0.0.0:9090":       "loopback address only",
		"9090":               "want host:port",
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, exitUsage, run([]string{"run", "--listen", addr}, &out, &errs), addr)
		assert.Contains(t, errs.String(), want, addr)
		assert.Empty(t, out.String(), "no run for %s", addr)
	}
}
