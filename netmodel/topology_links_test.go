package netmodel

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoHosts is one rack of two hosts with 125 MB/s NICs and no disks in the
// model, so a Transfer crosses host 0's NIC-up and host 1's NIC-down.
func twoHosts(t *testing.T, dead ...LinkRef) (*Network, *Topology) {
	t.Helper()
	n, err := NewNetwork(DefaultConfig())
	require.NoError(t, err)
	topo, err := BuildTopology(n, TopologySpec{Racks: 1, HostsPerRack: 2, NICUp: 125e6, NICDown: 125e6, Dead: dead})
	require.NoError(t, err)
	return n, topo
}

func transfer(t *testing.T, n *Network, topo *Topology, size int64) FlowID {
	t.Helper()
	path, err := topo.Path(0, 1, Transfer)
	require.NoError(t, err)
	return start(t, n, FlowSpec{Size: size, Path: path})
}

// A link cut for 10 s delays its flow by exactly 10 s, every byte
// delivered once: 250 MB at 125 MB/s alone takes 2 s; cut host 0's
// NIC-up at 0.5 s (62.5 MB sent) and restore it at 10.5 s, and the
// remaining 187.5 MB take 1.5 s more: done at 12 s, not 2 s.
func TestALinkCutDelaysItsFlowsByTheCut(t *testing.T) {
	n, topo := twoHosts(t)
	id := transfer(t, n, topo, 250e6)
	up, err := topo.Link(LinkRef{Kind: HostNICUp, Host: 0})
	require.NoError(t, err)

	assert.Empty(t, advance(t, n, 500*time.Millisecond))
	require.NoError(t, n.SetCapacity(n.Now(), up, 0))
	assert.Empty(t, advance(t, n, 10500*time.Millisecond), "a flow on a dead link stalls")
	got, err := n.Delivered(id)
	require.NoError(t, err)
	assert.Equal(t, int64(62.5e6), got, "its bytes are kept")

	require.NoError(t, n.SetCapacity(n.Now(), up, 125e6))
	done := advance(t, n, time.Hour)
	require.Len(t, done, 1)
	assert.Equal(t, 12*time.Second, done[0].At)
	carried, err := n.Carried(up)
	require.NoError(t, err)
	assert.Equal(t, int64(250e6), carried, "every byte once")
}

// A link listed in Dead is built down: paths cross it, its flows wait,
// and raising it starts them. One left out of the model (capacity 0 and
// not listed) is not a link, and naming it is an error that says which.
func TestDeadLinksAreBuiltDown(t *testing.T) {
	n, topo := twoHosts(t, LinkRef{Kind: HostNICDown, Host: 1, Rack: 5})
	id := transfer(t, n, topo, 125e6)
	assert.Empty(t, advance(t, n, time.Minute))
	down, err := topo.Link(LinkRef{Kind: HostNICDown, Host: 1})
	require.NoError(t, err)
	rate, err := n.Rate(id)
	require.NoError(t, err)
	assert.Zero(t, rate)
	require.NoError(t, n.SetCapacity(n.Now(), down, 125e6))
	done := advance(t, n, time.Hour)
	require.Len(t, done, 1)
	assert.Equal(t, time.Minute+time.Second, done[0].At)

	_, err = topo.Link(LinkRef{Kind: CoreLink})
	assert.ErrorIs(t, err, ErrUnknownLink)
	assert.EqualError(t, err, "netmodel: unknown link: core: left out of the model (capacity 0); list it in TopologySpec.Dead to build it down")
	_, err = topo.Link(LinkRef{Kind: HostDiskRead, Host: 0})
	assert.ErrorContains(t, err, "host 0 disk-read: left out of the model")
	_, err = topo.Link(LinkRef{Kind: HostNICUp, Host: 7})
	assert.ErrorContains(t, err, "host 7 nic-up = 7: topology has 2 hosts")
	_, err = topo.Link(LinkRef{Kind: RackUp, Rack: 3})
	assert.ErrorContains(t, err, "rack 3 uplink")

	_, err = BuildTopology(n, TopologySpec{Racks: 1, HostsPerRack: 2, NICUp: 1, Dead: []LinkRef{{Kind: RackDown, Rack: 2}}})
	assert.EqualError(t, err, "netmodel: invalid argument: TopologySpec.Dead[0] = rack 2 downlink: the topology has 1 racks of 2 hosts")
}

// Refs names every link the topology added, and each name leads back to
// its link.
func TestRefsNameEveryLink(t *testing.T) {
	n, topo := newTopology(t, TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 1, DiskWrite: 1, NICUp: 1, NICDown: 1,
		CPU: 4e9, Oversubscription: 2, Core: 1})
	refs := topo.Refs()
	require.Len(t, refs, n.NumLinks())
	for l, ref := range refs {
		back, err := topo.Link(ref)
		require.NoError(t, err)
		assert.Equal(t, l, back, "%v", ref)
	}
}

func TestParseLinkRefReadsWhatStringWrites(t *testing.T) {
	for _, ref := range []LinkRef{
		{Kind: HostDiskRead, Host: 3}, {Kind: HostNICUp, Host: 0}, {Kind: HostCPU, Host: 12},
		{Kind: RackUp, Rack: 1}, {Kind: RackDown, Rack: 7}, {Kind: CoreLink},
	} {
		got, err := ParseLinkRef(ref.String())
		require.NoError(t, err, ref.String())
		assert.Equal(t, ref, got)
	}
	for _, bad := range []string{"", "host 3", "host x nic-up", "host -1 nic-up", "rack 1 nic-up", "host 1 uplink", "core 2", "switch 1 uplink"} {
		_, err := ParseLinkRef(bad)
		assert.ErrorIs(t, err, ErrUnknownLink, bad)
	}
}

// Hosts of their own: each host's links are its own spec's, a rack's
// links set by oversubscription are its own hosts' NICs over the ratio,
// and a transfer between a fast and a slow host runs at the slower NIC.
// A Hosts list of the wrong length is refused.
func TestHostsOfTheirOwn(t *testing.T) {
	fast := HostSpec{DiskRead: 200e6, DiskWrite: 100e6, NICUp: 125e6, NICDown: 125e6, CPU: 4e9}
	slow := HostSpec{DiskRead: 50e6, DiskWrite: 25e6, NICUp: 12.5e6, NICDown: 12.5e6, CPU: 1e9}
	spec := TopologySpec{Racks: 2, HostsPerRack: 2, Oversubscription: 5, Hosts: []HostSpec{fast, fast, fast, slow}}
	n, err := NewNetwork(DefaultConfig())
	require.NoError(t, err)
	topo, err := BuildTopology(n, spec)
	require.NoError(t, err)
	capacity := func(ref LinkRef) float64 {
		l, err := topo.Link(ref)
		require.NoError(t, err)
		c, err := n.Capacity(l)
		require.NoError(t, err)
		return c
	}
	assert.Equal(t, 200e6, capacity(LinkRef{Kind: HostDiskRead, Host: 2}))
	assert.Equal(t, 50e6, capacity(LinkRef{Kind: HostDiskRead, Host: 3}))
	assert.Equal(t, 1e9, capacity(LinkRef{Kind: HostCPU, Host: 3}))
	assert.Equal(t, 50e6, capacity(LinkRef{Kind: RackUp, Rack: 0}), "2 × 125 MB/s / 5")
	assert.Equal(t, 27.5e6, capacity(LinkRef{Kind: RackDown, Rack: 1}), "(125 + 12.5) MB/s / 5")

	path, err := topo.Path(2, 3, Transfer)
	require.NoError(t, err)
	start(t, n, FlowSpec{Size: 25e6, Path: path})
	done := advance(t, n, time.Hour)
	require.Len(t, done, 1)
	assert.Equal(t, 2*time.Second, done[0].At, "25 MB at host 3's 12.5 MB/s")

	spec.Hosts = spec.Hosts[:3]
	_, err = BuildTopology(n, spec)
	assert.ErrorContains(t, err, "TopologySpec.Hosts has 3 hosts: must be Racks × HostsPerRack = 4")
	spec.Hosts = []HostSpec{fast, fast, fast, {NICUp: -1}}
	_, err = BuildTopology(n, spec)
	assert.ErrorContains(t, err, "TopologySpec.Hosts[3].NICUp")
}
