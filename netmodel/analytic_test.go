package netmodel

import (
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flowCase is a flow of an analytic case: links by index, weight, class,
// and the rate the arithmetic gives.
type flowCase struct {
	path   []LinkID
	weight float64
	class  int
	use    []float64
	want   float64
}

func TestAnalyticRates(t *testing.T) {
	cases := []struct {
		name  string
		caps  []float64
		flows []flowCase
	}{{
		// One flow alone gets the link: 100.
		name: "one flow one link", caps: []float64{100},
		flows: []flowCase{{path: []LinkID{0}, want: 100}},
	}, {
		// Four equal flows share 100: 100/4 = 25 each.
		name: "n equal flows", caps: []float64{100},
		flows: []flowCase{{path: []LinkID{0}, want: 25}, {path: []LinkID{0}, want: 25},
			{path: []LinkID{0}, want: 25}, {path: []LinkID{0}, want: 25}},
	}, {
		// Parking lot: the long flow crosses A, B, C (100 each), one short
		// flow per link. Every link has two flows, all saturate at level
		// 100/2 = 50 together.
		name: "parking lot", caps: []float64{100, 100, 100},
		flows: []flowCase{{path: []LinkID{0, 1, 2}, want: 50},
			{path: []LinkID{0}, want: 50}, {path: []LinkID{1}, want: 50}, {path: []LinkID{2}, want: 50}},
	}, {
		// Parking lot with two short flows on B: B saturates first at
		// 100/3, fixing the long flow at 33.33; A and C then give their
		// short flow 100 − 33.33 = 66.67.
		name: "parking lot, crowded middle", caps: []float64{100, 100, 100},
		flows: []flowCase{{path: []LinkID{0, 1, 2}, want: 100.0 / 3},
			{path: []LinkID{0}, want: 200.0 / 3}, {path: []LinkID{1}, want: 100.0 / 3},
			{path: []LinkID{1}, want: 100.0 / 3}, {path: []LinkID{2}, want: 200.0 / 3}},
	}, {
		// Weights 1:2 on 90: level 90/(1+2) = 30, rates 30 and 60.
		name: "weights 1:2", caps: []float64{90},
		flows: []flowCase{{path: []LinkID{0}, weight: 1, want: 30}, {path: []LinkID{0}, weight: 2, want: 60}},
	}, {
		// Class 0 crosses L0 (100) and L1 (30): limited to 30 by L1. Class 1
		// shares what is left of L0, 100 − 30 = 70: 35 each.
		name: "two classes, high class bottlenecked elsewhere", caps: []float64{100, 30},
		flows: []flowCase{{path: []LinkID{0, 1}, class: 0, want: 30},
			{path: []LinkID{0}, class: 1, want: 35}, {path: []LinkID{0}, class: 1, want: 35}},
	}, {
		// Class 0's two flows take all of L0 (50 each); the class 1 flow
		// gets nothing, although max-min without classes would give 33.33.
		name: "two classes, low class starved", caps: []float64{100},
		flows: []flowCase{{path: []LinkID{0}, class: 0, want: 50}, {path: []LinkID{0}, class: 0, want: 50},
			{path: []LinkID{0}, class: 1, want: 0}},
	}, {
		// L0 is cut (capacity 0): both flows through it stall at 0, and
		// the flow alone on L1 takes all 100 since stalled flows use none.
		name: "zero-capacity link", caps: []float64{0, 100},
		flows: []flowCase{{path: []LinkID{0}, want: 0}, {path: []LinkID{0, 1}, want: 0},
			{path: []LinkID{1}, want: 100}},
	}, {
		// A CPU of 2e9 work/s (two cores in core-ns) and its own disk
		// (1e9 B/s) per streaming map. Two maps each move bytes over their
		// disk (use 1) and 20 units of CPU work per byte; a compute moves
		// CPU work only. The CPU saturates first, at level λ where
		// 20λ + 20λ + λ = 2e9: λ = 2e9/41 ≈ 48.8e6, under the disks' 1e9.
		// The maps read at 48.8 MB/s, the compute gets 48.8e6 work/s.
		name: "uses: streaming maps and a compute share a CPU", caps: []float64{2e9, 1e9, 1e9},
		flows: []flowCase{{path: []LinkID{1, 0}, use: []float64{1, 20}, want: 2e9 / 41},
			{path: []LinkID{2, 0}, use: []float64{1, 20}, want: 2e9 / 41},
			{path: []LinkID{0}, want: 2e9 / 41}},
	}, {
		// The same maps with a slow disk (10 MB/s) on the first: it is
		// fixed at 10e6 by its disk, using 20 × 10e6 = 200e6 of the CPU;
		// the other map and the compute share 1.8e9 at 20λ + λ = 1.8e9,
		// λ = 1.8e9/21 ≈ 85.7e6.
		name: "uses: a disk-bound map leaves the CPU to the others", caps: []float64{2e9, 10e6, 1e9},
		flows: []flowCase{{path: []LinkID{1, 0}, use: []float64{1, 20}, want: 10e6},
			{path: []LinkID{2, 0}, use: []float64{1, 20}, want: 1.8e9 / 21},
			{path: []LinkID{0}, want: 1.8e9 / 21}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := NewNetwork(DefaultConfig())
			require.NoError(t, err)
			for _, c := range tc.caps {
				_, err := n.AddLink(c)
				require.NoError(t, err)
			}
			ids := make([]FlowID, len(tc.flows))
			for i, f := range tc.flows {
				ids[i], err = n.Start(0, FlowSpec{Size: 1000, Path: f.path, Weight: f.weight, Class: f.class, Use: f.use})
				require.NoError(t, err)
			}
			for i, f := range tc.flows {
				got, err := n.Rate(ids[i])
				require.NoError(t, err)
				assert.InEpsilon(t, max(f.want, 1e-300), max(got, 1e-300), 1e-12, "flow %d", i)
			}
			require.NoError(t, checkInvariants(n))
		})
	}
}

// TestOversubscribedUplink: 2 racks of 20 hosts with 1 Gb/s (125 MB/s)
// NICs and ratio 10 have 20 × 125e6 / 10 = 250 MB/s rack links. Twenty
// cross-rack transfers, host i of rack 0 to host i of rack 1, share rack
// 0's uplink: 250e6 / 20 = 12.5 MB/s each, a tenth of their NICs.
func TestOversubscribedUplink(t *testing.T) {
	n, topo := newTopology(t, TopologySpec{Racks: 2, HostsPerRack: 20, NICUp: 125e6, NICDown: 125e6, Oversubscription: 10})
	up, down, err := topo.RackLinks(0)
	require.NoError(t, err)
	assertCapacity(t, n, up, 250e6)
	_, down1, _ := topo.RackLinks(1)
	assertCapacity(t, n, down1, 250e6)
	assertCapacity(t, n, down, 250e6)
	var ids []FlowID
	for i := range 20 {
		src, _ := topo.Host(0, i)
		dst, _ := topo.Host(1, i)
		path, err := topo.Path(src, dst, Transfer)
		require.NoError(t, err)
		id, err := n.Start(0, FlowSpec{Size: 1e9, Path: path})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for _, id := range ids {
		rate, _ := n.Rate(id)
		assert.InDelta(t, 12.5e6, rate, 1e-3)
	}
	util, _ := n.Utilisation(up)
	assert.InDelta(t, 1, util, 1e-9)
	require.NoError(t, checkInvariants(n))
}

func newTopology(t *testing.T, spec TopologySpec) (*Network, *Topology) {
	t.Helper()
	n, err := NewNetwork(DefaultConfig())
	require.NoError(t, err)
	topo, err := BuildTopology(n, spec)
	require.NoError(t, err)
	return n, topo
}

func assertCapacity(t *testing.T, n *Network, l LinkID, want float64) {
	t.Helper()
	got, err := n.Capacity(l)
	require.NoError(t, err)
	assert.InDelta(t, want, got, 1e-6)
}

// TestMantriReducePlacement is the thesis's Fig. 3.4: 3 racks with rack
// links of b in each direction, map output spread evenly, 3 reducers each
// fetching a partition of p from every rack. Packed (two reducers in rack
// A, one in B): A's downlink carries 2 reducers × 2 remote racks × p = 4p,
// four flows at b/4, so the shuffle takes 4p/b. Spread (one per rack):
// every rack link carries 2 flows at b/2, so 2p/b. With p = 100 MB and
// b = 125 MB/s: 3.2 s and 1.6 s. NICs (10 GB/s) never bind.
func TestMantriReducePlacement(t *testing.T) {
	const p, b = 100e6, 125e6
	cases := []struct {
		name     string
		reducers [3]int // reducers per rack
		want     float64
	}{{"packed", [3]int{2, 1, 0}, 4 * p / b}, {"spread", [3]int{1, 1, 1}, 2 * p / b}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, topo := newTopology(t, TopologySpec{Racks: 3, HostsPerRack: 3, NICUp: 10e9, NICDown: 10e9, RackUp: b, RackDown: b})
			for rack, count := range tc.reducers {
				for i := range count {
					dst, _ := topo.Host(rack, 1+i) // host 0 of each rack holds its map output
					for from := range 3 {
						src, _ := topo.Host(from, 0)
						path, err := topo.Path(src, dst, Transfer)
						require.NoError(t, err)
						_, err = n.Start(0, FlowSpec{Size: p, Path: path})
						require.NoError(t, err)
					}
				}
			}
			last := drain(t, n)
			assert.InDelta(t, tc.want*1e9, float64(last), 1, "shuffle makespan in ns")
		})
	}
}

// drain advances n completion by completion, checking the invariants
// after each, and returns the last completion instant.
func drain(t *testing.T, n *Network) (last time.Duration) {
	t.Helper()
	for {
		require.NoError(t, checkInvariants(n))
		at, ok := n.NextCompletion()
		if !ok {
			return last
		}
		done, err := n.AdvanceTo(at)
		require.NoError(t, err)
		require.NotEmpty(t, done)
		last = at
	}
}
