package units

import (
	"strings"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
	}{
		{"0", 0},
		{"4096", 4096},
		{"7B", 7},
		{"512KiB", 512 << 10},
		{"128MiB", 128 << 20},
		{"128MB", 128_000_000},
		{"1.5GiB", 3 << 29},
		{"2kB", 2000},
		{"2KB", 2000},
		{"1TiB", 1 << 40},
		{"0.5KiB", 512},
		{"1.1MB", 1_100_000}, // exact: 1.1 × 10^6 has no float error
		{"8PiB", 8 << 50},
	} {
		got, err := ParseBytes(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if back, err := ParseBytes(got.String()); err != nil || back != got {
			t.Errorf("ParseBytes(%q.String() = %q) = %d, %v", tc.in, got.String(), back, err)
		}
	}
}

func TestParseBytesRejects(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"", `"": must look like 128MiB`},
		{"128 MiB", `"128 MiB": must look like`},
		{"128mib", `"128mib": must look like`},
		{"-1MiB", `"-1MiB": must look like`},
		{"1.2.3MB", `"1.2.3MB": "1.2.3" is not a plain decimal number`},
		{"0.1B", `"0.1B": not a whole number of bytes`},
		{"MiB", `"MiB": must look like`},
		{"9PiB0", `must look like`},
		{"100000PiB", `"100000PiB": too large`},
	} {
		_, err := ParseBytes(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseBytes(%q) error = %v; want it to contain %q", tc.in, err, tc.msg)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
	}{
		{"1Gbps", 125e6},
		{"10Gbps", 1.25e9},
		{"100Mbps", 12.5e6},
		{"1Gbit/s", 125e6},
		{"1bps", 0.125},
		{"125MB/s", 125e6},
		{"1GiB/s", 1 << 30},
		{"1.5KiB/s", 1536},
		{"0", 0},
		{"4096B/s", 4096},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, float64(got), err, float64(tc.want))
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("ParseRate(%q.String() = %q) = %v, %v", tc.in, got.String(), float64(back), err)
		}
	}
}

func TestParseRateRejects(t *testing.T) {
	for _, in := range []string{"1 Gbps", "1GBps", "125MB", "1Gb", "fast", "", "/s", "1MiB/h", "-1Gbps", "4096", "1e3"} {
		_, err := ParseRate(in)
		if err == nil || !strings.Contains(err.Error(), "must look like 1Gbps, 125MB/s") {
			t.Errorf("ParseRate(%q) error = %v; want the accepted forms", in, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"0s", 0},
		{"250ms", 250 * time.Millisecond},
		{"3s", 3 * time.Second},
		{"2h", 2 * time.Hour},
		{"1h30m", 90 * time.Minute},
		{"2d", 48 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"1.5d", 36 * time.Hour},
		{"1.5s", 1500 * time.Millisecond},
	} {
		got, err := ParseDuration(tc.in)
		if err != nil || got.Std() != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got.Std(), err, tc.want)
		}
		if back, err := ParseDuration(got.String()); err != nil || back != got {
			t.Errorf("ParseDuration(%q.String() = %q) = %v, %v", tc.in, got.String(), back.Std(), err)
		}
	}
}

func TestParseDurationRejects(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{"", "must look like 250ms"},
		{"3", "must look like 250ms"},
		{"3 s", "must look like 250ms"},
		{"d", "must look like 250ms"},
		{"2dd", "must look like 250ms"},
		{"1d+3h", "must look like 250ms"},
		{"-3s", `"-3s": must be ≥ 0`},
		{"1d-3h", "must be ≥ 0"},
		{"200000d", `"200000d": too large`},
		{"1.0000000000001d", "not a whole number of bytes or nanoseconds"},
		{"106751d100h", `"106751d100h": too large`},
	} {
		_, err := ParseDuration(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseDuration(%q) error = %v; want it to contain %q", tc.in, err, tc.msg)
		}
	}
}

// A value of the wrong kind is refused by what it is: only a bare number
// is told that a rate needs a unit.
func TestUnmarshalTOMLRejectsKinds(t *testing.T) {
	var r Rate
	var d Duration
	var b Bytes
	for _, tc := range []struct {
		err  error
		want string
	}{
		{r.UnmarshalTOML(int64(1000)), "1000: a rate needs a unit: must look like 1Gbps"},
		{r.UnmarshalTOML(1.5), "1.5: a rate needs a unit: must look like 1Gbps"},
		{r.UnmarshalTOML(true), "true: must look like 1Gbps"},
		{r.UnmarshalTOML([]any{"1Gbps"}), "an array: must look like 1Gbps"},
		{d.UnmarshalTOML(map[string]any{}), "a table: must look like 250ms"},
		{d.UnmarshalTOML(time.Date(1979, 5, 27, 0, 0, 0, 0, time.UTC)), "a date or time: must look like 250ms"},
		{b.UnmarshalTOML(int64(-1)), "-1: must be ≥ 0"},
	} {
		if tc.err == nil || !strings.HasPrefix(tc.err.Error(), tc.want) {
			t.Errorf("got %v; want %s…", tc.err, tc.want)
		}
	}
	if err := r.UnmarshalTOML(int64(0)); err != nil || r != 0 {
		t.Errorf("rate 0 = %v, %v; want 0", r, err)
	}
}
