package cluster

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"clusteremu/actors"
)

// ReplicationMetricNames are the metrics of a run with a [replication]
// table; a run without one has none of them.
var ReplicationMetricNames = []string{
	actors.MetricReplicationBytes, actors.MetricReplicationBytesRaw, "replication.overhead",
	actors.MetricReplicasAdded, actors.MetricReplicasRemoved, "storage.overhead",
	actors.MetricHeldBytes, actors.MetricNodePeakBytes,
}

func init() {
	MetricNames = append(MetricNames, ReplicationMetricNames...)
	slices.Sort(MetricNames)
}

// ReplicationTotals is what a run's replica copies moved beside its
// tasks: the spans the copies ran, from a copy's first stage (its source's
// disk read) to its last (the destination's write), merged, and the
// network bytes the tasks' flows carried within them. A copy's whole life
// counts, not its transfer's alone: a codec that shrinks the wire bytes
// by a factor but takes minutes of CPU on each side moves its few bytes
// over a long span, and the tasks' bytes of that span are what they add to.
type ReplicationTotals struct {
	// Windows are the spans when a copy ran, disjoint and in order.
	Windows []Span
	// TaskBytes are the bytes the attempts' network flows carried within
	// the windows, each flow's bytes spread evenly over its life.
	TaskBytes float64
	// Changes are the replicas the epochs added and removed, in the
	// order they were.
	Changes []actors.ReplicaChange
}

// Span is an interval of emulated time.
type Span struct{ From, To time.Duration }

// replTally collects the flows replication.overhead is measured from.
type replTally struct {
	copies  map[int64]Span // each copy's life, by copy ID, over its stages
	tasks   []taskFlow
	changes []actors.ReplicaChange
}

type taskFlow struct {
	span  Span
	bytes int64
}

// countReplication has the recorder keep the spans of copies and tasks'
// network flows, for a run with [replication].
func (r *recorder) countReplication() { r.repl = &replTally{} }

// flow keeps what replication.overhead needs of an ended flow: any
// stage of a copy widens the copy's life; a task's flow counts when it
// crossed the network.
func (t *replTally) flow(rec actors.FlowRecord) {
	sp := Span{rec.Start, rec.End}
	switch {
	case rec.Key.Owner == actors.OwnerReplication:
		if t.copies == nil {
			t.copies = make(map[int64]Span)
		}
		if life, ok := t.copies[rec.Key.ID]; ok {
			sp = Span{min(life.From, sp.From), max(life.To, sp.To)}
		}
		t.copies[rec.Key.ID] = sp
	case rec.Key.Owner == actors.OwnerAttempt && rec.Src != rec.Dst && rec.Transfer != actors.Compute && rec.Delivered > 0:
		t.tasks = append(t.tasks, taskFlow{sp, rec.Delivered})
	}
}

// totals merges the copies' spans and measures the tasks' bytes within.
func (t *replTally) totals() *ReplicationTotals {
	spans := slices.Collect(maps.Values(t.copies))
	slices.SortFunc(spans, func(a, b Span) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	var merged []Span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.From <= merged[n-1].To {
			merged[n-1].To = max(merged[n-1].To, s.To)
			continue
		}
		merged = append(merged, s)
	}
	out := &ReplicationTotals{Windows: merged, Changes: t.changes}
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
// the spans the copies ran, each from its first stage to its last) and
// storage.overhead (the extra replicas' bytes over the bytes stored at
// base replication, at the last epoch), storage.held_bytes (removed
// replicas' bytes still on the disks at the last epoch) and
// storage.node_peak_bytes (the most one disk held).
func summarizeReplication(s Summary, res *Records) {
	for _, name := range []string{actors.MetricReplicationBytes, actors.MetricReplicationBytesRaw,
		actors.MetricReplicasAdded, actors.MetricReplicasRemoved, actors.MetricHeldBytes, actors.MetricNodePeakBytes} {
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
