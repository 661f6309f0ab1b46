package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bench runs each case in processes of its own (here the test binary
// acting as the command) and prints one row of medians per case.
func TestBenchPrintsOneRowPerCaseFromItsOwnProcesses(t *testing.T) {
	t.Setenv(asCLI, "1")
	race := filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")
	var out, errs bytes.Buffer
	require.Equal(t, exitOK, run([]string{"bench", "--runs", "2", race}, &out, &errs), errs.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3, out.String())
	assert.Contains(t, lines[0], "| scenario | nodes | jobs | tasks | emulated | wall (median of 2) |")
	row := strings.Split(lines[2], "|")
	require.Len(t, row, 13, lines[2])
	assert.Equal(t, race, strings.TrimSpace(row[1]))
	assert.Equal(t, "12", strings.TrimSpace(row[3]), "the race tutorial's jobs")
	assert.Regexp(t, regexp.MustCompile(`^[1-9][0-9]* MiB$`), strings.TrimSpace(row[11]), "a peak resident set")

	out.Reset()
	assert.Equal(t, exitFailed, run([]string{"bench", "--runs", "1", "no-such.toml"}, &out, &errs))
	assert.Contains(t, errs.String(), "no-such.toml")
}

func TestRunStatsCountsTheRunsWork(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.json")
	var out, errs bytes.Buffer
	require.Equal(t, exitOK, run([]string{"run", "--quiet", "--stats", path, "--set", "run.slowdown=false"}, &out, &errs), errs.String())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var st runStats
	require.NoError(t, json.Unmarshal(b, &st))
	assert.Equal(t, 40, st.Nodes)
	assert.Equal(t, 200, st.Jobs)
	assert.Equal(t, "done", st.Reason)
	assert.Positive(t, st.Tasks)
	assert.Positive(t, st.Solves)
	assert.GreaterOrEqual(t, st.FlowsSolved, st.Solves)
	assert.Contains(t, out.String(), "messages")
	assert.Contains(t, out.String(), "re-solves")
}

// Without --out a run keeps no attempt records, only their tally, and
// prints the same summary as a run that keeps them.
func TestRunWithoutOutputsPrintsTheSameSummaryFromATally(t *testing.T) {
	dir := t.TempDir()
	var kept, tallied, errs bytes.Buffer
	args := []string{"run", "--quiet", "--set", "run.slowdown=false", "--set", "tasks.failure_probability=0.05"}
	require.Equal(t, exitOK, run(append(args, "--out", dir), &kept, &errs), errs.String())
	require.Equal(t, exitOK, run(args, &tallied, &errs), errs.String())
	wall := regexp.MustCompile(`in [0-9.]+m?s wall: [0-9]+×`)
	assert.Equal(t, wall.ReplaceAllString(kept.String(), "WALL"), wall.ReplaceAllString(tallied.String(), "WALL"))
	assert.Contains(t, kept.String(), "locality  node")
}
