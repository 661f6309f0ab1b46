package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raceFailingStep runs the race tutorial's seed 195 and returns the step
// its failure names.
func raceFailingStep(t *testing.T) uint64 {
	t.Helper()
	race := filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")
	var out, errs bytes.Buffer
	code := run([]string{"run", race, "--schedule-seed", "195"}, &out, &errs)
	require.Equal(t, exitFailed, code, errs.String())
	m := regexp.MustCompile(`at 39\.762078479s \(step (\d+)\), coordinator handling actors\.Heartbeat: coordinator: race-fifo assigned job 1 a reduce slot`).
		FindStringSubmatch(errs.String())
	require.NotNil(t, m, "the failure names its step: %s", errs.String())
	step, err := strconv.ParseUint(m[1], 10, 64)
	require.NoError(t, err)
	return step
}

func TestStopAtStepShowsTheTwoMessagesWhoseOrderMatters(t *testing.T) {
	step := raceFailingStep(t)
	race := filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")
	var out, errs bytes.Buffer
	code := run([]string{"run", race, "--schedule-seed", "195", "--stop-at-step", strconv.FormatUint(step-1, 10)}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	text := out.String()
	assert.Contains(t, text, "stopped after step "+strconv.FormatUint(step-1, 10)+" at ")
	// Just before the failing delivery, the node's heartbeat is due at the
	// coordinator before its TaskFinished reaches the job manager: the
	// crossing the tutorial is about.
	heartbeat := strings.Index(text, "at 39.762078479s: actors.Heartbeat to coordinator")
	finished := strings.Index(text, ": actors.TaskFinished to coordinator/job-1")
	require.GreaterOrEqual(t, heartbeat, 0, text)
	require.GreaterOrEqual(t, finished, 0, text)
	assert.Less(t, heartbeat, finished, "the timers are listed in the order they fire")
	assert.Regexp(t, `(?m)^coordinator: race-fifo; nodes 10 live, 0 dead;`, text)
	assert.Regexp(t, `(?m)^coordinator/job-1: job 1 \(job0\): maps 0 pending, 1 running, 0 done of 1;`, text,
		"the job manager has not yet heard its map ended")
	assert.NotContains(t, text, "response ", "a stopped run prints its state, not a summary")
}

func TestWatchPrintsAnActorsDeliveriesUpToTheStop(t *testing.T) {
	stop := raceFailingStep(t) - 1
	race := filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")
	var out, errs bytes.Buffer
	code := run([]string{"run", race, "--schedule-seed", "195", "--stop-at-step", strconv.FormatUint(stop, 10), "--watch", "coordinator/job-*"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	watchedLine := regexp.MustCompile(`^step (\d+) at [^:]+: \S+ from (\S+) to (\S+)$`)
	lines := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "stopped after") {
			break
		}
		m := watchedLine.FindStringSubmatch(line)
		require.NotNil(t, m, "a watched delivery: %q", line)
		step, _ := strconv.ParseUint(m[1], 10, 64)
		assert.LessOrEqual(t, step, stop)
		assert.True(t, strings.HasPrefix(m[2], "coordinator/job-") || strings.HasPrefix(m[3], "coordinator/job-"), line)
		lines++
	}
	assert.Positive(t, lines)
}

func TestSteppingNeedsDeterministicTime(t *testing.T) {
	for _, args := range [][]string{{"--stop-at-step", "10"}, {"--watch", "node-1"}} {
		var out, errs bytes.Buffer
		code := run(append([]string{"run", "--set", "run.deterministic=false"}, args...), &out, &errs)
		assert.Equal(t, exitUsage, code, args)
		assert.Contains(t, errs.String(), "needs deterministic virtual time", args)
	}
	var out, errs bytes.Buffer
	assert.Equal(t, exitUsage, run([]string{"run", "--watch", "node-["}, &out, &errs))
	assert.Contains(t, errs.String(), `--watch "node-[": syntax error in pattern`)
}
