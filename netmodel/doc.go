// Package netmodel is clusteremu's fluid bandwidth model: links with
// capacities in bytes per second, flows with sizes, paths, weights and
// priority classes, and the exact weighted max-min fair allocation of link
// capacity among the flows.
//
// The package is pure. It imports nothing from clusteremu, starts no
// goroutine and reads no clock: time is passed in by the caller, which asks
// "when does the next flow finish" and "advance to t".
//
// # Units
//
// Emulated time is a time.Duration since the run's start (int64
// nanoseconds). Sizes and delivered bytes are int64 bytes. Capacities and
// rates are float64 bytes per second.
//
// # Worked example
//
// Two hosts in one rack with 125 MB/s NICs; host 0 sends 250 MB and 125 MB
// to host 1 from memory (Transfer). Both flows cross host 0's NIC-up and
// host 1's NIC-down, so each gets 62.5 MB/s. The small one finishes at 2 s
// (125 MB / 62.5 MB/s); the big one has 125 MB left and now gets the whole
// 125 MB/s, so it finishes at 3 s:
//
//	n, _ := netmodel.NewNetwork(netmodel.DefaultConfig())
//	topo, _ := netmodel.BuildTopology(n, netmodel.TopologySpec{
//		Racks: 1, HostsPerRack: 2, NICUp: 125e6, NICDown: 125e6})
//	path, _ := topo.Path(0, 1, netmodel.Transfer)
//	big, _ := n.Start(0, netmodel.FlowSpec{Size: 250e6, Path: path, Owner: 7})
//	small, _ := n.Start(0, netmodel.FlowSpec{Size: 125e6, Path: path, Owner: 8})
//	at, _ := n.NextCompletion()   // 2s
//	done, _ := n.AdvanceTo(at)    // [{small 8 125e6 2s}]
//	at, _ = n.NextCompletion()    // 3s
//	done, _ = n.AdvanceTo(at)     // [{big 7 250e6 3s}]
//
// # The allocation
//
// Rates are found by progressive filling. Classes are served in increasing
// order (strict priority); within a class all unfixed flows rise together,
// flow f at rate λ×weight(f), until a link saturates; its unfixed flows of
// the class are fixed at that rate. Link levels live in an indexed heap
// keyed by lower bounds: fixing flows only raises the other links' levels,
// so a link is re-keyed (in place) only when it reaches the top. A lower
// class then fills what is left.
//
// A flow may use its links unequally (FlowSpec.Use, SimGrid's consumption
// weights): at rate r it loads link Path[i] with r×Use[i], and a link
// saturates when the sum of its flows' loads reaches its capacity. That
// is how one flow crosses resources of different units: a map streaming
// its input through its compute moves bytes over the disk (use 1) and
// CPU work over the node's CPU (its work per byte), at one rate, so it
// reads no faster than it computes and computes no faster than it reads. Every flow thus ends either stalled (rate 0: a link of its path has
// capacity 0 or was taken entirely by higher classes) or with a saturated
// bottleneck on which no flow of its class has a higher rate per weight.
//
// Between re-solves the network keeps that outcome's bottleneck structure
// (structure.go): each flow's bottleneck, each bottleneck's level λ and
// weight W (Σ weight × use of its flows), and the sparse cross terms
// M(l, m), the weight × use on link l of the flows bottlenecked at m. A
// bottleneck's level is then (capacity − Σ_m M(l, m)·λ(m)) / W, a
// triangular system over links ordered by level, and most re-solves
// work on it instead of filling: see Batching below.
//
// # Paths of a Topology
//
// For src and dst hosts (rack links and core only when the racks differ;
// links the TopologySpec leaves out, with capacity 0, are skipped):
//
//	LocalDiskRead    src disk-read                          (src == dst)
//	LocalDiskWrite   src disk-write                         (src == dst)
//	MemoryRead       src memory                             (src == dst)
//	RemoteRead       src disk-read, src NIC-up, [src rack up, core, dst rack down], dst NIC-down
//	RemoteMemoryRead src memory,    src NIC-up, [...], dst NIC-down
//	Transfer                        src NIC-up, [...], dst NIC-down
//	RemoteWrite                     src NIC-up, [...], dst NIC-down, dst disk-write
//	RemoteCopy       src disk-read, src NIC-up, [...], dst NIC-down, dst disk-write
//
// A host's CPU link (TopologySpec.CPU) is on no path: a compute's flow
// crosses it alone, and a caller adds it to a transfer whose bytes cost
// CPU, with the work per byte as its use.
//
// Transfer is for bytes already in memory or the page cache: the source
// disk is not charged. A transfer read from the source's disk, as
// clusteremu's shuffle fetches are (actors.Node.fetchMore says why), uses
// RemoteRead.
//
// A link that goes down is a capacity of 0, not a link left out: its flows
// stall with their bytes kept and resume when SetCapacity raises it.
// Topology.Link turns a LinkRef ("host 3 nic-up", "rack 1 uplink",
// "core") into its LinkID for such changes, and TopologySpec.Dead builds
// links that are down from the start.
//
// # Batching and incremental re-solves
//
// Start, Cancel and SetCapacity only record the change and mark the links
// it touches dirty. The next read (NextCompletion, AdvanceTo, Rate, Load,
// Utilisation, or an explicit Solve) re-solves once, and only the connected
// components of the dirty links: the links and flows reachable from them
// through flows that share links. All changes at one instant therefore
// share one re-solve, and a rack-local change costs the rack, not the
// fabric.
//
// While the live flows are of one class, a re-solve first works on the
// bottleneck structure (structure.go): it updates W and M for the flows
// that arrived and left, guesses each arrival's bottleneck, recomputes in
// increasing order of level the bottlenecks whose equation changed and
// those downstream of them, moves a bundle of flows to a link that
// overtakes their bottleneck or that they would overload, and checks the
// max-min conditions on everything it touched: each bottleneck keeps more
// than Epsilon for its flows and no flow crossing it has a higher level,
// each other link is within its capacity. The max-min allocation is
// unique, so what passes is the filling's allocation up to rounding; only
// the flows of the bottlenecks whose level changed get new rates, and
// they progress by their bottleneck's clock (clock.go), so that costs no
// per-flow settlement or rescheduling. When it gives up (a stall, too many
// moves, several classes live) the component is filled as follows, and
// the structure adopts the links the filling fixed each flow at.
//
// Within a component the rate-threshold rule (threshold.go) then
// re-fills only the flows whose rate per weight is at or above the lowest
// level any change of the batch can affect, keeping the others' rates as
// background load; a capacity change, or a component or batch mixing
// classes, re-fills the whole component. A change naming a later instant than Now() first re-solves the
// pending changes at Now(), and fails with ErrPendingFinish if a flow would
// complete in between: the caller calls AdvanceTo first. AdvanceTo removes
// all flows completing at one instant before re-solving.
//
// # Floating point and byte accounting
//
// There is one tolerance, Epsilon (1e-9, relative to a link's capacity): a
// link with at most Epsilon×capacity left is saturated. A filling
// recomputes the remaining capacities and weight sums from the
// capacities, carrying nothing across re-solves. The bottleneck structure
// carries its terms: W and M are sums of weight × use kept by += and −=
// as flows come and go (exact for whole weights and uses, otherwise
// rounded by about 1e-16 of the largest term per change), reset to 0 when
// their last flow leaves and summed afresh when they cancel below 2⁻²⁰
// of their peak; levels are recomputed from the terms whenever their
// equation changes, and a level that only moves by another's rounding
// (two bottlenecks that tie) is accepted within 1e-12 of it. The load
// of a link that is no bottleneck is carried by M(l, m)·Δλ(m) and summed
// afresh before it is judged within 1e-6 of the capacity. The checker
// after every event in the tests holds all of these to their sums.
// Weights are limited to [MinWeight, MaxWeight].
//
// A flow on no clock keeps its delivered bytes as a float64, settled only
// when its rate changes (delivered += rate × elapsed). A flow with a
// bottleneck in the structure progresses by that bottleneck's clock V,
// which advances at the level (bytes per unit of weight): its delivered
// bytes are those at its anchor plus weight × the clock's growth since,
// and it is settled only when it changes bottleneck. A flow's completion
// instant is the first whole nanosecond at which it has delivered its
// size: remaining / rate × 1e9 from its last settlement, or (target −
// V) / λ × 1e9 from the instant its bottleneck's level was last set,
// rounded up, except that a quotient within 4 ulps of a whole number is
// that number, as the float operations leave an exact answer up to an
// ulp or two off (67 MB at 125 MB/s ends at 536 ms exactly, not a
// nanosecond later). The completion is thus exact to the nanosecond for
// whole answers and at most 1 ns late otherwise, up to the rounding of
// the delivered bytes or of the clock: each settlement or level change
// rounds by an ulp of the bytes (clocks are moved back to 0 past 2³⁰
// bytes per unit of weight, where an ulp is 2.4e-7), a small fraction
// of a nanosecond at any rate the model meets. At completion a flow's
// delivered bytes are set to its size exactly. Before completion,
// Delivered, Cancel and Carried report whole bytes, floor(delivered),
// capped at size-1. Bytes carried per link are int64: a flow that ends
// adds its size (completed) or the whole bytes Cancel returned to each link
// of its path, and Carried adds the whole bytes of the live flows, so a
// link's carried bytes are exactly the sum over the flows that crossed it
// of what each delivered.
//
// Flows of size 0 are accepted and complete at the instant they start,
// reported by the next AdvanceTo; they take no bandwidth, even on a link
// of capacity 0. Negative sizes, empty paths, repeated or unknown links,
// negative, NaN or infinite capacities and weights outside [MinWeight,
// MaxWeight] are errors naming the field and value. Nothing panics.
//
// # Completion window
//
// Config.CompletionWindow w > 0 trades exactness for speed: when the
// earliest flow completes at t, every flow due by t+w completes at t as
// well, with one re-solve for the batch. Each such flow is reported up to
// w early, and the up to rate×w bytes it still had to send are delivered
// instantaneously, never late. The capacity it frees is given to the
// others up to w early, and there the error runs both ways: max-min shares
// are not monotone (a flow that ends early raises a competitor's share on
// one link, which can then take capacity from a third flow on another
// link), so another flow's completion can move earlier or later, by an
// amount w alone does not bound.
// With w = 0 (the default) completion instants are exact to the
// nanosecond for whole answers and at most 1 ns late otherwise.
//
// # Solve interval
//
// Config.SolveInterval Δ > 0 is the other approximation: the changes made
// within Δ of a re-solve wait for one re-solve at its end. Meanwhile the
// solved flows keep their rates and complete at the instants those give,
// and a flow that starts takes what its path has left, so the allocation
// always fits the links and is the max-min one at each re-solve; a start
// on a full path waits for it, at most Δ (interval.go). Where every event
// re-solves a component of thousands of flows this turns millions of
// re-solves into one per Δ.
//
// # Cost
//
// With F flows, L links and P the mean path length, for a component of F'
// flows and L' links:
//   - Start, Cancel, SetCapacity: O(P) plus a map update and, for a flow
//     with a bottleneck, O(P) terms of the structure; no solve.
//   - re-solve on the structure: for the B bottlenecks it recomputes,
//     O(row + column + log L) each (the terms on the link, the links its
//     flows cross), plus O(P) per arrival and O(P + log F) per flow that
//     changes bottleneck, plus one store per flow whose rate changes (its
//     progress is its clock's); each clock whose level changes costs
//     O(log L) in the heap of clocks. With all-to-all shuffles across
//     oversubscribed racks B is the rack links that move, a few tens,
//     where F' is hundreds or thousands.
//   - filling, when the structure gives up: O(K·P·log L' + flows on the K
//     flows' links) for the K flows the threshold rule re-fills (K ≤ F'),
//     with no allocation in steady state, plus O(P + log F) for each
//     flow whose bottleneck changes (its terms and clock move) and the
//     row of each link whose load moved; a re-solve with several classes
//     in one component re-fills all F' and sorts them by class
//     (O(F' log F')).
//   - each rate that changes for a flow on no clock: O(log F) in the
//     indexed completion heap, whose keys are lower bounds: a completion
//     that moves later is re-keyed only if it reaches the top, once per
//     such move at most.
//   - NextCompletion: O(1) amortised plus the pending re-solve.
//   - AdvanceTo: O(k·(P + log F)) for k completions, plus one re-solve per
//     distinct completion instant.
//   - Rate, Delivered: O(1); Load, Utilisation, Carried: O(flows on the
//     link).
package netmodel
