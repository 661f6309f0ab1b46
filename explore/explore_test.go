package explore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/scenarios"
	_ "clusteremu/scenarios/examples/race"
)

func lossy(t *testing.T) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadFile(filepath.Join("..", "scenarios", "examples", "race", "lossy.toml"))
	require.NoError(t, err)
	return sc
}

// The lossy race fails on some of 30 seeds; the earliest failure shrinks
// to decisions that, stored and read back, fail the same way alone.
func TestSeedsShrinkAndReplay(t *testing.T) {
	sc := lossy(t)
	runs := NewRuns()
	outcomes := Seeds(sc, 1, 30, 0, runs, nil)
	i := Earliest(outcomes)
	require.GreaterOrEqual(t, i, 0, "no seed of 30 failed")
	first := outcomes[i].Err
	assert.Contains(t, first.Error(), "race-fifo assigned job")

	var log strings.Builder
	minimal, err := Shrink(&log, sc, uint64(1+i), 0, runs)
	require.NoError(t, err)
	require.NotEmpty(t, minimal, log.String())
	assert.Contains(t, log.String(), "dropping any one of them makes the failure go away")

	path := filepath.Join(t.TempDir(), "min.jsonl")
	require.NoError(t, WriteDecisions(path, sc.Name, sc.Config, minimal))
	read, err := ReadDecisions(path, sc.Config)
	require.NoError(t, err)
	assert.Equal(t, minimal, read)

	cfg := sc.Config
	cfg.Run.Pinned, cfg.Run.Decisions = true, read
	_, err = Verdict(sc, cfg, runs)
	require.Error(t, err)
	assert.Equal(t, Signature(first), Signature(err))
}

// Explore leaves the reference runs out unless a plain row checks what
// they measure: a row on the default scenario's mean slowdown holds on
// its seeds, where without the reference runs the run would measure no
// slowdown.
func TestReferenceRunsOnlyForRowsThatCheckThem(t *testing.T) {
	path := filepath.Join("..", "scenarios", "examples", "default.toml")
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	text = append(text, "\n[[expect]]\nmetric = \"jobs.slowdown.mean\"\nop = \">\"\nvalue = 0.5\n"...)
	sc, err := scenarios.Load(path, text, filepath.Dir(path))
	require.NoError(t, err)
	require.True(t, checksReferences(sc))
	for _, o := range Seeds(sc, 1, 2, 0, NewRuns(), nil) {
		assert.NoError(t, o.Err)
	}
	assert.False(t, checksReferences(lossy(t)))
}

func TestEarliestTakesTheFirstFailingInstant(t *testing.T) {
	bad := errors.New("bad")
	assert.Equal(t, -1, Earliest([]Outcome{{}, {Skipped: true}}))
	assert.Equal(t, 2, Earliest([]Outcome{{}, {Err: bad, At: 9 * time.Second}, {Err: bad, At: 3 * time.Second}, {Err: bad, At: 3 * time.Second}}))
}

func TestSignatureLeavesOutInstantAndNumbers(t *testing.T) {
	a := errors.New("at 39.76s, coordinator handling actors.Heartbeat: job 1 on node 7")
	b := errors.New("at 1m2.5s, coordinator handling actors.Heartbeat: job 5 on node 3")
	assert.Equal(t, Signature(a), Signature(b))
	assert.Equal(t, "coordinator handling actors.Heartbeat: job N on node N", Signature(a))
}

// A decisions file says which course and format it was written for; any
// other is refused with the reason.
func TestDecisionsOfAnotherCourseOrFormatAreRefused(t *testing.T) {
	cfg := cluster.DefaultConfig()
	ds := []cluster.Decision{{At: time.Second, Kind: cluster.DecideHeartbeat, Target: "node-1", Delay: time.Millisecond}}
	path := filepath.Join(t.TempDir(), "d.jsonl")
	require.NoError(t, WriteDecisions(path, "a.toml", cfg, ds))

	other := cfg
	other.Run.Seed++
	_, err := ReadDecisions(path, other)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+":1: decisions taken in a.toml under another configuration")

	// Options that do not steer the course leave the hash.
	same := cfg
	same.Run.ScheduleSeed, same.Run.Until = 77, 5
	_, err = ReadDecisions(path, same)
	assert.NoError(t, err)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), `"format":1`, `"format":2`, 1)), 0o644))
	_, err = ReadDecisions(path, cfg)
	require.Error(t, err)
	assert.Equal(t, path+":1: decisions in format 2, from another version of clusteremu; this one reads format 1", err.Error())
}

// A stall is the same stall whatever timers were pending when the
// watchdog fired, and whichever job it left waiting.
func TestAStallsSignatureIsWhatTheJobsWaitFor(t *testing.T) {
	a := &cluster.StallError{Since: time.Minute, Next: 3 * time.Minute, Timers: map[string]int{"actors.heartbeatTick": 10, "actors.heartbeatDue": 1},
		Waiting: []string{"job 5 (job4): 1 reduce pending, which backoff-fifo launches nowhere"}}
	b := &cluster.StallError{Since: 2 * time.Minute, Next: 4 * time.Minute, Timers: map[string]int{"actors.heartbeatTick": 10},
		Waiting: []string{"job 2 (job1): 1 reduce pending, which backoff-fifo launches nowhere"}}
	assert.Equal(t, Signature(a), Signature(b))
	assert.Equal(t, "stalled; waiting: job N (jobN): N reduce pending, which backoff-fifo launches nowhere", Signature(b))
	two := &cluster.StallError{Waiting: append(b.Waiting, "job 3 (job2): 1 map pending")}
	assert.NotEqual(t, Signature(b), Signature(two))
}
