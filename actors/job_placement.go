package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/placement"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

// Mantri's network-aware reduce placement (Ananthanarayanan's thesis,
// §3.3; notes §2.1), the job manager's part. When a job's reduces are
// first released it asks the fabric how much of each rack's uplink and
// downlink is left (MeasureRackLinks → RackLinksMeasured), weighs the
// map output each rack holds then, solves for the rack shares that end
// the shuffle's slowest link soonest (placement.MantriShares), rounds
// them to reduce counts by largest remainder and names each reduce's rack
// in RequeueTasks. The coordinator launches a named reduce in its rack
// only, until it has waited rack_wait; then anywhere. A reduce queued
// again later (its attempt failed, its node was lost) names no rack.
//
// Bandwidths are estimated as the thesis's hybrid does, without sampling
// them again: a phase expected to be short keeps the bandwidth left when
// it starts ("start"); a longer one, whose bandwidth averages out over
// its life, takes every link as equal ("equal"). The phase's expected
// length is the start estimate's own shuffle time, against short_phase.

// ReducePlacementConfig is the reduce placement part of [tasks]. Every
// key left out takes its default, and a scenario resolved with its
// defaults filled in leaves them out too, so a run that names no
// placement writes its scenario as before the keys existed.
type ReducePlacementConfig struct {
	// Name is "any" (a reduce takes any free slot) or "mantri"; left
	// out, reduces go anywhere as with "any", but a run that names either
	// measures its reduce phases apart (phases.reduce.*), to compare them.
	Name string `toml:"reduce_placement,omitempty"`
	// LinkEstimate is how rack links are estimated: "hybrid" (left out),
	// "start" or "equal".
	LinkEstimate string `toml:"link_estimate,omitempty"`
	// ShortPhase is the expected shuffle time under which "hybrid" keeps
	// the start estimate; nil: a minute.
	ShortPhase *units.Duration `toml:"short_phase,omitempty"`
	// RackWait is how long a reduce named for a rack waits for a slot
	// there before it takes one elsewhere; nil: 10 s.
	RackWait *units.Duration `toml:"rack_wait,omitempty"`
}

// The reduce placements and link estimates, and the defaults of
// short_phase and rack_wait.
const (
	PlaceAny      = "any"
	PlaceMantri   = "mantri"
	EstimateHyb   = "hybrid"
	EstimateStart = "start"
	EstimateEqual = "equal"

	DefaultShortPhase = time.Minute
	DefaultRackWait   = 10 * time.Second
)

// On reports whether reduces are placed by rack.
func (p ReducePlacementConfig) On() bool { return p.Name == PlaceMantri }

// Named reports whether the run names a reduce placement, "any" too.
func (p ReducePlacementConfig) Named() bool { return p.Name != "" }

// IsZero reports whether no placement is named, which the
// configuration's hash leaves out.
func (p ReducePlacementConfig) IsZero() bool { return !p.Named() }

// Estimate is the link estimate, "hybrid" when left out.
func (p ReducePlacementConfig) Estimate() string {
	if p.LinkEstimate == "" {
		return EstimateHyb
	}
	return p.LinkEstimate
}

// Short is short_phase, its default when left out.
func (p ReducePlacementConfig) Short() time.Duration {
	return orDefault(p.ShortPhase, DefaultShortPhase)
}

// Wait is rack_wait, its default when left out.
func (p ReducePlacementConfig) Wait() time.Duration { return orDefault(p.RackWait, DefaultRackWait) }

func orDefault(d *units.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.Std()
}

// Validate checks the placement keys of [tasks].
func (p *ReducePlacementConfig) Validate(errs *Checks) {
	errs.Check(p.Named() && p.Name != PlaceAny && p.Name != PlaceMantri, "tasks.reduce_placement", p.Name,
		fmt.Sprintf("must be %q or %q", PlaceAny, PlaceMantri))
	est := p.Estimate()
	errs.Check(est != EstimateHyb && est != EstimateStart && est != EstimateEqual,
		"tasks.link_estimate", p.LinkEstimate, fmt.Sprintf("must be %q, %q or %q", EstimateHyb, EstimateStart, EstimateEqual))
	errs.Check(p.Short() < 0, "tasks.short_phase", p.Short(), "must be ≥ 0s")
	errs.Check(p.Wait() < 0, "tasks.rack_wait", p.Wait(), "must be ≥ 0s")
}

// reducePlacement is a job manager's view of the placement: the rules,
// the rack of each node, and the reduces held while the fabric measures.
type reducePlacement struct {
	cfg    ReducePlacementConfig
	rackOf []sched.RackID // by node
	racks  int
	held   []int32 // the released reduces, waiting for RackLinksMeasured
}

// rackData is the map output bytes each rack holds, by rack.
func (p *reducePlacement) rackData(outs []mapOutput) []float64 {
	data := make([]float64, p.racks)
	for _, o := range outs {
		if int(o.Node) < len(p.rackOf) {
			data[p.rackOf[o.Node]] += float64(o.Bytes)
		}
	}
	return data
}

// plan names a rack for each of the reduces given the map outputs and
// the links measured: the counts MantriShares and largest remainder give
// each rack (ties from rack first on), racks in order, reduces in the
// order given.
func (p *reducePlacement) plan(reduces []int32, outs []mapOutput, links *RackLinksMeasured, first int) ([]sched.RackID, error) {
	data := p.rackData(outs)
	up, down := links.Up, links.Down
	shares, secs, err := placement.MantriShares(data, up, down)
	if err != nil {
		return nil, err
	}
	equal := p.cfg.Estimate() == EstimateEqual ||
		p.cfg.Estimate() == EstimateHyb && secs > p.cfg.Short().Seconds()
	if equal {
		ones := make([]float64, len(data))
		for i := range ones {
			ones[i] = 1
		}
		if shares, _, err = placement.MantriShares(data, ones, ones); err != nil {
			return nil, err
		}
	}
	racks := make([]sched.RackID, 0, len(reduces))
	for r, n := range placement.LargestRemainder(shares, len(reduces), first) {
		for range n {
			racks = append(racks, sched.RackID(r))
		}
	}
	return racks, nil
}

// handleRackLinks places the reduces held at their release, now that the
// fabric has measured the rack links, and makes them pending.
func (m *JobManager) handleRackLinks(ctx actor.Context, msg *RackLinksMeasured) {
	held := m.placement.held
	m.placement.held = nil
	if m.state.outcome != nil || len(held) == 0 {
		return
	}
	// Ties between racks go to the racks from the job's ID on, so small
	// phases of different jobs spread.
	racks, err := m.placement.plan(held, m.state.outputs(), msg, int(m.id))
	if err != nil {
		m.check(fmt.Errorf("reduce placement: %w", err))
		return
	}
	ctx.Send(m.coordinator, &RequeueTasks{Job: m.id, Reduces: held, Racks: racks})
}
