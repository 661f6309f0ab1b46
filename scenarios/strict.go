package scenarios

import (
	"encoding"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Document is a parsed TOML file that knows where its keys are. It decodes
// strictly and turns key paths into line:column positions.
type Document struct {
	Name string // the file name used in errors
	text string
	tree map[string]any
	// bare: the document is a tree without text (treeDocument), so its
	// errors carry no file or position.
	bare bool
}

// DecodeFile reads the TOML file at path and decodes it strictly into v
// (see Document.Decode). Errors are named after path; all but a failure to
// read the file are an ErrorList.
func DecodeFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return Decode(path, data, v)
}

// Decode parses data, naming it name in errors, and decodes it strictly
// into v (see Document.Decode).
func Decode(name string, data []byte, v any) error {
	doc, err := Parse(name, data)
	if err != nil {
		return err
	}
	return doc.Decode(v)
}

// Parse checks the TOML syntax of data. A syntax error comes back alone as
// an ErrorList with one positioned Error.
func Parse(name string, data []byte) (*Document, error) {
	d := &Document{Name: name, text: string(data), tree: map[string]any{}}
	if _, err := toml.Decode(d.text, &d.tree); err != nil {
		return nil, d.decodeError(err, nil)
	}
	return d, nil
}

// treeDocument is a Document of a tree that has no text, such as a File's
// [scheduler] table after --set changed it: it decodes as a parsed
// document does, and its errors name their keys but no file or position.
func treeDocument(tree map[string]any) *Document {
	return &Document{tree: tree, bare: true}
}

// Decode decodes the document into v, a pointer to a struct whose fields
// carry toml tags. Every type error and error from a value's
// UnmarshalTOML (bad unit, bad duration), and every key of the document
// that has no field, is reported at once, each with its position, key
// path and, for unknown keys, the keys its table allows; v holds every
// key that decoded; a key must
// match its tag exactly (the decoder alone would accept "Racks" for
// "racks"). Fields that v already holds and the document leaves out keep
// their values, so callers decode over DefaultX(). Every error is an
// ErrorList.
func (d *Document) Decode(v any) error {
	errs := d.decodeAll(v)
	// MetaData.Undecoded would also list the keys under map[string]any
	// and toml.Primitive fields, and would miss keys the decoder matched
	// case-insensitively; walking the type finds exactly the unknown ones.
	walkStruct(d.tree, reflect.TypeOf(v), nil, d.keyReport(&errs))
	return errs.err()
}

// negativeMsg is the error of a negative number for an unsigned key.
const negativeMsg = "must be ≥ 0"

// keyReport collects walkStruct's findings as positioned errors.
func (d *Document) keyReport(errs *ErrorList) keyReport {
	return keyReport{
		unknown: func(path []seg, allowed []string) { *errs = append(*errs, d.unknown(path, allowed)) },
		negative: func(path []seg, n int64) {
			*errs = append(*errs, d.at(path, &Error{Key: formatPath(path), Value: fmt.Sprint(n), Msg: negativeMsg}))
		},
	}
}

func (d *Document) unknown(path []seg, allowed []string) *Error {
	msg := "unknown key"
	if len(allowed) > 0 {
		msg += "; allowed: " + strings.Join(allowed, ", ")
	}
	return d.at(path, &Error{Key: formatPath(path), Msg: msg})
}

// Position returns the 1-based line and byte column of the key at path
// ("cluster.racks", "workload.stream[1].rate"), and false when the
// document has no such key. In an array of tables the index picks the
// element.
func (d *Document) Position(path string) (line, col int, ok bool) {
	segs, ok := parsePath(path)
	if !ok {
		return 0, 0, false
	}
	return d.position(segs)
}

func (d *Document) position(segs []seg) (line, col int, ok bool) {
	if !lookup(d.tree, segs) {
		return 0, 0, false
	}
	text, tree := d.text, d.tree
	if slices.ContainsFunc(segs, func(s seg) bool { return s.idx >= 0 }) {
		text, tree = d.shortestPrefix(segs)
	}
	line, col, ok = probe(text, tree, segs)
	key := segs[len(segs)-1].name
	switch v, _ := value(d.tree, segs); {
	case ok && lineHasKey(text, line, key):
		return line, col, true
	case isTable(v):
		return d.firstChild(segs)
	case ok:
		// The decoder places a multi-line value at its last line.
		return keyLineBefore(text, line, key)
	}
	return 0, 0, false
}

func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// firstChild positions a table that was created implicitly (by a dotted
// key or a deeper header), which the decoder places badly: it returns the
// earliest position of the keys inside it.
func (d *Document) firstChild(segs []seg) (line, col int, ok bool) {
	v, _ := value(d.tree, segs)
	m, isTable := v.(map[string]any)
	if !isTable {
		return 0, 0, false
	}
	for _, k := range sortedKeys(m) {
		child := seg{name: k, idx: -1}
		if arrayLen(m[k]) > 0 { // an array of tables starts at its first element
			child.idx = 0
		}
		l, c, found := d.position(append(slices.Clip(segs), child))
		if found && (!ok || l < line || l == line && c < col) {
			line, col, ok = l, c, true
		}
	}
	if !ok {
		return 0, 0, false
	}
	return line, keyColumn(d.text, line, col, segs[len(segs)-1].name), true
}

// shortestPrefix returns the shortest run of whole lines from the start
// of the document that parses and holds the path. The decoder reports the
// last occurrence of a key in an array of tables, and in that prefix the
// wanted element is the last one. A prefix that holds the path keeps
// holding it as lines are added, so a binary search finds it with
// O(log lines) decodes, plus one per line of a multi-line value it lands
// in.
func (d *Document) shortestPrefix(segs []seg) (string, map[string]any) {
	ends := lineEnds(d.text)
	lo, hi := 0, len(ends)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if k, tree := d.parseableFrom(ends, mid); k >= 0 && lookup(tree, segs) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if k, tree := d.parseableFrom(ends, lo); k >= 0 && lookup(tree, segs) {
		return d.text[:ends[k]], tree
	}
	return d.text, d.tree
}

// parseableFrom returns the first k ≥ from whose prefix of k+1 lines
// parses, with its tree, or -1.
func (d *Document) parseableFrom(ends []int, from int) (int, map[string]any) {
	for k := from; k < len(ends); k++ {
		tree := map[string]any{}
		if _, err := toml.Decode(d.text[:ends[k]], &tree); err == nil {
			return k, tree
		}
	}
	return -1, nil
}

// lineEnds returns the offset just past each line of text; the last is
// len(text).
func lineEnds(text string) []int {
	var ends []int
	for i := range len(text) {
		if text[i] == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(text) {
		ends = append(ends, len(text))
	}
	return ends
}

// at sets e's file and position to those of path, or of its closest
// ancestor that the document has, or 1:1; a bare document leaves them
// empty.
func (d *Document) at(path []seg, e *Error) *Error {
	if d.bare {
		return e
	}
	e.File, e.Line, e.Col = d.Name, 1, 1
	for n := len(path); n > 0; n-- {
		if line, col, ok := d.position(path[:n]); ok {
			e.Line, e.Col = line, col
			break
		}
	}
	return e
}

// Locate turns a validation error into positioned errors: every
// FieldError in err (see Prefix), and every Error without a position (of
// a document without text), is placed at its key, or at the closest
// ancestor present when the key is missing; other errors are placed at
// 1:1. It returns nil for nil and an ErrorList otherwise.
func (d *Document) Locate(err error) error {
	var out ErrorList
	for _, e := range flatten(err) {
		var pe *Error
		var fe *FieldError
		switch {
		case errors.As(e, &pe) && pe.Line == 0:
			segs, _ := parsePath(pe.Key)
			placed := *pe
			out = append(out, d.at(segs, &placed))
		case errors.As(e, &pe):
			out = append(out, pe)
		case errors.As(e, &fe):
			segs, _ := parsePath(fe.Key)
			out = append(out, d.at(segs, &Error{Key: fe.Key, Value: fe.Value, Msg: fe.Msg}))
		default:
			out = append(out, &Error{File: d.Name, Line: 1, Col: 1, Msg: e.Error()})
		}
	}
	return out.err()
}

// lastKeyRE matches the decoder's plain errors, which carry only a line:
// `toml: line 3 (last key "cluster.racks"): incompatible types: …`.
var lastKeyRE = regexp.MustCompile(`(?s)^toml: (?:line (\d+) )?\(last key "((?:[^"\\]|\\.)*)"\): (.*)$`)

// decodeError positions an error of the TOML decoder.
func (d *Document) decodeError(err error, target reflect.Type) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		e := &Error{File: d.Name, Line: max(pe.Position.Line, 1), Col: max(pe.Position.Col, 1), Msg: pe.Message}
		if p := pe.Position.Start; p > 0 && p <= len(d.text) {
			// The lexer counts a newline it stops at as the next line.
			e.Line = strings.Count(d.text[:p], "\n") + 1
			e.Col = p - strings.LastIndexByte(d.text[:p], '\n')
		}
		if target != nil && pe.LastKey != "" {
			e.Key, e.Value, e.Msg = splitValue(pe.LastKey, pe.Message)
			e = d.placeDecodeError(splitDotted(pe.LastKey), target, e)
		}
		return ErrorList{e}
	}
	m := lastKeyRE.FindStringSubmatch(err.Error())
	if m == nil {
		return ErrorList{{File: d.Name, Line: 1, Col: 1, Msg: err.Error()}}
	}
	key, _ := strconv.Unquote(`"` + m[2] + `"`)
	line, _ := strconv.Atoi(m[1])
	e := &Error{File: d.Name, Line: max(line, 1), Col: 1, Key: key, Msg: m[3]}
	return ErrorList{d.placeDecodeError(splitDotted(key), target, e)}
}

// splitValue separates the value our unit types put at the start of their
// messages (`"1 Gbps": must look like …`) from the rule.
func splitValue(key, msg string) (string, string, string) {
	if strings.HasPrefix(msg, `"`) {
		if q, err := strconv.QuotedPrefix(msg); err == nil && strings.HasPrefix(msg[len(q):], ": ") {
			return key, q, msg[len(q)+2:]
		}
	}
	if i := strings.Index(msg, ": "); i > 0 && (msg[:i] == "true" || msg[:i] == "false" || strings.IndexFunc(msg[:i], notNumeric) < 0) {
		return key, msg[:i], msg[i+2:]
	}
	return key, "", msg
}

func notNumeric(r rune) bool { return !(r >= '0' && r <= '9' || r == '-' || r == '.' || r == '+') }

// splitDotted splits a dotted key as toml.Key.String prints it.
func splitDotted(k string) toml.Key {
	var key toml.Key
	for k != "" {
		name, rest, ok := cutKey(k)
		if !ok {
			return append(key, k)
		}
		key = append(key, name)
		k = strings.TrimPrefix(rest, ".")
	}
	return key
}

func keySegs(k toml.Key) []seg {
	segs := make([]seg, len(k))
	for i, name := range k {
		segs[i] = seg{name: name, idx: -1}
	}
	return segs
}

var (
	tomlUnmarshaler = reflect.TypeFor[toml.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	tomlPrimitive   = reflect.TypeFor[toml.Primitive]()
)
