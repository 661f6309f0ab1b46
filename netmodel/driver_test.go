package netmodel

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// driver applies event sequences to a Network and, after each, checks the
// invariants, the reference allocation and the byte accounting: a shadow
// of each flow's delivered bytes integrated from the rates the network
// reported, and of each link's carried bytes summed from what completions
// and cancellations returned.
type driver struct {
	n       *Network
	live    []FlowID
	size    map[FlowID]int64
	paths   map[FlowID][]LinkID
	shadow  map[FlowID]float64 // bytes delivered, integrated from Rate
	carried []int64            // bytes of finished flows, per link
	exact   bool               // no completion window: check instants
	events  int
	// deferred counts the checks made while a re-solve waited for the
	// solve interval: the allocation was checked feasible, not max-min.
	deferred int
}

func newDriver(cfg Config, caps []float64) (*driver, error) {
	n, err := NewNetwork(cfg)
	if err != nil {
		return nil, err
	}
	for _, c := range caps {
		if _, err := n.AddLink(c); err != nil {
			return nil, err
		}
	}
	return &driver{
		n: n, size: map[FlowID]int64{}, paths: map[FlowID][]LinkID{}, shadow: map[FlowID]float64{},
		carried: make([]int64, len(caps)), exact: cfg.CompletionWindow == 0,
	}, nil
}

func (d *driver) start(spec FlowSpec) error {
	id, err := d.n.Start(d.n.Now(), spec)
	if err != nil {
		return err
	}
	d.live = append(d.live, id)
	d.size[id] = spec.Size
	d.paths[id] = slices.Clone(spec.Path)
	return d.check()
}

func (d *driver) cancel(i int) error {
	if len(d.live) == 0 {
		return nil
	}
	id := d.live[i%len(d.live)]
	got, err := d.n.Cancel(d.n.Now(), id)
	if err != nil {
		return err
	}
	if got < 0 || (got >= d.size[id] && d.size[id] > 0) || math.Abs(float64(got)-d.shadow[id]) > 1+1e-6*d.shadow[id] {
		return fmt.Errorf("cancel flow %d: delivered %d, size %d, shadow %v", id, got, d.size[id], d.shadow[id])
	}
	d.finish(id, got)
	return d.check()
}

func (d *driver) setCapacity(l LinkID, c float64) error {
	if err := d.n.SetCapacity(d.n.Now(), l, c); err != nil {
		return err
	}
	return d.check()
}

// advance moves to the next completion, or by at most limit when it is
// positive.
func (d *driver) advance(limit time.Duration) error {
	at, ok := d.n.NextCompletion()
	if !ok || (limit > 0 && at > d.n.Now()+limit) {
		if limit <= 0 {
			return nil
		}
		at = d.n.Now() + limit
	}
	rates := map[FlowID]float64{}
	for _, id := range d.live {
		rates[id], _ = d.n.Rate(id)
	}
	dt := (at - d.n.Now()).Seconds()
	done, err := d.n.AdvanceTo(at)
	if err != nil {
		return err
	}
	for _, id := range d.live {
		d.shadow[id] = math.Min(d.shadow[id]+rates[id]*dt, float64(d.size[id]))
	}
	for _, c := range done {
		if err := d.completed(c, at, rates[c.ID]); err != nil {
			return err
		}
	}
	return d.check()
}

func (d *driver) completed(c Completed, at time.Duration, rate float64) error {
	size, ok := d.size[c.ID]
	if !ok || c.Size != size || c.At != at {
		return fmt.Errorf("completion %+v at %v: unknown flow or size %d", c, at, size)
	}
	// The shadow integrates the same rates; an exact completion lies within
	// one nanosecond of rate (plus rounding) of the shadow reaching size.
	if gap := float64(size) - d.shadow[c.ID]; d.exact && gap > rate*1e-9+1+1e-6*float64(size) {
		return fmt.Errorf("flow %d completed at %v with %v of %d bytes delivered", c.ID, at, d.shadow[c.ID], size)
	}
	d.finish(c.ID, size)
	return nil
}

func (d *driver) finish(id FlowID, delivered int64) {
	for _, l := range d.paths[id] {
		d.carried[l] += delivered
	}
	i := slices.Index(d.live, id)
	d.live = slices.Delete(d.live, i, i+1)
	delete(d.size, id)
	delete(d.paths, id)
	delete(d.shadow, id)
}

// check runs after every event: the allocation, the reference, the
// flows' delivered bytes and the links' carried bytes.
func (d *driver) check() error {
	d.events++
	if d.n.Solve(); len(d.n.dirty) > 0 {
		// A re-solve waits for the solve interval: the rates are the
		// last re-solve's and the provisional ones, which must fit.
		d.deferred++
		if err := checkFeasible(d.n); err != nil {
			return err
		}
	} else if err := d.checkSolved(); err != nil {
		return err
	}
	want := slices.Clone(d.carried)
	for _, id := range d.live {
		got, err := d.n.Delivered(id)
		if err != nil {
			return err
		}
		if got < 0 || (got >= d.size[id] && d.size[id] > 0) || math.Abs(float64(got)-d.shadow[id]) > 1+1e-6*d.shadow[id] {
			return fmt.Errorf("flow %d: delivered %d, size %d, shadow %v", id, got, d.size[id], d.shadow[id])
		}
		for _, l := range d.paths[id] {
			want[l] += got
		}
	}
	for l := range want {
		if got, _ := d.n.Carried(LinkID(l)); got != want[l] {
			return fmt.Errorf("link %d: carried %d, want %d", l, got, want[l])
		}
	}
	if d.n.NumFlows() != len(d.live) {
		return fmt.Errorf("NumFlows %d, want %d", d.n.NumFlows(), len(d.live))
	}
	return nil
}

// checkSolved checks a solved allocation: max-min, the structure, and the
// reference filling.
func (d *driver) checkSolved() error {
	if err := checkInvariants(d.n); err != nil {
		return err
	}
	if err := checkStructure(d.n); err != nil {
		return err
	}
	return compareWithReference(d.n)
}

// checkFeasible checks that rates are finite and non-negative and that no
// link carries more than its capacity.
func checkFeasible(n *Network) error {
	load := make([]float64, len(n.links))
	for _, f := range liveFlows(n) {
		if math.IsNaN(f.rate) || math.IsInf(f.rate, 0) || f.rate < 0 {
			return fmt.Errorf("flow %d: rate %v", f.id, f.rate)
		}
		for i, l := range f.path {
			load[l] += f.rate * f.use[i]
		}
	}
	for l, x := range load {
		if capa := n.links[l].capacity; x > capa*(1+checkTol)+1e-9 {
			return fmt.Errorf("link %d: load %v over capacity %v", l, x, capa)
		}
	}
	return nil
}
