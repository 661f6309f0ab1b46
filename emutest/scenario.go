package emutest

import (
	"fmt"
	"path/filepath"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// Scenario is what a test runs: a scenario file (File), scenario text
// (TOML) or a configuration built in Go (Config). It is loaded and
// validated when the test runs it, with the policies the test binary has
// registered (sched.Register in an init function of a package the test
// imports).
type Scenario struct {
	name string // for messages and decisions files
	path string // the file, when there is one: the CLI's replay names it
	load func() (*scenarios.Scenario, error)
}

// File is the scenario file at path, relative to the test's package
// directory (as testdata/x.toml is). Its relative trace paths resolve
// against the file's directory.
func File(path string) Scenario {
	return Scenario{name: path, path: path, load: func() (*scenarios.Scenario, error) { return scenarios.LoadFile(path) }}
}

// TOML is a scenario written out in the test, named name in messages;
// relative trace paths resolve against the package directory.
func TOML(name, text string) Scenario {
	return Scenario{name: name, load: func() (*scenarios.Scenario, error) { return scenarios.Load(name, []byte(text), ".") }}
}

// Config is a configuration built in Go, named name in messages. It has
// no [[expect]] blocks: a run fails only on a broken invariant.
func Config(name string, cfg cluster.Config) Scenario {
	return Scenario{name: name, load: func() (*scenarios.Scenario, error) {
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &scenarios.Scenario{Name: name, Config: cfg}, nil
	}}
}

// String is the scenario's name.
func (s Scenario) String() string { return s.name }

// deterministic reports why the scenario cannot be explored or replayed,
// or nil: that needs deterministic virtual time.
func deterministic(sc *scenarios.Scenario) error {
	if sc.Config.Run.Concurrent() || sc.Config.Run.Clock != cluster.Virtual {
		return fmt.Errorf("%s: exploring schedules needs deterministic virtual time (run.clock = \"virtual\", deterministic)", sc.Name)
	}
	return nil
}

// storedFile is where Explore keeps the shrunk failure of the test named
// name: testdata/emutest/NAME.jsonl, a subtest's slashes as "__".
func storedFile(name string) string {
	safe := []rune{}
	for _, r := range name {
		switch {
		case r == '/':
			safe = append(safe, '_', '_')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			safe = append(safe, r)
		default:
			safe = append(safe, '_')
		}
	}
	return filepath.Join("testdata", "emutest", string(safe)+".jsonl")
}
