// Package explore searches a scenario's schedules for failures and
// shrinks the failures it finds: the core of `clusteremu explore` and
// `clusteremu shrink`, and of package emutest, which runs them from Go
// tests.
//
// A deterministic run is a pure function of its configuration, its
// workload seed and its schedule seed. Seeds runs one scenario under many
// schedule seeds, the workload the same each time, and Verdict judges
// each run: its broken invariant, or its first failed [[expect]] block.
// Shrink reduces a failing seed to the few decisions (a message delivered
// before another, a control message or heartbeat delayed) without which
// the failure goes away, and WriteDecisions stores them with the course
// hash of the configuration they were taken in, so ReadDecisions refuses
// them for any other:
//
//	sc, err := scenarios.LoadFile("race.toml")
//	runs := explore.NewRuns()
//	outcomes := explore.Seeds(sc, 1, 200, 0, runs, nil)
//	if i := explore.Earliest(outcomes); i >= 0 {
//		seed := uint64(1 + i)
//		minimal, err := explore.Shrink(os.Stdout, sc, seed, 0, runs)
//		err = explore.WriteDecisions("race.jsonl", sc.Name, sc.Config, minimal)
//	}
//
// A pinned run (cluster.RunOptions.Pinned) follows the stored decisions
// and nothing else: `clusteremu run race.toml --decisions race.jsonl`.
//
// It imports cluster and scenarios; the CLI and emutest import it.
package explore
