package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxDecodeErrors bounds the decoding passes of a file full of wrong
// types; past it the rest are left unreported.
const maxDecodeErrors = 200

// decodeAll decodes the document into v and returns every type and unit
// error in it. The decoder stops at its first error, so each bad key is
// taken out of a copy of the tree and the rest decoded again, until what
// is left decodes: v then holds every well-typed key over the values it
// had, and a bad key leaves its field as it was.
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
	tree := deepCopy(d.tree).(map[string]any)
	for len(errs) < maxDecodeErrors {
		segs, ok := parsePath(errs[len(errs)-1].Key)
		if !ok || !prune(tree, segs) {
			break
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
			break
		}
		fresh := reflect.New(target.Elem())
		fresh.Elem().Set(before.Elem())
		if _, err := toml.Decode(buf.String(), fresh.Interface()); err != nil {
			errs = append(errs, d.subtableError(nil, tree, target, err))
			continue
		}
		reflect.ValueOf(v).Elem().Set(fresh.Elem())
		break
	}
	for _, e := range errs {
		d.plain(e)
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
	"[]any": "an array", "[]interface{}": "an array", "map[string]any": "a table", "map[string]interface {}": "a table",
	"[]map[string]any": "an array of tables ([[...]])", "[]map[string]interface {}": "an array of tables ([[...]])",
	"time.Time": "a date-time", "toml.LocalDate": "a date", "toml.LocalTime": "a time", "toml.LocalDatetime": "a date-time",
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

// plain rewrites a decoder's type error in the words of the file ("want
// an integer, got a string") and gives it the value as written.
func (d *Document) plain(e *Error) {
	msg, ok := plainMsg(e.Msg)
	if !ok {
		return
	}
	e.Msg = msg
	if segs, ok := parsePath(e.Key); ok && e.Value == "" {
		if v, ok := value(d.tree, segs); ok {
			e.Value = written(v)
		}
	}
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

// written renders a scalar TOML value as a file writes it; tables and
// arrays are left out.
func written(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case int64, float64, bool:
		return fmt.Sprint(v)
	}
	if s := fmt.Sprint(v); !strings.ContainsAny(s, "[]{}") {
		return s
	}
	return ""
}
