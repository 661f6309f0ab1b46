package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// nopRecorder is a Recorder that keeps nothing.
type nopRecorder struct{ Recorder }

func (nopRecorder) Count(string, int64) {}

// precision has a node serve one new output every interval for hours
// under cfg and reports the share of its suspicions, at the trigger,
// after which it lost another output within the minute, and how many
// outputs it lost.
func precision(cfg IntermediateLossConfig, trigger int, interval, hours time.Duration) (float64, int) {
	l := &lossModel{cfg: cfg, seed: 11, hot: make([]bool, 1), fate: make(map[copyKey]time.Duration),
		last: make(map[sched.NodeID]time.Duration), episodes: make(map[sched.NodeID]*episodeChain)}
	sp := newSuspicions(RecomputeConfig{RecomputeTrigger: &trigger})
	suspected, right, lost := 0, 0, 0
	for i := range int32(hours / interval) {
		now := time.Duration(i) * interval
		if !l.failing(copyKey{job: 1, m: i, node: 0}, now, nopRecorder{}) {
			continue
		}
		lost++
		r, s := sp.lost(0, 1, now)
		right += map[bool]int{true: 1}[r]
		suspected += map[bool]int{true: 1}[s]
	}
	return float64(right) / float64(suspected), lost
}

// Under the burst model a loss raises the next minute's risk whether or
// not a second came, so two losses foretell a third no better than one
// does; under episodes, two losses within the minute mostly mean an
// episode, one may be isolated, so a trigger of two is the more precise.
// A node serving an output every 20 s for 4,000 hours, 2% of them lost
// on the mean (under bursts that is the rate before a loss raises it).
func TestEpisodesMakeTwoLossesForetellMoreThanOne(t *testing.T) {
	burst := IntermediateLossConfig{Probability: 0.02, Burst: true, Mode: LossLost}
	b1, _ := precision(burst, 1, 20*time.Second, 4000*time.Hour)
	b2, _ := precision(burst, 2, 20*time.Second, 4000*time.Hour)
	episodes := IntermediateLossConfig{Probability: 0.02, Episodes: 0.025, Mode: LossLost}
	e1, n1 := precision(episodes, 1, 20*time.Second, 4000*time.Hour)
	e2, _ := precision(episodes, 2, 20*time.Second, 4000*time.Hour)
	t.Logf("burst %.3f %.3f episodes %.3f %.3f lost %d", b1, b2, e1, e2, n1)
	assert.InDelta(t, 0.02*4000*3600/20, float64(n1), 0.1*0.02*4000*3600/20, "the mean stays 2%")
	assert.Greater(t, e2-e1, 0.1, "two losses foretell a third better than one")
	assert.InDelta(t, b1, b2, 0.03, "under bursts they foretell it alike")
}

// Episodes are off unless named: a table without them hashes (JSON) and
// resolves (TOML) as before the key existed.
func TestUnsetEpisodesAreNotWritten(t *testing.T) {
	c := DefaultIntermediateLoss()
	assertNotWritten(t, c, "Episodes", "episodes")
	c.Episodes, c.Burst = 0.025, false
	assert.Contains(t, tomlOf(t, c), "episodes = 0.025")
}

// Episodes take a share of a node's time under 1/20, and replace the
// burst after a loss rather than add to it.
func TestEpisodesValidate(t *testing.T) {
	var errs Checks
	c := IntermediateLossConfig{Probability: 0.02, Burst: true, Episodes: 0.05, Mode: LossLost}
	c.Validate(&errs)
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], "intermediate_loss.episodes")
	assert.ErrorContains(t, errs[1], "intermediate_loss.burst")
	errs = nil
	c.Episodes, c.Burst = 0.025, false
	c.Validate(&errs)
	assert.Empty(t, errs)
}
