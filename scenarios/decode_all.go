package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// maxDecodeErrors bounds the decoding passes of a file full of wrong
// types; past it the rest are left unreported.
const maxDecodeErrors = 200

// decodeAll decodes the document into v and returns every type and unit
// error in it. The decoder stops at its first error, so each bad key is
// taken out of a copy of the tree and the rest decoded again, until what
// is left decodes: v then holds every well-typed key over the values it
// had, and a bad key leaves its field as it was. A file without errors
// is decoded once, as it is.
func (d *Document) decodeAll(v any) ErrorList {
	target := reflect.TypeOf(v)
	before := reflect.New(target.Elem())
	before.Elem().Set(reflect.ValueOf(v).Elem())
	_, err := toml.Decode(d.text, v)
	if err == nil {
		return nil
	}
	var errs ErrorList
	errors.As(d.decodeError(err, target), &errs)
	segs, _ := parsePath(errs[0].Key)
	d.plain(errs[0], leafType(target, segs))
	return append(errs, d.decodeRest(nil, d.tree, errs[0], before, v)...)
}

// decodeRest goes on decoding table, the table at prefix, whose decoding
// into v failed with first: it takes out the bad key and decodes the rest
// into a copy of before (v as it was), until what is left decodes into v,
// and returns the errors after first.
func (d *Document) decodeRest(prefix []seg, table map[string]any, first *Error, before reflect.Value, v any) ErrorList {
	target := reflect.TypeOf(v)
	tree := deepCopy(table).(map[string]any)
	var errs ErrorList
	for bad := first; len(errs) < maxDecodeErrors; {
		segs, ok := parsePath(bad.Key)
		if !ok || len(segs) <= len(prefix) || !prune(tree, segs[len(prefix):]) {
			break
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
			break
		}
		fresh := reflect.New(target.Elem())
		fresh.Elem().Set(before.Elem())
		if _, err := toml.Decode(buf.String(), fresh.Interface()); err != nil {
			bad = d.subtableError(prefix, tree, target, err)
			errs = append(errs, bad)
			continue
		}
		reflect.ValueOf(v).Elem().Set(fresh.Elem())
		break
	}
	return errs
}

// prune deletes the key at path from a tree, and reports whether it was
// there. A path into an array of tables takes the key out of that element.
func prune(tree map[string]any, segs []seg) bool {
	m := tree
	for i, s := range segs {
		child, ok := m[s.name]
		if !ok {
			return false
		}
		if i == len(segs)-1 {
			delete(m, s.name)
			return true
		}
		if s.idx >= 0 {
			child, ok = element(child, s.idx)
			if !ok {
				return false
			}
		}
		if m, ok = child.(map[string]any); !ok {
			return false
		}
	}
	return false
}

// deepCopy copies a decoded TOML tree, so pruning leaves the document's
// own intact.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x).(map[string]any)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

var (
	incompatibleRE = regexp.MustCompile(`^incompatible types: TOML value has type (\S+); destination has type (.+)$`)
	mismatchRE     = regexp.MustCompile(`^type mismatch for .*: expected table but found (\S+)$`)
	badtypeRE      = regexp.MustCompile(`^cannot load TOML value of type (\S+) into a Go (\S+)$`)
)

// tomlKinds names the decoder's Go types of TOML values as a scenario's
// writer knows them.
var tomlKinds = map[string]string{
	"int64": "an integer", "float64": "a number with a fraction", "string": "a string", "bool": "a boolean",
	"[]any": "an array", "[]interface {}": "an array", "map[string]any": "a table", "map[string]interface {}": "a table",
	"[]map[string]any": "an array of tables ([[...]])", "[]map[string]interface {}": "an array of tables ([[...]])",
	"time.Time": "a date or time", "toml.LocalDate": "a date", "toml.LocalTime": "a time", "toml.LocalDatetime": "a date-time",
}

// goKinds names what a field takes.
var goKinds = map[string]string{
	"integer": "an integer", "float": "a number", "string": `a string (in "quotes")`, "boolean": "true or false",
	"slice": "an array", "map": "a table", "primitive (string-like)": `a string (in "quotes")`,
}

func kindOf(names map[string]string, t string) string {
	if k, ok := names[t]; ok {
		return k
	}
	return t
}

// plain rewrites a decoder's error in the words of the file and gives it
// the value as written. want is the type of the key's field, nil when
// unknown: a type error then says what the key takes and what it holds,
// naming the header a table or an array of tables is written with
// ("want a table ([workload]), got an array of tables ([[workload]])").
func (d *Document) plain(e *Error, want reflect.Type) {
	segs, ok := parsePath(e.Key)
	v, found := value(d.tree, segs)
	found = found && ok
	if msg, isType := plainMsg(e.Msg); isType {
		e.Msg = msg
		if m, ok := mismatch(segs, want, v); ok && found {
			e.Msg = m
		}
	} else if kind, rule, cut := cutKind(e.Msg); cut && found {
		// A unit refuses a table or an array by its kind ("an array:
		// must look like 250ms…"): the value as written says more.
		e.Msg = rule
		if written(v) == "" {
			e.Msg += ", got " + kind
		}
	} else {
		return
	}
	if found && e.Value == "" {
		e.Value = written(v)
	}
}

// cutKind cuts the kind the units package puts before its rule when the
// value is a table, an array or a date.
func cutKind(msg string) (kind, rule string, ok bool) {
	for _, kind := range []string{"a table", "an array", "a date or time"} {
		if rule, ok := strings.CutPrefix(msg, kind+": "); ok {
			return kind, rule, true
		}
	}
	return "", msg, false
}

// plainMsg is a decoder's type error in the words of the file, and
// whether msg was one.
func plainMsg(msg string) (string, bool) {
	if m := incompatibleRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want %s, got %s", kindOf(goKinds, m[2]), kindOf(tomlKinds, m[1])), true
	}
	if m := mismatchRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want a table, got %s", kindOf(tomlKinds, m[1])), true
	}
	if m := badtypeRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want %s, got %s", kindOf(goKinds, m[2]), kindOf(tomlKinds, m[1])), true
	}
	return msg, false
}

// mismatch says what a key at path, of Go type want, takes and what it
// holds, v: "want an integer, got a string". Tables and arrays of tables
// are named by their headers, so that [workload] and [[workload]] tell
// apart; an element of an array has no header of its own. It reports
// false for a type it cannot name, or none.
func mismatch(path []seg, want reflect.Type, v any) (string, bool) {
	if want == nil || len(path) == 0 {
		return "", false
	}
	header := formatPath(unindexed(path))
	element := path[len(path)-1].idx >= 0
	w, ok := wantKind(deref(want), header, element)
	if !ok {
		return "", false
	}
	g := gotKind(v, header, !element && strings.Contains(w, "table"))
	return fmt.Sprintf("want %s, got %s", w, g), true
}

// wantKind names what a field of type t takes.
func wantKind(t reflect.Type, header string, element bool) (string, bool) {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if element {
			return "a table", true
		}
		return "a table ([" + header + "])", true
	case reflect.Slice, reflect.Array:
		elem := deref(t.Elem())
		if elem.Kind() == reflect.Struct && !decodesItself(elem) {
			return "an array of tables ([[" + header + "]])", true
		}
		if k, ok := scalarKinds[elem.Kind()]; ok {
			return "an array of " + k.plural, true
		}
	}
	if k, ok := scalarKinds[t.Kind()]; ok {
		return k.one, true
	}
	return "", false
}

// scalarKinds names the values a field of each scalar kind takes.
var scalarKinds = map[reflect.Kind]struct{ one, plural string }{
	reflect.Bool:    {"true or false", "booleans"},
	reflect.String:  {`a string (in "quotes")`, `strings (in "quotes")`},
	reflect.Float64: {"a number", "numbers"},
	reflect.Float32: {"a number", "numbers"},
	reflect.Int:     {"an integer", "integers"},
	reflect.Int64:   {"an integer", "integers"},
	reflect.Int32:   {"an integer", "integers"},
	reflect.Uint:    {"an integer ≥ 0", "integers ≥ 0"},
	reflect.Uint64:  {"an integer ≥ 0", "integers ≥ 0"},
	reflect.Uint32:  {"an integer ≥ 0", "integers ≥ 0"},
}

// gotKind names what a key holds, v as decoded from TOML; headers adds
// the header a table is written with.
func gotKind(v any, header string, headers bool) string {
	switch v.(type) {
	case map[string]any:
		if headers {
			return "a table ([" + header + "])"
		}
		return "a table"
	case []map[string]any: // only [[header]] makes these
		return "an array of tables ([[" + header + "]])"
	}
	return kindOf(tomlKinds, fmt.Sprintf("%T", v))
}

// writtenTime renders a TOML date or time as a file writes it; the
// decoder marks local ones by their location's name.
func writtenTime(t time.Time) string {
	switch t.Location().String() {
	case "datetime-local":
		return t.Format("2006-01-02T15:04:05.999999999")
	case "date-local":
		return t.Format("2006-01-02")
	case "time-local":
		return t.Format("15:04:05.999999999")
	}
	return t.Format(time.RFC3339Nano)
}

// unindexed is path without its array indexes, as a header writes it.
func unindexed(path []seg) []seg {
	out := slices.Clone(path)
	for i := range out {
		out[i].idx = -1
	}
	return out
}

// leafType is the Go type the path decodes into from target, stepping
// into an array's element type when the path ends at one; nil when
// unknown.
func leafType(target reflect.Type, path []seg) reflect.Type {
	if target == nil || len(path) == 0 {
		return nil
	}
	t := fieldType(target, path)
	if t == nil || path[len(path)-1].idx < 0 {
		return t
	}
	if t = deref(t); t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		return t.Elem()
	}
	return nil
}

// maxWritten bounds the length of an array shown as the value of an
// error.
const maxWritten = 40

// written renders a TOML value as a file writes it: scalars, and short
// arrays of scalars; tables and the rest are left out ("").
func written(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case int64, float64, bool:
		return fmt.Sprint(v)
	case time.Time:
		return writtenTime(v)
	case []any:
		items := make([]string, len(v))
		for i, x := range v {
			if items[i] = written(x); items[i] == "" {
				return ""
			}
		}
		if s := "[" + strings.Join(items, ", ") + "]"; len(s) <= maxWritten {
			return s
		}
		return ""
	case map[string]any, []map[string]any:
		return ""
	}
	if s := fmt.Sprint(v); !strings.ContainsAny(s, "[]{}") {
		return s
	}
	return ""
}
