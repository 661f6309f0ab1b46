package explore

import (
	"errors"
	"fmt"
	"io"
	"time"

	"clusteremu/cluster"
	"clusteremu/internal/shrink"
	"clusteremu/scenarios"
)

// Shrink runs the scenario under the schedule seed, recording where it
// left the default course (FIFO delivery, no delays); pins those
// departures and drops them with delta debugging while the run still
// fails with the same violation (the same Signature); and returns what is
// left, a 1-minimal set: dropping any one decision makes the failure go
// away. An empty set means the default course fails too.
//
// It tells w what it does as `clusteremu shrink` prints it: the seed's
// failure, how often the run left the default course, and the minimal
// decisions. The cost is one run per candidate set, workers at once (≤ 0:
// one per CPU): typically a few hundred runs.
//
// An interrupt of runs stops it where it is: it returns the smallest
// failing set found so far, which need not be minimal.
func Shrink(w io.Writer, sc *scenarios.Scenario, seed uint64, workers int, runs *Runs) ([]cluster.Decision, error) {
	start := time.Now()
	cfg := sc.Config
	cfg.Run.ScheduleSeed, cfg.Run.RecordDecisions = seed, true
	cfg.Run.Slowdown = cfg.Run.Slowdown && checksReferences(sc)
	rep, first := Verdict(sc, cfg, runs)
	if errors.Is(first, cluster.ErrInterrupted) {
		return nil, fmt.Errorf("interrupted before seed %d had run", seed)
	}
	if first == nil {
		return nil, fmt.Errorf("schedule seed %d of %s does not fail", seed, sc.Name)
	}
	fmt.Fprintf(w, "seed %d: FAIL %v\n", seed, first)
	if rep == nil {
		return nil, fmt.Errorf("schedule seed %d of %s fails before it runs: %w", seed, sc.Name, first)
	}
	all := beforeFailure(rep)
	fmt.Fprintf(w, "the run left the default course (FIFO delivery, no delays) %s before it failed\n", CountKinds(all))
	want := Signature(first)
	fails := func(ds []cluster.Decision) bool {
		if runs.Stopped() {
			return false // keeps what is known to fail: the shrinking ends
		}
		c := cfg
		c.Run.RecordDecisions, c.Run.Pinned, c.Run.Decisions = false, true, ds
		_, err := Verdict(sc, c, runs)
		return err != nil && Signature(err) == want
	}
	if !fails(all) {
		if runs.Stopped() {
			return nil, errors.New("interrupted before the shrinking began")
		}
		return nil, errors.New("pinning the recorded decisions does not repeat the failure; the run is not deterministic")
	}
	minimal, tests := shrink.Minimize(all, fails, workers)
	if runs.Stopped() {
		fmt.Fprintf(w, "interrupted: the smallest failing set found so far has %d decision(s) (of %d; not shown minimal):\n", len(minimal), len(all))
		printDecisions(w, minimal)
		return minimal, nil
	}
	runCount := tests + 2 // the seeded run and the pinned check
	if len(minimal) == 0 {
		fmt.Fprintf(w, "the default course fails too: the failure needs no particular order or delay (%d runs, %v)\n",
			runCount, time.Since(start).Round(time.Millisecond))
		return minimal, nil
	}
	fmt.Fprintf(w, "shrunk to %d decision(s) in %d runs (%v); dropping any one of them makes the failure go away:\n",
		len(minimal), runCount, time.Since(start).Round(time.Millisecond))
	printDecisions(w, minimal)
	return minimal, nil
}

// beforeFailure is the decisions a run recorded up to its end: a broken
// invariant ends the run, so nothing after it mattered.
func beforeFailure(rep *cluster.Report) []cluster.Decision {
	all := rep.End.Decisions
	if rep.End.Err == nil {
		return all
	}
	kept := all[:0:0]
	for _, d := range all {
		if d.At <= rep.End.At {
			kept = append(kept, d)
		}
	}
	return kept
}

func printDecisions(w io.Writer, ds []cluster.Decision) {
	for _, d := range ds {
		fmt.Fprintf(w, "  %v\n", d)
	}
}

// CountKinds describes a decision list by kind: "857 times (43 orders,
// 417 relay delays, 397 heartbeat delays)".
func CountKinds(ds []cluster.Decision) string {
	n := map[cluster.DecisionKind]int{}
	for _, d := range ds {
		n[d.Kind]++
	}
	out := fmt.Sprintf("%d times (%d orders, %d relay delays, %d heartbeat delays",
		len(ds), n[cluster.DecideOrder], n[cluster.DecideRelay], n[cluster.DecideHeartbeat])
	if rules := n[cluster.DecideDrop] + n[cluster.DecideDelay]; rules > 0 {
		out += fmt.Sprintf(", %d messages dropped and %d delayed by rules", n[cluster.DecideDrop], n[cluster.DecideDelay])
	}
	return out + ")"
}
