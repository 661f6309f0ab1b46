package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Error is one problem in a scenario file at a 1-based line and byte
// column. Key is the key path ("cluster.racks", "workload.stream[1].rate"),
// empty for syntax errors; Value is the offending value as written, when
// known. An error of a document without text (a scenario changed by
// --set) has no file and line 0.
type Error struct {
	File      string
	Line, Col int
	Key       string
	Value     string
	Msg       string
}

// Error formats e as "file:line:col: key = value: msg", leaving out the key
// and value when they are empty and the position when it is unknown.
func (e *Error) Error() string {
	if e.Line == 0 {
		return describe(e.Key, e.Value, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, describe(e.Key, e.Value, e.Msg))
}

func describe(key, value, msg string) string {
	switch {
	case key == "":
		return msg
	case value == "":
		return key + ": " + msg
	}
	return key + " = " + value + ": " + msg
}

// ErrorList is several positioned errors of one file. Its Error method
// prints them one per line, sorted by position.
type ErrorList []*Error

// Error prints the errors one per line in position order.
func (l ErrorList) Error() string {
	sorted := slices.Clone(l)
	sorted.Sort()
	lines := make([]string, len(l))
	for i, e := range sorted {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the list by file, line, column, then key.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col), cmp.Compare(a.Key, b.Key))
	})
}

// err returns nil for an empty list, so callers can return it directly.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// FieldError is a validation error about one key, without a position. Key
// is relative to the table that was validated; Prefix places it in the
// document, and Document.Locate turns it into a positioned Error.
type FieldError struct {
	Key   string
	Value string // as it would be written in TOML; "" when not relevant
	Msg   string
}

// Error formats e as "key = value: msg".
func (e *FieldError) Error() string { return describe(e.Key, e.Value, e.Msg) }

// Invalid returns a FieldError for key whose value v breaks the rule in
// format. Strings and unit values are shown quoted, as in TOML.
func Invalid(key string, v any, format string, args ...any) *FieldError {
	return &FieldError{Key: key, Value: formatValue(v), Msg: fmt.Sprintf(format, args...)}
}

// Missing returns a FieldError for a required key that is absent.
func Missing(key, what string) *FieldError {
	return &FieldError{Key: key, Msg: missingMsg + what}
}

// missingMsg starts the message of a Missing key.
const missingMsg = "missing; "

func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return strconv.Quote(v)
	case fmt.Stringer:
		return strconv.Quote(v.String())
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String: // a named string: run.clock's ClockMode
		return strconv.Quote(rv.String())
	case reflect.Slice, reflect.Array: // a policy's limits: ["3h20m0s"]
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = formatValue(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// Prefix returns err with every FieldError in it (directly or joined with
// errors.Join) moved under the table prefix: Prefix("cluster", racks
// error) names "cluster.racks"; prefixes ending in "]" or keys starting
// with "[" join without a dot. Other errors are kept as they are.
func Prefix(prefix string, err error) error {
	if err == nil || prefix == "" {
		return err
	}
	var errs []error
	for _, e := range flatten(err) {
		var fe *FieldError
		if errors.As(e, &fe) {
			c := *fe
			c.Key = joinKey(prefix, fe.Key)
			e = &c
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func joinKey(prefix, key string) string {
	if key == "" {
		return prefix
	}
	if strings.HasPrefix(key, "[") {
		return prefix + key
	}
	return prefix + "." + key
}

// flatten lists the leaves of a tree of errors joined with errors.Join.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if l, ok := err.(ErrorList); ok {
		out := make([]error, len(l))
		for i, e := range l {
			out[i] = e
		}
		return out
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// withoutEchoes drops from checked, errors of validation, those that
// only repeat one of decoded, errors of decoding: a key that failed to
// decode keeps its default, which its checks may refuse (jobs = 1.5 is
// not also "jobs = 0: must be ≥ 1"), and a key missing from a table with
// a key that failed may be the one meant (load = "high" is not also
// "interarrival: missing; give interarrival or load"). Unknown keys
// decode into nothing, so they have no echoes.
func withoutEchoes(checked, decoded []error) []error {
	var out []error
	for _, e := range flatten(errors.Join(checked...)) {
		if !slices.ContainsFunc(decoded, func(d error) bool { return echoes(e, d) }) {
			out = append(out, e)
		}
	}
	return out
}

// echoes reports whether the validation error e only repeats the
// decoding error d.
func echoes(e, d error) bool {
	key, msg := keyAndMsg(e)
	bad, why := keyAndMsg(d)
	if key == "" || bad == "" || strings.HasPrefix(why, "unknown key") {
		return false
	}
	return insideKey(key, bad) || strings.HasPrefix(msg, missingMsg) && parent(key) == parent(bad)
}

// keyAndMsg returns the key path, written as formatPath writes it, and
// the message of a FieldError or an Error; "" for other errors.
func keyAndMsg(err error) (key, msg string) {
	var fe *FieldError
	var pe *Error
	switch {
	case errors.As(err, &fe):
		key, msg = fe.Key, fe.Msg
	case errors.As(err, &pe):
		key, msg = pe.Key, pe.Msg
	default:
		return "", ""
	}
	return normalKey(key), msg
}

// normalKey writes a key path as formatPath does, so paths compare as
// strings.
func normalKey(key string) string {
	if segs, ok := parsePath(strings.TrimSpace(key)); ok {
		return formatPath(segs)
	}
	return key
}

// insideKey reports whether the key path key is path or inside it: a key of
// the table, or an element of the array, at path.
func insideKey(key, path string) bool {
	rest, ok := strings.CutPrefix(key, path)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// parent is the key of the table that holds key.
func parent(key string) string {
	segs, ok := parsePath(key)
	if !ok {
		return key
	}
	return formatPath(segs[:len(segs)-1])
}
