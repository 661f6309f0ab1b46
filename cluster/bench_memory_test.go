package cluster

import (
	"runtime"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/units"
	"clusteremu/workload"
)

// heapProbe records the live heap when its timer fires, mid-run.
type heapProbe struct{ live uint64 }

func (p *heapProbe) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*note); ok {
		p.live = liveHeap()
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapAt builds a cluster, runs it to at and returns the live heap then
// (the run is cut off just after).
func heapAt(b *testing.B, cfg Config, at time.Duration) uint64 {
	b.Helper()
	cfg.Run.Until = units.Duration(at + time.Second)
	cfg.Run.Slowdown = false
	c, err := Build(cfg)
	if err != nil {
		b.Fatal(err)
	}
	p := &heapProbe{}
	pid, err := c.Runtime().Spawn("heap-probe", func() actor.Actor { return p })
	if err != nil {
		b.Fatal(err)
	}
	c.Runtime().Clock().At(at, pid, &note{"measure"})
	rep, err := c.Run()
	if err != nil {
		b.Fatal(err)
	}
	if p.live == 0 {
		b.Fatalf("the run ended (%s) at %v, before the measurement at %v", rep.End.Reason, rep.End.At, at)
	}
	return p.live
}

// perItem is the heap a configuration holds per item: the difference
// between n and 2n items, over n.
func perItem(b *testing.B, n int, heap func(n int) uint64) float64 {
	small, large := heap(n), heap(2*n)
	return (float64(large) - float64(small)) / float64(n)
}

// BenchmarkMemory reports the live heap a run holds per idle node, per
// pending task, per finished attempt and per map output a reducer has
// queued: each the difference between two runs, one with twice the items
// of the other, measured mid-run after a full collection (go test -run
// '^$' -bench Memory -benchtime 1x ./cluster).
func BenchmarkMemory(b *testing.B) {
	b.Run("idle-node", func(b *testing.B) {
		for range b.N {
			b.ReportMetric(perItem(b, 1000, func(n int) uint64 {
				cfg := DefaultConfig()
				cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = n/20, 20
				// One job after the measurement keeps the run from ending idle.
				cfg.Workload = [][]workload.JobSpec{{{InputBytes: 1 << 20, Submit: time.Hour}}}
				return heapAt(b, cfg, time.Minute)
			}), "B/idle-node")
		}
	})
	b.Run("pending-task", func(b *testing.B) {
		for range b.N {
			b.ReportMetric(perItem(b, 20000, func(n int) uint64 {
				cfg := DefaultConfig()
				cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = 1, 4
				// A job of n maps on 4 nodes: all but a few wait, each with
				// its input block's three replicas placed.
				cfg.Workload = [][]workload.JobSpec{{{InputBytes: int64(n) << 27, Reduces: 1,
					MapCPU: workload.PerMiB(time.Hour)}}}
				return heapAt(b, cfg, time.Minute)
			}), "B/pending-task")
		}
	})
	b.Run("finished-attempt", func(b *testing.B) {
		for range b.N {
			b.ReportMetric(perItem(b, 5000, func(n int) uint64 {
				cfg := DefaultConfig()
				cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = 2, 20
				cfg.HDFS.BlockSize = 1 << 20
				// A job of n maps of 1 MiB, done long before the measurement
				// (its manager stopped, its input forgotten): what is left
				// is its attempts' records. A later job keeps the run going.
				cfg.Workload = [][]workload.JobSpec{{
					{InputBytes: int64(n) << 20, MapCPU: workload.PerMiB(100 * time.Millisecond)},
					{InputBytes: 1 << 20, Submit: 2 * time.Hour},
				}}
				return heapAt(b, cfg, time.Hour)
			}), "B/finished-attempt")
		}
	})
	b.Run("queued-output", func(b *testing.B) {
		const reduces = 80
		for range b.N {
			b.ReportMetric(perItem(b, 2500, func(n int) uint64 {
				cfg := DefaultConfig()
				cfg.Cluster.Racks, cfg.Cluster.NodesPerRack = 2, 20
				cfg.Cluster.NIC = units.Rate(10e6 / 8)
				cfg.HDFS.BlockSize = 1 << 20
				cfg.Tasks.FetchPerHost, cfg.Tasks.ParallelCopies = false, 1
				// n maps of 1 MiB, done in two minutes, each with 1 MiB
				// for each of the 80 reducers, which fetch one at a time
				// over 10 Mbps links, a second or more a fetch: at ten
				// minutes the reducers hold nearly every output queued.
				cfg.Workload = [][]workload.JobSpec{{{InputBytes: int64(n) << 20, Reduces: reduces,
					ShuffleBytes: int64(n) * reduces << 20, MapCPU: workload.PerMiB(100 * time.Millisecond)}}}
				return heapAt(b, cfg, 10*time.Minute)
			})/reduces, "B/queued-output")
		}
	})
}
