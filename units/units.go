// Package units holds the quantities a scenario writes with units —
// sizes, bandwidths and spans of emulated time — with their parsers and
// TOML decoding, shared by every table that has such a key.
package units

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Bytes is a size in bytes. In TOML it is a string with a unit ("128MiB",
// "128MB", "1.5GiB", "512KiB", "0") or a non-negative integer of bytes.
// Units: B; kB/KB, MB, GB, TB, PB are powers of 10^3; KiB, MiB, GiB, TiB,
// PiB are powers of 2^10. A fraction is allowed when the result is a whole
// number of bytes. Units are case-sensitive and no space may stand between
// the number and the unit.
type Bytes int64

// Rate is a bandwidth in bytes per second. In TOML it is a string: bits per
// second ("1Gbps", "100Mbps", "10Gbit/s"; k, M, G, T are powers of 10^3 and
// eight bits make a byte) or bytes per second with any Bytes unit
// followed by "/s" ("125MB/s", "1GiB/s"); or a non-negative integer of
// bytes per second.
type Rate float64

// Duration is a span of emulated time. In TOML it is a string in Go's
// time.ParseDuration syntax ("250ms", "3s", "1h30m") optionally preceded by
// whole or fractional days ("2d", "1d12h"). It must be ≥ 0. Integers are
// rejected: a bare number could mean seconds or nanoseconds.
type Duration time.Duration

// Exact multipliers of the units Bytes and Rate accept.
var byteUnits = map[string]int64{
	"": 1, "B": 1,
	"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50,
}

var bitUnits = map[string]int64{
	"bps": 1, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12,
	"bit/s": 1, "kbit/s": 1e3, "Kbit/s": 1e3, "Mbit/s": 1e6, "Gbit/s": 1e9, "Tbit/s": 1e12,
}

const (
	bytesForms    = "must look like 128MiB, 128MB, 1.5GiB, 512KiB or 0"
	rateForms     = "must look like 1Gbps, 125MB/s or 1GiB/s"
	DurationForms = "must look like 250ms, 3s, 1h30m or 2d"
)

// ParseBytes parses a size written as Bytes documents.
func ParseBytes(s string) (Bytes, error) {
	num, unit := splitNumber(s)
	mult, ok := byteUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q: %s", s, bytesForms)
	}
	n, err := exactProduct(num, mult, 1)
	if err != nil {
		return 0, fmt.Errorf("%q: %v", s, err)
	}
	return Bytes(n), nil
}

// ParseRate parses a bandwidth written as Rate documents.
func ParseRate(s string) (Rate, error) {
	num, unit := splitNumber(s)
	if num == "" {
		return 0, fmt.Errorf("%q: %s", s, rateForms)
	}
	if mult, ok := bitUnits[unit]; ok {
		n, err := exactFloat(num, mult, 8)
		if err != nil {
			return 0, fmt.Errorf("%q: %v", s, err)
		}
		return Rate(n), nil
	}
	if unit == "" {
		if strings.Trim(num, "0.") == "" {
			return 0, nil // zero in any unit
		}
		return 0, fmt.Errorf("%q: a rate needs a unit: %s", s, rateForms) // 1000 meant as Mb/s
	}
	mult, ok := byteUnits[strings.TrimSuffix(unit, "/s")]
	if !ok || !strings.HasSuffix(unit, "/s") {
		return 0, fmt.Errorf("%q: %s", s, rateForms)
	}
	n, err := exactFloat(num, mult, 1)
	if err != nil {
		return 0, fmt.Errorf("%q: %v", s, err)
	}
	return Rate(n), nil
}

// ParseDuration parses a span written as Duration documents.
func ParseDuration(s string) (Duration, error) {
	days, rest := "", s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		days, rest = s[:i], s[i+1:]
	}
	var total time.Duration
	if days != "" || rest == "" {
		if days == "" {
			return 0, fmt.Errorf("%q: %s", s, DurationForms)
		}
		d, err := exactProduct(days, int64(24*time.Hour), 1)
		if err != nil {
			return 0, fmt.Errorf("%q: %v", s, err)
		}
		total = time.Duration(d)
	}
	if rest != "" {
		d, err := time.ParseDuration(rest)
		switch {
		case err != nil || strings.HasPrefix(rest, "+"):
			return 0, fmt.Errorf("%q: %s", s, DurationForms)
		case d < 0 || strings.HasPrefix(rest, "-"):
			return 0, fmt.Errorf("%q: must be ≥ 0", s)
		case total > math.MaxInt64-d:
			return 0, fmt.Errorf("%q: too large", s)
		}
		total += d
	}
	return Duration(total), nil
}

// splitNumber splits "1.5GiB" into "1.5" and "GiB". The number is digits
// with at most one decimal point; anything else ends it.
func splitNumber(s string) (num, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], s[i:]
}

// exactProduct returns num × mult / div when it is a whole number that fits
// an int64. num is a plain decimal without sign or exponent.
func exactProduct(num string, mult, div int64) (int64, error) {
	r, ok := decimal(num)
	if !ok {
		return 0, fmt.Errorf("%q is not a plain decimal number", num)
	}
	r.Mul(r, new(big.Rat).SetFrac64(mult, div))
	if !r.IsInt() {
		return 0, fmt.Errorf("not a whole number of bytes or nanoseconds")
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("too large")
	}
	return r.Num().Int64(), nil
}

// exactFloat returns num × mult / div as the nearest float64, rejecting
// values beyond int64 range.
func exactFloat(num string, mult, div int64) (float64, error) {
	r, ok := decimal(num)
	if !ok {
		return 0, fmt.Errorf("%q is not a plain decimal number", num)
	}
	r.Mul(r, new(big.Rat).SetFrac64(mult, div))
	f, _ := r.Float64()
	if f > math.MaxInt64 {
		return 0, fmt.Errorf("too large")
	}
	return f, nil
}

func decimal(num string) (*big.Rat, bool) {
	if num == "" || num == "." || strings.Count(num, ".") > 1 {
		return nil, false
	}
	return new(big.Rat).SetString(num)
}

// String returns the size in the largest unit that divides it exactly, so
// ParseBytes(b.String()) == b: "128MiB", "128MB", "1536MiB", "7B".
func (b Bytes) String() string {
	if b <= 0 {
		return strconv.FormatInt(int64(b), 10) + "B"
	}
	for _, u := range []string{"PiB", "PB", "TiB", "TB", "GiB", "GB", "MiB", "MB", "KiB", "kB"} {
		if m := byteUnits[u]; int64(b)%m == 0 {
			return strconv.FormatInt(int64(b)/m, 10) + u
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// String returns the rate in bytes per second with the largest unit that
// divides it exactly ("125MB/s", "1GiB/s"), or as a plain decimal "B/s",
// so ParseRate(r.String()) == r.
func (r Rate) String() string {
	f := float64(r)
	if f == math.Trunc(f) && f > 0 && f < 1<<62 {
		return Bytes(int64(f)).String() + "/s"
	}
	return strconv.FormatFloat(f, 'f', -1, 64) + "B/s"
}

// String returns the span in days when it is a whole number of them
// ("2d"), in hours when whole ("3h"), else in Go's form ("1h30m0s"), so
// ParseDuration(d.String()) == d.
func (d Duration) String() string {
	td := time.Duration(d)
	switch {
	case td > 0 && td%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(td/(24*time.Hour)), 10) + "d"
	case td > 0 && td%time.Hour == 0:
		return strconv.FormatInt(int64(td/time.Hour), 10) + "h"
	}
	return td.String()
}

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// UnmarshalTOML decodes a TOML string or non-negative integer of bytes.
func (b *Bytes) UnmarshalTOML(v any) error {
	n, err := decodeUnit(v, ParseBytes, bytesForms)
	*b = n
	return err
}

// UnmarshalTOML decodes a TOML string. A bare number other than 0 is
// refused: 1000 meant as Mb/s would silently be bytes per second.
func (r *Rate) UnmarshalTOML(v any) error {
	switch v.(type) {
	case int64, float64:
		if v != int64(0) {
			return fmt.Errorf("%s: a rate needs a unit: %s (a quoted string)", tomlValue(v), rateForms)
		}
	}
	n, err := decodeUnit(v, ParseRate, rateForms)
	*r = n
	return err
}

// decodeUnit decodes a string with parse, or a non-negative integer as a
// count of the base unit.
func decodeUnit[T Bytes | Rate](v any, parse func(string) (T, error), forms string) (T, error) {
	switch v := v.(type) {
	case string:
		return parse(v)
	case int64:
		if v < 0 {
			return 0, fmt.Errorf("%d: must be ≥ 0", v)
		}
		return T(v), nil
	}
	return 0, fmt.Errorf("%s: %s", tomlValue(v), forms)
}

// UnmarshalTOML decodes a TOML string; integers are rejected with a hint.
func (d *Duration) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s: %s (a quoted string with a unit)", tomlValue(v), DurationForms)
	}
	n, err := ParseDuration(s)
	*d = n
	return err
}

// tomlValue renders a decoded TOML value for an error message.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	case time.Time:
		return "a date or time"
	}
	return fmt.Sprint(v)
}

// MarshalTOML writes the size as a quoted string with its unit.
func (b Bytes) MarshalTOML() ([]byte, error) { return quoted(b.String()), nil }

// MarshalTOML writes the rate as a quoted string with its unit.
func (r Rate) MarshalTOML() ([]byte, error) { return quoted(r.String()), nil }

// MarshalTOML writes the span as a quoted string with its unit.
func (d Duration) MarshalTOML() ([]byte, error) { return quoted(d.String()), nil }

func quoted(s string) []byte { return []byte(strconv.Quote(s)) }
