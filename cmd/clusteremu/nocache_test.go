package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
)

// defaultRun runs the default scenario without its reference runs, with
// the event log, and the overrides given; it returns the output directory.
func defaultRun(t *testing.T, set ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"run", "--quiet", "--set", "run.slowdown=false", "--events", "--out", dir}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(args, &out, &errs), errs.String())
	return dir
}

// summaryMetrics reads the metrics of a run's summary.json.
func summaryMetrics(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var s struct{ Metrics map[string]float64 }
	require.NoError(t, json.Unmarshal(data, &s))
	return s.Metrics
}

// The default scenario has no [cache], and the cache changed nothing of its
// run: its jobs.csv and tasks.csv are the bytes the tree before the cache
// (2c05b12) wrote, and its summary the same metrics to nine digits (their
// last digits move with the order of a sum), as recorded in
// testdata/default_outputs.golden. A change that moves the default run on
// purpose records it again: go test ./cmd/clusteremu -run
// TestDefaultScenarioAsRecorded -rewrite, and review the diff.
func TestDefaultScenarioAsRecorded(t *testing.T) {
	dir := defaultRun(t)
	var got strings.Builder
	for _, name := range []string{"jobs.csv", "tasks.csv"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		fmt.Fprintf(&got, "%s sha256 %x\n", name, sha256.Sum256(data))
	}
	m := summaryMetrics(t, dir)
	for _, name := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&got, "%s %.9g\n", name, m[name])
	}
	golden := filepath.Join("testdata", "default_outputs.golden")
	if *rewrite {
		require.NoError(t, os.WriteFile(golden, []byte(got.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got.String())
}

// A [cache] of capacity 0, the run a cache is compared with, runs as no
// [cache]: the same deliveries, attempts and trace to the byte, and the
// same metrics, to which it adds the cache's (all of
// cluster.CacheMetricNames, and the size bins').
func TestCacheOfCapacityZeroChangesNoDelivery(t *testing.T) {
	without, off := defaultRun(t), defaultRun(t, "cache.capacity=0B")
	assertSameFiles(t, without, off, "events.jsonl", "jobs.csv", "tasks.csv", "trace.json", "offers.jsonl")
	a, b := summaryMetrics(t, without), summaryMetrics(t, off)
	for name, v := range a {
		assert.Equal(t, v, b[name], name)
	}
	for _, name := range cluster.CacheMetricNames {
		assert.NotContains(t, a, name)
		assert.Contains(t, b, name)
	}
	assert.Zero(t, b["cache.hit_ratio"])
	assert.Contains(t, b, cluster.BinMetrics+"1.jobs.response_time.mean")
}
