package sched

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"clusteremu/policies/registry"
	"clusteremu/units"
)

// Params is a policy's parameters: a pointer to a struct whose fields
// carry toml tags, which the scenario's strict decoder fills from
// [scheduler] (every key but name and tick) over the policy's defaults.
// Durations are units.Duration, rates units.Rate and sizes units.Bytes, so
// they decode and print as a scenario writes them. A key left out keeps
// its default; a field whose absence means something else than a value
// (a pool's own waits) is a pointer.
type Params interface {
	// Validate reports every invalid value at once: a *ParamError each,
	// joined with errors.Join.
	Validate() error
}

// ParamError is one invalid parameter. Key is its path inside
// [scheduler] ("t1", "pools[2].weight"); Value is nil when the key is
// missing.
type ParamError struct {
	Key   string
	Value any
	Msg   string
}

// Error formats e as `scheduler.<Key> = <Value>: <Msg>`, the value as a
// scenario writes it, or `scheduler.<Key>: <Msg>` without one.
func (e *ParamError) Error() string {
	if e.Value == nil {
		return fmt.Sprintf("scheduler.%s: %s", e.Key, e.Msg)
	}
	return fmt.Sprintf("scheduler.%s = %s: %s", e.Key, tomlValue(e.Value), e.Msg)
}

// tomlValue writes v as TOML does: strings and quantities with units
// quoted, lists in brackets.
func tomlValue(v any) string {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = tomlValue(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case fmt.Stringer:
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v)
}

// paramChecks collects the ParamErrors of a Validate.
type paramChecks []error

// check records key = v as invalid, with what is allowed, when bad.
func (c *paramChecks) check(bad bool, key string, v any, msg string) {
	if bad {
		*c = append(*c, &ParamError{Key: key, Value: v, Msg: msg})
	}
}

// duration checks a span that must be ≥ 0.
func (c *paramChecks) duration(key string, d units.Duration) {
	c.check(d < 0, key, d, `must be a duration ≥ 0 like "15s"`)
}

// number checks a number in [lo, hi], which NaN is not.
func (c *paramChecks) number(key string, x, lo, hi float64) {
	c.check(!(x >= lo && x <= hi), key, x, fmt.Sprintf("must be a number in [%g, %g]", lo, hi))
}

// count checks a whole number of slots.
func (c *paramChecks) count(key string, n int) {
	c.check(n < 0 || n > math.MaxInt32, key, n, fmt.Sprintf("must be a whole number in [0, %d]", math.MaxInt32))
}

func (c paramChecks) err() error { return errors.Join(c...) }

// policies holds the scheduling policies by name.
var policies = registry.New[Params, Shape, Policy]("scheduler", func(name string, known []string) error {
	return &ParamError{Key: "name", Value: name, Msg: "must be one of " + strings.Join(known, ", ")}
})

func init() {
	Register("fifo", DefaultFIFOParams, func(p *FIFOParams) (Policy, error) { return NewFIFOWithDelay(p.Waits()), nil })
	Register("fair", DefaultFairParams, func(p *FairParams) (Policy, error) { return NewFair(p.Config()), nil })
}

// Register makes a policy available to scenarios under name: defaults
// returns a new P holding its default parameters on every call (a scenario
// decodes [scheduler] over it), and build makes the policy from valid
// parameters. Policies defined outside this package, as the race
// example's, register from an init function. Register panics when the
// name is taken.
func Register[P Params](name string, defaults func() P, build func(P) (Policy, error)) {
	RegisterShaped(name, defaults, func(p P, _ Shape) (Policy, error) { return build(p) })
}

// RegisterShaped is Register for a policy that needs the cluster's shape
// when it is built, as one partitioning the slots between queues does.
func RegisterShaped[P Params](name string, defaults func() P, build func(P, Shape) (Policy, error)) {
	registry.Add(policies, name, defaults, build)
}

// Names lists the registered policies, sorted.
func Names() []string { return policies.Names() }

// NewParams returns the named policy's default parameters, a new value on
// every call. An unknown name is a *ParamError for the key name.
func NewParams(name string) (Params, error) { return policies.Defaults(name) }

// New builds the named policy for a cluster of the given shape with the
// parameters p, which must be nil (the policy's defaults) or of the type
// the policy registered. Invalid parameters come back as Validate reports
// them; an unknown name as a *ParamError for the key name.
func New(name string, p Params, shape Shape) (Policy, error) { return policies.Build(name, p, shape) }
