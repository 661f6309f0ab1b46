package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// The planted ordering bugs of the schedule-search table: actors that make
// chains of deliveries at one emulated instant, each sending itself the
// next step, and report marked steps to a checker, which fails the run
// when it sees its marks in the planted order. Which chain steps when is
// the executor's choice among the ready actors, and nothing else: no
// timer, no chaos.

// chainStep is a chain's next delivery.
type chainStep struct{}

// chainMark is a marked step, reported to the checker.
type chainMark struct{ mark string }

// chain makes n steps and reports the marked ones.
type chain struct {
	n       int
	marks   map[int]string
	checker *actor.PID
	done    int
}

func (c *chain) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started, *chainStep:
		if _, ok := ctx.Message().(*chainStep); ok {
			c.done++
			if mark, ok := c.marks[c.done]; ok {
				ctx.Send(c.checker, &chainMark{mark})
			}
		}
		if c.done < c.n {
			ctx.Send(ctx.Self(), &chainStep{})
		}
	}
}

// checker panics, failing the run, once it has seen want in that order.
type checker struct {
	want []string
	seen int
}

func (c *checker) Receive(ctx actor.Context) {
	if m, ok := ctx.Message().(*chainMark); ok && c.seen < len(c.want) && m.mark == c.want[c.seen] {
		if c.seen++; c.seen == len(c.want) {
			panic("planted ordering bug: " + strings.Join(c.want, " < "))
		}
	}
}

// plantedBug is a fixture: chains by name, with their lengths and marks,
// and the order of marks that fails.
type plantedBug struct {
	name   string
	chains map[string]chainSpec
	fails  []string
}

type chainSpec struct {
	n     int
	marks map[int]string
}

// The two fixtures. Four noise chains of 20 steps run beside the chains
// that matter, as the other actors of a cluster would.
var plantedBugs = []plantedBug{
	{
		// One ordering: x's 20 steps all before y's first. A uniform draw
		// does that about once in 2^20 runs; PCT whenever x's priority is
		// above y's, once in two.
		name: "x finishes before y starts (1 ordering)",
		chains: withNoise(map[string]chainSpec{
			"x": {20, map[int]string{20: "x-last"}},
			"y": {20, map[int]string{1: "y-first"}},
		}),
		fails: []string{"x-last", "y-first"},
	},
	{
		// Two orderings: y's 10 steps all between x's 10th and 11th, and
		// none before x's 10th. PCT needs x above y and its one priority
		// change at x's 10th step, about once in 2k runs for a run of k
		// steps; a uniform draw about once in 2^20.
		name: "y runs whole inside x (2 orderings)",
		chains: withNoise(map[string]chainSpec{
			"x": {20, map[int]string{10: "x-10", 11: "x-11"}},
			"y": {10, map[int]string{1: "y-first", 10: "y-last"}},
		}),
		fails: []string{"x-10", "y-first", "y-last", "x-11"},
	},
}

func withNoise(chains map[string]chainSpec) map[string]chainSpec {
	for i := range 4 {
		chains[fmt.Sprintf("noise-%d", i)] = chainSpec{n: 20}
	}
	return chains
}

// run runs the fixture once; it reports whether the run failed and how
// many deliveries it made.
func (b plantedBug) run(t testing.TB, opts cluster.RunOptions) (bool, uint64) {
	r := cluster.NewRuntime(opts)
	check, err := r.Spawn("checker", func() actor.Actor { return &checker{want: b.fails} })
	require.NoError(t, err)
	for _, name := range slices.Sorted(maps.Keys(b.chains)) {
		spec := b.chains[name]
		_, err := r.Spawn(name, func() actor.Actor { return &chain{n: spec.n, marks: spec.marks, checker: check} })
		require.NoError(t, err)
	}
	res := r.Run()
	return res.Err != nil, res.Steps
}

// runsToFailure runs seeds from first on until one fails, at most budget
// of them; 0 when none did.
func runsToFailure(budget int, first uint64, failed func(seed uint64) bool) int {
	for i := range budget {
		if failed(first + uint64(i)) {
			return i + 1
		}
	}
	return 0
}

// searchBudget bounds each seed range's search; the ranges start
// rangeStride seeds apart.
const (
	searchBudget = 2000
	rangeStride  = 100_000
)

// searchStats are the runs to the first failure over seed ranges: the
// median and the worst, or how many ranges found none within the budget.
type searchStats struct {
	ranges   int
	runs     []int
	notFound int
}

func searchOver(ranges, budget int, failed func(seed uint64) bool) searchStats {
	st := searchStats{ranges: ranges}
	for r := range ranges {
		if n := runsToFailure(budget, uint64(r)*rangeStride+1, failed); n > 0 {
			st.runs = append(st.runs, n)
		} else {
			st.notFound++
		}
	}
	slices.Sort(st.runs)
	return st
}

func (st searchStats) String() string {
	if len(st.runs) == 0 {
		return fmt.Sprintf("none found within %d runs in any of %d ranges", searchBudget, st.ranges)
	}
	s := fmt.Sprintf("median %d, worst %d", st.runs[(len(st.runs)-1)/2], st.runs[len(st.runs)-1])
	if st.notFound > 0 {
		s += fmt.Sprintf("; %d of %d ranges found none within %d runs", st.notFound, st.ranges, searchBudget)
	}
	return s
}

// pctFails runs the bug under PCT at its depth over the steps of its
// run in FIFO order.
func (b plantedBug) pctFails(t testing.TB, depth int) func(uint64) bool {
	_, steps := b.run(t, cluster.RunOptions{Pinned: true})
	return func(seed uint64) bool {
		failed, _ := b.run(t, cluster.RunOptions{ScheduleSeed: seed, Strategy: cluster.PCT, PCTDepth: depth, PCTSteps: steps})
		return failed
	}
}

func (b plantedBug) randomFails(t testing.TB) func(uint64) bool {
	return func(seed uint64) bool {
		failed, _ := b.run(t, cluster.RunOptions{ScheduleSeed: seed})
		return failed
	}
}

// TestPCTFindsThePlantedOrderingBugs holds PCT to finding each planted
// bug within the budget on three fixed seed ranges, where the first 100
// uniform draws find none.
func TestPCTFindsThePlantedOrderingBugs(t *testing.T) {
	if raceEnabled {
		t.Skip("thousands of runs; make test runs it without the race detector")
	}
	for i, bug := range plantedBugs {
		pct := searchOver(3, searchBudget, bug.pctFails(t, i+1))
		assert.Zero(t, pct.notFound, "%s: PCT finds it in every range: %v", bug.name, pct)
		random := searchOver(1, 100, bug.randomFails(t))
		assert.Equal(t, 1, random.notFound, "%s: a bug a uniform draw seldom finds", bug.name)
	}
}

// TestSearchTable measures the runs to the first failure, under random
// draws and under PCT, for each planted bug and for the race tutorial's,
// over 20 fixed seed ranges of at most 2,000 runs:
// CLUSTEREMU_SEARCH_TABLE=1 go test ./cmd/clusteremu -run TestSearchTable -v
// prints the README's table (about ten minutes: the uniform draws run
// out their budget).
func TestSearchTable(t *testing.T) {
	if os.Getenv("CLUSTEREMU_SEARCH_TABLE") == "" {
		t.Skip("a measurement of ten minutes: CLUSTEREMU_SEARCH_TABLE=1")
	}
	const ranges = 20
	table := []string{"| planted bug | depth | random: runs to the first failure | PCT: runs to the first failure |", "| --- | --- | --- | --- |"}
	for i, bug := range plantedBugs {
		_, steps := bug.run(t, cluster.RunOptions{Pinned: true})
		random := searchOver(ranges, searchBudget, bug.randomFails(t))
		pct := searchOver(ranges, searchBudget, bug.pctFails(t, i+1))
		table = append(table, fmt.Sprintf("| %s, %d deliveries | %d | %v | %v |", bug.name, steps, i+1, random, pct))
	}
	// The race tutorial's bug is a crossing of two messages that [chaos]
	// delays decide, which both strategies draw alike.
	sc, err := scenarios.LoadFile(filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml"))
	require.NoError(t, err)
	cfg := sc.Config
	cfg.Run.Slowdown, cfg.Run.Pinned = false, true
	c, err := cluster.Build(cfg)
	require.NoError(t, err)
	rep, err := c.Run()
	require.NoError(t, err, "in FIFO order, without delays, the race does not fail")
	raceFails := func(strategy cluster.Strategy) func(uint64) bool {
		return func(seed uint64) bool {
			cfg := sc.Config
			cfg.Run.Slowdown, cfg.Run.ScheduleSeed = false, seed
			if strategy == cluster.PCT {
				cfg.Run.Strategy, cfg.Run.PCTDepth, cfg.Run.PCTSteps = cluster.PCT, 2, rep.End.Steps
			}
			c, err := cluster.Build(cfg)
			require.NoError(t, err)
			_, err = c.Run()
			return err != nil
		}
	}
	random, pct := searchOver(ranges, searchBudget, raceFails(cluster.Random)), searchOver(ranges, searchBudget, raceFails(cluster.PCT))
	table = append(table, fmt.Sprintf("| the race tutorial's (race.toml), %d deliveries in FIFO order | 2 | %v | %v |", rep.End.Steps, random, pct))
	t.Log("\n" + strings.Join(table, "\n"))
}

func TestPCTIsDeterministicBySeed(t *testing.T) {
	bug := plantedBugs[1]
	_, steps := bug.run(t, cluster.RunOptions{Pinned: true})
	events := func(seed uint64) []cluster.Event {
		var out []cluster.Event
		bug.run(t, cluster.RunOptions{ScheduleSeed: seed, Strategy: cluster.PCT, PCTDepth: 2, PCTSteps: steps,
			OnEvent: func(e cluster.Event) { out = append(out, e) }})
		return out
	}
	assert.Equal(t, events(7), events(7), "a seed replays its run")
	assert.NotEqual(t, events(7), events(8), "another seed draws other priorities")
}
