package explore

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"clusteremu/cluster"
	"clusteremu/internal/atomicfile"
)

// Format is the version of the decisions file format that
// WriteDecisions writes and ReadDecisions reads.
const Format = 1

// Header opens a decisions file: the scenario the decisions were taken
// in, its course hash, so they are not followed in another, and the
// file's format (0 in files written before the format was numbered,
// which read as format 1).
type Header struct {
	Scenario string `json:"scenario"`
	Course   string `json:"course_sha256"`
	Format   int    `json:"format,omitempty"`
}

// CourseHash identifies what decides a deterministic run's course apart
// from the schedule seed, which pinned decisions replace: the cluster,
// the workload and its seed, the policy and its parameters, and the
// chaos, as a hex SHA-256. The run's other options (until, the clock,
// recording, reference runs) leave it unchanged. A policy's code is not
// part of it: decisions recorded against a buggy policy replay against
// its fix.
func CourseHash(cfg cluster.Config) string {
	cfg.Run = cluster.RunOptions{Seed: cfg.Run.Seed}
	data, err := json.Marshal(cfg)
	if err != nil {
		panic(fmt.Sprintf("clusteremu: hashing the configuration: %v", err))
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// EncodeDecisions writes decisions taken in the scenario named scenario,
// configured as cfg, as JSON lines after a header line.
func EncodeDecisions(w io.Writer, scenario string, cfg cluster.Config, ds []cluster.Decision) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(Header{Scenario: scenario, Course: CourseHash(cfg), Format: Format}); err != nil {
		return err
	}
	for i := range ds {
		if err := enc.Encode(&ds[i]); err != nil {
			return err
		}
	}
	return nil
}

// WriteDecisions writes EncodeDecisions' lines to the file path, under a
// temporary name in its directory renamed into place, so the file is
// whole or absent.
func WriteDecisions(path, scenario string, cfg cluster.Config, ds []cluster.Decision) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeDecisions(w, scenario, cfg, ds) })
}

// ReadDecisions reads a decisions file (one JSON object per line, written
// by WriteDecisions, clusteremu shrink --out or run --events) to follow
// in a run configured as cfg.
func ReadDecisions(path string, cfg cluster.Config) ([]cluster.Decision, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeDecisions(f, path, cfg)
}

// DecodeDecisions reads decisions from r as ReadDecisions does; name
// prefixes errors with each line's number. A header that names another
// course or format is refused with the reason: the decisions would be
// silently ignored or followed where they mean something else. A file
// without a header is taken as it is.
func DecodeDecisions(r io.Reader, name string, cfg cluster.Config) ([]cluster.Decision, error) {
	var out []cluster.Decision
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if line == 1 && bytes.Contains(sc.Bytes(), []byte(`"course_sha256"`)) {
			if err := checkHeader(sc.Bytes(), name, cfg); err != nil {
				return nil, err
			}
			continue
		}
		var d cluster.Decision
		if err := strictJSON(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// checkHeader refuses a header line of another format or course.
func checkHeader(line []byte, name string, cfg cluster.Config) error {
	var h Header
	if err := strictJSON(line, &h); err != nil {
		return fmt.Errorf("%s:1: %v", name, err)
	}
	if h.Format != 0 && h.Format != Format {
		return fmt.Errorf("%s:1: decisions in format %d, from another version of clusteremu; this one reads format %d", name, h.Format, Format)
	}
	if want := CourseHash(cfg); h.Course != want {
		return fmt.Errorf("%s:1: decisions taken in %s under another configuration (course %.12s…, this run's %.12s…): they replay only the scenario, seed and settings that recorded them",
			name, h.Scenario, h.Course, want)
	}
	return nil
}

// strictJSON decodes one JSON object, refusing unknown fields.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
