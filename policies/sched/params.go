package sched

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

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
// quoted.
func tomlValue(v any) string {
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

// params reads a policy's parameters from a decoded TOML table, keeping
// the first error and which keys were read, so unknown keys can be
// rejected at the end. Errors name the key as scheduler.<path>.
type params struct {
	prefix string
	m      map[string]any
	used   map[string]bool
	err    error
}

func newParams(prefix string, m map[string]any) *params {
	return &params{prefix: prefix, m: m, used: map[string]bool{}}
}

func (p *params) fail(key string, v any, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%s.%s = %s: %s", p.prefix, key, show(v), fmt.Sprintf(format, args...))
	}
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func (p *params) get(key string) (any, bool) {
	p.used[key] = true
	v, ok := p.m[key]
	return v, ok
}

// duration reads a duration written as a string ("15s"), at least 0.
func (p *params) duration(key string, def time.Duration) time.Duration {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	s, isString := v.(string)
	d, err := time.ParseDuration(s)
	if !isString || err != nil || d < 0 {
		p.fail(key, v, "must be a duration ≥ 0 like \"15s\"")
		return def
	}
	return d
}

// number reads an integer or float within [lo, hi].
func (p *params) number(key string, def, lo, hi float64) float64 {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	var x float64
	switch n := v.(type) {
	case int64:
		x = float64(n)
	case int:
		x = float64(n)
	case float64:
		x = n
	default:
		p.fail(key, v, "must be a number in [%g, %g]", lo, hi)
		return def
	}
	if math.IsNaN(x) || x < lo || x > hi {
		p.fail(key, v, "must be a number in [%g, %g]", lo, hi)
		return def
	}
	return x
}

// count reads a whole number ≥ 0.
func (p *params) count(key string) int {
	x := p.number(key, 0, 0, math.MaxInt32)
	if x != math.Trunc(x) {
		p.fail(key, x, "must be a whole number ≥ 0")
	}
	return int(x)
}

// boolean reads true or false.
func (p *params) boolean(key string, def bool) bool {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		p.fail(key, v, "must be true or false")
	}
	return b
}

// str reads a string.
func (p *params) str(key, def string) string {
	v, ok := p.get(key)
	if !ok {
		return def
	}
	s, isString := v.(string)
	if !isString {
		p.fail(key, v, "must be a string")
	}
	return s
}

// tables reads an array of tables.
func (p *params) tables(key string) []map[string]any {
	v, ok := p.get(key)
	if !ok {
		return nil
	}
	switch t := v.(type) {
	case []map[string]any:
		return t
	case []any:
		out := make([]map[string]any, 0, len(t))
		for _, e := range t {
			m, isTable := e.(map[string]any)
			if !isTable {
				p.fail(key, v, "must be an array of tables")
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	p.fail(key, v, "must be an array of tables")
	return nil
}

// done reports the first error, or the first key that was never read.
func (p *params) done(allowed ...string) error {
	if p.err != nil {
		return p.err
	}
	for _, k := range slices.Sorted(maps.Keys(p.m)) {
		if !p.used[k] {
			return fmt.Errorf("%s.%s: unknown parameter; allowed: %s", p.prefix, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// waits reads delay scheduling's delay, t1 and t2 over the defaults w;
// delay defaults to enabled.
func (p *params) waits(w Waits, enabled bool) Waits {
	w.Enabled = p.boolean("delay", enabled)
	w.T1 = p.duration("t1", w.T1)
	w.T2 = p.duration("t2", w.T2)
	return w
}
