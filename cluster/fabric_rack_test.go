package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
)

// rackFetch is a RackFetch of bytes from sources (the first its Src) to
// dst.
func rackFetch(part int32, dst sched.NodeID, bytes int64, sources ...sched.NodeID) *actors.StartFlow {
	f := flow(part, sources[0], dst, actors.RackFetch, bytes)
	f.Sources = sources
	return f
}

// A rack fetch crosses the source rack's uplink, the core, the
// destination rack's downlink and NIC, and none of its sources' disks or
// NICs: tasks.fetch_per_rack's approximation. Disks of 20 MB/s, NICs 125
// MB/s, rack links 50 MB/s (2 hosts × 125 / 5), core 1 GB/s. A rack fetch
// of 100 MB from hosts 2 and 3 (rack 1) to host 0 at 0 s runs at rack 1's
// uplink's 50 MB/s, 2 s; host 2's disk, which a read from it alone
// crosses, would take 5 s: a disk read of 100 MB from host 2 to host 1
// at 10 s ends at 15 s. Each link carried what the flows across it
// moved: rack 1's uplink, the core and rack 0's downlink both flows'
// 200 MB, host 0's NIC the rack fetch's 100 MB, host 2's disk and NIC
// the disk read's 100 MB, host 3's NIC nothing.
func TestARackFetchCrossesTheRackPathNotItsSources(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 20e6, DiskWrite: 20e6,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 5, Core: 1e9}
	done, net := fabricRunNet(t, spec, map[time.Duration][]*actors.StartFlow{
		0:                {rackFetch(1, 0, 100e6, 2, 3)},
		10 * time.Second: {flow(2, 2, 1, actors.DiskRead, 100e6)},
	})
	assert.Equal(t, 2*time.Second, done[1])
	assert.Equal(t, 15*time.Second, done[2])
	fresh, err := netmodel.NewNetwork(netmodel.DefaultConfig())
	require.NoError(t, err)
	topo, err := netmodel.BuildTopology(fresh, spec)
	require.NoError(t, err)
	for ref, want := range map[netmodel.LinkRef]int64{
		{Kind: netmodel.RackUp, Rack: 1}:       200e6,
		{Kind: netmodel.CoreLink}:              200e6,
		{Kind: netmodel.RackDown, Rack: 0}:     200e6,
		{Kind: netmodel.HostNICDown, Host: 0}:  100e6,
		{Kind: netmodel.HostNICDown, Host: 1}:  100e6,
		{Kind: netmodel.HostDiskRead, Host: 2}: 100e6,
		{Kind: netmodel.HostNICUp, Host: 2}:    100e6,
		{Kind: netmodel.HostNICUp, Host: 3}:    0,
		{Kind: netmodel.HostDiskRead, Host: 3}: 0,
	} {
		l, err := topo.Link(ref)
		require.NoError(t, err)
		carried, err := net.Carried(l)
		require.NoError(t, err)
		assert.Equal(t, want, carried, "%v", ref)
	}
}

// A rack fetch fails when any of its sources crashes, not only its Src,
// naming the node: rack links of 50 MB/s as above, a rack fetch of 100 MB
// from hosts 2 and 3 to host 0 from 0 s has delivered 50 MB when host 3
// crashes at 1 s; one started at 2 s, with host 3 still down, fails at
// once with nothing delivered. A rack fetch within one rack fails the run.
func TestARackFetchFailsWithAnyOfItsSources(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 200e6, DiskWrite: 200e6,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 5}
	probe, _, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{
		0:               {rackFetch(1, 0, 100e6, 2, 3)},
		2 * time.Second: {rackFetch(2, 1, 100e6, 2, 3)},
	}, map[time.Duration][]any{
		time.Second: {&actors.AbortFlows{Node: 3, Reason: "node 3 crashed"}},
	})
	require.NoError(t, err)
	assert.Equal(t, map[int32]int64{1: 50e6, 2: 0}, probe.failed)
	assert.Equal(t, map[int32]sched.NodeID{1: 3, 2: 3}, probe.downs)
	assert.Empty(t, probe.done)

	_, _, err = fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{
		0: {rackFetch(1, 0, 100e6, 1)},
	}, nil)
	assert.ErrorContains(t, err, "a rack fetch from node 1 to node 0 stays in rack 0")
}
