package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/actors"
	"clusteremu/policies/sched"
)

// replication.overhead's denominator: the copies' transfers merge into
// windows, and each task network flow counts the share of its life
// inside them; local flows, computes and re-replication count nothing.
func TestReplicationWindows(t *testing.T) {
	s := time.Second
	var tally replTally
	copyFlow := func(from, to time.Duration) actors.FlowRecord {
		return actors.FlowRecord{Key: actors.FlowKey{Owner: actors.OwnerReplication}, Src: 0, Dst: 1,
			Transfer: actors.NetTransfer, Start: from, End: to, Delivered: 10}
	}
	task := func(from, to time.Duration, bytes int64) actors.FlowRecord {
		return actors.FlowRecord{Key: actors.FlowKey{Attempt: sched.Attempt{Job: 1}}, Src: 2, Dst: 3,
			Transfer: actors.DiskRead, Start: from, End: to, Delivered: bytes}
	}
	for _, r := range []actors.FlowRecord{
		copyFlow(10*s, 20*s), copyFlow(15*s, 30*s), copyFlow(50*s, 60*s),
		task(0, 20*s, 100),    // half inside [10, 30]: 50
		task(25*s, 55*s, 300), // 5 s of [10, 30] and 5 of [50, 60]: 100
		task(35*s, 45*s, 999), // between the windows: 0
		task(55*s, 55*s, 7),   // an instant inside: 7
		{Key: actors.FlowKey{Attempt: sched.Attempt{Job: 1}}, Src: 4, Dst: 4, Transfer: actors.DiskRead, Start: 10 * s, End: 20 * s, Delivered: 1000},
		{Key: actors.FlowKey{Owner: actors.OwnerReReplication}, Src: 0, Dst: 1, Transfer: actors.DiskCopy, Start: 10 * s, End: 20 * s, Delivered: 1000},
	} {
		tally.flow(r)
	}
	got := tally.totals()
	assert.Equal(t, []Span{{10 * s, 30 * s}, {50 * s, 60 * s}}, got.Windows)
	assert.InDelta(t, 50+100+7, got.TaskBytes, 1e-9)
}
