package cluster

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

// flowProbe starts flows at scripted instants and logs when each is done.
type flowProbe struct {
	clock  actors.Clock
	fabric *actor.PID
	done   map[int32]time.Duration
	failed map[int32]int64        // delivered bytes of flows that failed, by part
	downs  map[int32]sched.NodeID // the crashed node that failed each, when one did
	links  []*actors.RackLinksMeasured
}

type startAt struct{ flow *actors.StartFlow }

// sendAt sends the fabric a message at a scripted instant.
type sendAt struct{ msg any }

func (p *flowProbe) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *startAt:
		m.flow.Owner = ctx.Self()
		ctx.Send(p.fabric, m.flow)
	case *sendAt:
		if q, ok := m.msg.(*actors.MeasureRackLinks); ok {
			q.Owner = ctx.Self()
		}
		ctx.Send(p.fabric, m.msg)
	case *actors.RackLinksMeasured:
		p.links = append(p.links, m)
	case *actors.FlowDone:
		p.done[m.Key.Part] = p.clock.Now()
	case *actors.FlowFailed:
		p.failed[m.Key.Part] = m.Delivered
		if m.NodeDown {
			p.downs[m.Key.Part] = m.Down
		}
	}
}

// fabricRun runs flows on a two-rack topology and returns when each ended.
func fabricRun(t *testing.T, spec netmodel.TopologySpec, flows map[time.Duration][]*actors.StartFlow) map[int32]time.Duration {
	t.Helper()
	done, _ := fabricRunNet(t, spec, flows)
	return done
}

// fabricRunNet is fabricRun that also returns the network it ran on.
func fabricRunNet(t *testing.T, spec netmodel.TopologySpec, flows map[time.Duration][]*actors.StartFlow) (map[int32]time.Duration, *netmodel.Network) {
	t.Helper()
	probe, net, err := fabricRunWith(t, spec, actors.ByteCPU{}, flows, nil)
	require.NoError(t, err)
	return probe.done, net
}

// fabricRunWith is fabricRunNet with a CPU cost per byte sent and
// received, that also sends the fabric other messages at scripted
// instants, and returns the run's error. Given a [rack_traffic] (seed
// 1), the fabric loads the rack links, and the run, which no longer
// idles, is cut off at 3 minutes.
func fabricRunWith(t *testing.T, spec netmodel.TopologySpec, cpu actors.ByteCPU, flows map[time.Duration][]*actors.StartFlow,
	msgs map[time.Duration][]any, traffic ...actors.RackTrafficConfig) (*flowProbe, *netmodel.Network, error) {
	t.Helper()
	var opts RunOptions
	if len(traffic) > 0 {
		opts.Until = units.Duration(3 * time.Minute)
	}
	return fabricRunOpts(t, opts, spec, cpu, flows, msgs, traffic...)
}

// fabricRunOpts is fabricRunWith under the given run options.
func fabricRunOpts(t *testing.T, opts RunOptions, spec netmodel.TopologySpec, cpu actors.ByteCPU, flows map[time.Duration][]*actors.StartFlow,
	msgs map[time.Duration][]any, traffic ...actors.RackTrafficConfig) (*flowProbe, *netmodel.Network, error) {
	t.Helper()
	rt := NewRuntime(opts)
	net, err := netmodel.NewNetwork(netmodel.DefaultConfig())
	require.NoError(t, err)
	topo, err := netmodel.BuildTopology(net, spec)
	require.NoError(t, err)
	rec := newRecorder()
	deps := actors.Deps{Clock: rt.Clock(), Metrics: rec, Fail: rt.Fail}
	f := actors.NewFabric(topo, net, cpu, deps)
	for _, c := range traffic {
		require.NoError(t, f.LoadRackLinks(c, 1))
	}
	fabric, err := rt.Spawn("fabric", func() actor.Actor { return f })
	require.NoError(t, err)
	probe := &flowProbe{clock: rt.Clock(), fabric: fabric, done: map[int32]time.Duration{}, failed: map[int32]int64{}, downs: map[int32]sched.NodeID{}}
	pid, err := rt.Spawn("probe", func() actor.Actor { return probe })
	require.NoError(t, err)
	for at, fs := range flows {
		for _, f := range fs {
			rt.Clock().At(at, pid, &startAt{f})
		}
	}
	for at, ms := range msgs {
		for _, m := range ms {
			rt.Clock().At(at, pid, &sendAt{m})
		}
	}
	res := rt.Run()
	if res.Err != nil {
		return probe, net, res.Err
	}
	_, err = rec.results(res.At)
	require.NoError(t, err, "every completed flow delivered its size")
	return probe, net, nil
}

// A rack uplink cut for 10 s delays a cross-rack read by exactly 10 s:
// host 0 reads 100 MB from host 2 through rack 1's uplink (50 MB/s, the
// narrowest link), 2 s alone from 1 s; the uplink is down from 1.5 s to
// 11.5 s, so the read ends at 13 s, every byte carried once.
func TestALinkCutDelaysAReadByTheCut(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 200e6, DiskWrite: 200e6,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 5}
	uplink := netmodel.LinkRef{Kind: netmodel.RackUp, Rack: 1}
	probe, net, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{
		time.Second: {flow(1, 2, 0, actors.DiskRead, 100e6)},
	}, map[time.Duration][]any{
		1500 * time.Millisecond:  {&actors.SetLinkCapacity{Link: uplink}},
		11500 * time.Millisecond: {&actors.SetLinkCapacity{Link: uplink, Capacity: 50e6}},
	})
	require.NoError(t, err)
	assert.Equal(t, 13*time.Second, probe.done[1])
	// Links are added in one order, so a topology built again from the
	// spec names the run's links.
	fresh, err := netmodel.NewNetwork(netmodel.DefaultConfig())
	require.NoError(t, err)
	topo, err := netmodel.BuildTopology(fresh, spec)
	require.NoError(t, err)
	l, err := topo.Link(uplink)
	require.NoError(t, err)
	carried, err := net.Carried(l)
	require.NoError(t, err)
	assert.Equal(t, int64(100e6), carried)
}

// A change to a link the topology does not have fails the run, naming
// the link.
func TestAChangeToAnUnknownLinkFailsTheRun(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 1, HostsPerRack: 2, NICUp: 125e6, NICDown: 125e6}
	_, _, err := fabricRunWith(t, spec, actors.ByteCPU{}, nil, map[time.Duration][]any{
		time.Second: {&actors.SetLinkCapacity{Link: netmodel.LinkRef{Kind: netmodel.RackUp, Rack: 4}, Capacity: 1e6}},
	})
	assert.ErrorContains(t, err, "fabric: set rack 4 uplink to 1MB/s: rack 4 uplink: netmodel: unknown host: rack = 4: topology has 1 racks")
}

// The fabric tells a job manager placing its reduces what each rack link
// has left: capacity less load, never under a tenth of the capacity.
// Rack links of 2 × 125 MB/s / 2.5 = 100 MB/s; a read from rack 0 to rack
// 1 bounded at 30 MB/s leaves 70 MB/s on rack 0's uplink and rack 1's
// downlink at 1 s; an unbounded one from 2 s takes those 70, so at 3 s
// they are full and report their floor, 10 MB/s.
func TestRackLinksMeasuredAreTheCapacityLeft(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 1e9, DiskWrite: 1e9,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 2.5}
	bounded := flow(1, 0, 2, actors.DiskRead, 1e9)
	bounded.MaxRate = 30e6
	probe, _, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{
		0:               {bounded},
		2 * time.Second: {flow(2, 1, 3, actors.DiskRead, 1e9)},
	}, map[time.Duration][]any{
		time.Second:     {&actors.MeasureRackLinks{}},
		3 * time.Second: {&actors.MeasureRackLinks{}},
	})
	require.NoError(t, err)
	require.Len(t, probe.links, 2)
	assert.InDeltaSlice(t, []float64{70e6, 100e6}, probe.links[0].Up, 1)
	assert.InDeltaSlice(t, []float64{100e6, 70e6}, probe.links[0].Down, 1)
	assert.InDeltaSlice(t, []float64{10e6, 100e6}, probe.links[1].Up, 1)
	assert.InDeltaSlice(t, []float64{100e6, 10e6}, probe.links[1].Down, 1)
}

// Other work's load on the rack links ([rack_traffic]) is capacity the
// run's flows cannot have, and the rack links measured see it: rack
// links of 100 MB/s as above, each loaded at its drawn share s of the
// period, so at 1 s each reports 100·(1 − s) MB/s left (at least its
// tenth), and a 10 MB read from rack 0 to rack 1 from 2 s moves at the
// least that rack 0's uplink and rack 1's downlink leave it. At 61 s the
// second period's draws hold.
func TestRackTrafficLoadsEachRackLinkAsDrawn(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 1e9, DiskWrite: 1e9,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 2.5}
	cfg := actors.RackTrafficConfig{Load: 0.4, Period: units.Duration(time.Minute)}
	probe, _, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{
		2 * time.Second: {flow(1, 0, 2, actors.DiskRead, 10e6)},
	}, map[time.Duration][]any{
		time.Second:      {&actors.MeasureRackLinks{}},
		61 * time.Second: {&actors.MeasureRackLinks{}},
	}, cfg)
	require.NoError(t, err)
	fresh, err := netmodel.NewNetwork(netmodel.DefaultConfig())
	require.NoError(t, err)
	topo, err := netmodel.BuildTopology(fresh, spec)
	require.NoError(t, err)
	left := func(r int, up bool, period int64) float64 {
		u, d, err := topo.RackLinks(r)
		require.NoError(t, err)
		l := map[bool]netmodel.LinkID{true: u, false: d}[up]
		return max(100e6*(1-cfg.Share(1, l, period)), 10e6)
	}
	require.Len(t, probe.links, 2)
	for p, m := range probe.links {
		assert.InDeltaSlice(t, []float64{left(0, true, int64(p)), left(1, true, int64(p))}, m.Up, 1, "period %d", p)
		assert.InDeltaSlice(t, []float64{left(0, false, int64(p)), left(1, false, int64(p))}, m.Down, 1, "period %d", p)
	}
	assert.NotEqual(t, probe.links[0].Up, probe.links[1].Up, "each period draws again")
	rate := min(left(0, true, 0), left(1, false, 0))
	assert.InDelta(t, 2+10e6/rate, probe.done[1].Seconds(), 1e-3)
}

// Other work's flows are no work of the run's: a run whose own flows
// have all ended stalls under [rack_traffic] as without it, the watchdog
// failing it 5 minutes after the last progress, long before its end at
// an hour.
func TestRackTrafficIsNoProgress(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 1e9, DiskWrite: 1e9,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 2.5}
	opts := RunOptions{Until: units.Duration(time.Hour), StallAfter: units.Duration(5 * time.Minute)}
	probe, _, err := fabricRunOpts(t, opts, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{
		time.Second: {flow(1, 0, 2, actors.DiskRead, 10e6)},
	}, nil, actors.DefaultRackTraffic())
	var stall *StallError
	require.ErrorAs(t, err, &stall)
	assert.Less(t, stall.Next, 7*time.Minute)
	assert.Contains(t, probe.done, int32(1), "the run's own flow ended")
}

// A run without [rack_traffic] hashes its configuration as before the
// table existed; one with it hashes the table.
func TestRackTrafficIsHashedOnlyWhenNamed(t *testing.T) {
	cfg := DefaultConfig()
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "RackTraffic")
	c := actors.DefaultRackTraffic()
	cfg.RackTraffic = &c
	data, err = json.Marshal(cfg)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"RackTraffic":{"Load":0.3,`)
}

func flow(part int32, src, dst sched.NodeID, t actors.Transfer, bytes int64) *actors.StartFlow {
	return &actors.StartFlow{Key: actors.FlowKey{Part: part}, Src: src, Dst: dst, Transfer: t, Bytes: bytes, OwnerNode: dst}
}

func TestRemoteReadTakesBytesOverNarrowestLink(t *testing.T) {
	// Host 0 (rack 0) reads 100 MB from host 2 (rack 1): disk 200 MB/s,
	// NICs 125 MB/s, rack links 50 MB/s (2 hosts × 125 / 5). The narrowest
	// link is the rack link: 100 MB / 50 MB/s = 2 s.
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 200e6, DiskWrite: 200e6,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 5}
	done := fabricRun(t, spec, map[time.Duration][]*actors.StartFlow{
		time.Second: {flow(1, 2, 0, actors.DiskRead, 100e6)},
	})
	assert.InDelta(t, (3 * time.Second).Seconds(), done[1].Seconds(), 1e-3)
}

func TestCrossRackShuffleSharesTheUplink(t *testing.T) {
	// Two fetches from rack 0 (hosts 0, 1) to rack 1 (hosts 2, 3) share
	// rack 0's uplink of 2 × 125 MB/s / 2.5 = 100 MB/s: 50 MB/s each, the
	// NICs (125) and disks (1 GB/s) being wider. The 100 MB fetch ends at
	// 100/50 = 2 s; the 300 MB one then has 200 MB left at the full
	// 100 MB/s: 2 s more, ending at 4 s. A local read on host 3 meanwhile
	// uses only its disk and is not slowed: 500 MB at 1 GB/s = 0.5 s.
	spec := netmodel.TopologySpec{Racks: 2, HostsPerRack: 2, DiskRead: 1e9, DiskWrite: 1e9,
		NICUp: 125e6, NICDown: 125e6, Oversubscription: 2.5}
	done := fabricRun(t, spec, map[time.Duration][]*actors.StartFlow{
		0: {
			flow(1, 0, 2, actors.DiskRead, 100e6),
			flow(2, 1, 3, actors.DiskRead, 300e6),
			flow(3, 3, 3, actors.DiskRead, 500e6),
		},
	})
	assert.InDelta(t, 2.0, done[1].Seconds(), 1e-3)
	assert.InDelta(t, 4.0, done[2].Seconds(), 1e-3)
	assert.InDelta(t, 0.5, done[3].Seconds(), 1e-3)
}

func TestBoundedFlowLeavesTheRestToOthers(t *testing.T) {
	// Two local reads on host 0's 100 MB/s disk. Flow 1 is bounded at
	// 10 MB/s (a map computing 10 s over 100 MB), so flow 2 gets the other
	// 90 MB/s: its 90 MB take 1 s, not the 1.8 s an even split would give.
	// Flow 1 then keeps its bound: 100 MB at 10 MB/s = 10 s. Flow 3 starts
	// on host 1 at 11 s with the same bound and reuses flow 1's private
	// link, so the run adds one link to the topology's eight (2 hosts ×
	// disk read, disk write, NIC up and NIC down);
	// alone on its disk flow 3 still takes 10 s.
	spec := netmodel.TopologySpec{Racks: 1, HostsPerRack: 2, DiskRead: 100e6, DiskWrite: 100e6,
		NICUp: 125e6, NICDown: 125e6}
	bounded := func(part int32, host sched.NodeID) *actors.StartFlow {
		f := flow(part, host, host, actors.DiskRead, 100e6)
		f.MaxRate = 10e6
		return f
	}
	done, net := fabricRunNet(t, spec, map[time.Duration][]*actors.StartFlow{
		0:                {bounded(1, 0), flow(2, 0, 0, actors.DiskRead, 90e6)},
		11 * time.Second: {bounded(3, 1)},
	})
	assert.InDelta(t, 10.0, done[1].Seconds(), 1e-3)
	assert.InDelta(t, 1.0, done[2].Seconds(), 1e-3)
	assert.InDelta(t, 21.0, done[3].Seconds(), 1e-3)
	assert.Equal(t, 9, net.NumLinks())
}

// Serving a remote block costs the server CPU. Host 0 has one core (CPU
// 1e9 work/s) and runs a compute of 1e9 work (1 s alone, bounded at one
// core) while host 1 reads 125 MB from host 0's disk (100 MB/s; 1.25 s
// alone) at 15 units of work per byte sent. Max-min: both rise to λ until
// host 0's CPU saturates at λ + 15λ = 1e9, λ = 62.5e6, below the disk and
// NIC bounds. The read takes 125e6 / 62.5e6 = 2 s; the compute has done
// 125e6 of its work by then and does the other 875e6 at a full core:
// 2.875 s. Both are slowed, by the predicted amounts.
func TestServingARemoteReadCostsTheServerCPU(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 1, HostsPerRack: 2, DiskRead: 100e6, DiskWrite: 100e6,
		NICUp: 125e6, NICDown: 125e6, CPU: 1e9}
	compute := &actors.StartFlow{Key: actors.FlowKey{Part: 1}, Src: 0, Dst: 0, Transfer: actors.Compute,
		Bytes: 1e9, MaxRate: actors.CoreRate, OwnerNode: 0}
	read := flow(2, 0, 1, actors.DiskRead, 125e6)
	probe, _, err := fabricRunWith(t, spec, actors.ByteCPU{Send: 15}, map[time.Duration][]*actors.StartFlow{0: {compute, read}}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[int32]time.Duration{1: 2875 * time.Millisecond, 2: 2 * time.Second}, probe.done)

	// Without the cost each runs as if alone.
	probe, _, err = fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{0: {compute, read}}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[int32]time.Duration{1: time.Second, 2: 1250 * time.Millisecond}, probe.done)
}

// A map streaming its input through its compute reads no faster than a
// core computes and computes no faster than the disk reads: 100 MB at 10
// units of work per byte on a free core (1e9/s) streams at 100 MB/s when
// the disk gives 200 MB/s (0.5 s of disk, 1 s of CPU: 1 s), and at the
// disk's 50 MB/s when it gives 50 (2 s), the CPU then a fifth busy.
func TestAStreamedReadTakesTheSlowerOfDiskAndCore(t *testing.T) {
	for _, tc := range []struct {
		disk float64
		want time.Duration
	}{{200e6, time.Second}, {50e6, 2 * time.Second}} {
		spec := netmodel.TopologySpec{Racks: 1, HostsPerRack: 1, DiskRead: tc.disk, DiskWrite: tc.disk, CPU: 4e9}
		stream := flow(1, 0, 0, actors.DiskRead, 100e6)
		stream.CPUPerByte, stream.MaxRate = 10, actors.CoreRate/10
		probe, net, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{0: {stream}}, nil)
		require.NoError(t, err)
		assert.Equal(t, map[int32]time.Duration{1: tc.want}, probe.done, "disk %g B/s", tc.disk)
		assert.Zero(t, net.NumFlows())
	}
}

// Flows of other owners, classes and weights share the fabric as netmodel
// says. Host 0 sends host 1 bytes it has in memory over their 125 MB/s
// NICs (NetTransfer: no disk).
func TestClassesAndWeightsShareTheFabric(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 1, HostsPerRack: 2, DiskRead: 50e6, DiskWrite: 50e6, NICUp: 125e6, NICDown: 125e6}
	task := flow(1, 0, 1, actors.NetTransfer, 125e6)
	copyKey := actors.FlowKey{Owner: actors.OwnerReplication, ID: 7, Part: 2}

	// A background copy on the saturated NICs gets nothing until the task
	// transfer ends at 1 s (125 MB at 125 MB/s), then the whole 125 MB/s:
	// it ends at 2 s. The disks (50 MB/s) are not on either path.
	background := &actors.StartFlow{Key: copyKey, Src: 0, Dst: 1, Transfer: actors.NetTransfer, Bytes: 125e6,
		Class: actors.Background, OwnerNode: 1}
	probe, _, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{0: {task, background}}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[int32]time.Duration{1: time.Second, 2: 2 * time.Second}, probe.done)

	// Weights 1 and 3 share the NICs' 125 MB/s as 31.25 and 93.75 MB/s:
	// 150 MB at weight 3 ends at 1.6 s, when the other has moved 50 of
	// its 100 MB; the other 50 take 0.4 s alone: 2 s.
	light, heavy := flow(1, 0, 1, actors.NetTransfer, 100e6), flow(2, 0, 1, actors.NetTransfer, 150e6)
	heavy.Weight = 3
	probe, _, err = fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{0: {light, heavy}}, nil)
	require.NoError(t, err)
	assert.Equal(t, map[int32]time.Duration{1: 2 * time.Second, 2: 1600 * time.Millisecond}, probe.done)
}

// A node's crash aborts its flows at that instant. Host 1 reads 100 MB
// from host 0 and host 2 reads 100 MB from host 1, from 50 MB/s disks;
// host 0 also reads 50 MB from its own disk, sharing it with host 1's
// read at 25 MB/s each. Host 1 crashes at 1 s: both flows touching it
// stop there, and only the one owned elsewhere (host 2's, 50 MB carried)
// is told. Host 0's own read then has its disk alone: its other 25 MB take
// 0.5 s, so it ends at 1.5 s.
func TestACrashAbortsTheNodesFlowsAtOnce(t *testing.T) {
	spec := netmodel.TopologySpec{Racks: 1, HostsPerRack: 3, DiskRead: 50e6, DiskWrite: 50e6, NICUp: 125e6, NICDown: 125e6}
	probe, net, err := fabricRunWith(t, spec, actors.ByteCPU{}, map[time.Duration][]*actors.StartFlow{0: {
		flow(1, 0, 1, actors.DiskRead, 100e6), flow(2, 1, 2, actors.DiskRead, 100e6), flow(3, 0, 0, actors.DiskRead, 50e6),
	}}, map[time.Duration][]any{time.Second: {&actors.AbortFlows{Node: 1, Reason: "node 1 crashed"}}})
	require.NoError(t, err)
	assert.Equal(t, map[int32]int64{2: 50e6}, probe.failed, "only the owner on another node hears")
	assert.Equal(t, map[int32]time.Duration{3: 1500 * time.Millisecond}, probe.done)
	assert.Zero(t, net.NumFlows())
}
