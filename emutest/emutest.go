package emutest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"clusteremu/cluster"
	"clusteremu/explore"
	"clusteremu/scenarios"
)

// seedsFlag is -emu.seeds: when set, the number of schedule seeds every
// Explore of the test binary runs, whatever the test asks for.
var seedsFlag = flag.Int("emu.seeds", 0, "schedule seeds each emutest.Explore runs (0: as many as the test asks for)")

// Option changes how Run runs its scenario.
type Option func(*options)

type options struct {
	setup        []func(*cluster.Cluster)
	scheduleSeed *uint64
}

// Setup calls f with the built cluster before it runs, on the goroutine
// that runs it: to spawn an actor of the test's own into the run
// (c.Runtime().Spawn) or keep a node's PID to stop. What f starts must
// stop by the run's end: Run fails on any goroutine left behind.
func Setup(f func(c *cluster.Cluster)) Option {
	return func(o *options) { o.setup = append(o.setup, f) }
}

// ScheduleSeed runs the scenario under the schedule seed instead of its
// own run.schedule_seed.
func ScheduleSeed(seed uint64) Option {
	return func(o *options) { o.scheduleSeed = &seed }
}

// Run runs the scenario once and returns its report. It fails t, naming
// the scenario, the schedule seed, the emulated instant and (for a broken
// invariant) the actor and the message it was handling, with the command
// that replays the run, when the run breaks an invariant or an [[expect]]
// block fails; when the scenario does not load (a policy it names that
// the test did not register is listed with the registered ones); and when
// the run leaves a goroutine behind, naming it.
//
// Run and Explore see every goroutine of the test binary, so a test that
// calls them must not run in parallel (t.Parallel) with tests that start
// goroutines of their own.
func Run(t testing.TB, s Scenario, opts ...Option) *cluster.Report {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	sc := load(t, s)
	cfg := sc.Config
	if o.scheduleSeed != nil {
		cfg.Run.ScheduleSeed = *o.scheduleSeed
	}
	before := goleak.IgnoreCurrent()
	rep, err := runOnce(sc, cfg, o.setup)
	leaked(t, before)
	if err == nil {
		return rep
	}
	replay := replayCommands(t, s, fmt.Sprintf("--schedule-seed %d", cfg.Run.ScheduleSeed))
	if deterministic(sc) != nil {
		replay = "none: the run is not deterministic (run.clock, run.deterministic), so it need not fail the same way again"
	}
	t.Fatalf("emutest: %s, schedule seed %d: FAIL %s\nreplay:  %s", s, cfg.Run.ScheduleSeed, describe(err, rep), replay)
	return nil
}

// runOnce builds and runs one configuration of the scenario.
func runOnce(sc *scenarios.Scenario, cfg cluster.Config, setup []func(*cluster.Cluster)) (*cluster.Report, error) {
	c, err := cluster.Build(cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range setup {
		f(c)
	}
	return explore.VerdictOf(sc, c, explore.NewRuns())
}

// Explore runs the scenario under n schedule seeds (1 to n; -emu.seeds
// overrides n), as many at once as GOMAXPROCS, the workload the same each
// time. When a seed fails it shrinks the earliest failure to the few
// decisions (deliveries out of FIFO order, delays) without which it goes
// away, stores them in testdata/emutest/TESTNAME.jsonl and fails t with
// the failure, the decisions and the commands that replay them.
//
// Before exploring, it replays the failure stored for the test, if there
// is one: if that still fails, t fails with it at once; if it passes (the
// bug is fixed), it says so and explores, and a new failure found then
// replaces it. Commit the stored file with the
// fix: it is the test's regression case. A file taken in another
// configuration of the scenario, or by another version of its format, is
// refused with the reason; delete it to explore afresh. The file is named
// after the test, so a test explores one scenario (subtests, more).
func Explore(t testing.TB, s Scenario, n int) {
	t.Helper()
	sc := load(t, s)
	if err := deterministic(sc); err != nil {
		t.Fatalf("emutest: %v", err)
	}
	if *seedsFlag > 0 {
		n = *seedsFlag
	}
	if n < 1 {
		t.Fatalf("emutest: Explore of %s with %d seeds: must be ≥ 1", s, n)
	}
	stored := storedFile(t.Name())
	before := goleak.IgnoreCurrent()
	defer leaked(t, before)
	if replayStored(t, s, sc, stored) {
		return
	}
	runs := explore.NewRuns()
	outcomes := explore.Seeds(sc, 1, n, 0, runs, nil)
	i := explore.Earliest(outcomes)
	if i < 0 {
		t.Logf("emutest: %s: %d schedule seeds (1–%d) passed", s, n, n)
		return
	}
	failed := 0
	for _, o := range outcomes {
		if o.Err != nil {
			failed++
		}
	}
	seed := uint64(1 + i)
	var log bytes.Buffer
	fmt.Fprintf(&log, "emutest: %s: %d of %d schedule seeds failed; the earliest failure, seed %d, shrunk:\n", s, failed, n, seed)
	minimal, err := explore.Shrink(&log, sc, seed, 0, runs)
	if err != nil {
		t.Fatalf("%s\nshrinking failed: %v\nreplay:  %s", log.String(), err, replayCommands(t, s, fmt.Sprintf("--schedule-seed %d", seed)))
	}
	err = os.MkdirAll(filepath.Dir(stored), 0o755)
	if err == nil {
		err = explore.WriteDecisions(stored, sc.Name, sc.Config, minimal)
	}
	if err != nil {
		t.Fatalf("%s\nstoring them: %v\nreplay:  %s", log.String(), err, replayCommands(t, s, fmt.Sprintf("--schedule-seed %d", seed)))
	}
	t.Fatalf("%sstored in %s: the next go test replays it first\nreplay:  %s", log.String(), stored,
		replayCommands(t, s, "--decisions "+stored))
}

// replayStored replays the failure stored for the test, if any, and
// reports whether t has failed.
func replayStored(t testing.TB, s Scenario, sc *scenarios.Scenario, stored string) bool {
	t.Helper()
	if _, err := os.Stat(stored); errors.Is(err, os.ErrNotExist) {
		return false
	}
	ds, err := explore.ReadDecisions(stored, sc.Config)
	if err != nil {
		t.Errorf("emutest: the stored failure is refused: %v\n(delete %s to explore afresh)", err, stored)
		return true
	}
	cfg := sc.Config
	cfg.Run.Slowdown, cfg.Run.Pinned, cfg.Run.Decisions = false, true, ds
	rep, err := explore.Verdict(sc, cfg, explore.NewRuns())
	if err != nil {
		var list strings.Builder
		for _, d := range ds {
			fmt.Fprintf(&list, "  %v\n", d)
		}
		t.Errorf("emutest: %s: the stored failure %s (%d decision(s)), replayed first, still fails: FAIL %s\n%sreplay:  %s",
			s, stored, len(ds), describe(err, rep), list.String(), replayCommands(t, s, "--decisions "+stored))
		return true
	}
	t.Logf("emutest: %s: the stored failure %s replays without failing (%d decision(s)); exploring", s, stored, len(ds))
	return false
}

// load loads the scenario or fails t.
func load(t testing.TB, s Scenario) *scenarios.Scenario {
	t.Helper()
	if s.load == nil {
		t.Fatalf("emutest: no scenario: use emutest.File, emutest.TOML or emutest.Config")
	}
	sc, err := s.load()
	if err != nil {
		t.Fatalf("emutest: %v", err)
	}
	return sc
}

// describe is a violation with the emulated instant first: a broken
// invariant says its instant, actor and message; a failed expectation
// or a stall is given the instant the run ended.
func describe(err error, rep *cluster.Report) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "at ") || rep == nil {
		return msg
	}
	return fmt.Sprintf("at %v (the run's end): %s", rep.End.At, msg)
}

// replayCommands are the commands that replay a run of the test: go test
// on the test, and the CLI on a scenario file, where its policies are
// built in.
func replayCommands(t testing.TB, s Scenario, flags string) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	cmd := fmt.Sprintf("go test -run '%s' .", strings.Join(parts, "/"))
	if s.path != "" {
		cmd += fmt.Sprintf("\n         clusteremu run %s %s   (a clusteremu that registers the same policies)", s.path, flags)
	}
	return cmd
}

// leaked fails t with the goroutines started since before that are still
// running.
func leaked(t testing.TB, before goleak.Option) {
	t.Helper()
	if err := goleak.Find(before); err != nil {
		t.Errorf("emutest: the run left goroutines running (an actor or a policy of the test's that does not stop what it starts):\n%v", err)
	}
}
