package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

type testStream struct {
	Name string `toml:"name"`
	Rate Rate   `toml:"rate"`
}

type testConfig struct {
	Seed    int `toml:"seed"`
	Cluster struct {
		Racks        int  `toml:"racks"`
		NodesPerRack int  `toml:"nodes_per_rack"`
		NIC          Rate `toml:"nic"`
	} `toml:"cluster"`
	Workload struct {
		Stream []testStream `toml:"stream"`
	} `toml:"workload"`
}

// testDoc has unknown keys at the top level (line 2), in a nested table
// (line 5), as a dotted key (line 6), as a whole table (line 7) and in
// both elements of an array of tables (lines 11 and 14).
const testDoc = `seed = 1
sede = 2
[cluster]
  racks = 2
  rackz = 3
  uplink.speed = 4
[network]
x = 1
[[workload.stream]]
name = "a"
ratez = 1
[[workload.stream]]
name = "b"
  ratez = 2
`

func TestDecodeReportsAllUnknownKeys(t *testing.T) {
	var c testConfig
	err := Decode("scenario.toml", []byte(testDoc), &c)
	want := strings.Join([]string{
		"scenario.toml:2:1: sede: unknown key; allowed: seed, cluster, workload",
		"scenario.toml:5:3: cluster.rackz: unknown key; allowed: racks, nodes_per_rack, nic",
		"scenario.toml:6:3: cluster.uplink: unknown key; allowed: racks, nodes_per_rack, nic",
		"scenario.toml:7:2: network: unknown key; allowed: seed, cluster, workload",
		"scenario.toml:11:1: workload.stream[0].ratez: unknown key; allowed: name, rate",
		"scenario.toml:14:3: workload.stream[1].ratez: unknown key; allowed: name, rate",
	}, "\n")
	if err == nil || err.Error() != want {
		t.Fatalf("Decode error:\n%v\nwant:\n%s", err, want)
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 6 {
		t.Errorf("error is %T with %d entries; want an ErrorList of 6", err, len(list))
	}
	if c.Cluster.Racks != 2 || len(c.Workload.Stream) != 2 {
		t.Errorf("known keys were not decoded: %+v", c)
	}
}

func TestDecodeDottedUnknownKey(t *testing.T) {
	var c testConfig
	err := Decode("s.toml", []byte("seed = 1\ncluster.rackz = 4\n"), &c)
	if want := "s.toml:2:9: cluster.rackz: unknown key; allowed: racks, nodes_per_rack, nic"; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
}

func TestDecodeKeysAreCaseSensitive(t *testing.T) {
	var c testConfig
	err := Decode("s.toml", []byte("[cluster]\nRacks = 4\n"), &c)
	if want := "s.toml:2:1: cluster.Racks: unknown key; allowed: racks, nodes_per_rack, nic"; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
}

func TestDecodeSyntaxError(t *testing.T) {
	var c testConfig
	err := Decode("s.toml", []byte("seed = 1\n[cluster\nracks = 1\nbogus = 1\n"), &c)
	if want := "s.toml:2:9: expected '.' or ']' to end table name"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v; want prefix %s", err, want)
	}
	if strings.Contains(err.Error(), "bogus") {
		t.Errorf("a syntax error must be reported alone: %v", err)
	}
}

// Every wrong type is reported with the unknown keys, in file order, in
// the words of the file, and the keys that decoded are kept.
func TestDecodeTypeMismatch(t *testing.T) {
	var c testConfig
	doc := "[cluster]\nracks = \"x\"\nbogus = 1\n[[workload.stream]]\nname = \"a\"\n[[workload.stream]]\nname = 7\n[[workload.stream]]\nname = \"c\"\n"
	err := Decode("s.toml", []byte(doc), &c)
	want := strings.Join([]string{
		`s.toml:2:1: cluster.racks = "x": want an integer, got a string`,
		`s.toml:3:1: cluster.bogus: unknown key; allowed: racks, nodes_per_rack, nic`,
		`s.toml:7:1: workload.stream[1].name = 7: want a string (in "quotes"), got an integer`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	if len(c.Workload.Stream) != 3 || c.Workload.Stream[0].Name != "a" || c.Workload.Stream[2].Name != "c" {
		t.Errorf("the well-typed keys are not kept: %+v", c.Workload.Stream)
	}
}

func TestDecodeBadUnitInArrayOfTables(t *testing.T) {
	var c testConfig
	doc := "[[workload.stream]]\nrate = \"1 x\"\n[[workload.stream]]\nrate = \"1Gbps\"\n"
	err := Decode("s.toml", []byte(doc), &c)
	if want := `s.toml:2:1: workload.stream[0].rate = "1 x": must look like 1Gbps, 125MB/s or 1GiB/s`; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
}

func TestPosition(t *testing.T) {
	doc, err := Parse("s.toml", []byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][2]int{
		"seed":                    {1, 1},
		"cluster":                 {3, 2},
		"cluster.racks":           {4, 3},
		"cluster.uplink.speed":    {6, 10},
		"workload.stream[0].name": {10, 1},
		"workload.stream[1].name": {13, 1},
		"workload.stream[1]":      {12, 12},
		"network.x":               {8, 1},
	} {
		line, col, ok := doc.Position(path)
		if !ok || line != want[0] || col != want[1] {
			t.Errorf("Position(%q) = %d:%d %v; want %d:%d", path, line, col, ok, want[0], want[1])
		}
	}
	for _, path := range []string{"nope", "workload.stream[2].name", "cluster.racks.x", "a..b", "x[", ""} {
		if line, col, ok := doc.Position(path); ok {
			t.Errorf("Position(%q) = %d:%d; want not found", path, line, col)
		}
	}
}

func TestLocateSortsAndPlacesFieldErrors(t *testing.T) {
	doc, err := Parse("s.toml", []byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	verr := errors.Join(
		Prefix("workload.stream[1]", Invalid("name", "b", "must be unique")),
		Prefix("cluster", errors.Join(Invalid("racks", 2, "must be ≥ 3"), Missing("nic", "give the NIC bandwidth, e.g. \"1Gbps\""))),
		errors.New("no streams run before the deadline"),
	)
	got := doc.Locate(verr).Error()
	want := strings.Join([]string{
		"s.toml:1:1: no streams run before the deadline",
		"s.toml:3:2: cluster.nic: missing; give the NIC bandwidth, e.g. \"1Gbps\"",
		"s.toml:4:3: cluster.racks = 2: must be ≥ 3",
		"s.toml:13:1: workload.stream[1].name = \"b\": must be unique",
	}, "\n")
	if got != want {
		t.Errorf("Locate:\n%s\nwant:\n%s", got, want)
	}
	if doc.Locate(nil) != nil {
		t.Error("Locate(nil) != nil")
	}
}

func TestDecodeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenario.toml")
	if err := os.WriteFile(path, []byte("seed = 3\nseeds = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c testConfig
	err := DecodeFile(path, &c)
	if want := path + ":2:1: seeds: unknown key"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v; want prefix %s", err, want)
	}
	if err := DecodeFile(filepath.Join(t.TempDir(), "absent.toml"), &c); err == nil {
		t.Error("DecodeFile of a missing file succeeded")
	}
}

func TestDecodeLeavesOpenTablesAlone(t *testing.T) {
	var c struct {
		Scheduler struct {
			Name   string         `toml:"name"`
			Params map[string]any `toml:"params"`
			Later  toml.Primitive `toml:"later"`
		} `toml:"scheduler"`
		Pools map[string]struct {
			Weight float64 `toml:"weight"`
		} `toml:"pools"`
	}
	doc := "[scheduler]\nname = \"fair\"\nparams = {delay = \"10s\", levels = 2}\n[scheduler.later]\nx = 1\n[pools.a]\nweight = 2.0\n[pools.b]\nweigth = 1.0\n"
	err := Decode("s.toml", []byte(doc), &c)
	if want := "s.toml:9:1: pools.b.weigth: unknown key; allowed: weight"; err == nil || err.Error() != want {
		t.Errorf("got %v; want %s", err, want)
	}
	if c.Scheduler.Params["levels"] != int64(2) || c.Pools["a"].Weight != 2 {
		t.Errorf("decoded %+v", c)
	}
}

func TestPositionAcrossMultilineValues(t *testing.T) {
	doc := "[[workload.stream]]\nname = \"\"\"\nx\ny\n\"\"\"\nratez = 1\n[[workload.stream]]\nname = '''\nz'''\n  ratez = 2\n"
	var c testConfig
	err := Decode("s.toml", []byte(doc), &c)
	want := "s.toml:6:1: workload.stream[0].ratez: unknown key; allowed: name, rate\n" +
		"s.toml:10:3: workload.stream[1].ratez: unknown key; allowed: name, rate"
	if err == nil || err.Error() != want {
		t.Errorf("got:\n%v\nwant:\n%s", err, want)
	}
	parsed, _ := Parse("s.toml", []byte(doc))
	if line, col, ok := parsed.Position("workload.stream[1].name"); !ok || line != 8 || col != 1 {
		t.Errorf("Position(workload.stream[1].name) = %d:%d %v; want 8:1", line, col, ok)
	}
}
