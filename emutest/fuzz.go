package emutest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"clusteremu/explore"
	"clusteremu/scenarios"
)

// Fuzz makes f a fuzz target over the scenario's schedules. Each input is
// a schedule seed and decisions: when the decisions bytes are a decisions
// file of this scenario (JSON lines, as Explore stores them), the run
// follows them and nothing else, so the fuzzer mutates a known course
// (a delay, a message count); otherwise the run draws its course from the
// seed. An input that breaks an invariant or an [[expect]] block fails
// with the violation, and `go test -fuzz` keeps it in
// testdata/fuzz/FUZZNAME/ and replays it on every go test after.
//
// The corpus starts with seeds 1 to 8 and the failure Explore stored for
// the test of the same name without its Fuzz prefix (FuzzX takes TestX's),
// if there is one.
func Fuzz(f *testing.F, s Scenario) {
	f.Helper()
	sc := load(f, s)
	if err := deterministic(sc); err != nil {
		f.Fatalf("emutest: %v", err)
	}
	for seed := range uint64(8) {
		f.Add(seed+1, []byte(nil))
	}
	if name, ok := strings.CutPrefix(f.Name(), "Fuzz"); ok {
		if data, err := os.ReadFile(storedFile("Test" + name)); err == nil {
			f.Add(uint64(0), data)
		}
	}
	f.Fuzz(func(t *testing.T, seed uint64, decisions []byte) { fuzzOne(t, s, sc, seed, decisions) })
}

// fuzzOne runs one fuzz input: the decisions when they are this
// scenario's, else the seed.
func fuzzOne(t testing.TB, s Scenario, sc *scenarios.Scenario, seed uint64, decisions []byte) {
	t.Helper()
	cfg := sc.Config
	cfg.Run.ScheduleSeed, cfg.Run.Slowdown = seed, false
	course := fmt.Sprintf("schedule seed %d", seed)
	if len(decisions) > 0 {
		if ds, err := explore.DecodeDecisions(bytes.NewReader(decisions), "input", sc.Config); err == nil {
			cfg.Run.Pinned, cfg.Run.Decisions = true, ds
			course = fmt.Sprintf("%d pinned decision(s)", len(ds))
		}
	}
	before := goleak.IgnoreCurrent()
	rep, err := explore.Verdict(sc, cfg, explore.NewRuns())
	leaked(t, before)
	if err != nil {
		t.Fatalf("emutest: %s, %s: FAIL %s", s, course, describe(err, rep))
	}
}
