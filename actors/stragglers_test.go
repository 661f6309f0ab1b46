package actors

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// 10⁵ stragglers drawn with the thesis's bands land in each band within
// half a point of its weight; the tail never passes max_factor; uniform
// onsets cover [0, 1); the speed past the onset makes the attempt take m
// times as long.
func TestStragglerDrawsFollowTheBands(t *testing.T) {
	s := DefaultStragglers()
	s.Probability = 1
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	var bands [3]int
	onsets := 0.0
	for range n {
		d := s.draw(rng)
		require.GreaterOrEqual(t, d.Factor, 1.5)
		require.LessOrEqual(t, d.Factor, 50.0)
		require.True(t, d.Onset >= 0 && d.Onset < 1, "onset %v", d.Onset)
		onsets += d.Onset
		switch {
		case d.Factor < 2.5:
			bands[0]++
		case d.Factor < 10:
			bands[1]++
		default:
			bands[2]++
		}
		// f at nominal speed, then (1 − f) at the slowed speed: m in all.
		assert.InDelta(t, d.Factor, d.Onset+(1-d.Onset)/d.Speed(), 1e-9)
	}
	for i, w := range s.Bands {
		assert.InDelta(t, w, float64(bands[i])/n, 0.005, "band %d", i)
	}
	assert.InDelta(t, 0.5, onsets/n, 0.01, "mean uniform onset")

	s.Probability, s.Onset = 0.1, Onset{At: 0.25}
	stragglers := 0
	for range n {
		if d := s.draw(rng); d.Factor > 0 {
			stragglers++
			require.Equal(t, 0.25, d.Onset)
		}
	}
	assert.InDelta(t, 0.1, float64(stragglers)/n, 0.005)
}

// The same attempt draws the same slowdown whatever was drawn before, and
// the draw moves neither its replica choice nor its failure.
func TestStragglerStreamIsTheAttempts(t *testing.T) {
	b := newBlockMap(1, 1, []sched.RackID{0}, 7)
	s := DefaultStragglers()
	s.Probability = 1
	a := sched.Attempt{Job: 3, Kind: sched.Map, Task: 5, Attempt: 1}
	first := s.draw(b.stragglerStream(a))
	s.draw(b.stragglerStream(sched.Attempt{Job: 3, Kind: sched.Map, Task: 6}))
	assert.Equal(t, first, s.draw(b.stragglerStream(a)))
	assert.NotEqual(t, b.attemptStream(a).Uint64(), b.stragglerStream(a).Uint64())
	assert.NotEqual(t, b.failureStream(a).Uint64(), b.stragglerStream(a).Uint64())
}

// Busy periods slow about busy_nodes of the nodes per period, never more
// than a fifth of a rack at once, never a node another fault holds then,
// and come out the same from the same seed.
func TestBusyPeriodsKeepToTheirRacks(t *testing.T) {
	c := &ClusterConfig{Racks: 4, NodesPerRack: 10}
	s := DefaultStragglers()
	s.BusyRate = 6
	taken := []Fault{{Kind: FaultSlowdown, Node: 3, At: 0, CPU: 0.5, Disk: 1}} // to the run's end
	faults := s.BusyFaults(c, 10*time.Hour, 1, taken)
	require.NotEmpty(t, faults)
	assert.Equal(t, faults, s.BusyFaults(c, 10*time.Hour, 1, taken))
	periods := map[time.Duration]int{}
	for i := range faults {
		f := &faults[i]
		periods[f.At]++
		assert.NotEqual(t, sched.NodeID(3), f.Node, "node 3 is slowed already")
		assert.True(t, f.Busy && f.Kind == FaultSlowdown && f.Disk == 1)
		assert.True(t, f.CPU >= 1/3.0 && f.CPU <= 1/1.5, "cpu factor %v", f.CPU)
		assert.True(t, f.For >= time.Minute && f.For <= 10*time.Minute, "length %v", f.For)
		busy := 0 // busy in f's rack when f begins: a rack is busiest when a period begins
		for j := range faults {
			g := &faults[j]
			if g.At <= f.At && f.At < g.End() && g.Node/10 == f.Node/10 {
				busy++
			}
		}
		assert.LessOrEqual(t, busy, 2, "rack %d at %v", f.Node/10, f.At)
	}
	assert.InDelta(t, 60, len(periods), 25, "about 6 an hour for 10 hours")
	full := 0
	for _, n := range periods {
		assert.LessOrEqual(t, n, 6, "15%% of 40 nodes")
		if n == 6 {
			full++
		}
	}
	assert.Greater(t, full, len(periods)/2, "most periods find their 6 nodes")
	var errs Checks
	ValidateFaults(append(taken, faults...), c, &errs)
	assert.Empty(t, errs, "busy periods never contradict each other or the scenario's faults")
}

// Off, there are no busy periods.
func TestNoBusyPeriodsWithoutARate(t *testing.T) {
	s := DefaultStragglers()
	assert.Empty(t, s.BusyFaults(&ClusterConfig{Racks: 1, NodesPerRack: 10}, time.Hour, 1, nil))
	s.BusyRate, s.BusyLength = 1, []units.Duration{units.Duration(time.Minute), units.Duration(time.Minute)}
	assert.NotEmpty(t, s.BusyFaults(&ClusterConfig{Racks: 1, NodesPerRack: 10}, 100*time.Hour, 1, nil))
}

// Mild slowdowns come to about mild of the attempts, each uniform in
// [1.2, 1.5) with the stragglers' onsets, and leave every straggler as it
// was without them: the same attempts straggle, by the same factors.
func TestMildSlowdownsLeaveTheStragglers(t *testing.T) {
	s := DefaultStragglers()
	s.Probability = 0.05
	mild := s
	mild.Mild = 0.3
	b := newBlockMap(1, 1, []sched.RackID{0}, 7)
	const n = 100_000
	mildOnes := 0
	for i := range n {
		a := sched.Attempt{Job: 1, Kind: sched.Map, Task: int32(i)}
		was, d := s.draw(b.stragglerStream(a)), mild.draw(b.stragglerStream(a))
		if was.Factor > 0 {
			require.Equal(t, was, d, "attempt %v", a)
			continue
		}
		if d.Factor > 0 {
			mildOnes++
			require.True(t, d.Factor >= ImprovableOver && d.Factor < 1.5, "mild factor %v", d.Factor)
			require.True(t, d.Onset >= 0 && d.Onset < 1, "onset %v", d.Onset)
		}
	}
	assert.InDelta(t, 0.3, float64(mildOnes)/n, 0.005)
	assert.False(t, mild.IsZero())
	only := StragglersConfig{Mild: 0.1}
	assert.True(t, only.Draws())
}

// Mild slowdowns stay below a straggler's band and within what the
// stragglers leave.
func TestMildSlowdownsValidate(t *testing.T) {
	for _, c := range []struct {
		mild   float64
		factor []float64
		field  string
	}{
		{0.96, nil, "stragglers.mild"}, // with probability 0.05: over 1
		{-0.1, nil, "stragglers.mild"},
		{0.1, []float64{1.2, 1.6}, "stragglers.mild_factor"},
		{0.1, []float64{1, 1.4}, "stragglers.mild_factor"},
		{0.1, []float64{1.4, 1.3}, "stragglers.mild_factor"},
		{0.1, []float64{1.3}, "stragglers.mild_factor"},
	} {
		s := DefaultStragglers()
		s.Probability, s.Mild, s.MildFactor = 0.05, c.mild, c.factor
		var errs Checks
		s.Validate(&errs)
		require.Len(t, errs, 1, "%v %v", c.mild, c.factor)
		var fe *FieldError
		require.ErrorAs(t, errs[0], &fe)
		assert.Equal(t, c.field, fe.Key)
	}
	s := DefaultStragglers()
	s.Probability, s.Mild, s.MildFactor = 0.05, 0.95, []float64{1.1, 1.5}
	var errs Checks
	s.Validate(&errs)
	assert.Empty(t, errs)
}

// Without mild slowdowns a [stragglers] table hashes (JSON) and resolves
// (TOML) as it did before they existed: neither key is written.
func TestUnsetMildSlowdownsAreNotWritten(t *testing.T) {
	s := DefaultStragglers()
	s.Probability = 0.05
	assertNotWritten(t, s, "Mild", "mild")
	s.Mild = 0.5
	assert.Contains(t, tomlOf(t, s), "mild = 0.5")
}

// assertNotWritten checks that v's JSON (what the configuration's hash
// reads) names no field jsonName and its TOML (a resolved scenario) no
// key tomlKey.
func assertNotWritten(t *testing.T, v any, jsonName, tomlKey string) {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	assert.NotContains(t, string(data), jsonName)
	assert.NotContains(t, tomlOf(t, v), tomlKey)
}

// tomlOf is v written as TOML.
func tomlOf(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, toml.NewEncoder(&buf).Encode(v))
	return buf.String()
}
