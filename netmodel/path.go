package netmodel

import "fmt"

// Path returns the links a transfer of the given kind from src to dst
// crosses, in order (see the package documentation). Local kinds need src
// == dst and remote kinds src != dst. Links left out of the topology are
// skipped; a path left empty is ErrNoPath.
func (t *Topology) Path(src, dst HostID, kind TransferKind) ([]LinkID, error) {
	return t.AppendPath(nil, src, dst, kind)
}

// AppendPath is Path appending to buf, so a caller can reuse one buffer
// and avoid allocating.
func (t *Topology) AppendPath(buf []LinkID, src, dst HostID, kind TransferKind) ([]LinkID, error) {
	if err := t.checkHost("src", src); err != nil {
		return buf, err
	}
	if err := t.checkHost("dst", dst); err != nil {
		return buf, err
	}
	local := kind == LocalDiskRead || kind == LocalDiskWrite || kind == MemoryRead
	if kind < 0 || int(kind) >= len(kindNames) {
		return buf, fmt.Errorf("%w: kind = %v", ErrInvalid, kind)
	}
	if local != (src == dst) {
		return buf, fmt.Errorf("%w: kind = %v, src = %d, dst = %d: local kinds need src == dst, remote kinds src != dst",
			ErrInvalid, kind, src, dst)
	}
	start := len(buf)
	s, d := t.hosts[src], t.hosts[dst]
	switch kind {
	case LocalDiskRead:
		buf = appendLink(buf, s.DiskRead)
	case LocalDiskWrite:
		buf = appendLink(buf, s.DiskWrite)
	case MemoryRead:
		buf = appendLink(buf, s.Memory)
	case RemoteRead:
		buf = t.appendNetwork(appendLink(buf, s.DiskRead), src, dst)
	case RemoteMemoryRead:
		buf = t.appendNetwork(appendLink(buf, s.Memory), src, dst)
	case Transfer:
		buf = t.appendNetwork(buf, src, dst)
	case RemoteWrite:
		buf = appendLink(t.appendNetwork(buf, src, dst), d.DiskWrite)
	case RemoteCopy:
		buf = appendLink(t.appendNetwork(appendLink(buf, s.DiskRead), src, dst), d.DiskWrite)
	}
	if len(buf) == start {
		return buf, fmt.Errorf("%w: kind = %v, src = %d, dst = %d: every link of the path is left out of the topology",
			ErrNoPath, kind, src, dst)
	}
	return buf, nil
}

// appendNetwork appends src's NIC-up, then for hosts in different racks
// src's rack uplink, the core and dst's rack downlink, then dst's NIC-down.
func (t *Topology) appendNetwork(buf []LinkID, src, dst HostID) []LinkID {
	buf = appendLink(buf, t.hosts[src].NICUp)
	rs, rd := int(src)/t.spec.HostsPerRack, int(dst)/t.spec.HostsPerRack
	if rs != rd {
		buf = appendLink(buf, t.up[rs])
		buf = appendLink(buf, t.core)
		buf = appendLink(buf, t.down[rd])
	}
	return appendLink(buf, t.hosts[dst].NICDown)
}

func appendLink(buf []LinkID, l LinkID) []LinkID {
	if l == noLink {
		return buf
	}
	return append(buf, l)
}
