package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"clusteremu/cluster"
	"clusteremu/scenarios"
	"clusteremu/units"
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
	sc.Config.Run.Until = units.Duration(time.Hour)
	sc.Config.Run.Slowdown = false // the run alone, not its reference runs
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
	b.ReportMetric(rep.End.At.Seconds()/perOp, "emulated-s/s")
	b.ReportMetric(float64(rep.End.Steps)/perOp, "msgs/s")
	b.ReportMetric(rep.Summary["flows.completed"], "flows")
}

// BenchmarkExplore explores 20 schedule seeds of the default scenario and
// of the race tutorial, one and two at a time; one op is the 20 seeds.
func BenchmarkExplore(b *testing.B) {
	race := filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")
	for _, c := range []struct {
		name string
		args []string
	}{{"default", nil}, {"race", []string{race}}} {
		for _, p := range []string{"1", "2"} {
			b.Run(c.name+"/P="+p, func(b *testing.B) {
				args := append([]string{"explore", "--seeds", "20", "--parallel", p}, c.args...)
				for range b.N {
					if code := run(args, io.Discard, io.Discard); code == 2 {
						b.Fatal("explore rejected its arguments")
					}
				}
				b.ReportMetric(20*float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
			})
		}
	}
}
