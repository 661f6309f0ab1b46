package netmodel

import (
	"fmt"
	"math"
)

// HostID names a host of a Topology: hosts are numbered rack by rack,
// host i of rack r being r×HostsPerRack+i.
type HostID int

// TransferKind selects which links a transfer between two hosts uses.
type TransferKind int

// The transfer kinds; the package documentation lists each one's path.
const (
	LocalDiskRead    TransferKind = iota // a host reads its own disk
	LocalDiskWrite                       // a host writes its own disk
	MemoryRead                           // a host reads its own memory (cache hit)
	RemoteRead                           // dst reads src's disk over the network
	RemoteMemoryRead                     // dst reads src's memory over the network
	Transfer                             // bytes already in src's memory or page cache cross the network
	RemoteWrite                          // src sends bytes that dst writes to its disk
	RemoteCopy                           // src's disk to dst's disk: a block replica copied
)

var kindNames = [...]string{"LocalDiskRead", "LocalDiskWrite", "MemoryRead", "RemoteRead",
	"RemoteMemoryRead", "Transfer", "RemoteWrite", "RemoteCopy"}

// String returns the kind's Go name.
func (k TransferKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("TransferKind(%d)", int(k))
}

// TopologySpec describes racks of hosts, identical unless Hosts says
// otherwise. Capacities are in bytes/s; a per-host or per-rack capacity
// of 0 leaves that link out of the model (paths skip it), which is how a
// NIC-and-rack-only fabric is built.
type TopologySpec struct {
	Racks        int // ≥ 1
	HostsPerRack int // ≥ 1

	DiskRead  float64 // per host
	DiskWrite float64 // per host
	NICUp     float64 // per host, host → rack switch
	NICDown   float64 // per host, rack switch → host
	Memory    float64 // per host, memory reads
	// CPU is each host's processor, in units of work per second (a
	// node's cores × speed × 1e9: work in nanoseconds of one nominal
	// core). No path crosses it; a caller adds it to a compute's path,
	// and to a transfer's with the CPU work per byte as FlowSpec.Use.
	CPU float64
	// Hosts, when not nil, holds every host's own capacities, host by
	// host (Racks × HostsPerRack of them), in place of the six above:
	// racks of older and newer machines.
	Hosts []HostSpec

	// RackUp and RackDown are the rack switch's links to the core. When 0
	// and Oversubscription is positive, each is HostsPerRack × the host NIC
	// capacity (NICUp, NICDown) / Oversubscription: 20 hosts × 125 MB/s at
	// ratio 10 give 250 MB/s. With Hosts, each rack's is the sum of its
	// own hosts' NICs over the ratio.
	RackUp           float64
	RackDown         float64
	Oversubscription float64
	// Core, when positive, is one link every cross-rack transfer crosses.
	Core float64

	// Dead lists links built down: present in every path that crosses
	// them, at capacity 0 (their flows stall with their bytes kept) until
	// Network.SetCapacity raises them. A link whose capacity above is 0
	// is otherwise left out of the model.
	Dead []LinkRef
}

// Validate reports the first field that is out of range, with its value.
func (s TopologySpec) Validate() error {
	if s.Racks < 1 || s.HostsPerRack < 1 {
		return fmt.Errorf("%w: TopologySpec.Racks = %d, HostsPerRack = %d: both must be ≥ 1",
			ErrInvalid, s.Racks, s.HostsPerRack)
	}
	if s.Racks > math.MaxInt32/8/s.HostsPerRack {
		return fmt.Errorf("%w: TopologySpec.Racks × HostsPerRack = %d × %d: too many hosts",
			ErrInvalid, s.Racks, s.HostsPerRack)
	}
	fields := []struct {
		name string
		v    float64
	}{{"DiskRead", s.DiskRead}, {"DiskWrite", s.DiskWrite}, {"NICUp", s.NICUp}, {"NICDown", s.NICDown},
		{"Memory", s.Memory}, {"CPU", s.CPU}, {"RackUp", s.RackUp}, {"RackDown", s.RackDown},
		{"Oversubscription", s.Oversubscription}, {"Core", s.Core}}
	for _, f := range fields {
		if err := checkCapacity("TopologySpec."+f.name, f.v); err != nil {
			return err
		}
	}
	if s.Hosts != nil {
		if len(s.Hosts) != s.Racks*s.HostsPerRack {
			return fmt.Errorf("%w: TopologySpec.Hosts has %d hosts: must be Racks × HostsPerRack = %d",
				ErrInvalid, len(s.Hosts), s.Racks*s.HostsPerRack)
		}
		for i, h := range s.Hosts {
			for _, f := range h.fields() {
				if err := checkCapacity(fmt.Sprintf("TopologySpec.Hosts[%d].%s", i, f.name), f.v); err != nil {
					return err
				}
			}
		}
	}
	return s.checkDead()
}

// HostSpec is one host's capacities (TopologySpec.Hosts).
type HostSpec struct {
	DiskRead, DiskWrite, NICUp, NICDown, Memory, CPU float64
}

// fields lists the capacities by name, for validation.
func (h HostSpec) fields() []struct {
	name string
	v    float64
} {
	return []struct {
		name string
		v    float64
	}{{"DiskRead", h.DiskRead}, {"DiskWrite", h.DiskWrite}, {"NICUp", h.NICUp}, {"NICDown", h.NICDown},
		{"Memory", h.Memory}, {"CPU", h.CPU}}
}

// host is host h's capacities.
func (s TopologySpec) host(h int) HostSpec {
	if s.Hosts != nil {
		return s.Hosts[h]
	}
	return HostSpec{DiskRead: s.DiskRead, DiskWrite: s.DiskWrite, NICUp: s.NICUp, NICDown: s.NICDown, Memory: s.Memory, CPU: s.CPU}
}

// noLink marks a link left out of the model.
const noLink LinkID = -1

// HostLinks are one host's links; noLink (-1) where left out.
type HostLinks struct {
	DiskRead, DiskWrite, NICUp, NICDown, Memory, CPU LinkID
}

// Topology maps hosts and racks to the links it added to a Network.
type Topology struct {
	spec  TopologySpec
	hosts []HostLinks
	up    []LinkID // per rack
	down  []LinkID // per rack
	core  LinkID
}

// BuildTopology validates spec and adds its links to n: per host disk-read,
// disk-write, NIC-up, NIC-down, memory and CPU links, host by host, then each
// rack's uplink and downlink, then the core. O(hosts).
func BuildTopology(n *Network, spec TopologySpec) (*Topology, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	t := &Topology{spec: spec, core: noLink}
	add := func(c float64, ref LinkRef) LinkID {
		dead := len(spec.Dead) > 0 && spec.dead(ref)
		if c == 0 && !dead {
			return noLink
		}
		if dead {
			c = 0
		}
		l, _ := n.AddLink(c) // c was validated
		return l
	}
	for i := range spec.Racks * spec.HostsPerRack {
		h, hs := HostID(i), spec.host(i)
		t.hosts = append(t.hosts, HostLinks{
			DiskRead: add(hs.DiskRead, LinkRef{Kind: HostDiskRead, Host: h}), DiskWrite: add(hs.DiskWrite, LinkRef{Kind: HostDiskWrite, Host: h}),
			NICUp: add(hs.NICUp, LinkRef{Kind: HostNICUp, Host: h}), NICDown: add(hs.NICDown, LinkRef{Kind: HostNICDown, Host: h}),
			Memory: add(hs.Memory, LinkRef{Kind: HostMemory, Host: h}), CPU: add(hs.CPU, LinkRef{Kind: HostCPU, Host: h}),
		})
	}
	for r := range spec.Racks {
		up, down := spec.rackCapacities(r)
		t.up = append(t.up, add(up, LinkRef{Kind: RackUp, Rack: r}))
		t.down = append(t.down, add(down, LinkRef{Kind: RackDown, Rack: r}))
	}
	t.core = add(spec.Core, LinkRef{Kind: CoreLink})
	return t, nil
}

// rackCapacities applies the oversubscription ratio to rack r's links
// not set directly.
func (s TopologySpec) rackCapacities(r int) (up, down float64) {
	up, down = s.RackUp, s.RackDown
	if s.Oversubscription > 0 {
		nicUp, nicDown := float64(s.HostsPerRack)*s.NICUp, float64(s.HostsPerRack)*s.NICDown
		if s.Hosts != nil {
			nicUp, nicDown = 0, 0
			for _, h := range s.Hosts[r*s.HostsPerRack : (r+1)*s.HostsPerRack] {
				nicUp += h.NICUp
				nicDown += h.NICDown
			}
		}
		if up == 0 {
			up = nicUp / s.Oversubscription
		}
		if down == 0 {
			down = nicDown / s.Oversubscription
		}
	}
	return up, down
}

// NumHosts returns Racks × HostsPerRack.
func (t *Topology) NumHosts() int { return len(t.hosts) }

// Racks returns the number of racks.
func (t *Topology) Racks() int { return t.spec.Racks }

// Host returns host i of rack r.
func (t *Topology) Host(r, i int) (HostID, error) {
	if r < 0 || r >= t.spec.Racks || i < 0 || i >= t.spec.HostsPerRack {
		return 0, fmt.Errorf("%w: rack = %d, index = %d: topology has %d racks of %d hosts",
			ErrUnknownHost, r, i, t.spec.Racks, t.spec.HostsPerRack)
	}
	return HostID(r*t.spec.HostsPerRack + i), nil
}

// RackOf returns a host's rack.
func (t *Topology) RackOf(h HostID) (int, error) {
	if err := t.checkHost("host", h); err != nil {
		return 0, err
	}
	return int(h) / t.spec.HostsPerRack, nil
}

// Links returns a host's links.
func (t *Topology) Links(h HostID) (HostLinks, error) {
	if err := t.checkHost("host", h); err != nil {
		return HostLinks{}, err
	}
	return t.hosts[h], nil
}

// RackLinks returns rack r's uplink and downlink (-1 when left out).
func (t *Topology) RackLinks(r int) (up, down LinkID, err error) {
	if r < 0 || r >= t.spec.Racks {
		return noLink, noLink, fmt.Errorf("%w: rack = %d: topology has %d racks", ErrUnknownHost, r, t.spec.Racks)
	}
	return t.up[r], t.down[r], nil
}

// Core returns the core link, if the topology has one.
func (t *Topology) Core() (LinkID, bool) { return t.core, t.core != noLink }

func (t *Topology) checkHost(field string, h HostID) error {
	if h < 0 || int(h) >= len(t.hosts) {
		return fmt.Errorf("%w: %s = %d: topology has %d hosts", ErrUnknownHost, field, h, len(t.hosts))
	}
	return nil
}
