package scenarios

import (
	"reflect"
	"slices"
	"strings"
)

// keyReport receives what walkStruct finds: a key the type has no field
// for, with the keys its table allows, and a negative number given to an
// unsigned field (which the decoder would wrap around: seed = -1 as
// 2^64 − 1).
type keyReport struct {
	unknown  func(path []seg, allowed []string)
	negative func(path []seg, n int64)
}

// walkStruct visits the keys of a decoded TOML table against the Go type
// it was decoded into and reports every key the type has no field for,
// with the indexed path and the keys the table allows, and every negative
// number for an unsigned field. Values
// whose type decodes itself (toml.Unmarshaler, encoding.TextUnmarshaler),
// toml.Primitive (decoded later by its owner), interfaces and maps of such
// values are not looked into. Keys are visited in sorted order.
func walkStruct(table map[string]any, t reflect.Type, path []seg, report keyReport) {
	t = deref(t)
	if decodesItself(t) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		names, types := tomlFields(t)
		for _, k := range sortedKeys(table) {
			p := append(slices.Clip(path), seg{name: k, idx: -1})
			ft, ok := types[k]
			if !ok {
				report.unknown(p, names)
				continue
			}
			if n, isInt := table[k].(int64); isInt && n < 0 && unsigned(ft) {
				report.negative(p, n)
			}
			walkValue(table[k], ft, p, report)
		}
	case reflect.Map:
		for _, k := range sortedKeys(table) {
			walkValue(table[k], t.Elem(), append(slices.Clip(path), seg{name: k, idx: -1}), report)
		}
	}
}

// walkValue descends into a value that is a table or an array of tables.
func walkValue(v any, t reflect.Type, path []seg, report keyReport) {
	t = deref(t)
	if decodesItself(t) {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		walkStruct(v, t, path, report)
	case []map[string]any:
		for i, e := range v {
			walkElement(e, t, path, i, report)
		}
	case []any:
		for i, e := range v {
			walkElement(e, t, path, i, report)
		}
	}
}

func walkElement(e any, t reflect.Type, path []seg, i int, report keyReport) {
	if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
		return
	}
	p := slices.Clone(path)
	p[len(p)-1].idx = i
	walkValue(e, t.Elem(), p, report)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Kind() == reflect.Interface || t == tomlPrimitive || p.Implements(tomlUnmarshaler) || p.Implements(textUnmarshaler)
}

// tomlFields lists the keys a struct type accepts, in declaration order,
// with their types; embedded structs without a tag contribute their own
// fields, as the decoder flattens them.
func tomlFields(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	types := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("toml")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-" || (!f.IsExported() && !f.Anonymous):
			continue
		case f.Anonymous && name == "" && deref(f.Type).Kind() == reflect.Struct:
			n, ts := tomlFields(deref(f.Type))
			for _, k := range n {
				names, types[k] = append(names, k), ts[k]
			}
			continue
		case name == "":
			name = f.Name
		}
		names, types[name] = append(names, name), f.Type
	}
	return names, types
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func unsigned(t reflect.Type) bool {
	switch deref(t).Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}
