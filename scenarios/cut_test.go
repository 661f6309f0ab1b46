package scenarios

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/units"
)

// cutScenario has a fault past a 30 min cut listed before a random crash
// stream, busy periods, and a message rule that begins past the cut.
const cutScenario = `
[cluster]
racks = 2
nodes_per_rack = 10

[stragglers]
busy_rate = 6

[[fault]]
kind = "crash"
node = 3
at = "40m"

[[fault]]
kind = "crash"
rate = 20
window = ["0s", "2h"]
restart_after = "3m"

[[fault]]
kind = "message"
message = "TaskFinished"
action = "drop"
window = ["50m", "1h"]

[[fault]]
kind = "slowdown"
node = 5
at = "10m"
for = "1m"
cpu = 0.5
` + someWork

// A run cut (--until) before some fault writes a resolved scenario that
// loads, and meets the same faults before the cut: the random stream's
// draws and the busy periods, though the entry before the stream is gone.
func TestResolvedCutListsTheFaultsAsDrawn(t *testing.T) {
	sc, err := Load("s.toml", []byte(cutScenario), ".")
	require.NoError(t, err)
	cut := 30 * time.Minute
	sc.Config.Run.Until = units.Duration(cut) // as run --until does
	text, err := sc.Resolved()
	require.NoError(t, err)
	again, err := Load("resolved.toml", text, t.TempDir())
	require.NoError(t, err, "%s", text)

	before := func(faults []actors.Fault) []actors.Fault {
		var out []actors.Fault
		for _, f := range faults {
			if f.At < cut {
				f.Entry = 0
				out = append(out, f)
			}
		}
		return out
	}
	want := before(sc.Config.Faults)
	var drawn, busy int
	for _, f := range want {
		switch {
		case f.Busy:
			busy++
		case f.Kind == actors.FaultCrash:
			drawn++
		}
	}
	require.Positive(t, drawn, "the stream draws crashes before the cut")
	require.Positive(t, busy, "busy periods start before the cut")
	assert.ElementsMatch(t, want, before(again.Config.Faults))
	for _, f := range again.Config.Faults {
		assert.Less(t, f.At, cut, "%+v: only what fires before the cut is listed", f)
	}
	assert.Empty(t, again.Config.Rules, "the rule begins past the cut")
	assert.Equal(t, sc.Config.Stragglers, again.Config.Stragglers)
	assert.Contains(t, string(text), "busy = true")
}

// Without a fault past the cut the entries are kept, and the busy periods,
// drawn over the workload's span, are listed: drawn again over a longer
// cut there would be more.
func TestResolvedCutKeepsEntriesBeforeIt(t *testing.T) {
	sc, err := Load("s.toml", []byte(cutScenario), ".")
	require.NoError(t, err)
	sc.Config.Run.Until = units.Duration(3 * time.Hour)
	text, err := sc.Resolved()
	require.NoError(t, err)
	assert.Contains(t, string(text), "rate = 20")
	assert.Contains(t, string(text), "busy = true")
	again, err := Load("resolved.toml", text, t.TempDir())
	require.NoError(t, err)
	entries := func(faults []actors.Fault) []actors.Fault {
		out := slices.Clone(faults)
		for i := range out {
			out[i].Entry = 0
		}
		return out
	}
	assert.ElementsMatch(t, entries(sc.Config.Faults), entries(again.Config.Faults))
	again.Config.Run.Until = 0
	text, err = again.Resolved()
	require.NoError(t, err)
	assert.Contains(t, string(text), "busy = true", "listed, they stay listed")

	// Cut again, shorter: the busy periods listed are entries already,
	// and are not listed twice.
	again.Config.Run.Until = units.Duration(2 * time.Hour)
	text, err = again.Resolved()
	require.NoError(t, err)
	twice, err := Load("resolved.toml", text, t.TempDir())
	require.NoError(t, err, "%s", text)
	assert.ElementsMatch(t, entries(again.Config.Faults), entries(twice.Config.Faults))
}

// busy marks a slowdown at an instant, beside [stragglers]' busy periods.
func TestBusyMarksASlowdownOfBusyPeriods(t *testing.T) {
	_, err := Load("s.toml", []byte("[[fault]]\nkind = \"crash\"\nnode = 1\nat = \"1m\"\nbusy = true\n"+someWork), ".")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `s.toml:5:1: fault[0].busy = true: marks a slowdown at an instant as a busy period of [stragglers], which needs stragglers.busy_rate > 0`)
}
