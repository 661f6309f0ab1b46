package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// BenchmarkFB2009FirstHour runs the first emulated hour of the SWIM
// FB-2009 day on 600 nodes under FIFO (scenarios/examples/fb2009-day.toml
// cut off at 1 h) in deterministic virtual time.
func BenchmarkFB2009FirstHour(b *testing.B) {
	path := filepath.Join("..", "..", "scenarios", "examples", "fb2009-day.toml")
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "traces")); err != nil {
		b.Skip("the SWIM traces are not beside the repository (../shared/traces)")
	}
	sc, err := scenarios.LoadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	sc.Config.Until = time.Hour
	sc.Config.Slowdown = false // the run alone, not its reference runs
	var rep *cluster.Report
	for range b.N {
		c, err := cluster.Build(sc.Config)
		if err != nil {
			b.Fatal(err)
		}
		if rep, err = c.Run(); err != nil {
			b.Fatal(err)
		}
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(rep.Result.End.Seconds()/perOp, "emulated-s/s")
	b.ReportMetric(float64(rep.Result.Steps)/perOp, "msgs/s")
	b.ReportMetric(rep.Summary["flows.completed"], "flows")
}
