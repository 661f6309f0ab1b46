package netmodel

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadInput: every invalid argument is an error naming the field and
// its value, and the network is unchanged.
func TestBadInput(t *testing.T) {
	n := newLinks(t, DefaultConfig(), 100, 100)
	ok := []LinkID{0}
	cases := []struct {
		name string
		call func() error
		is   error
		says string
	}{
		{"negative capacity", func() error { _, err := n.AddLink(-1); return err }, ErrInvalid, "capacity = -1"},
		{"NaN capacity", func() error { return n.SetCapacity(0, 0, math.NaN()) }, ErrInvalid, "capacity = NaN"},
		{"Inf capacity", func() error { return n.SetCapacity(0, 0, math.Inf(1)) }, ErrInvalid, "capacity = +Inf"},
		{"unknown link", func() error { return n.SetCapacity(0, 7, 1) }, ErrUnknownLink, "link = 7"},
		{"empty path", func() error { return startErr(n, FlowSpec{Size: 1}) }, ErrInvalid, "FlowSpec.Path is empty"},
		{"path to unknown link", func() error { return startErr(n, FlowSpec{Size: 1, Path: []LinkID{0, -3}}) },
			ErrUnknownLink, "FlowSpec.Path[1] = -3"},
		{"repeated link", func() error { return startErr(n, FlowSpec{Size: 1, Path: []LinkID{1, 0, 1}}) },
			ErrInvalid, "FlowSpec.Path[2] = 1 repeats FlowSpec.Path[0]"},
		{"negative size", func() error { return startErr(n, FlowSpec{Size: -5, Path: ok}) }, ErrInvalid, "FlowSpec.Size = -5"},
		{"NaN weight", func() error { return startErr(n, FlowSpec{Size: 1, Path: ok, Weight: math.NaN()}) },
			ErrInvalid, "FlowSpec.Weight = NaN"},
		{"negative weight", func() error { return startErr(n, FlowSpec{Size: 1, Path: ok, Weight: -1}) },
			ErrInvalid, "FlowSpec.Weight = -1"},
		{"huge weight", func() error { return startErr(n, FlowSpec{Size: 1, Path: ok, Weight: 1e9}) },
			ErrInvalid, "FlowSpec.Weight = 1e+09"},
		{"use per link missing", func() error { return startErr(n, FlowSpec{Size: 1, Path: ok, Use: []float64{1, 1}}) },
			ErrInvalid, "FlowSpec.Use has 2 entries for 1 links"},
		{"zero use", func() error { return startErr(n, FlowSpec{Size: 1, Path: ok, Use: []float64{0}}) },
			ErrInvalid, "FlowSpec.Use[0] = 0"},
		{"NaN use", func() error { return startErr(n, FlowSpec{Size: 1, Path: ok, Use: []float64{math.NaN()}}) },
			ErrInvalid, "FlowSpec.Use[0] = NaN"},
		{"unknown flow", func() error { _, err := n.Cancel(0, 42); return err }, ErrUnknownFlow, "flow = 42"},
		{"unknown flow rate", func() error { _, err := n.Rate(0); return err }, ErrUnknownFlow, "flow = 0"},
		{"carried of unknown link", func() error { _, err := n.Carried(2); return err }, ErrUnknownLink, "link = 2"},
		{"negative window", func() error { _, err := NewNetwork(Config{CompletionWindow: -1}); return err },
			ErrInvalid, "Config.CompletionWindow = -1ns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, tc.is)
			assert.Contains(t, err.Error(), tc.says)
		})
	}
	assert.Equal(t, 0, n.NumFlows())
	assert.Equal(t, 2, n.NumLinks())
	c, _ := n.Capacity(0)
	assert.Equal(t, 100.0, c)
}

func startErr(n *Network, spec FlowSpec) error {
	_, err := n.Start(n.Now(), spec)
	return err
}

func TestTopologySpecValidate(t *testing.T) {
	good := TopologySpec{Racks: 2, HostsPerRack: 3, NICUp: 1, NICDown: 1}
	require.NoError(t, good.Validate())
	for _, tc := range []struct {
		spec TopologySpec
		says string
	}{
		{TopologySpec{Racks: 0, HostsPerRack: 3}, "Racks = 0"},
		{TopologySpec{Racks: 2, HostsPerRack: -1}, "HostsPerRack = -1"},
		{TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: -2}, "TopologySpec.DiskRead = -2"},
		{TopologySpec{Racks: 2, HostsPerRack: 2, Oversubscription: math.NaN()}, "TopologySpec.Oversubscription = NaN"},
		{TopologySpec{Racks: 2, HostsPerRack: 2, Core: math.Inf(1)}, "TopologySpec.Core = +Inf"},
	} {
		err := tc.spec.Validate()
		require.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), tc.says)
	}
}

// TestPaths lists every kind's path on 2 racks of 2 hosts with every link
// present. Host h's links are 5h … 5h+4 (disk-read, disk-write, NIC-up,
// NIC-down, memory); rack r's uplink is 20+2r, its downlink 21+2r; the
// core is 24.
func TestPaths(t *testing.T) {
	_, topo := newTopology(t, TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 1, DiskWrite: 1,
		NICUp: 1, NICDown: 1, Memory: 1, RackUp: 1, RackDown: 1, Core: 1})
	cases := []struct {
		src, dst HostID
		kind     TransferKind
		want     []LinkID
	}{
		{1, 1, LocalDiskRead, []LinkID{5}},
		{1, 1, LocalDiskWrite, []LinkID{6}},
		{1, 1, MemoryRead, []LinkID{9}},
		{0, 1, RemoteRead, []LinkID{0, 2, 8}},                     // same rack
		{0, 2, RemoteRead, []LinkID{0, 2, 20, 24, 23, 13}},        // rack 0 → rack 1
		{3, 0, RemoteMemoryRead, []LinkID{19, 17, 22, 24, 21, 3}}, // rack 1 → rack 0
		{0, 1, Transfer, []LinkID{2, 8}},
		{1, 3, RemoteWrite, []LinkID{7, 20, 24, 23, 18, 16}},
		{1, 3, RemoteCopy, []LinkID{5, 7, 20, 24, 23, 18, 16}}, // host 1's disk to host 3's
	}
	for _, tc := range cases {
		got, err := topo.Path(tc.src, tc.dst, tc.kind)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%v %d→%d", tc.kind, tc.src, tc.dst)
	}
	_, err := topo.Path(0, 1, LocalDiskRead)
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = topo.Path(0, 0, Transfer)
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = topo.Path(0, 4, Transfer)
	assert.ErrorIs(t, err, ErrUnknownHost)
	_, err = topo.Path(0, 0, TransferKind(99))
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestPathsSkipLeftOutLinks: with only NICs and rack links, a local disk
// read has no path, and a cross-rack transfer has no core.
func TestPathsSkipLeftOutLinks(t *testing.T) {
	n, topo := newTopology(t, TopologySpec{Racks: 2, HostsPerRack: 1, NICUp: 1, NICDown: 1, Oversubscription: 2})
	assert.Equal(t, 2*2+2*2, n.NumLinks())
	_, err := topo.Path(0, 0, LocalDiskRead)
	assert.ErrorIs(t, err, ErrNoPath)
	got, err := topo.Path(0, 1, RemoteRead)
	require.NoError(t, err)
	assert.Equal(t, []LinkID{0, 4, 7, 3}, got)
	_, hasCore := topo.Core()
	assert.False(t, hasCore)
	assertCapacity(t, n, 4, 0.5) // 1 host × 1 B/s / 2
}
