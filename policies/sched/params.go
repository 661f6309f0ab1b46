package sched

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

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
