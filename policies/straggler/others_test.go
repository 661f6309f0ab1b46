package straggler

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// running launches maps at 0 s and reports each score at the instant.
func running(t *testing.T, p Policy, now time.Duration, scores map[int32]float64) {
	t.Helper()
	for _, m := range sortedKeys(scores) {
		p.Launched(0, Launch{Attempt: mapAttempt(m, 0), Bytes: 100})
		p.Progressed(now, rep(mapAttempt(m, 0), scores[m], 0, now))
	}
}

func sortedKeys(m map[int32]float64) []int32 {
	var out []int32
	for i := range int32(100) {
		if _, ok := m[i]; ok {
			out = append(out, i)
		}
	}
	return out
}

func duplicated(acts []Action) []int32 {
	var out []int32
	for _, a := range acts {
		if a.Kind == Duplicate {
			out = append(out, a.Task.Task)
		}
	}
	return out
}

// Hadoop: six maps, two finished, four running at 0.9, 0.8, 0.5 and 0.3
// after 70 s: the average is (2 + 2.5) / 6 = 0.75, so maps below 0.55 —
// 4 and 5 — are copied once every map has started and they have run a
// minute; not while a map waits, not before 60 s.
func TestHadoopCopiesTasksGapBelowTheAverage(t *testing.T) {
	p := phaseOf(t, "hadoop", 6, 2, 10*time.Second)
	running(t, p, at(70), map[int32]float64{2: 0.9, 3: 0.8, 4: 0.5, 5: 0.3})
	assert.Empty(t, p.Decide(at(70), fakeView{1, 0}), "a map waits")
	assert.Equal(t, []int32{4, 5}, duplicated(p.Decide(at(70), fakeView{})))

	young := phaseOf(t, "hadoop", 6, 2, 10*time.Second)
	running(t, young, at(50), map[int32]float64{2: 0.9, 3: 0.8, 4: 0.5, 5: 0.3})
	assert.Empty(t, young.Decide(at(50), fakeView{}), "under min_runtime")
}

// LATE: rates 0.9/70, 0.8/70, 0.5/70 and 0.3/70; the slowest quarter is
// map 5 alone, the one it copies; with a map waiting LATE does nothing
// and Early-LATE the same as LATE after.
func TestLATECopiesTheSlowTaskWithTheLongestTimeLeft(t *testing.T) {
	p := phaseOf(t, "late", 6, 2, 10*time.Second)
	running(t, p, at(70), map[int32]float64{2: 0.9, 3: 0.8, 4: 0.5, 5: 0.3})
	assert.Empty(t, p.Decide(at(70), fakeView{1, 0}))
	assert.Equal(t, []int32{5}, duplicated(p.Decide(at(70), fakeView{})))

	early, err := New("late", &LATEParams{SlowTask: 0.5, CapShare: 0.1, Early: true, MinRuntime: 60e9}, Setup{Tasks: [2]int{6, 0}})
	require.NoError(t, err)
	assert.Equal(t, "early-late", early.Name())
	running(t, early, at(70), map[int32]float64{2: 0.9, 3: 0.8, 4: 0.2, 5: 0.3})
	// Below the median rate: maps 4 and 5; map 4 has the most time left.
	assert.Equal(t, []int32{4}, duplicated(early.Decide(at(70), fakeView{1, 0})))
	// Map 5 falls further behind: 0.301 at 200 s, 464 s left against
	// map 4's 280 s; LATE moves its one copy to it.
	early.Progressed(at(200), rep(mapAttempt(5, 0), 0.301, 0, at(200)))
	acts := early.Decide(at(200), fakeView{1, 0})
	assert.Equal(t, []Action{
		{Kind: Withdraw, Task: Task{sched.Map, 4}, Reason: "no longer wanted"},
		{Kind: Duplicate, Task: Task{sched.Map, 5}, Reason: acts[1].Reason},
	}, acts)
}

// Dryad acts at the end of a phase, once all its tasks have started:
// four maps finished in 10 s and one more in 30 s; the 75th percentile of
// 10, 10, 10, 10, 30 is 10 s, so the running maps past 10 s are copied,
// each once, but not while a map waits.
func TestDryadCopiesTasksPastThePercentileAtThePhasesEnd(t *testing.T) {
	p := phaseOf(t, "dryad", 8, 4, 10*time.Second)
	p.Launched(0, Launch{Attempt: mapAttempt(4, 0), Bytes: 100})
	p.Ended(at(30), End{Attempt: mapAttempt(4, 0), Outcome: sched.Succeeded})
	for _, m := range []int32{5, 6, 7} {
		p.Launched(at(float64(m)), Launch{Attempt: mapAttempt(m, 0), Bytes: 100})
	}
	assert.Empty(t, p.Decide(at(15.5), fakeView{1, 0}), "a map waits")
	assert.Equal(t, []int32{5}, duplicated(p.Decide(at(15.5), fakeView{})), "map 5 ran 10.5 s; 6 and 7 less")
	p.Launched(at(16), Launch{Attempt: mapAttempt(5, 1), Bytes: 100, Copy: true})
	p.Ended(at(17), End{Attempt: mapAttempt(5, 1), Outcome: sched.Killed})
	assert.Equal(t, []int32{6, 7}, duplicated(p.Decide(at(18), fakeView{})), "map 5 had its copy")
}

// Bad parameters are refused, each naming its key.
func TestBadParametersAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
		want []string
	}{
		{"mantri", &MantriParams{Gamma: -1, Delta: 2, Rho: -1, Keep: 4, MaxCopies: 3, CapShare: 0}, []string{
			"speculation.gamma = -1: must be ≥ 0 kills of a task",
			"speculation.delta = 2: must be a share in [0, 1]",
			"speculation.rho = -1: must be ≥ 0 report periods",
			"speculation.keep = 4: must be 1 … max_copies = 3",
			"speculation.cap = 0: must be a share in (0, 1]",
		}},
		{"mantri", &MantriParams{Keep: 0, MaxCopies: 0, CapShare: 1.5}, []string{
			"speculation.max_copies = 0: must be 1 … 100 running copies of a task",
			"speculation.keep = 0: must be 1 … max_copies = 0",
			"speculation.cap = 1.5: must be a share in (0, 1]",
		}},
		{"late", &LATEParams{SlowTask: 0, SlowNode: -0.1, CapShare: 0.1, MinRuntime: -1}, []string{
			"speculation.slow_task = 0: must be a share in (0, 1]",
			"speculation.slow_node = -0.1: must be a share in [0, 1]",
			`speculation.min_runtime = "-1ns": must be a duration ≥ 0 like "60s"`,
		}},
		{"hadoop", &HadoopParams{Gap: 1.5, CapShare: 1}, []string{"speculation.gap = 1.5: must be a share in [0, 1]"}},
		{"dryad", &DryadParams{Percentile: 0, CapShare: 1}, []string{"speculation.percentile = 0: must be a share in (0, 1]"}},
	} {
		err := Validate(tc.name, tc.p)
		require.Error(t, err, tc.name)
		assert.Equal(t, tc.want, strings.Split(err.Error(), "\n"), tc.name)
	}
	_, err := NewParams("speculative")
	var pe *ParamError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, `speculation.name = "speculative": must be one of dryad, hadoop, late, mantri, none`, err.Error())
	for _, name := range Names() {
		p, err := NewParams(name)
		require.NoError(t, err)
		require.NoError(t, Validate(name, p), "%s's defaults", name)
	}
	none, err := New(None, nil, Setup{})
	assert.NoError(t, err)
	assert.Nil(t, none)
}
