package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/units"
)

func TestHeartbeatPeriodScalesWithTheClusterAsHadoop1Does(t *testing.T) {
	h := HeartbeatConfig{Interval: units.Duration(3 * time.Second)}
	assert.Equal(t, h.Interval, h.Period(10_000), "per_second = 0: no scaling")
	h.PerSecond = 100
	for _, c := range []struct {
		nodes int
		want  time.Duration
	}{
		{40, 3 * time.Second},       // ⌈0.4⌉ = 1 s, below the interval
		{300, 3 * time.Second},      // exactly the interval
		{301, 4 * time.Second},      // ⌈3.01⌉
		{600, 6 * time.Second},      // the FB-2009 cluster
		{10_000, 100 * time.Second}, // 100 heartbeats a second
	} {
		assert.Equal(t, units.Duration(c.want), h.Period(c.nodes), "%d nodes", c.nodes)
	}
}
