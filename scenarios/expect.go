package scenarios

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"clusteremu/cluster"
	"clusteremu/units"
)

// Expectation is an [[expect]] block: a run passes when the metric
// compares to the value as the operator says. Values are numbers, or
// durations ("90s") for time metrics, which are compared in seconds.
// The operator "~" passes within ± tolerance.
//
//	[[expect]]
//	metric = "jobs.response_time.p95"
//	op = "<"
//	value = "90s"
//
// A paper reproduction also names the run and the figure it checks: set
// lists key=value overrides (as --set takes them) for the run the metric
// is measured on; baseline, when present, makes the measured value the
// ratio of that run's metric to the metric of the run with the baseline's
// overrides (baseline = [] is the scenario as written); paper quotes the
// paper's figure; run names the run in the rows. `clusteremu run` checks
// only expectations without set or baseline; `clusteremu reproduce` runs
// every variant.
//
//	[[expect]]
//	set = ["scheduler.delay=true"]
//	baseline = ["scheduler.delay=false"]
//	metric = "jobs.throughput"
//	op = "~"
//	value = 1.7
//	tolerance = 0.3
//	paper = "1.7× (§6.2.1)"
//
// saved_from, beside baseline, names a third run (overrides as set) that
// both save from, and makes the measured value the ratio of the savings:
// (from − run) / (from − baseline) of the metric, how many times the
// run's saving is the baseline's ("a policy gains 2× what its variant
// does" against the run with no policy).
type Expectation struct {
	Metric    string   `toml:"metric"`
	Op        string   `toml:"op"`
	Value     any      `toml:"value"`
	Tolerance float64  `toml:"tolerance"`
	Set       []string `toml:"set"`
	Baseline  []string `toml:"baseline"`
	// BaselineMetric is the baseline run's metric, when not Metric.
	BaselineMetric string `toml:"baseline_metric"`
	// SavedFrom is the run the savings of a savings ratio are measured
	// from; nil for a plain ratio.
	SavedFrom []string `toml:"saved_from"`
	Paper     string   `toml:"paper"`
	// Run names the run in reproduce's rows; "" shows its overrides.
	Run string `toml:"run"`
	// Reduced is how the row is checked in the reproduction's reduced
	// form, when not as in the full one.
	Reduced *ReducedRow `toml:"reduced"`
	// Known is why the row is known to fail: reproduce prints it as
	// "FAIL (known)" with this reason and does not fail for it, and as
	// "pass (was known failing)" when it holds. "" expects it to hold.
	Known string `toml:"known"`
}

// ReducedRow is how a reproduction's row is checked in its reduced form
// (`clusteremu reproduce --reduced`, which CI runs) when the smaller run
// cannot hold it as the full one does: skipped, or with its own operator,
// value or tolerance (each left out keeps the row's), or with overrides
// of its own, applied after the row's set, baseline and saved_from (a
// row whose set sizes the workload sizes it anew for the reduced form).
// Why says why, and reproduce prints it beside the row.
//
//	reduced = { value = 1.0, why = "200 jobs on 20 nodes: FBQ gains less" }
//	reduced = { skip = true, why = "fails in the full form too" }
//	reduced = { set = ["workload.synthetic[0].jobs=400"], tolerance = 1.6, why = "a tenth of the jobs" }
type ReducedRow struct {
	Skip      bool     `toml:"skip"`
	Op        string   `toml:"op"`
	Value     any      `toml:"value"`
	Tolerance float64  `toml:"tolerance"`
	Set       []string `toml:"set"`
	Why       string   `toml:"why"`
}

// ReducedForm is the row as the reduced form checks it, and whether the
// reduced form skips it.
func (e Expectation) ReducedForm() (Expectation, bool) {
	r := e.Reduced
	if r == nil {
		return e, false
	}
	if r.Op != "" {
		e.Op = r.Op
	}
	if r.Value != nil {
		e.Value = r.Value
	}
	if r.Tolerance != 0 || r.Op != "" {
		e.Tolerance = r.Tolerance
	}
	if len(r.Set) > 0 {
		e.Set = append(slices.Clone(e.Set), r.Set...)
		if e.Baseline != nil {
			e.Baseline = append(slices.Clone(e.Baseline), r.Set...)
		}
		if e.SavedFrom != nil {
			e.SavedFrom = append(slices.Clone(e.SavedFrom), r.Set...)
		}
	}
	return e, r.Skip
}

func (e *Expectation) validateReduced() []error {
	r := e.Reduced
	if r == nil {
		return nil
	}
	var errs checks
	errs.add(r.Why == "", Missing("reduced.why", "say why the reduced form checks the row otherwise"))
	if r.Skip {
		errs.add(r.Op != "" || r.Value != nil || r.Tolerance != 0 || r.Set != nil, Invalid("reduced.skip", true, "a skipped row takes no op, value, tolerance or set"))
		return errs
	}
	errs.add(r.Op == "" && r.Value == nil && r.Tolerance == 0 && r.Set == nil, Invalid("reduced", r.Why, "give skip = true, or the op, value, tolerance or set the reduced form checks"))
	for i, set := range r.Set {
		k, _, ok := strings.Cut(set, "=")
		errs.add(!ok || k == "", Invalid(fmt.Sprintf("reduced.set[%d]", i), set, "must be key=value"))
	}
	form, _ := e.ReducedForm()
	form.Reduced = nil
	for _, err := range flatten(form.Validate()) {
		// The row's own keys are reported for the row; only what the
		// reduced form changes is reported for it.
		var fe *FieldError
		if errors.As(err, &fe) && slices.Contains([]string{"op", "value", "tolerance"}, fe.Key) &&
			(fe.Key != "op" || r.Op != "") && (fe.Key != "value" || r.Value != nil) {
			errs = append(errs, Prefix("reduced", err))
		}
	}
	return errs
}

var ops = []string{"<", "<=", ">", ">=", "==", "!=", "~"}

// Plain reports whether the expectation is checked on the scenario's own
// run: it names no overrides and no baseline.
func (e *Expectation) Plain() bool { return len(e.Set) == 0 && e.Baseline == nil }

// Validate checks the metric name, the operator and the value.
func (e *Expectation) Validate() error {
	var errs checks
	errs.add(!cluster.ValidMetric(e.Metric), e.metricError("metric", e.Metric))
	if e.BaselineMetric != "" {
		errs.add(!cluster.ValidMetric(e.BaselineMetric), e.metricError("baseline_metric", e.BaselineMetric))
		errs.add(e.Baseline == nil, Invalid("baseline_metric", e.BaselineMetric, "applies only with baseline: the baseline run's metric the ratio divides by"))
	}
	if e.SavedFrom != nil {
		errs.add(e.Baseline == nil, Invalid("saved_from", e.SavedFrom, "applies only with baseline: the run both the row's run and its baseline save from"))
		errs.add(e.BaselineMetric != "", Invalid("saved_from", e.SavedFrom, "compares savings of one metric: leave out baseline_metric"))
	}
	errs.add(!slices.Contains(ops, e.Op), Invalid("op", e.Op, "must be one of %s", strings.Join(ops, " ")))
	if _, err := e.number(); err != nil {
		errs = append(errs, Invalid("value", e.Value, "%v", err))
	} else if cluster.ValidMetric(e.Metric) {
		errs = append(errs, e.fits())
	}
	errs.add(e.Op == "~" && !(e.Tolerance > 0), Invalid("tolerance", e.Tolerance, `must be > 0 with op = "~"`))
	errs.add(e.Op != "~" && e.Tolerance != 0, Invalid("tolerance", e.Tolerance, `applies only to op = "~"`))
	errs = append(errs, e.validateReduced()...)
	errs.add(e.Known != "" && strings.TrimSpace(e.Known) == "", Invalid("known", e.Known, "must say why the row fails, or be left out"))
	for i, set := range slices.Concat(e.Set, e.Baseline, e.SavedFrom) {
		key := fmt.Sprintf("set[%d]", i)
		switch {
		case i >= len(e.Set)+len(e.Baseline):
			key = fmt.Sprintf("saved_from[%d]", i-len(e.Set)-len(e.Baseline))
		case i >= len(e.Set):
			key = fmt.Sprintf("baseline[%d]", i-len(e.Set))
		}
		k, _, ok := strings.Cut(set, "=")
		errs.add(!ok || k == "", Invalid(key, set, "must be key=value"))
	}
	return errs.err()
}

// metricError says why name, the value of key, is no metric: a size bin
// off the ladder or a partition out of range says so; any other name
// lists the metrics.
func (e *Expectation) metricError(key, name string) *FieldError {
	if strings.HasPrefix(name, cluster.SizeMetrics) || strings.HasPrefix(name, cluster.PartitionMetrics) {
		return Invalid(key, name, "%v", cluster.MetricError(name))
	}
	return Invalid(key, name, "must be one of %s, a jobs metric of one pool (%s<pool>.jobs.succeeded) or of one size bin (%s<bin>.jobs.slowdown.mean), or a partition's (%s<k>.work)",
		strings.Join(cluster.MetricNames, ", "), cluster.PoolMetrics, cluster.SizeMetrics, cluster.PartitionMetrics)
}

// fits checks that the value is of the metric's kind: a duration only
// for a time, a fraction within [0, 1], a whole count. A ratio to a
// baseline is a plain number whatever the metric.
func (e *Expectation) fits() error {
	unit := cluster.MetricUnit(e.Metric)
	_, isText := e.Value.(string)
	v, _ := e.number()
	switch {
	case e.Baseline != nil:
		if isText {
			return Invalid("value", e.Value, "compares %s with its baseline's: a ratio, a plain number", e.Metric)
		}
	case isText && unit != cluster.UnitSeconds:
		return Invalid("value", e.Value, "%s is a %s, not a time: give a number", e.Metric, unit)
	case unit == cluster.UnitFraction && (v < 0 || v > 1):
		return Invalid("value", e.Value, "%s is a fraction from 0 to 1 (0.95, not 95)", e.Metric)
	case unit == cluster.UnitCount && (v < 0 || v != math.Trunc(v)) && e.Op != "~":
		return Invalid("value", e.Value, "%s counts: give a whole number ≥ 0", e.Metric)
	}
	return nil
}

// number is the value as a float: a TOML number, or a duration in seconds.
func (e *Expectation) number() (float64, error) {
	switch v := e.Value.(type) {
	case int64:
		return float64(v), nil
	case float64:
		if math.IsNaN(v) {
			return 0, fmt.Errorf("must be a number")
		}
		return v, nil
	case string:
		d, err := units.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("must be a number or a duration like 90s")
		}
		return d.Std().Seconds(), nil
	}
	return 0, fmt.Errorf("must be a number or a duration like 90s")
}

// Check compares the summary's metric with the value; the error says what
// was measured. A metric the run did not produce fails.
func (e *Expectation) Check(s cluster.Summary) error {
	got, ok := s[e.Metric]
	if !ok {
		return fmt.Errorf("expect %s: the run measured no %s", e, e.Metric)
	}
	return e.Compare(got)
}

// CheckRatio compares the metric of run over that of the baseline run.
func (e *Expectation) CheckRatio(run, baseline cluster.Summary) (float64, error) {
	over := e.Metric
	if e.BaselineMetric != "" {
		over = e.BaselineMetric
	}
	a, ok := run[e.Metric]
	b, okb := baseline[over]
	if !ok || !okb || b == 0 {
		return math.NaN(), fmt.Errorf("expect %s: no %s ratio (run %v, baseline %s %v)", e, e.Metric, a, over, b)
	}
	return a / b, e.Compare(a / b)
}

// CheckSavings compares the run's saving from the from run over the
// baseline's, (from − run) / (from − baseline) of the metric.
func (e *Expectation) CheckSavings(run, baseline, from cluster.Summary) (float64, error) {
	a, ok := run[e.Metric]
	b, okb := baseline[e.Metric]
	f, okf := from[e.Metric]
	if !ok || !okb || !okf || f == b {
		return math.NaN(), fmt.Errorf("expect %s: no %s savings ratio (run %v, baseline %v, from %v)", e, e.Metric, a, b, f)
	}
	r := (f - a) / (f - b)
	return r, e.Compare(r)
}

// Compare checks a measured value; the error says what was measured.
func (e *Expectation) Compare(got float64) error {
	want, err := e.number()
	if err != nil {
		return err
	}
	pass := map[string]bool{
		"<": got < want, "<=": got <= want, ">": got > want, ">=": got >= want, "==": got == want, "!=": got != want,
		"~": math.Abs(got-want) <= e.Tolerance,
	}[e.Op]
	if !pass {
		return fmt.Errorf("expect %s: measured %.6g", e, got)
	}
	return nil
}

// String is the expectation as "metric op value" ("± tolerance" for ~).
func (e *Expectation) String() string {
	s := fmt.Sprintf("%s %s %v", e.Metric, e.Op, e.Value)
	if e.Op == "~" {
		s += fmt.Sprintf(" ± %g", e.Tolerance)
	}
	return s
}
