package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

const kindsDoc = `[[workload.stream]]
kind = "swim"
trace = "t.tsv"
start = "5 s"
time_scale = "fast"
[[workload.stream]]
kind = "synthetic"
jobs = 10
lod = 0.7
`

// decodeStreams decodes each stream of kindsDoc by its kind, as a schema
// with a kind key would.
func decodeStreams(t *testing.T, doc string) []error {
	t.Helper()
	var top struct {
		Workload struct {
			Stream []map[string]any `toml:"stream"`
		} `toml:"workload"`
	}
	parsed, err := Parse("s.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := parsed.Decode(&top); err != nil {
		t.Fatal(err)
	}
	var errs []error
	for i, m := range top.Workload.Stream {
		var s Stream = &SWIMStream{}
		if m["kind"] == "synthetic" {
			s = &SyntheticStream{}
		}
		errs = append(errs, parsed.DecodeAt(fmt.Sprintf("workload.stream[%d]", i), s, "kind"))
	}
	return errs
}

func TestDecodeAtByKind(t *testing.T) {
	errs := decodeStreams(t, kindsDoc)
	for i, want := range []string{
		`s.toml:4:1: workload.stream[0].start = "5 s": must look like 250ms, 3s, 1h30m or 2d` + "\n" +
			`s.toml:5:1: workload.stream[0].time_scale = "fast": want a number, got a string`,
		"s.toml:9:1: workload.stream[1].lod: unknown key; allowed: jobs, interarrival, load, slots",
	} {
		if errs[i] == nil || !matchesOneOf(errs[i].Error(), want) {
			t.Errorf("stream %d: %v\nwant %s", i, errs[i], want)
		}
	}
	fixed := strings.NewReplacer(`start = "5 s"`, `start = "5s"`, `time_scale = "fast"`, "time_scale = 2.0", "lod", "load").Replace(kindsDoc)
	for i, err := range decodeStreams(t, fixed) {
		if err != nil {
			t.Errorf("stream %d: %v", i, err)
		}
	}
}

// matchesOneOf checks got against "prefix(a|b)": it must start with the
// prefix followed by a or by b.
func matchesOneOf(got, pattern string) bool {
	open := strings.IndexByte(pattern, '(')
	if open < 0 {
		return strings.HasPrefix(got, pattern)
	}
	prefix, alts := pattern[:open], strings.TrimSuffix(pattern[open+1:], ")")
	for _, alt := range strings.Split(alts, "|") {
		if strings.HasPrefix(got, prefix+alt) {
			return true
		}
	}
	return false
}

func TestDecodeAtNotATable(t *testing.T) {
	parsed, err := Parse("s.toml", []byte(kindsDoc))
	if err != nil {
		t.Fatal(err)
	}
	var s SWIMStream
	for path, want := range map[string]string{
		"workload.stream[0].trace": "s.toml:3:1: workload.stream[0].trace: must be a table",
		"workload.stream[5]":       "s.toml:1:3: workload.stream[5]: must be a table",
		"nowhere":                  "s.toml:1:1: nowhere: must be a table",
	} {
		if err := parsed.DecodeAt(path, &s); err == nil || err.Error() != want {
			t.Errorf("DecodeAt(%q) = %v; want %s", path, err, want)
		}
	}
}

func TestDecodeAtInATreeWithoutText(t *testing.T) {
	// A table changed in memory (by --set) decodes as the file would; its
	// errors name the key and the rule but no position.
	parsed, err := Parse("s.toml", []byte(kindsDoc))
	if err != nil {
		t.Fatal(err)
	}
	doc := treeDocument(parsed.tree)
	for _, tt := range []struct {
		path string
		v    Stream
		want string
	}{
		{"workload.stream[1]", &SyntheticStream{}, "workload.stream[1].lod: unknown key; allowed: jobs, interarrival, load, slots"},
		{"workload.stream[0]", &SWIMStream{}, `workload.stream[0].start = "5 s": must look like 250ms, 3s, 1h30m or 2d` + "\n" +
			`workload.stream[0].time_scale = "fast": want a number, got a string`},
	} {
		err := doc.DecodeAt(tt.path, tt.v, "kind")
		if err == nil || !matchesOneOf(err.Error(), tt.want) {
			t.Errorf("DecodeAt(%q) = %v; want %s", tt.path, err, tt.want)
		}
	}
}
