package netmodel

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// LinkID names a link of one Network. Ids are dense, starting at 0, in the
// order the links were added.
type LinkID int32

// FlowID names a flow of one Network. Ids are assigned in start order,
// starting at 1, and never reused, so ordering by FlowID is ordering by
// start.
type FlowID uint64

// Errors returned by Network and Topology. Each is wrapped with the field
// and value at fault; test with errors.Is.
var (
	ErrInvalid       = errors.New("netmodel: invalid argument")
	ErrUnknownLink   = errors.New("netmodel: unknown link")
	ErrUnknownFlow   = errors.New("netmodel: unknown flow")
	ErrTimeBackwards = errors.New("netmodel: time goes backwards")
	ErrPendingFinish = errors.New("netmodel: flows finish before this instant")
	ErrUnknownHost   = errors.New("netmodel: unknown host")
	ErrNoPath        = errors.New("netmodel: no path")
)

// Weight bounds: a FlowSpec.Weight of 0 means 1; any other weight must lie
// in [MinWeight, MaxWeight], which keeps the sums of weights the solver
// forms free of cancellation beyond about 1e-10 relative.
const (
	MinWeight = 1e-3
	MaxWeight = 1e3
)

// Use bounds: a FlowSpec.Use entry must lie in [MinUse, MaxUse]. A link's
// sum of weight × use is exact to about 1e-16 of its largest term, so
// flows whose uses differ by less than 1e9 on one link (a compute at 1
// and a map streaming at a million units of work per byte) keep that sum
// exact to far below Epsilon.
const (
	MinUse = 1e-9
	MaxUse = 1e9
)

// maxHops is the longest path a flow may have.
const maxHops = math.MaxInt16

// FlowSpec describes a flow to start.
type FlowSpec struct {
	// Size is the number of bytes to move, ≥ 0. A zero-size flow completes
	// at the instant it starts (it is reported by the next AdvanceTo).
	Size int64
	// Path lists the links the flow crosses, each at most once; not empty.
	Path []LinkID
	// Weight is the flow's share relative to others of its class on a
	// common bottleneck; 0 means 1, otherwise in [MinWeight, MaxWeight].
	Weight float64
	// Class is the priority class: a lower class has strict priority over
	// a higher one; flows of one class share max-min fairly what the lower
	// classes leave.
	Class int
	// Use, when not nil, has one entry per link of Path: how much of that
	// link's capacity one unit of the flow's rate takes, in [MinUse,
	// MaxUse]. nil means 1 on every link. A flow at rate r loads link
	// Path[i] with r×Use[i]: a map streaming its input through its compute
	// moves bytes over the disk (1) and CPU work over the node's CPU
	// (its CPU cost per byte), at one rate.
	Use []float64
	// Owner is an opaque tag returned with the flow's completion.
	Owner uint64
}

// Completed reports a flow that delivered all its bytes.
type Completed struct {
	ID    FlowID
	Owner uint64
	// Size is the flow's size; the bytes it delivered equal it exactly.
	Size int64
	// At is the emulated instant the flow completed.
	At time.Duration
}

// Config holds a Network's options.
type Config struct {
	// CompletionWindow, when positive, lets flows whose exact completion
	// lies within the window after the earliest pending completion complete
	// together with it, so they share one re-solve. 0 is exact. See the
	// package documentation for the error it introduces.
	CompletionWindow time.Duration
	// SolveInterval, when positive, lets the changes made within it of a
	// re-solve wait for one re-solve at its end; a flow that starts
	// meanwhile takes the capacity its path has left. 0 is exact. See
	// interval.go for the error it introduces.
	SolveInterval time.Duration
}

// DefaultConfig returns the exact model: no completion window.
func DefaultConfig() Config { return Config{} }

// Validate reports a negative completion window or solve interval.
func (c Config) Validate() error {
	if c.CompletionWindow < 0 {
		return fmt.Errorf("%w: Config.CompletionWindow = %v: must be ≥ 0", ErrInvalid, c.CompletionWindow)
	}
	if c.SolveInterval < 0 {
		return fmt.Errorf("%w: Config.SolveInterval = %v: must be ≥ 0", ErrInvalid, c.SolveInterval)
	}
	return nil
}

// Stats counts the solver's work since the Network was made.
type Stats struct {
	Solves       int64 // re-solves of at least one connected component
	FlowsSolved  int64 // flows whose rate was recomputed (re-filled, or bottlenecked at a recomputed level), summed over solves
	RateChanges  int64 // flows whose rate actually changed, summed over solves
	Completions  int64 // flows completed
	Cancelations int64 // flows canceled
	Direct       int64 // starts and ends applied without a re-solve (see direct.go)
	Structural   int64 // re-solves done on the bottleneck structure, without filling (see structure.go)
}

// link is laid out in one 64-byte cache line: everything a solve reads.
type link struct {
	capacity float64
	flows    []linkFlow // flows crossing the link, in no particular order

	// Solver scratch, valid during one solve.
	rem     float64 // capacity not yet given to fixed flows
	usage   float64 // sum of weights of unfixed flows of the current class
	unfixed int32   // number of those flows
	mark    uint32  // component epoch
	peak    float32 // usage when the class's filling began, or when last summed afresh
	dirty   bool    // in Network.dirty
}

// linkFlow is one entry of a link's flow list; hop is the index of the
// link in the flow's path, so swap-removal can fix the moved flow's back
// index in O(1).
type linkFlow struct {
	slot int32
	hop  int32
}

// inlineHops is the longest path stored inside a flow's cache line; every
// path of a Topology fits.
const inlineHops = 6

// flow is the part of a flow a solve reads, in one 64-byte cache line, so
// the flows of a component are read with one miss each; the rest is in
// flowState. (Moving the marks to a compact array of their own was tried:
// it saved nothing measurable, since a walk needs most flows' lines anyway.)
type flow struct {
	inline  [inlineHops]LinkID // the path, when it fits
	nhops   int16
	scaled  bool // a Use other than 1 on some link: flowState.use has it
	class   int32
	weight  float64
	newRate float64
	rate    float64 // bytes/s since flowState.last
	comp    uint32  // epoch of the solve whose component holds the flow
	fixed   uint32  // epoch of the solve that fixed its rate or froze it as background
}

// flowState is the rest of a flow: identity, progress, bookkeeping.
type flowState struct {
	long     []LinkID  // the path when longer than inlineHops
	use      []float64 // per hop, when flow.scaled
	id       FlowID
	owner    uint64
	size     int64
	back     []int32       // back[i] is the flow's index in links[path[i]].flows
	done     float64       // bytes delivered at last, ≤ size
	last     time.Duration // instant done was settled
	finish   time.Duration // completion instant when rate > 0
	live     bool
	solvable bool // false for zero-size flows, which never join links
}

// hops returns the path of the flow in slot s.
func (n *Network) hops(s int32) []LinkID {
	f := &n.flows[s]
	if f.nhops <= inlineHops {
		return f.inline[:f.nhops]
	}
	return n.states[s].long
}

// setPath stores a path inline when it fits, else in flowState.long
// (reusing its array).
func (n *Network) setPath(s int32, path []LinkID) {
	f := &n.flows[s]
	f.nhops = int16(len(path))
	if len(path) <= inlineHops {
		copy(f.inline[:], path)
		return
	}
	n.states[s].long = append(n.states[s].long[:0], path...)
}

// setUse stores a flow's per-hop use when some entry differs from 1.
func (n *Network) setUse(s int32, use []float64) {
	f, st := &n.flows[s], &n.states[s]
	f.scaled = slices.ContainsFunc(use, func(u float64) bool { return u != 1 })
	st.use = st.use[:0]
	if f.scaled {
		st.use = append(st.use, use...)
	}
}

// useOf is how much of the link at hop i of slot s's path one unit of
// the flow's rate takes.
func (n *Network) useOf(s int32, i int) float64 {
	if !n.flows[s].scaled {
		return 1
	}
	return n.states[s].use[i]
}

// Network is the fluid model: links, flows, and their weighted max-min
// fair rates with strict priority between classes. Time is emulated and
// passed in by the caller; it starts at 0 and never goes backwards.
//
// Changes (Start, Cancel, SetCapacity) only mark the touched links dirty;
// the rates are recomputed once, for the connected components of the
// dirty links, when something reads them (NextCompletion, AdvanceTo, Rate,
// Load, Solve) or when a change names a later instant. Any number of
// changes at one instant thus cost one re-solve.
//
// A Network is not safe for concurrent use.
type Network struct {
	cfg     Config
	links   []link
	carried []int64     // per link: bytes of the ended flows that crossed it
	loads   []float64   // per link: Σ rate × use of its flows (see direct.go)
	flows   []flow      // by slot
	states  []flowState // by slot
	free    []int32
	index   flowIndex
	nextID  FlowID
	now     time.Duration
	live    int

	dirty    []LinkID
	levels   indexedHeap // links of the current solve by level
	finishes indexedHeap // flow slots by lower bounds of their completion instants (see schedule)
	epoch    uint32

	threshold    float64  // θ of the pending batch (see threshold.go)
	arrivals     []int32  // flows started in the pending batch
	thrLinks     []LinkID // batchThreshold's scratch: the arrivals' links
	batchClass   int32    // class of the batch's first arrival or departure
	batchClasses int      // arrivals and departures in the batch
	compLinks    []LinkID
	compFlows    []int32
	filled       []LinkID // links of the class being filled
	fixing       []int32  // flows of the bottleneck being fixed
	batch        []int32
	completed    []Completed
	stats        Stats
	bs           structure // the bottleneck structure (structure.go)

	nextSolve   time.Duration // with a solve interval, when a deferred re-solve is due (interval.go)
	provisional []provisional // flows started while a re-solve was deferred
}

// NewNetwork returns an empty network with the given options.
func NewNetwork(cfg Config) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Network{cfg: cfg, nextID: 1, threshold: math.Inf(1)}
	return n, nil
}

// Now returns the network's current emulated instant.
func (n *Network) Now() time.Duration { return n.now }

// NumLinks returns the number of links.
func (n *Network) NumLinks() int { return len(n.links) }

// NumFlows returns the number of flows started and not yet completed or
// canceled.
func (n *Network) NumFlows() int { return n.live }

// Stats returns the solver's work counters.
func (n *Network) Stats() Stats { return n.stats }

// AddLink adds a link of the given capacity in bytes/s (finite, ≥ 0) and
// returns its id. O(1) amortised.
func (n *Network) AddLink(capacity float64) (LinkID, error) {
	if err := checkCapacity("capacity", capacity); err != nil {
		return 0, err
	}
	if len(n.links) >= math.MaxInt32 {
		return 0, fmt.Errorf("%w: too many links", ErrInvalid)
	}
	n.links = append(n.links, link{capacity: capacity})
	n.carried = append(n.carried, 0)
	n.loads = append(n.loads, 0)
	n.levels.grow(len(n.links))
	n.growStructure()
	return LinkID(len(n.links) - 1), nil
}

func checkCapacity(field string, c float64) error {
	if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
		return fmt.Errorf("%w: %s = %v: must be finite and ≥ 0 bytes/s", ErrInvalid, field, c)
	}
	return nil
}

func (n *Network) checkLink(field string, l LinkID) error {
	if l < 0 || int(l) >= len(n.links) {
		return fmt.Errorf("%w: %s = %d: the network has %d links", ErrUnknownLink, field, l, len(n.links))
	}
	return nil
}

// Capacity returns a link's capacity in bytes/s.
func (n *Network) Capacity(l LinkID) (float64, error) {
	if err := n.checkLink("link", l); err != nil {
		return 0, err
	}
	return n.links[l].capacity, nil
}

// SetCapacity changes a link's capacity at instant now (≥ Now()). A
// capacity of 0 stalls the flows crossing the link until it is raised
// again. The re-solve is deferred (see Network); a link no flow crosses
// needs none, so resizing an idle link is free.
func (n *Network) SetCapacity(now time.Duration, l LinkID, capacity float64) error {
	if err := n.checkLink("link", l); err != nil {
		return err
	}
	if err := checkCapacity("capacity", capacity); err != nil {
		return err
	}
	if err := n.moveTo(now); err != nil {
		return err
	}
	n.links[l].capacity = capacity
	if len(n.links[l].flows) == 0 {
		return nil // no rate depends on an idle link's capacity
	}
	if n.structOn() {
		n.bs.capChanged = append(n.bs.capChanged, l)
	}
	n.threshold = 0
	n.markDirty(l)
	n.nextSolve = n.now // a capacity change is never deferred
	return nil
}

// moveTo advances the network to a change's instant. Moving past a
// pending completion would lose it, so that is an error: the caller must
// AdvanceTo first.
func (n *Network) moveTo(now time.Duration) error {
	if now < n.now {
		return fmt.Errorf("%w: now = %v, network is at %v", ErrTimeBackwards, now, n.now)
	}
	if now == n.now {
		return nil
	}
	n.solve()
	if at, ok := n.nextEvent(); ok && at < now {
		return fmt.Errorf("%w: now = %v, a flow finishes or a deferred re-solve is due at %v: call AdvanceTo first", ErrPendingFinish, now, at)
	}
	n.now = now
	return nil
}

func (n *Network) markDirty(l LinkID) {
	if !n.links[l].dirty {
		n.links[l].dirty = true
		n.dirty = append(n.dirty, l)
	}
}

func (n *Network) lookup(id FlowID) (int32, error) {
	slot, ok := n.index.get(id)
	if !ok {
		return 0, fmt.Errorf("%w: flow = %d (never started, completed or canceled)", ErrUnknownFlow, id)
	}
	return slot, nil
}
