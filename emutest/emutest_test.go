package emutest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/policies/sched"
	_ "clusteremu/scenarios/examples/race" // race-fifo, the planted race
	"clusteremu/workload"
)

func init() {
	sched.Register("emutest-fifo", sched.DefaultFIFOParams, func(p *sched.FIFOParams) (sched.Policy, error) {
		return sched.NewFIFOWithDelay(p.Waits()), nil
	})
}

// recorder is a testing.TB that keeps what a test says instead of
// failing, so a test can check how emutest fails one.
type recorder struct {
	testing.TB
	name string
	mu   sync.Mutex
	out  []string
	fail bool
}

// record runs f as the test named name and returns what it said and
// whether it failed.
func record(t *testing.T, name string, f func(tb testing.TB)) (string, bool) {
	r := &recorder{TB: t, name: name}
	done := make(chan struct{})
	go func() { // FailNow ends this goroutine, as it ends a test's
		defer close(done)
		f(r)
	}()
	<-done
	return strings.Join(r.out, "\n"), r.fail
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Helper()      {}
func (r *recorder) say(failed bool, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out = append(r.out, s)
	r.fail = r.fail || failed
}
func (r *recorder) Logf(format string, args ...any)   { r.say(false, fmt.Sprintf(format, args...)) }
func (r *recorder) Errorf(format string, args ...any) { r.say(true, fmt.Sprintf(format, args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fail()                             { r.say(true, "") }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Failed() bool                      { r.mu.Lock(); defer r.mu.Unlock(); return r.fail }

const small = `
[run]
seed = 3
slowdown = false

[cluster]
racks = 2
nodes_per_rack = 3

[scheduler]
name = "%s"

[[workload.synthetic]]
jobs = 4
interarrival = "10s"
task_time = "2s"
sizes = "pareto"
max_maps = 6

[[expect]]
metric = "jobs.succeeded"
op = "=="
value = 4
`

func TestRunReturnsTheReport(t *testing.T) {
	rep := Run(t, TOML("small.toml", fmt.Sprintf(small, "emutest-fifo")))
	assert.Equal(t, 4.0, rep.Summary["jobs.succeeded"])
}

func TestRunAcceptsAConfig(t *testing.T) {
	cfg := cluster.DefaultConfig()
	cfg.Workload = [][]workload.JobSpec{{{InputBytes: 1 << 28, Reduces: 1, Submit: time.Second}}}
	rep := Run(t, Config("one job", cfg))
	assert.Equal(t, cluster.EndDone, rep.End.Reason)
	assert.Equal(t, 1.0, rep.Summary["jobs.succeeded"])
}

// A scenario naming a policy the test did not register lists those it did,
// the test's own among them.
func TestAnUnregisteredPolicyListsTheRegistered(t *testing.T) {
	out, failed := record(t, "TestX", func(tb testing.TB) { Run(tb, TOML("small.toml", fmt.Sprintf(small, "mine"))) })
	assert.True(t, failed)
	assert.Contains(t, out, `emutest: small.toml:11:1: scheduler.name = "mine": must be one of `)
	assert.Contains(t, out, "emutest-fifo, fair, fbq, fifo,")
	assert.Contains(t, out, "race-fifo")
}

// A failed run names its seed, instant, actor and message, and the
// commands that replay it.
func TestRunFailureNamesInstantActorMessageAndReplay(t *testing.T) {
	race := filepath.Join("..", "scenarios", "examples", "race", "race.toml")
	out, failed := record(t, "TestRace/seed", func(tb testing.TB) { Run(tb, File(race), ScheduleSeed(195)) })
	assert.True(t, failed)
	assert.Contains(t, out, "emutest: "+race+", schedule seed 195: FAIL at 39.762078479s (step 1765), coordinator handling actors.Heartbeat: coordinator: race-fifo assigned job 1 a reduce slot on node 7, but it has no such task within remote\n")
	assert.Contains(t, out, "replay:  go test -run '^TestRace$/^seed$' .\n         clusteremu run "+race+" --schedule-seed 195")
}

// leakyActor starts a goroutine that outlives the run: it waits for a
// channel nobody closes until the test does.
type leakyActor struct{ stop chan struct{} }

func (a *leakyActor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*actor.Started); ok {
		go a.poll()
	}
}

func (a *leakyActor) poll() { <-a.stop }

func TestALeakingActorFailsTheRunNamingIt(t *testing.T) {
	leaky := &leakyActor{stop: make(chan struct{})}
	out, failed := record(t, "TestLeak", func(tb testing.TB) {
		Run(tb, TOML("small.toml", fmt.Sprintf(small, "fifo")), Setup(func(c *cluster.Cluster) {
			_, err := c.Runtime().Spawn("leaky", func() actor.Actor { return leaky })
			require.NoError(t, err)
		}))
	})
	close(leaky.stop) // the leak ends: goleak checks the package is clean
	assert.True(t, failed)
	assert.Contains(t, out, "emutest: the run left goroutines running")
	assert.Contains(t, out, "clusteremu/emutest.(*leakyActor).poll")
}

// copyScenario copies a scenario of the race example into the test's
// own working directory, where Explore stores its failures.
func copyScenario(t *testing.T, name string) string {
	data, err := os.ReadFile(filepath.Join("..", "scenarios", "examples", "race", name))
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile(name, data, 0o644))
	return string(data)
}

// Explore finds the lossy race, shrinks it and stores it; the next
// Explore replays the stored failure first; a changed scenario refuses it.
func TestExploreStoresTheFailureAndReplaysItFirst(t *testing.T) {
	text := copyScenario(t, "lossy.toml")
	out, failed := record(t, "TestLossy", func(tb testing.TB) { Explore(tb, File("lossy.toml"), 30) })
	require.True(t, failed)
	assert.Regexp(t, `emutest: lossy.toml: \d+ of 30 schedule seeds failed; the earliest failure, seed \d+, shrunk:`, out)
	assert.Contains(t, out, "dropping any one of them makes the failure go away")
	assert.Contains(t, out, "stored in testdata/emutest/TestLossy.jsonl: the next go test replays it first\n"+
		"replay:  go test -run '^TestLossy$' .\n         clusteremu run lossy.toml --decisions testdata/emutest/TestLossy.jsonl")
	_, err := os.Stat(filepath.Join("testdata", "emutest", "TestLossy.jsonl"))
	require.NoError(t, err)

	start := time.Now()
	out, failed = record(t, "TestLossy", func(tb testing.TB) { Explore(tb, File("lossy.toml"), 30) })
	assert.True(t, failed)
	assert.Contains(t, out, "emutest: lossy.toml: the stored failure testdata/emutest/TestLossy.jsonl (1 decision(s)), replayed first, still fails: FAIL at ")
	assert.Contains(t, out, "race-fifo assigned job")
	assert.NotContains(t, out, "schedule seeds failed", "it fails on the stored failure without exploring")
	t.Logf("the replay took %v", time.Since(start))

	fixed := strings.Replace(text, "fixed = false", "fixed = true", 1)
	out, failed = record(t, "TestLossy", func(tb testing.TB) { Explore(tb, TOML("lossy.toml", fixed), 30) })
	assert.True(t, failed)
	assert.Contains(t, out, "emutest: the stored failure is refused: testdata/emutest/TestLossy.jsonl:1: decisions taken in lossy.toml under another configuration")
	assert.Contains(t, out, "(delete testdata/emutest/TestLossy.jsonl to explore afresh)")
}

func TestExploreTakesItsSeedsFromTheFlag(t *testing.T) {
	text := copyScenario(t, "race.toml")
	fixed := TOML("race.toml", strings.Replace(text, "fixed = false", "fixed = true", 1))
	*seedsFlag = 7
	defer func() { *seedsFlag = 0 }()
	out, failed := record(t, "TestFew", func(tb testing.TB) { Explore(tb, fixed, 200) })
	assert.False(t, failed, out)
	assert.Equal(t, "emutest: race.toml: 7 schedule seeds (1–7) passed", out)
}

// A failed expectation is given the instant the run ended; a run on
// protoactor's own dispatchers offers no replay.
func TestAFailedExpectationOfALiveRun(t *testing.T) {
	text := strings.Replace(fmt.Sprintf(small, "fifo"), "value = 4", "value = 5", 1)
	text = strings.Replace(text, "slowdown = false", "slowdown = false\ndeterministic = false", 1)
	out, failed := record(t, "TestLive", func(tb testing.TB) { Run(tb, TOML("live.toml", text)) })
	assert.True(t, failed)
	assert.Regexp(t, `emutest: live.toml, schedule seed 0: FAIL at \S+ \(the run's end\): .*jobs.succeeded`, out)
	assert.Contains(t, out, "replay:  none: the run is not deterministic")
}
