package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"clusteremu/cluster"
)

// Expectation is an [[expect]] block: a run passes when the metric
// compares to the value as the operator says. Values are numbers, or
// durations ("90s") for time metrics, which are compared in seconds.
//
//	[[expect]]
//	metric = "jobs.response_time.p95"
//	op = "<"
//	value = "90s"
type Expectation struct {
	Metric string `toml:"metric"`
	Op     string `toml:"op"`
	Value  any    `toml:"value"`
}

var ops = []string{"<", "<=", ">", ">=", "==", "!="}

// Validate checks the metric name, the operator and the value.
func (e *Expectation) Validate() error {
	var errs checks
	errs.add(!slices.Contains(cluster.MetricNames, e.Metric),
		Invalid("metric", e.Metric, "must be one of %s", strings.Join(cluster.MetricNames, ", ")))
	errs.add(!slices.Contains(ops, e.Op), Invalid("op", e.Op, "must be one of %s", strings.Join(ops, " ")))
	if _, err := e.number(); err != nil {
		errs = append(errs, Invalid("value", e.Value, "%v", err))
	}
	return errs.err()
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
		d, err := ParseDuration(v)
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
	want, err := e.number()
	if err != nil {
		return err
	}
	got, ok := s[e.Metric]
	if !ok {
		return fmt.Errorf("expect %s %s %v: the run measured no %s", e.Metric, e.Op, e.Value, e.Metric)
	}
	pass := map[string]bool{
		"<": got < want, "<=": got <= want, ">": got > want, ">=": got >= want, "==": got == want, "!=": got != want,
	}[e.Op]
	if !pass {
		return fmt.Errorf("expect %s %s %v: measured %.6g", e.Metric, e.Op, e.Value, got)
	}
	return nil
}
