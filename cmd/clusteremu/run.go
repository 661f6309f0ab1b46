package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// defaultRun is the built-in run until TOML scenarios arrive: 4 racks of
// 10 nodes (4 map and 2 reduce slots each) under FIFO, and a synthetic
// stream of jobs with heavy-tailed sizes arriving at 70% load.
func defaultRun(jobs int, seed uint64) (cluster.Config, error) {
	cfg := cluster.DefaultConfig()
	cfg.Racks, cfg.NodesPerRack = 4, 10
	cfg.Seed, cfg.ScheduleSeed = seed, seed
	cfg.StallAfter = time.Hour
	stream := scenarios.DefaultSyntheticStream()
	stream.Jobs = jobs
	stream.Sizes = "pareto"
	stream.MaxMaps = 400
	stream.Load = 0.7
	stream.TaskTime = scenarios.Duration(15 * time.Second) // a 128 MiB map: 1.3 s of reading, 12.8 s of compute
	stream.Slots = cfg.Nodes() * cfg.MapSlots
	specs, err := stream.Generate(scenarios.Env{Seed: seed})
	if err != nil {
		return cfg, err
	}
	cfg.Workload = append(cfg.Workload, specs)
	return cfg, nil
}

// runCommand runs the built-in cluster and prints its summary.
func runCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 1, "workload and schedule seed")
	jobs := fs.Int("jobs", 200, "jobs in the synthetic stream")
	until := fs.Duration("until", 0, "cut the run off at this emulated time (0: run to the end)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := defaultRun(*jobs, *seed)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return 1
	}
	cfg.Until = *until
	c, err := cluster.Build(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return 1
	}
	start := time.Now()
	rep, err := c.Run()
	wall := time.Since(start)
	printSummary(stdout, cfg, rep, wall)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return 1
	}
	return 0
}

func printSummary(w io.Writer, cfg cluster.Config, rep *cluster.Report, wall time.Duration) {
	s := rep.Summary
	fmt.Fprintf(w, "cluster   %d racks × %d nodes, %d map + %d reduce slots each, %s\n",
		cfg.Racks, cfg.NodesPerRack, cfg.MapSlots, cfg.ReduceSlots, cfg.Scheduler)
	fmt.Fprintf(w, "jobs      %.0f submitted, %.0f succeeded, %.0f failed, %.0f cut off\n",
		s["jobs.submitted"], s["jobs.succeeded"], s["jobs.failed"], s["jobs.cut_off"])
	fmt.Fprintf(w, "response  mean %.1fs  p50 %.1fs  p95 %.1fs  p99 %.1fs\n",
		s["jobs.response_time.mean"], s["jobs.response_time.p50"], s["jobs.response_time.p95"], s["jobs.response_time.p99"])
	fmt.Fprintf(w, "locality  node %.1f%%  rack %.1f%%  remote %.1f%%\n",
		100*s["tasks.locality.node"], 100*s["tasks.locality.rack"], 100*s["tasks.locality.remote"])
	fmt.Fprintf(w, "slots     map %.1f%%  reduce %.1f%% busy\n", 100*s["slots.utilisation.map"], 100*s["slots.utilisation.reduce"])
	fmt.Fprintf(w, "flows     %.0f completed, %.0f aborted, %.1f GB moved\n", s["flows.completed"], s["flows.aborted"], s["flows.bytes"]/1e9)
	emulated := rep.Result.End
	fmt.Fprintf(w, "time      %v emulated (%s) in %v wall: %.0f× real time, %d messages\n",
		emulated.Round(time.Second), rep.Result.Reason, wall.Round(time.Millisecond), emulated.Seconds()/wall.Seconds(), rep.Result.Steps)
}
