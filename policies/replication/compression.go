package replication

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Codec is a compression scheme for replica copies (Table 2.5 of the
// thesis): its rates per core and the factor the wire bytes shrink by.
// Rates are in bytes per second of one nominal core; 0 means no CPU stage.
type Codec struct {
	Name                 string
	Compress, Decompress float64
	Factor               float64
}

// mbps is a rate in megabits per second, in bytes per second.
func mbps(r float64) float64 { return r * 1e6 / 8 }

// Codecs are Table 2.5's schemes, each at the middle of its factor's
// range (12–13× is 12.5), and none.
var Codecs = []Codec{
	{Name: "none", Factor: 1},
	{Name: "gzip", Compress: mbps(144), Decompress: mbps(413), Factor: 12.5},
	{Name: "bzip2", Compress: mbps(9.7), Decompress: mbps(88.2), Factor: 19.5},
	{Name: "lzma", Compress: mbps(3.6), Decompress: mbps(375), Factor: 22.5},
	{Name: "ppmvc", Compress: mbps(30.2), Decompress: mbps(31.4), Factor: 26.5},
}

// CodecNames are the codecs' names, as a scenario gives them.
var CodecNames = func() []string {
	names := make([]string, len(Codecs))
	for i, c := range Codecs {
		names[i] = c.Name
	}
	return names
}()

// CodecNamed returns the codec a scenario names.
func CodecNamed(name string) (Codec, error) {
	if i := slices.Index(CodecNames, name); i >= 0 {
		return Codecs[i], nil
	}
	return Codec{}, fmt.Errorf("replication compression %q: must be one of %q", name, CodecNames)
}

// Wire is the bytes a copy of raw bytes puts on the network: ⌈raw / factor⌉.
func (c Codec) Wire(raw int64) int64 {
	return int64(math.Ceil(float64(raw) / c.Factor))
}

// CompressTime is one core's time to compress raw bytes (0 for none).
func (c Codec) CompressTime(raw int64) time.Duration { return cpuTime(raw, c.Compress) }

// DecompressTime is one core's time to decompress raw bytes (0 for none).
func (c Codec) DecompressTime(raw int64) time.Duration { return cpuTime(raw, c.Decompress) }

func cpuTime(raw int64, rate float64) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(math.Round(float64(raw) / rate * 1e9))
}
