package main

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// reproduce with [reproduce] seeds checks every row on the mean of each
// metric over the seeds, as a paper averages its repetitions; a
// baseline_metric row divides by another metric, here of the same run.
func TestReproduceAveragesOverSeeds(t *testing.T) {
	path := writeScenario(t, smallScenario+`
[reproduce]
source = "a test"
seeds = [1, 2]

[[expect]]
set = ["scheduler.name=fbq"]
metric = "jobs.response_time.mean"
op = ">"
value = 0

[[expect]]
run = "p95 / p50"
set = ["scheduler.name=fbq"]
baseline = ["scheduler.name=fbq"]
metric = "jobs.response_time.p95"
baseline_metric = "jobs.response_time.p50"
op = ">="
value = 1
`)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"reproduce", path}, &out, &errs), out.String()+errs.String())
	assert.Contains(t, out.String(), "(each figure the mean over seeds 1, 2)")

	sc, err := scenarios.LoadFile(path)
	require.NoError(t, err)
	var mean, p95, p50 float64
	for _, seed := range []uint64{1, 2} {
		seeded, err := sc.WithSeed(seed)
		require.NoError(t, err)
		seeded, err = seeded.WithSet("scheduler.name=fbq")
		require.NoError(t, err)
		c, err := cluster.Build(seeded.Config)
		require.NoError(t, err)
		rep, err := c.Run()
		require.NoError(t, err)
		mean += rep.Summary["jobs.response_time.mean"] / 2
		p95 += rep.Summary["jobs.response_time.p95"] / 2
		p50 += rep.Summary["jobs.response_time.p50"] / 2
	}
	assert.Regexp(t, regexp.MustCompile(`scheduler.name=fbq\s+jobs.response_time.mean\s+`+regexp.QuoteMeta(fmt.Sprintf("%.4g", mean))+`\s+> 0\s+pass`), out.String())
	assert.Regexp(t, regexp.MustCompile(`p95 / p50\s+jobs.response_time.p95 ratio\s+`+regexp.QuoteMeta(fmt.Sprintf("%.4g", p95/p50))+`\s+>= 1\s+pass`), out.String())
}

// compare prints, when the runs measured job sizes, a table of the mean
// slowdown per √10 size bin.
func TestCompareTablesSlowdownBySize(t *testing.T) {
	path := writeScenario(t, smallScenario)
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"compare", path, "--set", "scheduler.name=fifo,fbq"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "mean slowdown by job size (the slot-seconds a job held alone), jobs in the bin in brackets:")
	assert.Regexp(t, `\n\s+size\s+scheduler.name=fifo\s+scheduler.name=fbq\n`, out.String())
	assert.Regexp(t, `\n\s+\d+–\d+ s\s+[0-9.]+ \(\d+\)\s+[0-9.]+ \(\d+\)\n`, out.String())

	out.Reset()
	require.Equal(t, 0, run([]string{"compare", path, "--set", "run.slowdown=false", "--set", "scheduler.name=fifo,fbq"}, &out, &errs), errs.String())
	assert.NotContains(t, out.String(), "by job size", "no sizes without reference runs")
}

// In the reduced form a row may be skipped, or checked with its own
// value or its own overrides (after the row's, and on both sides of a
// ratio), each with its reason printed under the table; the full form
// checks the rows as written.
func TestReproduceReducedRows(t *testing.T) {
	path := writeScenario(t, smallScenario+`
[reproduce]
source = "a test"
reduced = ["cluster.racks=1"]

[[expect]]
run = "two racks"
metric = "jobs.succeeded"
op = "=="
value = 12
reduced = { value = 12, why = "the same jobs on one rack" }

[[expect]]
run = "no reduces"
metric = "jobs.succeeded"
op = "=="
value = 0
reduced = { skip = true, why = "it fails in the full form too" }

[[expect]]
run = "fewer jobs"
set = ["workload.synthetic[0].jobs=5"]
metric = "jobs.succeeded"
op = "=="
value = 6
reduced = { set = ["workload.synthetic[0].jobs=2"], value = 3, why = "fewer still" }

[[expect]]
run = "fewer than written"
set = ["workload.synthetic[0].jobs=5"]
baseline = []
metric = "jobs.succeeded"
op = "=="
value = 0.5
reduced = { set = ["workload.synthetic[0].jobs=5"], value = 1, why = "as many on both sides" }
`)
	var out, errs bytes.Buffer
	assert.Equal(t, 0, run([]string{"reproduce", "--reduced", path}, &out, &errs), out.String()+errs.String())
	assert.Regexp(t, `two racks\s+jobs.succeeded\s+12\s+== 12\s+pass\*`, out.String())
	assert.Regexp(t, `no reduces\s+jobs.succeeded\s+-\s+== 0\s+skipped\*`, out.String())
	assert.Contains(t, out.String(), "  * reduced form, two racks, jobs.succeeded: the same jobs on one rack\n")
	assert.Contains(t, out.String(), "  * reduced form, no reduces, jobs.succeeded: it fails in the full form too\n")
	assert.Regexp(t, `fewer jobs\s+jobs.succeeded\s+3\s+== 3\s+pass\*`, out.String(), "the reduced set after the row's")
	assert.Regexp(t, `fewer than written\s+jobs.succeeded ratio\s+1\s+== 1\s+pass\*`, out.String(), "the reduced set on both sides")

	out.Reset()
	assert.Equal(t, 1, run([]string{"reproduce", path}, &out, &errs))
	assert.Regexp(t, `no reduces\s+jobs.succeeded\s+12\s+== 0\s+FAIL`, out.String())
	assert.Regexp(t, `fewer jobs\s+jobs.succeeded\s+6\s+== 6\s+pass`, out.String())
	assert.Regexp(t, `fewer than written\s+jobs.succeeded ratio\s+0.5\s+== 0.5\s+pass`, out.String())
	assert.NotContains(t, out.String(), "reduced form")
}

// A row that carries its known cause of failure prints "FAIL (known)"
// and the cause under the table without failing the command; one that
// holds says it was known failing; a row without one still fails it.
func TestReproduceKnownFailures(t *testing.T) {
	const rows = `
[reproduce]
source = "a test"

[[expect]]
run = "known"
metric = "jobs.succeeded"
op = "=="
value = 0
known = "the jobs succeed here"

[[expect]]
run = "fixed"
metric = "jobs.succeeded"
op = "=="
value = 12
known = "it failed once"
`
	path := writeScenario(t, smallScenario+rows)
	var out, errs bytes.Buffer
	assert.Equal(t, 0, run([]string{"reproduce", path}, &out, &errs), out.String()+errs.String())
	assert.Regexp(t, `known\s+jobs.succeeded\s+12\s+== 0\s+FAIL \(known\)`, out.String())
	assert.Regexp(t, `fixed\s+jobs.succeeded\s+12\s+== 12\s+pass \(was known failing\)`, out.String())
	assert.Contains(t, out.String(), "  - known failing, known, jobs.succeeded: the jobs succeed here\n")
	assert.Contains(t, out.String(), "  - was known failing and now holds, fixed, jobs.succeeded: drop its known (it failed once)\n")

	out.Reset()
	path = writeScenario(t, smallScenario+rows+`
[[expect]]
run = "unexpected"
metric = "jobs.succeeded"
op = "=="
value = 1
`)
	assert.Equal(t, 1, run([]string{"reproduce", path}, &out, &errs), out.String())
	assert.Regexp(t, `unexpected\s+jobs.succeeded\s+12\s+== 1\s+FAIL\s*\n`, out.String())

	_, err := scenarios.Load("s.toml", []byte(smallScenario+"[reproduce]\nsource = \"a\"\n[[expect]]\nmetric = \"jobs.succeeded\"\nop = \"==\"\nvalue = 1\nknown = \" \"\n"), t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `known = " ": must say why the row fails, or be left out`)
}
