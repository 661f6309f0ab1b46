package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"clusteremu/actors"
)

// WithSet returns the scenario with keys overridden, as `--set key=value`
// does: key is a scenario key path ("heartbeat.interval",
// "scheduler.name", "workload.synthetic[0].jobs") and value is written as
// in TOML, quotes optional for strings ("3s", "fifo"). Every override is
// applied before the configuration, workload included, is built again and
// validated, so keys that depend on each other (run.clock and
// run.speedup) can be set together in any order. Every error is reported
// at once, in the order of the overrides, each naming the override of
// its key ("--set cluster.racks=0: cluster.racks = 0: must be ≥ 1"); an
// override that cannot be applied leaves its key as it was, and an error
// of a key no override sets names them all.
func (s *Scenario) WithSet(assignments ...string) (*Scenario, error) {
	f := cloneFile(s.file)
	var blamed []setError
	var applied []int // indexes of the overrides that were applied
	for i, assignment := range assignments {
		key, value, ok := strings.Cut(assignment, "=")
		if !ok || key == "" {
			blamed = append(blamed, setError{i, fmt.Errorf("--set %s: must be key=value", assignment)})
			continue
		}
		if err := setPath(reflect.ValueOf(&f).Elem(), key, strings.TrimSpace(value)); err != nil {
			blamed = append(blamed, setError{i, fmt.Errorf("--set %s: %w", assignment, err)})
			continue
		}
		applied = append(applied, i)
		switch key {
		case "cluster.map_slots":
			f.slotKeys[0] = true
		case "cluster.reduce_slots":
			f.slotKeys[1] = true
		}
	}
	cfg, errs := f.config(s.dir)
	for i := range f.Expect {
		errs = append(errs, Prefix(fmt.Sprintf("expect[%d]", i), f.Expect[i].Validate()))
	}
	errs = append(errs, poolChecks(f.Expect, cfg)...)
	errs = append(errs, f.queueChecks(cfg)...)
	errs = append(errs, f.endCheck())
	blamed = append(blamed, blame(assignments, applied, errs)...)
	if len(blamed) > 0 {
		slices.SortStableFunc(blamed, func(a, b setError) int { return cmp.Compare(a.at, b.at) })
		out := make([]error, len(blamed))
		for i, b := range blamed {
			out[i] = b.err
		}
		return nil, errors.Join(out...)
	}
	name := s.Name
	for _, i := range applied {
		name += " --set " + assignments[i]
	}
	out := *s
	out.Name = name
	out.Config, out.Expect, out.Reproduce, out.file = cfg, f.Expect, f.Reproduce, f
	return &out, nil
}

// setError is an error of WithSet with the index of the override it
// names; len(assignments) when it names them all.
type setError struct {
	at  int
	err error
}

// blame names, for every error of the configuration the applied
// overrides built, the last override of its key, of a table holding it
// or of a key inside it; an error of another key names every applied
// override, as together they made it.
func blame(assignments []string, applied []int, errs []error) []setError {
	var all []string
	for _, i := range applied {
		all = append(all, "--set "+assignments[i])
	}
	var out []setError
	for _, err := range flatten(errors.Join(errs...)) {
		e := setError{len(assignments), err}
		if len(all) > 0 {
			e.err = fmt.Errorf("%s: %w", strings.Join(all, " "), err)
		}
		if key, _ := keyAndMsg(err); key != "" {
			for _, i := range applied {
				set, _, _ := strings.Cut(assignments[i], "=")
				if set = normalKey(set); insideKey(key, set) || insideKey(set, key) {
					e = setError{i, fmt.Errorf("--set %s: %w", assignments[i], err)}
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// cloneFile copies the parts of a File that setPath can change in place;
// [scheduler] needs no copy, as setAny replaces the tables it changes.
func cloneFile(f File) File {
	f.Cluster.Classes = slices.Clone(f.Cluster.Classes)
	f.Workload.Synthetic = append([]SyntheticStream(nil), f.Workload.Synthetic...)
	f.Workload.SWIM = append([]SWIMStream(nil), f.Workload.SWIM...)
	f.Workload.Jobs = append([]JobsStream(nil), f.Workload.Jobs...)
	f.Workload.Closed = append([]ClosedStream(nil), f.Workload.Closed...)
	f.Workload.Recurring = append([]RecurringStream(nil), f.Workload.Recurring...)
	f.Workload.QoS = append([]QoSStream(nil), f.Workload.QoS...)
	f.Expect = append([]Expectation(nil), f.Expect...)
	if f.QoS != nil {
		q := *f.QoS
		q.Classes = slices.Clone(q.Classes)
		f.QoS = &q
	}
	if f.Cache != nil {
		c := *f.Cache
		c.Preload = append([]actors.CachePreload(nil), c.Preload...)
		f.Cache = &c
	}
	if f.Replication != nil {
		r := *f.Replication
		f.Replication = &r
	}
	if f.IntermediateLoss != nil {
		l := *f.IntermediateLoss
		f.IntermediateLoss = &l
	}
	if f.RackTraffic != nil {
		t := *f.RackTraffic
		f.RackTraffic = &t
	}
	return f
}

// setPath walks v along the key's segments by their toml tags and sets the
// value at the end.
func setPath(v reflect.Value, key, value string) error {
	segs, ok := parsePath(key)
	if !ok {
		return fmt.Errorf("%s: not a key path", key)
	}
	for i, sg := range segs {
		if v.Kind() == reflect.Map {
			// A table of parameters ([scheduler]): its values are plain
			// TOML data, copied on the way down so the scenario the set
			// started from keeps its own.
			m := v.Interface().(map[string]any)
			node, err := setAny(m, segs[i:], value)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			v.Set(reflect.ValueOf(node))
			return nil
		}
		f, ok := fieldByTag(v, sg.name)
		if !ok {
			return fmt.Errorf("%s: no such key", key)
		}
		v = f
		if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct && i < len(segs)-1 {
			// A table the file left out ([cache]): set a key in it
			// and it is there, with its defaults.
			if v.IsNil() {
				t := reflect.New(v.Type().Elem())
				if d, ok := t.Interface().(interface{ SetDefaults() }); ok {
					d.SetDefaults()
				}
				v.Set(t)
			}
			v = v.Elem()
		}
		if sg.idx >= 0 {
			if v.Kind() != reflect.Slice || sg.idx >= v.Len() {
				return fmt.Errorf("%s: the scenario has no element %d of %s", key, sg.idx, sg.name)
			}
			v = v.Index(sg.idx)
		}
	}
	return decodeInto(v, value)
}

// fieldByTag finds the field a TOML key decodes into, looking into
// embedded structs without a tag as the decoder does (CPUCosts' keys sit in
// every workload stream's table).
func fieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if tag == name {
			return v.Field(i), true
		}
		if sf.Anonymous && tag == "" {
			if f, ok := fieldByTag(v.Field(i), name); ok {
				return f, true
			}
		}
	}
	return reflect.Value{}, false
}

// decodeInto decodes value as TOML into v; a bare word that is not TOML is
// taken as a string.
func decodeInto(v reflect.Value, value string) error {
	probe := reflect.New(reflect.StructOf([]reflect.StructField{{
		Name: "V", Type: v.Type(), Tag: `toml:"v"`,
	}}))
	if _, err := toml.Decode("v = "+value, probe.Interface()); err != nil {
		if _, err2 := toml.Decode("v = "+strconv.Quote(value), probe.Interface()); err2 != nil {
			var m map[string]any
			if _, perr := toml.Decode("v = "+value, &m); perr != nil {
				err = err2 // not TOML: a bare word, read as the string it is
			}
			msg := unwrapTOML(err)
			if strings.HasPrefix(msg, value+": ") || strings.HasPrefix(msg, strconv.Quote(value)+": ") {
				return errors.New(msg) // the value's own message names it
			}
			return fmt.Errorf("%s: %s", value, msg)
		}
	}
	if n, ok := parseAny(value).(int64); ok && n < 0 && unsigned(v.Type()) {
		return fmt.Errorf("%s: %s", value, negativeMsg) // the decoder would wrap it around
	}
	v.Set(probe.Elem().Field(0))
	return nil
}

// setAny returns a copy of node, a decoded TOML value, with the value at
// the path set; the tables and arrays along the path are copied.
func setAny(node any, segs []seg, value string) (any, error) {
	if len(segs) == 0 {
		return parseAny(value), nil
	}
	sg := segs[0]
	table, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a table", sg.name)
	}
	out := make(map[string]any, len(table)+1)
	for k, v := range table {
		out[k] = v
	}
	if sg.idx < 0 {
		child, err := setAny(out[sg.name], segs[1:], value)
		out[sg.name] = child
		return out, err
	}
	var elems []any
	switch list := out[sg.name].(type) {
	case []map[string]any:
		for _, e := range list {
			elems = append(elems, e)
		}
	case []any:
		elems = append(elems, list...)
	}
	if sg.idx >= len(elems) {
		return nil, fmt.Errorf("the scenario has no element %d of %s", sg.idx, sg.name)
	}
	child, err := setAny(elems[sg.idx], segs[1:], value)
	elems[sg.idx] = child
	out[sg.name] = elems
	return out, err
}

func parseAny(value string) any {
	var m map[string]any
	if _, err := toml.Decode("v = "+value, &m); err == nil {
		return m["v"]
	}
	return value
}

func unwrapTOML(err error) string {
	msg := err.Error()
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg = pe.Message
	} else if m := lastKeyRE.FindStringSubmatch(msg); m != nil {
		msg = m[3]
	}
	msg, _ = plainMsg(msg)
	return msg
}
