package straggler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLossProbabilityHotNodesTakeHalf(t *testing.T) {
	// p = 0.01 with 5% of nodes hot: a hot node loses 0.01·0.5/0.05 =
	// 0.1, another 0.01·0.5/0.95 ≈ 0.00526; the mean over the nodes is
	// 0.05·0.1 + 0.95·0.00526 = 0.01, half of it on the hot nodes.
	for _, tc := range []struct {
		p, hot       float64
		isHot, burst bool
		want         float64
	}{
		{0.01, 0, false, false, 0.01},
		{0.01, 0.05, true, false, 0.1},
		{0.01, 0.05, false, false, 0.005 / 0.95},
		{0.01, 0, false, true, 0.2},             // ×20 within a minute of a loss
		{0.01, 0.05, true, true, 1},             // 0.1 × 20 is past certain
		{0, 0.05, true, true, 0},                // no loss at all
		{0.01, 1, true, false, 0.01},            // every node hot: no node apart
		{0.002, 0.05, false, true, 0.02 / 0.95}, // 0.002·0.5/0.95·20
	} {
		assert.InDelta(t, tc.want, LossProbability(tc.p, tc.hot, tc.isHot, tc.burst), 1e-12, "%+v", tc)
	}
	hot := 0.05
	mean := 0.05*LossProbability(0.01, hot, true, false) + 0.95*LossProbability(0.01, hot, false, false)
	assert.InDelta(t, 0.01, mean, 1e-12, "the mean over the nodes is p")
}

// A node 2.5% of its time in episodes loses 20 times its mean in them
// and (1 − 0.5)/0.975 ≈ 0.513 of it outside, so half its losses come in
// episodes and its mean over time stays its probability.
func TestEpisodeFactorKeepsTheMean(t *testing.T) {
	assert.Equal(t, float64(BurstFactor), EpisodeFactor(0.025, true))
	assert.InDelta(t, 0.5/0.975, EpisodeFactor(0.025, false), 1e-12)
	for _, share := range []float64{0, 0.01, 0.025, 0.049} {
		mean := share*EpisodeFactor(share, true) + (1-share)*EpisodeFactor(share, false)
		assert.InDelta(t, 1, mean, 1e-12, "share %v", share)
	}
}

func TestHotNodes(t *testing.T) {
	count := func(h []bool) (n int) {
		for _, b := range h {
			if b {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 8, count(HotNodes(150, 0.05, 7)), "⌈7.5⌉ of 150 nodes")
	assert.Equal(t, 1, count(HotNodes(3, 0.05, 7)), "at least one when any")
	assert.Equal(t, 0, count(HotNodes(150, 0, 7)))
	assert.Equal(t, HotNodes(150, 0.05, 7), HotNodes(150, 0.05, 7), "the same seed, the same nodes")
	assert.NotEqual(t, HotNodes(150, 0.05, 7), HotNodes(150, 0.05, 8))
}

func TestSuspectedAsTheNotesTrigger(t *testing.T) {
	// The notes' §2.2 loop: a node is suspected when trigger losses fall
	// within the last recompute_window (60 s).
	s := func(d float64) time.Duration { return time.Duration(d * float64(time.Second)) }
	w := time.Minute
	for _, tc := range []struct {
		name    string
		losses  []time.Duration
		now     time.Duration
		trigger int
		want    bool
	}{
		{"one loss, trigger 1", []time.Duration{s(10)}, s(10), 1, true},
		{"one loss, trigger 2", []time.Duration{s(10)}, s(10), 2, false},
		{"two within a minute", []time.Duration{s(10), s(69.9)}, s(69.9), 2, true},
		{"two a minute apart", []time.Duration{s(10), s(70)}, s(70), 2, false},
		{"the older fell out", []time.Duration{s(10), s(40)}, s(100.5), 2, false},
		{"three, two recent", []time.Duration{s(5), s(80), s(120)}, s(120), 2, true},
		{"trigger 0 never", []time.Duration{s(1)}, s(1), 0, false},
	} {
		assert.Equal(t, tc.want, Suspected(tc.losses, tc.now, w, tc.trigger), tc.name)
	}
}

func TestRecentLossesKeepOneWindow(t *testing.T) {
	s := func(d int) time.Duration { return time.Duration(d) * time.Second }
	got := RecentLosses([]time.Duration{s(1), s(30), s(61)}, s(90), time.Minute)
	assert.Equal(t, []time.Duration{s(61), s(90)}, got, "30 s is at 90 − 60 and falls out")
}

func TestShouldReplicateAsTheNotesRule(t *testing.T) {
	// A 100 MB output on a 125 MB/s NIC copies in 0.8 s. A map of 60 s
	// on a node losing 2% of its outputs costs 1.2 s expected to redo:
	// copy. At 1% it costs 0.6 s: do not. The tokens must cover it.
	mb := int64(100e6)
	for _, tc := range []struct {
		name   string
		r      float64
		tRedo  time.Duration
		tokens float64
		want   bool
	}{
		{"worth it", 0.02, time.Minute, 200e6, true},
		{"cheaper to redo", 0.01, time.Minute, 200e6, false},
		{"no tokens", 0.02, time.Minute, 99e6, false},
		{"exactly the cost", 0.8 / 60, time.Minute, 200e6, false},
		{"a long task on a safe node", 0.001, time.Hour, 200e6, true},
	} {
		assert.Equal(t, tc.want, ShouldReplicate(mb, 125e6, tc.r, tc.tRedo, tc.tokens), tc.name)
	}
	assert.False(t, ShouldReplicate(0, 125e6, 1, time.Hour, 1e9), "nothing to copy")
}

func TestLossEWMA(t *testing.T) {
	r := PriorLoss
	for range 1000 {
		r = LossEWMA(r, false)
	}
	assert.Less(t, r, 1e-6, "a node that loses nothing drifts to 0")
	assert.InDelta(t, 0.99*0.5+0.01, LossEWMA(0.5, true), 1e-12)
}
