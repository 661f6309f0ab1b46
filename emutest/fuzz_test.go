package emutest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func raceText(t testing.TB, name string, fixed bool) string {
	data, err := os.ReadFile(filepath.Join("..", "scenarios", "examples", "race", name))
	require.NoError(t, err)
	if fixed {
		return strings.Replace(string(data), "fixed = false", "fixed = true", 1)
	}
	return string(data)
}

// The fixed race policy passes its seed corpus; go test -fuzz
// FuzzFixedRace searches on.
func FuzzFixedRace(f *testing.F) {
	Fuzz(f, TOML("race.toml", raceText(f, "race.toml", true)))
}

// An input that fails names its course; decisions bytes of the scenario
// are followed, anything else runs the seed.
func TestFuzzInputs(t *testing.T) {
	s := TOML("race.toml", raceText(t, "race.toml", false))
	sc := load(t, s)

	out, failed := record(t, "FuzzRace", func(tb testing.TB) { fuzzOne(tb, s, sc, 195, []byte("not decisions")) })
	assert.True(t, failed)
	assert.Contains(t, out, "emutest: race.toml, schedule seed 195: FAIL at 39.762078479s (step 1765), coordinator handling actors.Heartbeat")

	decisions := `{"at":32581760665,"kind":"heartbeat","target":"node-7","count":32,"delay":63637979}
{"at":32645398644,"kind":"relay","target":"coordinator","count":335,"delay":22262996}
{"at":32668661640,"kind":"relay","target":"node-7","count":0,"delay":13410926}
{"at":39581760665,"kind":"heartbeat","target":"node-7","count":39,"delay":178449370}
{"at":39754161206,"kind":"relay","target":"coordinator/job-1","count":0,"delay":82075253}
`
	out, failed = record(t, "FuzzRace", func(tb testing.TB) { fuzzOne(tb, s, sc, 1, []byte(decisions)) })
	assert.True(t, failed)
	assert.Contains(t, out, "emutest: race.toml, 5 pinned decision(s): FAIL at 39.761")

	out, failed = record(t, "FuzzRace", func(tb testing.TB) { fuzzOne(tb, s, sc, 1, []byte(decisions[:len(decisions)/2])) })
	assert.False(t, failed, "the first decisions alone do not fail: %s", out)
}
