package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestUnitsFromTOML(t *testing.T) {
	var v struct {
		Size  Bytes    `toml:"size"`
		Plain Bytes    `toml:"plain"`
		NIC   Rate     `toml:"nic"`
		Beat  Duration `toml:"beat"`
	}
	doc := "size = \"128MiB\"\nplain = 1000\nnic = \"1Gbps\"\nbeat = \"3s\"\n"
	if err := Decode("s.toml", []byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	if v.Size != 128<<20 || v.Plain != 1000 || v.NIC != 125e6 || v.Beat.Std() != 3*time.Second {
		t.Errorf("decoded %+v", v)
	}
	for doc, want := range map[string]string{
		"beat = 3\n":         `s.toml:1:1: beat = 3: must look like 250ms, 3s, 1h30m or 2d (a quoted string with a unit)`,
		"nic = \"1 Gbps\"\n": `s.toml:1:1: nic = "1 Gbps": must look like 1Gbps, 125MB/s or 1GiB/s`,
		"size = -5\n":        `s.toml:1:1: size = -5: must be ≥ 0`,
		"size = 1.5\n":       `s.toml:1:1: size = 1.5: must look like 128MiB`,
		"size = true\n":      `s.toml:1:1: size = true: must look like 128MiB`,
	} {
		err := Decode("s.toml", []byte(doc), &v)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Decode(%q) = %v; want prefix %q", doc, err, want)
		}
	}
}
