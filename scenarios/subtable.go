package scenarios

import (
	"bytes"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/BurntSushi/toml"
)

// DecodeAt decodes the table at path ("scheduler",
// "workload.stream[1]") strictly into v, leaving out the keys in skip: a
// schema decodes a table whose shape depends on one of its keys (a
// stream's kind, a scheduler's name) by decoding that key first and then
// the table with DecodeAt, skipping it. As Decode, it reports every
// error at once, positioned in the whole document and naming full key
// paths, and leaves v with every key that decoded; a missing path or one
// that is not a table is an error at the closest ancestor.
func (d *Document) DecodeAt(path string, v any, skip ...string) error {
	segs, ok := parsePath(path)
	sub, _ := value(d.tree, segs)
	table, isTable := sub.(map[string]any)
	if !ok || !isTable {
		return ErrorList{d.at(segs, &Error{Key: path, Msg: "must be a table"})}
	}
	table = maps.Clone(table)
	for _, k := range skip {
		delete(table, k)
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(table); err != nil {
		return ErrorList{d.at(segs, &Error{Key: path, Msg: err.Error()})}
	}
	target := reflect.TypeOf(v)
	before := reflect.New(target.Elem())
	before.Elem().Set(reflect.ValueOf(v).Elem())
	var errs ErrorList
	if _, err := toml.Decode(buf.String(), v); err != nil {
		first := d.subtableError(segs, table, target, err)
		errs = append(ErrorList{first}, d.decodeRest(segs, table, first, before, v)...)
	}
	walkStruct(table, target, segs, d.keyReport(&errs))
	return errs.err()
}

// subtableError positions an error from decoding a re-encoded table: the
// decoder's own position is in the re-encoded text, so only its key is
// used.
func (d *Document) subtableError(prefix []seg, table map[string]any, target reflect.Type, err error) *Error {
	key, msg := "", err.Error()
	var pe toml.ParseError
	if errors.As(err, &pe) {
		key, msg = pe.LastKey, pe.Message
	} else if m := lastKeyRE.FindStringSubmatch(msg); m != nil {
		key, _ = strconv.Unquote(`"` + m[2] + `"`)
		msg = m[3]
	}
	e := &Error{Msg: msg}
	var rel []seg
	if key != "" {
		_, e.Value, e.Msg = splitValue(key, msg)
		rel = failingPath(table, keySegs(splitDotted(key)), target)
	}
	full := append(slices.Clip(prefix), rel...)
	e.Key = formatPath(full)
	d.plain(e, leafType(target, rel))
	return d.at(full, e)
}
