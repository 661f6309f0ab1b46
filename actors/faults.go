package actors

import (
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

// FaultKind is what a scripted fault does.
type FaultKind string

// The fault kinds.
const (
	// FaultCrash stops a node's process: its attempts, slots, map outputs
	// and flows are gone at once, and it heartbeats no more. With a
	// restart it comes back after RestartAfter and registers again, its
	// HDFS blocks intact unless DiskLost, like a TaskTracker restart.
	FaultCrash FaultKind = "crash"
	// FaultSlowdown multiplies a node's CPU speed by CPU and its disks'
	// bandwidth by Disk for For.
	FaultSlowdown FaultKind = "slowdown"
	// FaultPartition takes a rack's switch down for For: the rack's
	// control messages wait in the switch and its nodes' network flows
	// stall; the nodes go on running their attempts.
	FaultPartition FaultKind = "partition"
	// FaultLink multiplies a link's capacity by Factor (0 cuts it) for
	// For; its flows slow or stall with their bytes kept, then resume.
	FaultLink FaultKind = "link"
	// FaultCoordinator stops the coordinator for RestartAfter (see
	// CoordinatorRecovery).
	FaultCoordinator FaultKind = "coordinator"
)

// FaultKinds lists the kinds a scenario may name.
var FaultKinds = []FaultKind{FaultCrash, FaultSlowdown, FaultPartition, FaultLink, FaultCoordinator}

// Fault is one scripted failure at an emulated instant. Which fields
// apply depends on Kind; For and RestartAfter of 0 last to the run's end.
type Fault struct {
	Kind FaultKind
	At   time.Duration
	// For is how long a slowdown, partition or link fault lasts.
	For time.Duration
	// RestartAfter brings a crashed node or the coordinator back.
	RestartAfter time.Duration
	Node         sched.NodeID // crash, slowdown
	Rack         sched.RackID // partition
	Link         netmodel.LinkRef
	// Factor multiplies the link's capacity; CPU and Disk a slowed node's
	// core speed and disk bandwidth.
	Factor, CPU, Disk float64
	// DiskLost restarts a crashed node with its HDFS blocks gone.
	DiskLost bool
	// FailJobs: the coordinator's restart fails the running jobs, as
	// Hadoop 1's JobTracker did, instead of rebuilding its view.
	FailJobs bool
	// Entry is the scenario's [[fault]] entry the fault comes from, which
	// its errors name (a random stream gives several faults); −1 for a
	// busy period's.
	Entry int
	// Busy: a busy period of [stragglers] (StragglersConfig.BusyFaults).
	Busy bool `json:",omitzero"`
}

// Target names what the fault hits, for the records.
func (f *Fault) Target() string {
	switch f.Kind {
	case FaultCrash, FaultSlowdown:
		return fmt.Sprintf("node %d", f.Node)
	case FaultPartition:
		return fmt.Sprintf("rack %d", f.Rack)
	case FaultLink:
		return f.Link.String()
	}
	return "coordinator"
}

// End is when the fault's effect is undone: the restart or the end of
// its duration; 0 when it lasts to the run's end.
func (f *Fault) End() time.Duration {
	d := f.For
	if f.Kind == FaultCrash || f.Kind == FaultCoordinator {
		d = f.RestartAfter
	}
	if d <= 0 {
		return 0
	}
	return f.At + d
}

// FaultEvent is a fault taking effect or being undone, for the records.
type FaultEvent struct {
	At     time.Duration
	Kind   FaultKind
	Target string
	// Node is the node it hits, or a node of the rack it partitions; −1
	// for a link or the coordinator.
	Node sched.NodeID
	// What happened: "crashed", "restarted", "slowed", …
	What string
	// End: the fault ended (a restart, a switch back up).
	End bool
}

// ---- Fault injection: fault injector → nodes, switches, fabric.

// CrashNode stops a node's process now.
type CrashNode struct{}

// RestartNode starts a crashed node again; DiskLost wipes its HDFS
// blocks.
type RestartNode struct {
	DiskLost bool
}

// ReinitNode tells a node the coordinator declared it dead: it drops
// every attempt and map output it has, untold (the job managers ran them
// again already), and registers afresh, as a TaskTracker does on
// Hadoop's reinit action.
type ReinitNode struct{}

// SetSwitchUp takes a rack switch down or brings it back up.
type SetSwitchUp struct {
	Up bool
}

// CrashCoordinator stops the coordinator's process.
type CrashCoordinator struct{}

// RestartCoordinator starts the coordinator again: it rebuilds its view
// from the nodes and job managers, or with FailJobs fails every running
// job.
type RestartCoordinator struct {
	FailJobs bool
}

// faultFires is the injector's timer for fault i's start or end.
type faultFires struct {
	index int
	end   bool
}

// FaultTargets is how a fault injector reaches what its faults hit.
type FaultTargets struct {
	Nodes        []*actor.PID // by node ID
	Switches     []*actor.PID // by rack ID
	Fabric       *actor.PID
	Coordinator  *actor.PID
	NodesPerRack int
}

// FaultInjector fires a scenario's faults at their instants, through
// messages to the nodes, switches, fabric and coordinator, and records
// each as a FaultEvent.
type FaultInjector struct {
	faults  []Fault
	targets FaultTargets
	deps    Deps
}

// NewFaultInjector returns the fault injector's state.
func NewFaultInjector(faults []Fault, targets FaultTargets, deps Deps) *FaultInjector {
	return &FaultInjector{faults: faults, targets: targets, deps: deps}
}

// Receive implements actor.Actor.
func (fi *FaultInjector) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		for i := range fi.faults {
			f := &fi.faults[i]
			fi.deps.Clock.At(f.At, ctx.Self(), &faultFires{index: i})
			if end := f.End(); end > 0 {
				fi.deps.Clock.At(end, ctx.Self(), &faultFires{index: i, end: true})
			}
		}
	case *faultFires:
		fi.fire(ctx, &fi.faults[msg.index], msg.end)
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		fi.deps.Fail(fmt.Errorf("fault injector: unhandled message %T", msg))
	}
}

// fire starts a fault, or undoes it when end.
func (fi *FaultInjector) fire(ctx actor.Context, f *Fault, end bool) {
	t := &fi.targets
	what := ""
	switch f.Kind {
	case FaultCrash:
		if end {
			what = "restarted"
			if f.DiskLost {
				what = "restarted with its disk lost"
			}
			ctx.Send(t.Nodes[f.Node], &RestartNode{DiskLost: f.DiskLost})
		} else {
			what = "crashed"
			ctx.Send(t.Nodes[f.Node], &CrashNode{})
		}
	case FaultSlowdown:
		cpu, disk := f.CPU, f.Disk
		what = fmt.Sprintf("slowed: CPU ×%g, disks ×%g", cpu, disk)
		if end {
			cpu, disk, what = 1, 1, "back to full speed"
		}
		ctx.Send(t.Nodes[f.Node], &SetNodeSpeed{Speed: cpu})
		host := netmodel.HostID(f.Node)
		fi.scale(ctx, netmodel.LinkRef{Kind: netmodel.HostDiskRead, Host: host}, disk)
		fi.scale(ctx, netmodel.LinkRef{Kind: netmodel.HostDiskWrite, Host: host}, disk)
	case FaultPartition:
		what = "switch down"
		if end {
			what = "switch up"
		}
		ctx.Send(t.Switches[f.Rack], &SetSwitchUp{Up: end})
		nic := 0.0
		if end {
			nic = 1
		}
		first := int(f.Rack) * t.NodesPerRack
		for h := first; h < first+t.NodesPerRack; h++ {
			fi.scale(ctx, netmodel.LinkRef{Kind: netmodel.HostNICUp, Host: netmodel.HostID(h)}, nic)
			fi.scale(ctx, netmodel.LinkRef{Kind: netmodel.HostNICDown, Host: netmodel.HostID(h)}, nic)
		}
	case FaultLink:
		factor := f.Factor
		what = fmt.Sprintf("capacity ×%g", factor)
		if end {
			factor, what = 1, "capacity restored"
		}
		fi.scale(ctx, f.Link, factor)
	case FaultCoordinator:
		// The coordinator's crash and restart (coordinator_recovery.go).
		if end {
			what = "restarted"
			ctx.Send(t.Coordinator, &RestartCoordinator{FailJobs: f.FailJobs})
		} else {
			what = "crashed"
			ctx.Send(t.Coordinator, &CrashCoordinator{})
		}
	}
	node := sched.NodeID(-1)
	switch f.Kind {
	case FaultCrash, FaultSlowdown:
		node = f.Node
	case FaultPartition:
		node = sched.NodeID(int(f.Rack) * t.NodesPerRack)
	}
	fi.deps.Metrics.FaultFired(FaultEvent{At: fi.deps.Clock.Now(), Kind: f.Kind, Target: f.Target(), Node: node, What: what, End: end})
}

// scale sets a link's capacity to factor × its capacity as built.
func (fi *FaultInjector) scale(ctx actor.Context, ref netmodel.LinkRef, factor float64) {
	ctx.Send(fi.targets.Fabric, &ScaleLink{Link: ref, Factor: factor})
}

// ValidateFaults checks a run's faults against the cluster's shape, each
// under the key "fault[i]": a target the cluster has, factors in range,
// and no two faults that contradict each other (acting on one node,
// switch or link at overlapping times). A fault after the run's end does
// not fire.
func ValidateFaults(faults []Fault, c *ClusterConfig, errs *Checks) {
	for i := range faults {
		faults[i].validate(fmt.Sprintf("fault[%d]", faults[i].Entry), c, errs)
	}
	type span struct {
		from, to time.Duration // to 0: the run's end
		index    int
	}
	overlaps := func(a, b span) bool {
		return (a.to == 0 || b.from < a.to) && (b.to == 0 || a.from < b.to)
	}
	held := map[string][]span{}
	for i := range faults {
		f := &faults[i]
		s := span{f.At, f.End(), i}
		for _, r := range f.resources(c.NodesPerRack) {
			for _, o := range held[r] {
				if overlaps(o, s) {
					errs.Check(true, fmt.Sprintf("fault[%d].at", f.Entry), units.Duration(f.At),
						fmt.Sprintf("the %s fault on %s at %v overlaps fault[%d]'s at %v on %s, which it contradicts: one at a time",
							f.Kind, f.Target(), units.Duration(f.At), faults[o.index].Entry, units.Duration(faults[o.index].At), r))
				}
			}
			held[r] = append(held[r], s)
		}
	}
}

// resources names what a fault holds while it lasts: a node's process
// or CPU, a switch, the links it scales.
func (f *Fault) resources(perRack int) []string {
	host := netmodel.HostID(f.Node)
	switch f.Kind {
	case FaultCrash:
		return []string{fmt.Sprintf("node %d", f.Node)}
	case FaultSlowdown:
		return []string{fmt.Sprintf("node %d cpu", f.Node),
			netmodel.LinkRef{Kind: netmodel.HostDiskRead, Host: host}.String(),
			netmodel.LinkRef{Kind: netmodel.HostDiskWrite, Host: host}.String()}
	case FaultPartition:
		rs := []string{fmt.Sprintf("rack %d switch", f.Rack)}
		for h := int(f.Rack) * perRack; h < (int(f.Rack)+1)*perRack; h++ {
			rs = append(rs, netmodel.LinkRef{Kind: netmodel.HostNICUp, Host: netmodel.HostID(h)}.String(),
				netmodel.LinkRef{Kind: netmodel.HostNICDown, Host: netmodel.HostID(h)}.String())
		}
		return rs
	case FaultLink:
		return []string{f.Link.String()}
	}
	return []string{"coordinator"}
}

// validate checks one fault on its own.
func (f *Fault) validate(key string, c *ClusterConfig, errs *Checks) {
	check := errs.Check
	check(!slices.Contains(FaultKinds, f.Kind), key+".kind", f.Kind, fmt.Sprintf("must be one of %v", FaultKinds))
	check(f.At < 0, key+".at", units.Duration(f.At), "must be ≥ 0")
	nodes := c.Nodes()
	switch f.Kind {
	case FaultCrash, FaultSlowdown:
		check(f.Node < 0 || int(f.Node) >= nodes, key+".node", f.Node, fmt.Sprintf("must be a node of the cluster, 0 … %d", nodes-1))
	case FaultPartition:
		check(f.Rack < 0 || int(f.Rack) >= c.Racks, key+".rack", f.Rack, fmt.Sprintf("must be a rack of the cluster, 0 … %d", c.Racks-1))
	}
	check(f.For < 0, key+".for", units.Duration(f.For), "must be ≥ 0 (0: to the run's end)")
	check(f.RestartAfter < 0, key+".restart_after", units.Duration(f.RestartAfter), "must be > 0, after the crash (or left out: no restart)")
	switch f.Kind {
	case FaultSlowdown:
		check(!(f.CPU > 0 && f.CPU <= MaxSpeed), key+".cpu", f.CPU, fmt.Sprintf("must be a factor in (0, %v] of the node's core speed", MaxSpeed))
		check(!(f.Disk > 0 && f.Disk <= MaxSpeed), key+".disk", f.Disk, fmt.Sprintf("must be a factor in (0, %v] of the node's disk bandwidth", MaxSpeed))
	case FaultLink:
		check(!(f.Factor >= 0 && f.Factor <= MaxSpeed), key+".factor", f.Factor, fmt.Sprintf("must be a factor in [0, %v] of the link's capacity (0 cuts it)", MaxSpeed))
	}
}
