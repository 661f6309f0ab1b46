package cluster

import (
	"slices"

	"clusteremu/actors"
	"clusteremu/policies/sched"
)

// RecomputeMetricNames are the metrics of a run with an
// [intermediate_loss] table or tasks.protect_outputs; a run with neither
// has none of them.
// recompute.precision is the share of suspicions proved right (a loss on
// the node within tasks.recompute_window after); flows.protect_share the
// bytes copied to protect outputs over the shuffle's bytes.
var RecomputeMetricNames = []string{
	actors.MetricOutputsLost, actors.MetricRecomputed, actors.MetricRecomputedSuspected, actors.MetricRecomputeAvoided,
	actors.MetricNodesSuspected, actors.MetricSuspicionsRight, "recompute.precision",
	actors.MetricProtectBytes, "flows.bytes.shuffle", "flows.protect_share",
}

func init() {
	MetricNames = append(MetricNames, RecomputeMetricNames...)
	slices.Sort(MetricNames)
}

// countRecomputes has the recorder keep the shuffle's bytes, for a run
// with [intermediate_loss] or tasks.protect_outputs.
func (r *recorder) countRecomputes() { r.recompute = true }

// recomputeFlow counts what a reduce's fetch delivered: a reduce reads
// nothing but the map outputs it fetches.
func (r *recorder) recomputeFlow(rec actors.FlowRecord) {
	if rec.Key.Owner == actors.OwnerAttempt && rec.Key.Attempt.Kind == sched.Reduce && (rec.Transfer == actors.DiskRead || rec.Transfer == actors.RackFetch) {
		r.counters["flows.bytes.shuffle"] += rec.Delivered
	}
}

// summarizeRecomputes sets the metrics of a run with [intermediate_loss]
// or tasks.protect_outputs.
func summarizeRecomputes(s Summary, res *Records) {
	for _, name := range RecomputeMetricNames {
		s[name] = float64(res.Counters[name])
	}
	delete(s, "recompute.precision")
	delete(s, "flows.protect_share")
	if n := s[actors.MetricNodesSuspected]; n > 0 {
		s["recompute.precision"] = s[actors.MetricSuspicionsRight] / n
	}
	if b := s["flows.bytes.shuffle"]; b > 0 {
		s["flows.protect_share"] = s[actors.MetricProtectBytes] / b
	}
}
