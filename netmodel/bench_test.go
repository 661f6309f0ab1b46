package netmodel

import (
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchFabric is 10 Gb/s NICs with 4:1 oversubscribed rack links, as in
// the measured prototype; full adds 1 GB/s disks, 10 GB/s memory and a
// 100 GB/s core.
func benchFabric(tb testing.TB, racks int, full bool, cfg Config) (*Network, *Topology) {
	tb.Helper()
	n, err := NewNetwork(cfg)
	require.NoError(tb, err)
	spec := TopologySpec{Racks: racks, HostsPerRack: 20, NICUp: 1.25e9, NICDown: 1.25e9, Oversubscription: 4}
	if full {
		spec.DiskRead, spec.DiskWrite, spec.Memory, spec.Core = 1e9, 1e9, 10e9, 100e9
	}
	topo, err := BuildTopology(n, spec)
	require.NoError(tb, err)
	return n, topo
}

// randTransfer picks a random transfer: rack-local (same rack) with
// probability local, otherwise between two racks; with full, the kind is
// also random, including the local disk and memory kinds.
func randTransfer(tb testing.TB, r *rand.Rand, topo *Topology, local float64, full bool, buf []LinkID) []LinkID {
	racks := topo.NumHosts() / 20
	src := HostID(r.Intn(topo.NumHosts()))
	rack := int(src) / 20
	if r.Float64() >= local {
		rack = (rack + 1 + r.Intn(racks-1)) % racks
	}
	dst, _ := topo.Host(rack, r.Intn(20))
	kind := Transfer
	if full {
		kind = []TransferKind{RemoteRead, Transfer, RemoteWrite, RemoteMemoryRead, LocalDiskRead, MemoryRead}[r.Intn(6)]
	}
	local2 := kind == LocalDiskRead || kind == MemoryRead
	if local2 {
		dst = src
	} else if dst == src {
		dst = HostID((int(src)+1)%20 + rack*20)
	}
	path, err := topo.AppendPath(buf[:0], src, dst, kind)
	require.NoError(tb, err)
	return path
}

func startRandom(tb testing.TB, n *Network, topo *Topology, r *rand.Rand, count int, local float64, full bool) {
	var buf []LinkID
	for range count {
		buf = randTransfer(tb, r, topo, local, full, buf)
		size := int64(32<<20 + r.Intn(64<<20))
		_, err := n.Start(n.Now(), FlowSpec{Size: size, Path: buf})
		require.NoError(tb, err)
	}
}

// BenchmarkFullSolve re-solves 10,000 flows, half rack-local and half
// cross-rack, from scratch.
func BenchmarkFullSolve(b *testing.B) {
	for _, bc := range []struct {
		name  string
		racks int
		full  bool
	}{
		{"24x20_nic_rack_1008_links", 24, false},
		{"50x20_nic_rack_2100_links", 50, false},
		{"50x20_full_5101_links", 50, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n, topo := benchFabric(b, bc.racks, bc.full, DefaultConfig())
			startRandom(b, n, topo, rand.New(rand.NewSource(1)), 10000, 0.5, bc.full)
			n.Solve()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				n.invalidateAll()
				n.Solve()
			}
			b.ReportMetric(float64(n.NumLinks()), "links")
		})
	}
}

// BenchmarkIncremental starts one flow and re-solves, then cancels it and
// re-solves, among 10,000 flows that are all rack-local (a component is
// one rack) or half cross-rack (the component is the whole fabric).
// ns/event is the cost of one of the two events.
func BenchmarkIncremental(b *testing.B) {
	for _, bc := range []struct {
		name  string
		local float64
	}{{"rack_local", 1}, {"cross_rack", 0.5}} {
		b.Run(bc.name, func(b *testing.B) {
			n, topo := benchFabric(b, 50, false, DefaultConfig())
			r := rand.New(rand.NewSource(2))
			startRandom(b, n, topo, r, 10000, bc.local, false)
			n.Solve()
			paths := make([][]LinkID, 64)
			for i := range paths {
				paths[i] = randTransfer(b, r, topo, bc.local, false, nil)
			}
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				id, err := n.Start(0, FlowSpec{Size: 1 << 40, Path: paths[i%len(paths)]})
				if err != nil {
					b.Fatal(err)
				}
				n.Solve()
				if _, err := n.Cancel(0, id); err != nil {
					b.Fatal(err)
				}
				n.Solve()
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*i), "ns/event")
		})
	}
}

// BenchmarkDrain starts 10,000 cross-rack flows of 32–96 MiB at once and
// advances completion by completion until all are done; one op is the
// whole drain. With a 1 ms completion window fewer re-solves are needed.
func BenchmarkDrain(b *testing.B) {
	for _, bc := range []struct {
		name   string
		window time.Duration
	}{{"exact", 0}, {"window_1ms", time.Millisecond}} {
		b.Run(bc.name, func(b *testing.B) {
			var solves, changes, events float64
			for b.Loop() {
				b.StopTimer()
				n, topo := benchFabric(b, 50, false, Config{CompletionWindow: bc.window})
				startRandom(b, n, topo, rand.New(rand.NewSource(3)), 10000, 0, false)
				b.StartTimer()
				instants := drainAll(b, n)
				st := n.Stats()
				solves, changes, events = float64(st.Solves), float64(st.RateChanges), float64(instants)
			}
			b.ReportMetric(solves, "solves")
			b.ReportMetric(events, "instants")
			b.ReportMetric(changes/solves, "ratechanges/solve")
		})
	}
}

// drainAll advances n to each next completion until no flow is left and
// returns the number of completion instants.
func drainAll(tb testing.TB, n *Network) int {
	instants := 0
	for {
		at, ok := n.NextCompletion()
		if !ok {
			require.Zero(tb, n.NumFlows())
			return instants
		}
		if _, err := n.AdvanceTo(at); err != nil {
			tb.Fatal(err)
		}
		instants++
	}
}
