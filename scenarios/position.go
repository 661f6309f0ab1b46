package scenarios

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// seg is one step of a key path: a key, and an index when the key holds an
// array of tables and the path goes into one of its elements.
type seg struct {
	name string
	idx  int // -1: no index
}

// parsePath splits "workload.stream[1].rate" into segments. Keys that are
// not bare TOML keys may be written in double quotes. It reports false for
// a malformed path.
func parsePath(path string) ([]seg, bool) {
	var segs []seg
	for path != "" {
		name, rest, ok := cutKey(path)
		if !ok {
			return nil, false
		}
		s := seg{name: name, idx: -1}
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			n, err := strconv.Atoi(rest[1:max(end, 1)])
			if end < 0 || err != nil || n < 0 {
				return nil, false
			}
			s.idx, rest = n, rest[end+1:]
		}
		segs = append(segs, s)
		if rest != "" && !strings.HasPrefix(rest, ".") {
			return nil, false
		}
		path = strings.TrimPrefix(rest, ".")
	}
	return segs, len(segs) > 0
}

// cutKey reads one key (bare or double-quoted) from the start of path.
func cutKey(path string) (name, rest string, ok bool) {
	if strings.HasPrefix(path, `"`) {
		q, err := strconv.QuotedPrefix(path)
		if err != nil {
			return "", "", false
		}
		name, _ = strconv.Unquote(q)
		return name, path[len(q):], true
	}
	end := strings.IndexAny(path, ".[")
	if end < 0 {
		end = len(path)
	}
	return path[:end], path[end:], end > 0
}

// formatPath is the inverse of parsePath.
func formatPath(segs []seg) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quoteKey(s.name))
		if s.idx >= 0 {
			b.WriteString("[" + strconv.Itoa(s.idx) + "]")
		}
	}
	return b.String()
}

func quoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(k)
		}
	}
	return k
}

// lookup reports whether the path exists in a decoded TOML tree.
func lookup(tree map[string]any, segs []seg) bool {
	_, ok := value(tree, segs)
	return ok
}

// value returns what the path holds in a decoded TOML tree.
func value(tree map[string]any, segs []seg) (any, bool) {
	var v any = tree
	for _, s := range segs {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[s.name]; !ok {
			return nil, false
		}
		if s.idx >= 0 {
			if v, ok = element(v, s.idx); !ok {
				return nil, false
			}
		}
	}
	return v, true
}

// keyLineBefore finds the last line at or before line that assigns key
// ("key =" after optional text such as a dotted prefix) and returns its
// line and the key's column.
func keyLineBefore(text string, line int, key string) (int, int, bool) {
	lines := strings.SplitN(text, "\n", line+1)
	for l := min(line, len(lines)); l >= 1; l-- {
		lt := lines[l-1]
		if i := strings.Index(lt, key); i >= 0 && strings.HasPrefix(strings.TrimLeft(lt[i+len(key):], " \t\""), "=") {
			return l, i + 1, true
		}
	}
	return 0, 0, false
}

// lineHasKey reports whether line (1-based) of text mentions key.
func lineHasKey(text string, line int, key string) bool {
	lines := strings.SplitN(text, "\n", line+1)
	return line >= 1 && line <= len(lines) && strings.Contains(lines[line-1], key)
}

func element(v any, i int) (any, bool) {
	switch a := v.(type) {
	case []map[string]any:
		if i < len(a) {
			return a[i], true
		}
	case []any:
		if i < len(a) {
			return a[i], true
		}
	}
	return nil, false
}

// errProbe is what the probe's leaf returns, so the decoder reports where
// the leaf's key is.
var errProbe = errors.New("probe")

type failer struct{}

func (failer) UnmarshalTOML(any) error { return errProbe }

// probeType builds a struct type holding only the path, ending in a
// failer; arrays in the document become slices. It returns nil when a key
// cannot be expressed as a struct tag.
func probeType(v any, segs []seg) reflect.Type {
	if len(segs) == 0 {
		return reflect.TypeFor[failer]()
	}
	name := segs[0].name
	if name == "" || name == "-" || strings.ContainsAny(name, ",") {
		return nil
	}
	m, _ := v.(map[string]any)
	child := m[name]
	var inner reflect.Type
	if e, ok := firstElement(child, segs[0].idx); ok && len(segs) > 1 {
		if t := probeType(e, segs[1:]); t != nil {
			inner = reflect.SliceOf(t)
		}
	} else {
		inner = probeType(child, segs[1:])
	}
	if inner == nil {
		return nil
	}
	return reflect.StructOf([]reflect.StructField{{
		Name: "P", Type: inner, Tag: reflect.StructTag(`toml:` + strconv.Quote(name)),
	}})
}

// firstElement returns element idx (or 0 when idx < 0) of an array value.
func firstElement(v any, idx int) (any, bool) {
	switch v.(type) {
	case []map[string]any, []any:
		return element(v, max(idx, 0))
	}
	return nil, false
}

// probe decodes text into the probe type of segs and returns the 1-based
// line and byte column of the key the decoder was at when the leaf failed.
func probe(text string, tree map[string]any, segs []seg) (line, col int, ok bool) {
	t := probeType(tree, segs)
	if t == nil {
		return 0, 0, false
	}
	_, err := toml.Decode(text, reflect.New(t).Interface())
	var pe toml.ParseError
	if !errors.As(err, &pe) || pe.Message != errProbe.Error() || pe.Position.Line < 1 {
		return 0, 0, false
	}
	line, col = pe.Position.Line, pe.Position.Col
	return line, keyColumn(text, line, col, segs[len(segs)-1].name), true
}

// keyColumn moves a column from a value to the key before it on the same
// line, so positions point at the key ("  rackz = 3" → column 3).
func keyColumn(text string, line, col int, key string) int {
	lines := strings.SplitN(text, "\n", line+1)
	if line < 1 || line > len(lines) {
		return col
	}
	l := lines[line-1]
	before := l[:min(max(col-1, 0), len(l))]
	for _, k := range []string{quoteKey(key), key} {
		if i := strings.LastIndex(before, k); i >= 0 {
			return i + 1
		}
		if i := strings.Index(l, k); i >= 0 {
			return i + 1
		}
	}
	return col
}

// placeDecodeError positions an error the decoder reported for key, which
// it names without array indexes.
func (d *Document) placeDecodeError(key toml.Key, target reflect.Type, e *Error) *Error {
	segs := failingPath(d.tree, keySegs(key), target)
	if line, col, ok := d.position(segs); ok {
		e.Line, e.Col, e.Key = line, col, formatPath(segs)
	}
	return e
}

// failingPath returns the indexed form of segs (a key the decoder names
// without array indexes) for the first element, in document order, whose
// value fails to decode on its own into the type segs has in target; segs
// itself when there is none. When the value is an array of values, the
// path goes on to its first element that fails.
func failingPath(tree map[string]any, segs []seg, target reflect.Type) []seg {
	t := fieldType(target, segs)
	if t == nil {
		return segs
	}
	found := segs
	candidates(tree, segs, nil, func(p []seg) bool {
		v, _ := value(tree, p)
		if failsAlone(v, t) {
			found = p
			return false
		}
		return true
	})
	return failingElement(tree, found, t)
}

// failingElement indexes the end of path, a key of type t holding an
// array, with the first element that fails to decode into t's elements
// on its own: reduced = ["a", 1] fails at reduced[1].
func failingElement(tree map[string]any, path []seg, t reflect.Type) []seg {
	v, _ := value(tree, path)
	items, isArray := v.([]any)
	if t = deref(t); !isArray || path[len(path)-1].idx >= 0 || decodesItself(t) ||
		t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
		return path
	}
	for i, item := range items {
		if failsAlone(item, t.Elem()) {
			out := slices.Clone(path)
			out[len(out)-1].idx = i
			return out
		}
	}
	return path
}

// candidates calls yield with every indexed path that matches the
// unindexed segs, in document order, until yield returns false.
func candidates(v any, segs, prefix []seg, yield func([]seg) bool) bool {
	if len(segs) == 0 {
		return yield(prefix)
	}
	m, _ := v.(map[string]any)
	child, ok := m[segs[0].name]
	if !ok {
		return true
	}
	n := arrayLen(child)
	if n < 0 || len(segs) == 1 {
		return candidates(child, segs[1:], append(slices.Clip(prefix), seg{name: segs[0].name, idx: -1}), yield)
	}
	for i := range n {
		e, _ := element(child, i)
		if !candidates(e, segs[1:], append(slices.Clip(prefix), seg{name: segs[0].name, idx: i}), yield) {
			return false
		}
	}
	return true
}

func arrayLen(v any) int {
	switch a := v.(type) {
	case []map[string]any:
		return len(a)
	case []any:
		return len(a)
	}
	return -1
}

// fieldType returns the Go type the path decodes into, stepping through
// slices for arrays of tables, or nil.
func fieldType(t reflect.Type, segs []seg) reflect.Type {
	for _, s := range segs {
		if t == nil {
			return nil
		}
		t = deref(t)
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = deref(t.Elem())
		}
		switch t.Kind() {
		case reflect.Struct:
			t = structField(t, s.name)
		case reflect.Map:
			t = t.Elem()
		default:
			return nil
		}
	}
	return t
}

// structField finds a field the way the decoder does: by exact key, else
// case-insensitively.
func structField(t reflect.Type, key string) reflect.Type {
	names, types := tomlFields(t)
	if ft, ok := types[key]; ok {
		return ft
	}
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return types[n]
		}
	}
	return nil
}

// failsAlone reports whether the value v, as decoded from TOML, fails to
// decode into a t on its own.
func failsAlone(v any, t reflect.Type) bool {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return false
	}
	holder := reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: `toml:"v"`}})
	_, err := toml.Decode(buf.String(), reflect.New(holder).Interface())
	return err != nil
}
