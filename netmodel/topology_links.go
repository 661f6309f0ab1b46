package netmodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LinkKind is the role of a link in a topology.
type LinkKind int

// Link kinds: a host's six links, a rack's two, the core.
const (
	HostDiskRead LinkKind = iota
	HostDiskWrite
	HostNICUp
	HostNICDown
	HostMemory
	HostCPU
	RackUp
	RackDown
	CoreLink
)

var linkKindNames = [...]string{"disk-read", "disk-write", "nic-up", "nic-down", "memory", "cpu", "uplink", "downlink", "core"}

func (k LinkKind) String() string {
	if k < 0 || int(k) >= len(linkKindNames) {
		return fmt.Sprintf("LinkKind(%d)", int(k))
	}
	return linkKindNames[k]
}

// LinkRef names one link of a topology by its role: a host's (Host set),
// a rack's (Rack set) or the core. It is how a fault or a test names the
// link whose capacity it changes (Topology.Link).
type LinkRef struct {
	Kind LinkKind
	Host HostID // host links
	Rack int    // rack links
}

func (r LinkRef) String() string {
	switch {
	case r.Kind <= HostCPU:
		return fmt.Sprintf("host %d %v", r.Host, r.Kind)
	case r.Kind <= RackDown:
		return fmt.Sprintf("rack %d %v", r.Rack, r.Kind)
	}
	return r.Kind.String()
}

// Link returns the link ref names. The error names the link: a host or
// rack the topology does not have, or a link left out of the model (a
// capacity of 0 in the spec, not listed in Dead).
func (t *Topology) Link(ref LinkRef) (LinkID, error) {
	var l LinkID
	switch {
	case ref.Kind >= HostDiskRead && ref.Kind <= HostCPU:
		if err := t.checkHost(ref.String(), ref.Host); err != nil {
			return noLink, err
		}
		h := t.hosts[ref.Host]
		l = [...]LinkID{h.DiskRead, h.DiskWrite, h.NICUp, h.NICDown, h.Memory, h.CPU}[ref.Kind]
	case ref.Kind == RackUp || ref.Kind == RackDown:
		up, down, err := t.RackLinks(ref.Rack)
		if err != nil {
			return noLink, fmt.Errorf("%v: %w", ref, err)
		}
		l = map[bool]LinkID{true: up, false: down}[ref.Kind == RackUp]
	case ref.Kind == CoreLink:
		l = t.core
	default:
		return noLink, fmt.Errorf("%w: %v: no such kind of link", ErrUnknownLink, ref)
	}
	if l == noLink {
		return noLink, fmt.Errorf("%w: %v: left out of the model (capacity 0); list it in TopologySpec.Dead to build it down",
			ErrUnknownLink, ref)
	}
	return l, nil
}

// dead reports whether the spec builds ref at capacity 0.
func (s TopologySpec) dead(ref LinkRef) bool {
	return slices.ContainsFunc(s.Dead, func(d LinkRef) bool { return d.normal() == ref.normal() })
}

// normal is the ref with the fields its kind does not use zeroed, so two
// refs to one link compare equal.
func (r LinkRef) normal() LinkRef {
	switch {
	case r.Kind <= HostCPU:
		r.Rack = 0
	case r.Kind <= RackDown:
		r.Host = 0
	default:
		r.Host, r.Rack = 0, 0
	}
	return r
}

// checkDead reports a Dead entry naming no link of the spec.
func (s TopologySpec) checkDead() error {
	hosts := s.Racks * s.HostsPerRack
	for i, ref := range s.Dead {
		bad := ref.Kind < HostDiskRead || ref.Kind > CoreLink ||
			ref.Kind <= HostCPU && (ref.Host < 0 || int(ref.Host) >= hosts) ||
			(ref.Kind == RackUp || ref.Kind == RackDown) && (ref.Rack < 0 || ref.Rack >= s.Racks)
		if bad {
			return fmt.Errorf("%w: TopologySpec.Dead[%d] = %v: the topology has %d racks of %d hosts",
				ErrInvalid, i, ref, s.Racks, s.HostsPerRack)
		}
	}
	return nil
}

// Refs returns the ref of every link the topology added, by LinkID.
func (t *Topology) Refs() map[LinkID]LinkRef {
	refs := make(map[LinkID]LinkRef)
	put := func(l LinkID, ref LinkRef) {
		if l != noLink {
			refs[l] = ref
		}
	}
	for h, hl := range t.hosts {
		id := HostID(h)
		for k, l := range [...]LinkID{hl.DiskRead, hl.DiskWrite, hl.NICUp, hl.NICDown, hl.Memory, hl.CPU} {
			put(l, LinkRef{Kind: HostDiskRead + LinkKind(k), Host: id})
		}
	}
	for r := range t.up {
		put(t.up[r], LinkRef{Kind: RackUp, Rack: r})
		put(t.down[r], LinkRef{Kind: RackDown, Rack: r})
	}
	put(t.core, LinkRef{Kind: CoreLink})
	return refs
}

// ParseLinkRef reads a link's name as LinkRef.String writes it: "host 3
// nic-up", "rack 1 uplink", "core". Whether the topology has the link is
// Topology.Link's to say.
func ParseLinkRef(s string) (LinkRef, error) {
	f := strings.Fields(s)
	kind := func(name string, from, to LinkKind) (LinkKind, bool) {
		for k := from; k <= to; k++ {
			if k.String() == name {
				return k, true
			}
		}
		return 0, false
	}
	bad := fmt.Errorf(`%w: link %q: must be "host N KIND" (KIND one of disk-read, disk-write, nic-up, nic-down, memory, cpu), "rack N uplink", "rack N downlink" or "core"`, ErrUnknownLink, s)
	switch {
	case len(f) == 1 && f[0] == "core":
		return LinkRef{Kind: CoreLink}, nil
	case len(f) != 3:
		return LinkRef{}, bad
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return LinkRef{}, bad
	}
	switch f[0] {
	case "host":
		if k, ok := kind(f[2], HostDiskRead, HostCPU); ok {
			return LinkRef{Kind: k, Host: HostID(n)}, nil
		}
	case "rack":
		if k, ok := kind(f[2], RackUp, RackDown); ok {
			return LinkRef{Kind: k, Rack: n}, nil
		}
	}
	return LinkRef{}, bad
}
