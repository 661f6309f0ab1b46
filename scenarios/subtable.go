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
// the table with DecodeAt, skipping it. Errors are positioned in the
// whole document and name full key paths, as Decode's do; a missing path
// or one that is not a table is an error at the closest ancestor.
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
	if _, err := toml.Decode(buf.String(), v); err != nil {
		return ErrorList{d.subtableError(segs, table, reflect.TypeOf(v), err)}
	}
	var errs ErrorList
	walkStruct(table, reflect.TypeOf(v), segs, d.keyReport(&errs))
	return errs.err()
}

// decodeEach decodes each of the keys of the table at path into v on its
// own, leaving out the table's other keys. A wrong type stops the decoder
// at its key, so decoding the keys one by one reports every bad key at
// once. It returns every error and the keys that decoded whole, with at
// most unknown keys inside them; a key that did not may have left its
// field half set.
func (d *Document) decodeEach(path string, v any, keys ...string) (errs ErrorList, whole []string) {
	segs, _ := parsePath(path)
	sub, _ := value(d.tree, segs)
	table, _ := sub.(map[string]any)
	for _, k := range keys {
		if _, ok := table[k]; !ok {
			continue
		}
		others := slices.DeleteFunc(slices.Collect(maps.Keys(table)), func(o string) bool { return o == k })
		var list ErrorList
		errors.As(d.DecodeAt(path, v, others...), &list)
		if len(list) == 0 || allUnknownKeys(list) {
			whole = append(whole, k)
		}
		errs = append(errs, list...)
	}
	return errs, whole
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
	full := slices.Clip(prefix)
	if key != "" {
		_, e.Value, e.Msg = splitValue(key, msg)
		full = append(full, failingPath(table, keySegs(splitDotted(key)), target)...)
	}
	e.Key = formatPath(full)
	d.plain(e)
	return d.at(full, e)
}
