package cluster

import (
	"cmp"
	"slices"
	"time"

	"clusteremu/actors"
)

// ReplicationMetricNames are the metrics of a run with a [replication]
// table; a run without one has none of them.
var ReplicationMetricNames = []string{
	actors.MetricReplicationBytes, actors.MetricReplicationBytesRaw, "replication.overhead",
	actors.MetricReplicasAdded, actors.MetricReplicasRemoved, "storage.overhead",
}

func init() {
	MetricNames = append(MetricNames, ReplicationMetricNames...)
	slices.Sort(MetricNames)
}

// ReplicationTotals is what a run's replica copies moved beside its
// tasks: the instants the copies' transfers were on the network, merged,
// and the network bytes the tasks' flows carried within them.
type ReplicationTotals struct {
	// Windows are the spans when a copy's transfer ran, disjoint and in
	// order.
	Windows []Span
	// TaskBytes are the bytes the attempts' network flows carried within
	// the windows, each flow's bytes spread evenly over its life.
	TaskBytes float64
}

// Span is an interval of emulated time.
type Span struct{ From, To time.Duration }

// replTally collects the flows replication.overhead is measured from.
type replTally struct {
	copies []Span
	tasks  []taskFlow
}

type taskFlow struct {
	span  Span
	bytes int64
}

// countReplication has the recorder keep the spans of copies and tasks'
// network flows, for a run with [replication].
func (r *recorder) countReplication() { r.repl = &replTally{} }

// replFlow keeps what replication.overhead needs of an ended flow.
func (t *replTally) flow(rec actors.FlowRecord) {
	if rec.Src == rec.Dst || rec.Transfer == actors.Compute || rec.Delivered == 0 {
		return
	}
	sp := Span{rec.Start, rec.End}
	switch rec.Key.Owner {
	case actors.OwnerReplication:
		t.copies = append(t.copies, sp)
	case actors.OwnerAttempt:
		t.tasks = append(t.tasks, taskFlow{sp, rec.Delivered})
	}
}

// totals merges the copies' spans and measures the tasks' bytes within.
func (t *replTally) totals() *ReplicationTotals {
	spans := slices.Clone(t.copies)
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	var merged []Span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.From <= merged[n-1].To {
			merged[n-1].To = max(merged[n-1].To, s.To)
			continue
		}
		merged = append(merged, s)
	}
	out := &ReplicationTotals{Windows: merged}
	for _, f := range t.tasks {
		out.TaskBytes += f.within(merged)
	}
	return out
}

// within is the share of the flow's bytes carried inside the windows.
func (f taskFlow) within(windows []Span) float64 {
	i, _ := slices.BinarySearchFunc(windows, f.span.From, func(w Span, t time.Duration) int {
		return cmp.Compare(w.To, t)
	})
	life := f.span.To - f.span.From
	var in time.Duration
	for ; i < len(windows) && windows[i].From <= f.span.To; i++ {
		w := windows[i]
		if life == 0 {
			return float64(f.bytes) // an instant inside a window
		}
		in += min(w.To, f.span.To) - max(w.From, f.span.From)
	}
	if life == 0 {
		return 0
	}
	return float64(f.bytes) * float64(in) / float64(life)
}

// summarizeReplication adds a replicated run's metrics: the copies'
// bytes on the network and raw, the replicas added and removed,
// replication.overhead (the copies' network bytes over the tasks' within
// the spans the copies ran) and storage.overhead (the extra replicas'
// bytes over the bytes stored at base replication, at the last epoch).
func summarizeReplication(s Summary, res *Records) {
	for _, name := range []string{actors.MetricReplicationBytes, actors.MetricReplicationBytesRaw,
		actors.MetricReplicasAdded, actors.MetricReplicasRemoved} {
		s[name] = float64(res.Counters[name])
	}
	s["replication.overhead"] = 0
	if t := res.Replication.TaskBytes; t > 0 {
		s["replication.overhead"] = float64(res.Counters[actors.MetricReplicationBytes]) / t
	}
	s["storage.overhead"] = 0
	if stored := res.Counters[actors.MetricStoredBytes]; stored > 0 {
		s["storage.overhead"] = float64(res.Counters[actors.MetricExtraBytes]) / float64(stored)
	}
}
