package actors

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"clusteremu/netmodel"
	"clusteremu/units"
)

// Rack traffic ([rack_traffic]): the load other work puts on the rack
// links, which a run's jobs share them with. The thesis's rack links
// carry its jobs' shuffles and much besides (reduce phases "over 70% of
// the cross rack traffic … most of the rest is due to joins"), and their
// available bandwidths "change with time and as a function of other jobs
// in the cluster", transiently for a short phase, evening out over a
// long one (§3.3, §3.5.1; notes §1.2 cause 2, §2.1). Here each rack's
// uplink and downlink carry one flow of that other work, whose rate is
// drawn again every period: uniform in [0, 2·load] of the link's
// capacity, each link and period on its own, so the links are unevenly
// loaded at any instant and alike on the mean. The flow holds its rate
// against the run's flows (it has netmodel.MaxWeight, bounded at its
// rate), so it is capacity the run cannot have, and the fabric's
// MeasureRackLinks sees it as load. The draws are keyed by the seed, the
// link and the period, so runs compared meet the same load. The flows
// are the fabric's own: no record of them is written, and the bytes they
// carry are counted as flows.bytes.rack_traffic.

// RackTrafficConfig is [rack_traffic].
type RackTrafficConfig struct {
	// Load is the mean share of each rack link's capacity the other work
	// takes, in [0, 0.5]: each period's share is uniform in [0, 2·Load].
	Load float64 `toml:"load"`
	// Period is how long a drawn load lasts.
	Period units.Duration `toml:"period"`
}

// DefaultRackTraffic is [rack_traffic] as a scenario that names it gets:
// a mean of 0.3 of each link, "the rest" of the thesis's cross-rack
// traffic beside the reduces' 70%, drawn again every minute, the phase
// length under which Mantri's hybrid estimate takes the bandwidth
// measured at its start as lasting (tasks.short_phase's default).
func DefaultRackTraffic() RackTrafficConfig {
	return RackTrafficConfig{Load: 0.3, Period: units.Duration(DefaultShortPhase)}
}

// SetDefaults fills a zero table with DefaultRackTraffic, for a
// [rack_traffic] a scenario creates with --set.
func (c *RackTrafficConfig) SetDefaults() { *c = DefaultRackTraffic() }

// Validate checks [rack_traffic].
func (c *RackTrafficConfig) Validate(errs *Checks) {
	errs.Check(!(c.Load >= 0 && c.Load <= 0.5), "rack_traffic.load", c.Load,
		"must be a mean share of a link's capacity in [0, 0.5] (each period draws up to twice it)")
	errs.Check(c.Period < MinPeriod, "rack_traffic.period", c.Period, fmt.Sprintf("must be at least %v", MinPeriod))
}

// Share is the share of capacity a link takes in a period, drawn from a
// stream of its own keyed by the seed, the link and the period's index.
func (c RackTrafficConfig) Share(seed uint64, link netmodel.LinkID, period int64) float64 {
	r := rand.New(rand.NewPCG(seed^0x5241434b, uint64(period)<<20^uint64(link)))
	return 2 * c.Load * r.Float64()
}

// rackTraffic is the fabric's state of [rack_traffic].
type rackTraffic struct {
	cfg    RackTrafficConfig
	seed   uint64
	links  []netmodel.LinkID // the rack links, uplink and downlink by rack
	flows  []netmodel.FlowID // each link's flow in this period
	bounds []netmodel.LinkID // each flow's bound
	on     []bool            // whether the link has a flow now
	period int64
}

// rackTrafficTick draws the rack links' load for the next period.
type rackTrafficTick struct{}

// LoadRackLinks has the fabric load every rack link as cfg says, drawing
// from seed. Call it before the run; a topology without rack links (no
// oversubscription) gets no load.
func (f *Fabric) LoadRackLinks(cfg RackTrafficConfig, seed uint64) error {
	t := &rackTraffic{cfg: cfg, seed: seed}
	for r := range f.topo.Racks() {
		up, down, err := f.topo.RackLinks(r)
		if err != nil {
			return err
		}
		for _, l := range []netmodel.LinkID{up, down} {
			if l >= 0 {
				t.links = append(t.links, l)
			}
		}
	}
	n := len(t.links)
	t.flows, t.bounds, t.on = make([]netmodel.FlowID, n), make([]netmodel.LinkID, n), make([]bool, n)
	f.traffic = t
	return nil
}

// startRackTraffic has the clock tick every period from now, the first
// tick at once; the fabric calls it when it starts.
func (f *Fabric) startRackTraffic() {
	if f.traffic != nil && len(f.traffic.links) > 0 {
		f.deps.Clock.Every(f.deps.Clock.Now(), f.traffic.cfg.Period.Std(), f.self, &rackTrafficTick{})
	}
}

// handleRackTraffic ends each link's flow of the period past and starts
// the next period's.
func (f *Fabric) handleRackTraffic() {
	t := f.traffic
	now := f.deps.Clock.Now()
	period := t.cfg.Period.Std()
	for i, l := range t.links {
		if err := f.endRackFlow(i, now); err != nil {
			f.deps.Fail(fmt.Errorf("fabric: rack traffic on link %d: %w", l, err))
			return
		}
		capacity, err := f.net.Capacity(l)
		if err != nil {
			f.deps.Fail(fmt.Errorf("fabric: rack traffic on link %d: %w", l, err))
			return
		}
		rate := t.cfg.Share(t.seed, l, t.period) * capacity
		if rate <= 0 {
			continue
		}
		if err := f.startRackFlow(i, now, rate, period); err != nil {
			f.deps.Fail(fmt.Errorf("fabric: rack traffic on link %d at %g B/s: %w", l, rate, err))
			return
		}
	}
	t.period++
	f.markStale()
}

// startRackFlow starts link i's flow for a period at rate: more bytes
// than it can carry in the period, so it is still running when the next
// period ends it.
func (f *Fabric) startRackFlow(i int, now time.Duration, rate float64, period time.Duration) error {
	t := f.traffic
	bound, err := f.privateLink(now, rate)
	if err != nil {
		return err
	}
	size := int64(math.Ceil(2*rate*period.Seconds())) + 1
	id, err := f.net.Start(now, netmodel.FlowSpec{Size: size, Path: []netmodel.LinkID{t.links[i], bound},
		Use: []float64{1, 1}, Weight: netmodel.MaxWeight})
	if err != nil {
		f.spare = append(f.spare, bound)
		return err
	}
	t.flows[i], t.bounds[i], t.on[i] = id, bound, true
	return nil
}

// endRackFlow cancels link i's flow, if it has one, and counts what it
// carried.
func (f *Fabric) endRackFlow(i int, now time.Duration) error {
	t := f.traffic
	if !t.on[i] {
		return nil
	}
	t.on[i] = false
	f.spare = append(f.spare, t.bounds[i])
	carried, err := f.net.Cancel(now, t.flows[i])
	f.deps.Metrics.Count(MetricRackTrafficBytes, carried)
	return err
}

// stopRackTraffic counts what the running flows carried when the run
// ends.
func (f *Fabric) stopRackTraffic() {
	if f.traffic == nil {
		return
	}
	for i := range f.traffic.links {
		if f.traffic.on[i] {
			carried, err := f.net.Delivered(f.traffic.flows[i])
			if err != nil {
				f.deps.Fail(fmt.Errorf("fabric: rack traffic on link %d: %w", f.traffic.links[i], err))
				return
			}
			f.deps.Metrics.Count(MetricRackTrafficBytes, carried)
		}
	}
}
