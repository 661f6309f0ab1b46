package actors

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// StragglersConfig is [stragglers]: slowdowns drawn per attempt, and busy
// periods that slow whole nodes for a while (Ananthanarayanan's thesis,
// §4.2.1 and Fig. 3.3; notes §1.3–1.4).
//
// An attempt is a straggler with Probability; its factor m, its duration
// over nominal, comes from one of three bands with weights Bands: uniform
// in [1.5, 2.5) (the thesis's 80% "uniform … between 1.5x to 2.5x"),
// log-uniform in [2.5, 10), and a Pareto tail from 10 with shape
// TailAlpha, capped at MaxFactor ("10% take more than 10x"). The slowdown
// sets in once a fraction Onset of the attempt's compute is done
// ("uniform": drawn in [0, 1) per attempt), since some tasks "start
// straggling when they are well into their execution". Only compute
// slows: network stragglers come from contention in the fabric.
//
// Mild, off (0) by default, is the share of the other attempts slowed
// mildly, by a factor uniform in MildFactor (default [1.2, 1.5)), with the
// same onsets: the thesis's "improvable" tasks, slower than their data
// explains yet under the 1.5 times the median that makes an outlier, of
// which "30% of the phases … have over 50%" (Fig. 4.3b; notes §1.3). The
// thesis gives their ceiling, not their floor; 1.2 is the emulator's, the
// same line phases.improvable_heavy draws (ImprovableOver), so that a
// mild slowdown is one the metric can see. An attempt draws at most one
// slowdown: a straggler with Probability, else a mild one with Mild.
//
// Busy periods come at BusyRate per hour; each slows a fraction BusyNodes
// of the nodes, at most a fifth of any rack at once, for a length drawn
// in BusyLength, their cores by a factor drawn in BusyFactor: the
// thesis's "horizontal bands" of outliers at busy times, with "other
// lightly loaded machines" beside them. They are expanded into CPU
// slowdown faults when the scenario is validated (BusyFaults).
type StragglersConfig struct {
	Probability float64          `toml:"probability"`
	Bands       []float64        `toml:"bands"`
	TailAlpha   float64          `toml:"tail_alpha"`
	MaxFactor   float64          `toml:"max_factor"`
	Onset       Onset            `toml:"onset"`
	BusyRate    float64          `toml:"busy_rate"`
	BusyNodes   float64          `toml:"busy_nodes"`
	BusyLength  []units.Duration `toml:"busy_length"`
	BusyFactor  []float64        `toml:"busy_factor"`
	// Mild and MildFactor are left out of the configuration's hash while
	// unset, so a scenario without them hashes as before they existed.
	Mild       float64   `toml:"mild,omitzero" json:",omitzero"`
	MildFactor []float64 `toml:"mild_factor,omitempty" json:",omitzero"`
}

// DefaultStragglers is [stragglers] off, with the thesis's shape: bands
// 0.8, 0.1, 0.1, a tail of shape 1.5 capped at 50, onsets uniform, busy
// periods (when a rate is given) on 15% of the nodes for 1 to 10 minutes,
// 1.5 to 3 times slower.
func DefaultStragglers() StragglersConfig {
	return StragglersConfig{
		Bands: []float64{0.8, 0.1, 0.1}, TailAlpha: 1.5, MaxFactor: 50, Onset: Onset{Uniform: true},
		BusyNodes: 0.15, BusyLength: []units.Duration{units.Duration(time.Minute), units.Duration(10 * time.Minute)},
		BusyFactor: []float64{1.5, 3},
	}
}

// IsZero reports whether the table changes nothing: no straggler, no
// mild slowdown and no busy period. The configuration's hash leaves such a table out, so a
// scenario without it hashes as it did before the table existed.
func (s StragglersConfig) IsZero() bool { return s.Probability == 0 && s.BusyRate == 0 && s.Mild == 0 }

// Draws reports whether attempts draw slowdowns: stragglers or mild ones.
func (s *StragglersConfig) Draws() bool { return s.Probability > 0 || s.Mild > 0 }

// mildRange is MildFactor, or [1.2, 1.5) when unset: the default is not
// written into the table, which would change the hash of every scenario
// that has one.
func (s *StragglersConfig) mildRange() (lo, hi float64) {
	if len(s.MildFactor) == 2 {
		return s.MildFactor[0], s.MildFactor[1]
	}
	return ImprovableOver, bandLow
}

// Onset is where in its compute an attempt starts to straggle: a fixed
// fraction in [0, 1), or drawn uniformly per attempt.
type Onset struct {
	Uniform bool
	At      float64
}

// UnmarshalTOML reads "uniform" or a number.
func (o *Onset) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		if x != "uniform" {
			return fmt.Errorf("%q: must be \"uniform\" or a fraction in [0, 1)", x)
		}
		*o = Onset{Uniform: true}
	case float64:
		*o = Onset{At: x}
	case int64:
		*o = Onset{At: float64(x)}
	default:
		return fmt.Errorf("%v: must be \"uniform\" or a fraction in [0, 1)", v)
	}
	return nil
}

// MarshalTOML writes the onset as a scenario does.
func (o Onset) MarshalTOML() ([]byte, error) {
	if o.Uniform {
		return []byte(`"uniform"`), nil
	}
	return []byte(strconv.FormatFloat(o.At, 'g', -1, 64)), nil
}

// value is the onset as an error shows it.
func (o Onset) value() any {
	if o.Uniform {
		return "uniform"
	}
	return o.At
}

// Straggle is an attempt's drawn slowdown: once Onset of its compute is
// done it runs at (1 − Onset)/(Factor − Onset) of its speed, so alone and
// CPU-bound it takes Factor times as long. Factor 0 is no straggler.
type Straggle struct {
	Factor, Onset float64
}

// Speed is the speed factor the attempt runs at past its onset.
func (s Straggle) Speed() float64 { return (1 - s.Onset) / (s.Factor - s.Onset) }

// The three bands of a straggler's factor.
const (
	bandLow       = 1.5 // uniform [bandLow, bandMid)
	bandMid       = 2.5 // log-uniform [bandMid, bandTail)
	bandTail      = 10  // Pareto from here
	maxStragglers = 3
)

// ImprovableOver is the least slowdown, an attempt's duration over what
// its data asks, that makes a task "improvable" (phases.improvable_heavy)
// and the default floor of a mild slowdown (StragglersConfig.Mild).
const ImprovableOver = 1.2

// draw draws an attempt's slowdown from its stream: whether it straggles
// or is slowed mildly, its factor and its onset. The stream is the
// attempt's own, so the same attempt of the same task straggles alike
// under every policy. Without Mild it draws as it did before Mild
// existed: one number decides both, stragglers below Probability.
func (s *StragglersConfig) draw(rng *rand.Rand) Straggle {
	if !s.Draws() {
		return Straggle{}
	}
	switch u := rng.Float64(); {
	case u < s.Probability:
		return Straggle{Factor: s.straggler(rng), Onset: s.onset(rng)}
	case u < s.Probability+s.Mild:
		lo, hi := s.mildRange()
		return Straggle{Factor: lo + rng.Float64()*(hi-lo), Onset: s.onset(rng)}
	}
	return Straggle{}
}

// straggler draws a straggler's factor from the three bands.
func (s *StragglersConfig) straggler(rng *rand.Rand) float64 {
	u, m := rng.Float64(), 0.0
	switch v := rng.Float64(); {
	case u < s.Bands[0]:
		m = bandLow + v*(bandMid-bandLow)
	case u < s.Bands[0]+s.Bands[1]:
		m = bandMid * math.Pow(bandTail/bandMid, v)
	default:
		m = min(bandTail*math.Pow(1-v, -1/s.TailAlpha), s.MaxFactor)
	}
	return m
}

// onset draws where in its compute an attempt starts to straggle.
func (s *StragglersConfig) onset(rng *rand.Rand) float64 {
	if s.Onset.Uniform {
		return rng.Float64()
	}
	return s.Onset.At
}

// Validate checks [stragglers].
func (s *StragglersConfig) Validate(errs *Checks) {
	check := errs.Check
	check(!(s.Probability >= 0 && s.Probability <= 1), "stragglers.probability", s.Probability, "must be a probability in [0, 1] (0: no stragglers)")
	sum, ok := 0.0, len(s.Bands) == maxStragglers
	for _, w := range s.Bands {
		ok = ok && w >= 0 && w <= 1
		sum += w
	}
	check(!ok || math.Abs(sum-1) > 1e-9, "stragglers.bands", s.Bands,
		"must be three weights in [0, 1] summing to 1: of ×U[1.5, 2.5), ×log-U[2.5, 10) and the Pareto tail from 10")
	check(!(s.Mild >= 0 && s.Mild <= 1-s.Probability), "stragglers.mild", s.Mild,
		"must be a probability in [0, 1 − stragglers.probability] (0: no mild slowdowns)")
	f := s.MildFactor
	check(f != nil && (len(f) != 2 || !(f[0] > 1 && f[1] >= f[0] && f[1] <= bandLow)), "stragglers.mild_factor", f,
		fmt.Sprintf("must be two slowdown factors [lo, hi] with 1 < lo ≤ hi ≤ %v: a straggler's band starts at ×%v", bandLow, bandLow))
	check(!(s.TailAlpha > 0 && s.TailAlpha <= 100), "stragglers.tail_alpha", s.TailAlpha, "must be a Pareto shape in (0, 100]")
	check(!(s.MaxFactor >= bandTail && s.MaxFactor <= MaxSpeed), "stragglers.max_factor", s.MaxFactor,
		fmt.Sprintf("must be a factor in [%d, %v]: the tail starts at ×%d", bandTail, MaxSpeed, bandTail))
	check(!s.Onset.Uniform && !(s.Onset.At >= 0 && s.Onset.At < 1), "stragglers.onset", s.Onset.value(),
		`must be "uniform" or a fraction of the compute in [0, 1)`)
	check(!(s.BusyRate >= 0 && s.BusyRate <= 1e4), "stragglers.busy_rate", s.BusyRate, "must be ≥ 0 busy periods per hour (0: none), at most 10000")
	check(!(s.BusyNodes >= 0 && s.BusyNodes <= 1), "stragglers.busy_nodes", s.BusyNodes, "must be a share of the nodes in [0, 1]")
	l := s.BusyLength
	check(len(l) != 2 || l[0] < MinPeriod || l[1] < l[0], "stragglers.busy_length", l,
		fmt.Sprintf(`must be two lengths ["lo", "hi"] with %v ≤ lo ≤ hi`, MinPeriod))
	f = s.BusyFactor
	check(len(f) != 2 || !(f[0] >= 1 && f[1] >= f[0] && f[1] <= MaxSpeed), "stragglers.busy_factor", f,
		fmt.Sprintf("must be two slowdown factors [lo, hi] with 1 ≤ lo ≤ hi ≤ %v", MaxSpeed))
}

// BusyFaults expands the busy periods into CPU slowdown faults over the
// emulated span [0, span), drawn from seed: periods at BusyRate per hour,
// each on round(BusyNodes × nodes) nodes drawn at random. A node is passed
// over when a fault in taken, or a busy period drawn before, holds its
// CPU or disks at that time (two would contradict each other), or when
// its rack already has a fifth of its nodes busy then (at least one per
// rack, for racks under five nodes).
func (s *StragglersConfig) BusyFaults(c *ClusterConfig, span time.Duration, seed uint64, taken []Fault) []Fault {
	nodes := c.Nodes()
	want := int(math.Round(s.BusyNodes * float64(nodes)))
	if s.BusyRate <= 0 || want == 0 || span <= 0 || nodes > MaxNodes {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x62757379)) // "busy"
	perRack := max(1, c.NodesPerRack/5)
	mean := float64(time.Hour) / s.BusyRate
	var out []Fault
	for t := time.Duration(0); ; {
		t += time.Duration(math.Ceil(rng.ExpFloat64() * mean))
		if t >= span || t < 0 { // t < 0: it overflowed
			return out
		}
		lo, hi := s.BusyLength[0].Std(), s.BusyLength[1].Std()
		length := lo + time.Duration(rng.Float64()*float64(hi-lo))
		factor := s.BusyFactor[0] + rng.Float64()*(s.BusyFactor[1]-s.BusyFactor[0])
		picked := 0
		for _, n := range rng.Perm(nodes) {
			if picked == want {
				break
			}
			f := Fault{Kind: FaultSlowdown, At: t, For: length, Node: sched.NodeID(n), CPU: 1 / factor, Disk: 1, Entry: -1, Busy: true}
			if !f.busyConflicts(taken, out, perRack, c.NodesPerRack) {
				out = append(out, f)
				picked++
			}
		}
	}
}

// busyConflicts reports whether a busy period's fault overlaps a fault on
// the same resources, or would make its rack busier than perRack nodes.
func (f *Fault) busyConflicts(taken, drawn []Fault, perRack, nodesPerRack int) bool {
	mine := f.resources(nodesPerRack)
	rack, busy := int(f.Node)/nodesPerRack, 0
	for _, list := range [][]Fault{taken, drawn} {
		for i := range list {
			g := &list[i]
			if !g.overlaps(f) {
				continue
			}
			if g.Busy && int(g.Node)/nodesPerRack == rack {
				busy++
			}
			for _, r := range g.resources(nodesPerRack) {
				if slices.Contains(mine, r) {
					return true
				}
			}
		}
	}
	return busy >= perRack
}

// overlaps reports whether two faults' spans share an instant; a span
// without an end lasts to the run's end.
func (f *Fault) overlaps(g *Fault) bool {
	fe, ge := f.End(), g.End()
	return (fe == 0 || g.At < fe) && (ge == 0 || f.At < ge)
}
