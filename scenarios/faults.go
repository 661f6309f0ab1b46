package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

// FaultTable is one [[fault]] entry: a failure at an instant (at), or a
// seeded stream of them (rate per hour over window), on a target.
//
//	[[fault]]                         [[fault]]
//	kind = "crash"                    kind = "partition"
//	node = 3                          rack = 1
//	at = "100s"                       at = "10m"
//	restart_after = "5m"              for = "30s"
//
//	[[fault]]                         [[fault]]
//	kind = "link"                     kind = "crash"
//	link = "rack 1 uplink"            rate = 2        # per hour, on random nodes
//	at = "1m"                         window = ["0s", "4h"]
//	for = "10s"                       restart_after = "10m"
//	factor = 0                        nodes = [0, 1, 2, 3]   # among these (default: all)
//
// A random stream's instants and targets are drawn from the workload seed
// and the entry's place in the file, so the fault schedule is part of the
// scenario (the same for every policy compared and every schedule seed),
// not of the interleaving. Draws that would overlap a fault already on
// their target are skipped.
type FaultTable struct {
	Kind string `toml:"kind"`
	// At is the fault's instant; a random stream has Rate and Window
	// instead.
	At     units.Duration   `toml:"at"`
	Rate   float64          `toml:"rate"`
	Window []units.Duration `toml:"window"`
	// Node, Rack or Link is the target of a fault at an instant; Nodes or
	// Racks the candidates a random stream draws from (empty: all).
	Node  int    `toml:"node"`
	Rack  int    `toml:"rack"`
	Link  string `toml:"link"`
	Nodes []int  `toml:"nodes"`
	Racks []int  `toml:"racks"`
	// For is how long a slowdown, partition or link fault lasts (0 or
	// left out: to the run's end).
	For units.Duration `toml:"for"`
	// RestartAfter brings a crashed node or the coordinator back (left
	// out: never).
	RestartAfter units.Duration `toml:"restart_after"`
	// DiskLost restarts a crashed node without its HDFS blocks.
	DiskLost bool `toml:"disk_lost"`
	// CPU and Disk are a slowdown's factors (1: unchanged); Factor a
	// link fault's (0: cut).
	CPU    float64 `toml:"cpu"`
	Disk   float64 `toml:"disk"`
	Factor float64 `toml:"factor"`
	// Recovery is how the coordinator comes back: "work-preserving" (it
	// rebuilds its view from the nodes and job managers, as YARN's
	// restart does) or "fail" (the running jobs fail, as with Hadoop 1's
	// JobTracker).
	Recovery string `toml:"recovery"`
	// A message rule (kind = "message"): which control messages (From
	// and To actor patterns, Message type, in Window), and what happens
	// to them: Action "drop", "delay" (by Delay) or "pass", with
	// Probability (default 1). See cluster.MessageRule.
	From        string         `toml:"from"`
	To          string         `toml:"to"`
	Message     string         `toml:"message"`
	Action      string         `toml:"action"`
	Delay       units.Duration `toml:"delay"`
	Probability Chance         `toml:"probability"`
	// Busy marks a slowdown as one of [stragglers]' busy periods, as a
	// resolved scenario lists them once drawn: when any entry is one,
	// none are drawn.
	Busy bool `toml:"busy,omitzero"`
}

// KindMessage is the [[fault]] kind of a message rule.
const KindMessage = "message"

// Chance is a probability a file may leave out: then it is 1.
type Chance struct {
	P   float64
	Set bool
}

// Of is the probability: as given, or 1.
func (c Chance) Of() float64 {
	if !c.Set {
		return 1
	}
	return c.P
}

// UnmarshalTOML reads a number.
func (c *Chance) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case float64:
		c.P = x
	case int64:
		c.P = float64(x)
	default:
		return fmt.Errorf("%v: must be a number from 0 to 1", v)
	}
	c.Set = true
	return nil
}

// MarshalTOML writes the probability.
func (c Chance) MarshalTOML() ([]byte, error) {
	return []byte(strconv.FormatFloat(c.Of(), 'g', -1, 64)), nil
}

// Recovery modes of a coordinator fault.
const (
	RecoveryPreserving = "work-preserving"
	RecoveryFail       = "fail"
)

// faults expands the [[fault]] entries into the run's faults and message
// rules, in file order, random streams drawn from seed; errors are keyed
// by entry.
func faults(entries []FaultTable, c *cluster.Config, seed uint64) ([]actors.Fault, []cluster.MessageRule, []error) {
	var out []actors.Fault
	var rules []cluster.MessageRule
	var errs []error
	for i := range entries {
		key := fmt.Sprintf("fault[%d]", i)
		e := &entries[i]
		if e.Kind == KindMessage {
			r, err := e.rule(key, i)
			errs = append(errs, err...)
			rules = append(rules, r)
			continue
		}
		if err := e.check(key, c); err != nil {
			errs = append(errs, err...)
			continue
		}
		base := e.fault(i)
		if e.Rate == 0 {
			out = append(out, base)
			continue
		}
		out = append(out, e.draw(base, c, seed, i, out)...)
	}
	return out, rules, errs
}

// rule is a message rule's entry as a cluster.MessageRule; the cluster
// checks its values.
func (e *FaultTable) rule(key string, entry int) (cluster.MessageRule, []error) {
	var errs checks
	r := cluster.MessageRule{From: or(e.From, "*"), To: or(e.To, "*"), Message: or(e.Message, "*"), Action: e.Action,
		Delay: e.Delay.Std(), Probability: e.Probability.Of(), Entry: entry}
	switch len(e.Window) {
	case 0:
	case 2:
		r.Start, r.End = e.Window[0].Std(), e.Window[1].Std()
	default:
		errs.add(true, Invalid(key+".window", e.Window, `must be [from, to], e.g. ["0s", "1h"]`))
	}
	errs.add(e.At != 0 || e.Rate != 0, Invalid(key+".at", e.At, "a message rule applies over its window, not at an instant"))
	return r, errs
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// check refuses what the entry's own keys get wrong; the cluster's
// checks of the expanded faults do the rest (targets, factors, overlaps).
func (e *FaultTable) check(key string, c *cluster.Config) []error {
	var errs checks
	errs.add(!slices.Contains(actors.FaultKinds, actors.FaultKind(e.Kind)), Invalid(key+".kind", e.Kind, "must be one of %v or %q", actors.FaultKinds, KindMessage))
	random := e.Rate != 0 || len(e.Window) > 0
	errs.add(e.Busy && (random || e.Kind != string(actors.FaultSlowdown) || c.Stragglers.BusyRate == 0),
		Invalid(key+".busy", e.Busy, "marks a slowdown at an instant as a busy period of [stragglers], which needs stragglers.busy_rate > 0"))
	errs.add(random && !(e.Rate > 0 && e.Rate <= maxFaultRate), Invalid(key+".rate", e.Rate, "must be > 0 and at most %g faults per hour", maxFaultRate))
	errs.add(random && e.At != 0, Invalid(key+".at", e.At, "give at (one fault) or rate and window (a random stream), not both"))
	if random {
		ok := len(e.Window) == 2 && e.Window[0] >= 0 && e.Window[0] < e.Window[1]
		errs.add(!ok, Invalid(key+".window", e.Window, `must be [from, to] with 0 ≤ from < to, e.g. ["0s", "1h"]`))
		errs.add(ok && c.Run.Until > 0 && e.Window[0] >= c.Run.Until, Invalid(key+".window", e.Window, "must begin before the run's end, run.until = %v", c.Run.Until))
	} else {
		errs.add(c.Run.Until > 0 && e.At >= c.Run.Until, Invalid(key+".at", e.At, "must be before the run's end, run.until = %v", c.Run.Until))
	}
	nodes, racks := c.Nodes(), c.Cluster.Racks
	for _, n := range e.Nodes {
		errs.add(n < 0 || n >= nodes, Invalid(key+".nodes", e.Nodes, "must list nodes of the cluster, 0 … %d", nodes-1))
	}
	for _, r := range e.Racks {
		errs.add(r < 0 || r >= racks, Invalid(key+".racks", e.Racks, "must list racks of the cluster, 0 … %d", racks-1))
	}
	if e.Kind == string(actors.FaultLink) {
		_, err := netmodel.ParseLinkRef(e.Link)
		errs.add(err != nil, Invalid(key+".link", e.Link, `must name a link: "host N KIND" (KIND one of disk-read, disk-write, nic-up, nic-down, memory, cpu), "rack N uplink", "rack N downlink" or "core"`))
	}
	if e.Kind == string(actors.FaultCoordinator) {
		errs.add(e.Recovery != "" && e.Recovery != RecoveryPreserving && e.Recovery != RecoveryFail,
			Invalid(key+".recovery", e.Recovery, "must be %q or %q", RecoveryPreserving, RecoveryFail))
	}
	return errs
}

// maxFaultRate bounds a random stream: a fault a second.
const maxFaultRate = 3600.0

// fault is the entry as one fault at its instant on its named target;
// a slowdown's factors default to 1.
func (e *FaultTable) fault(entry int) actors.Fault {
	f := actors.Fault{
		Kind: actors.FaultKind(e.Kind), At: e.At.Std(), For: e.For.Std(), RestartAfter: e.RestartAfter.Std(),
		Node: sched.NodeID(e.Node), Rack: sched.RackID(e.Rack), Factor: e.Factor, CPU: e.CPU, Disk: e.Disk,
		DiskLost: e.DiskLost, FailJobs: e.Recovery == RecoveryFail, Entry: entry, Busy: e.Busy,
	}
	if f.Kind == actors.FaultSlowdown {
		f.CPU, f.Disk = orOne(e.CPU), orOne(e.Disk)
	}
	f.Link, _ = netmodel.ParseLinkRef(e.Link)
	return f
}

func orOne(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// draw expands a random stream: a Poisson process of the entry's rate
// over its window, each fault on a target drawn among the candidates,
// from a stream of the workload seed and the entry's index. A draw whose
// target has a fault at that time (in before, or drawn earlier) is
// skipped, since the two would contradict each other.
func (e *FaultTable) draw(base actors.Fault, c *cluster.Config, seed uint64, entry int, before []actors.Fault) []actors.Fault {
	rng := rand.New(rand.NewPCG(seed, 0xfa417<<32|uint64(entry)))
	var out []actors.Fault
	from, to := e.Window[0].Std(), e.Window[1].Std()
	mean := float64(time.Hour) / e.Rate
	for t := from; ; {
		t += time.Duration(math.Ceil(rng.ExpFloat64() * mean))
		if t >= to || t < from { // t < from: it overflowed
			return out
		}
		f := base
		f.At = t
		switch f.Kind {
		case actors.FaultCrash, actors.FaultSlowdown:
			f.Node = sched.NodeID(pick(rng, e.Nodes, c.Nodes()))
		case actors.FaultPartition:
			f.Rack = sched.RackID(pick(rng, e.Racks, c.Cluster.Racks))
		}
		var checks actors.Checks
		actors.ValidateFaults(slices.Concat(before, out, []actors.Fault{f}), &c.Cluster, &checks)
		if len(checks) == 0 {
			out = append(out, f)
		}
	}
}

// pick draws one of the candidates, or of 0 … n−1 when there are none.
func pick(rng *rand.Rand, candidates []int, n int) int {
	if len(candidates) > 0 {
		return candidates[rng.IntN(len(candidates))]
	}
	return rng.IntN(n)
}

// cutFaults is what a resolved scenario writes for [[fault]] when the
// run is cut (--until, set after the faults were drawn). When some
// entry's fault or window lies past the cut, that entry would be refused
// past run.until, and dropping it would move the later random streams,
// whose draws are keyed by their entry's place, and the overlaps their
// draws and the busy periods skip; so the run's faults before the cut are
// written as they were drawn, one fixed entry each, after the message
// rules that begin before it. Otherwise the entries are kept, and the
// busy periods are listed after them only when drawing them again over
// the cut would not give the run's (they were drawn over another span),
// unless the entries list them already.
// Busy periods are written with busy = true, so the file keeps
// [stragglers] and what it measures without drawing them again.
func cutFaults(entries []FaultTable, c *cluster.Config) []FaultTable {
	cut := c.Run.Until
	if cut <= 0 {
		return entries
	}
	past := func(e *FaultTable) bool {
		if len(e.Window) > 0 {
			return e.Window[0] >= cut
		}
		return e.At >= cut
	}
	var drawn, busy []actors.Fault
	for _, f := range c.Faults {
		if f.Busy {
			busy = append(busy, f)
		} else {
			drawn = append(drawn, f)
		}
	}
	var out []FaultTable
	switch {
	case slices.ContainsFunc(entries, func(e FaultTable) bool { return past(&e) }):
		for i := range entries {
			if entries[i].Kind == KindMessage && !past(&entries[i]) {
				out = append(out, entries[i])
			}
		}
		busy = c.Faults
	case !slices.ContainsFunc(entries, func(e FaultTable) bool { return e.Busy }) &&
		!reflect.DeepEqual(busy, c.Stragglers.BusyFaults(&c.Cluster, cut.Std(), c.Run.Seed, drawn)):
		out = slices.Clone(entries)
	default:
		return entries
	}
	for _, f := range busy {
		if f.At < cut.Std() {
			out = append(out, fixedFault(f))
		}
	}
	return out
}

// fixedFault is a fault as the entry that gives it.
func fixedFault(f actors.Fault) FaultTable {
	e := FaultTable{Kind: string(f.Kind), At: units.Duration(f.At), For: units.Duration(f.For),
		RestartAfter: units.Duration(f.RestartAfter), Node: int(f.Node), Rack: int(f.Rack), DiskLost: f.DiskLost,
		CPU: f.CPU, Disk: f.Disk, Factor: f.Factor, Busy: f.Busy}
	switch f.Kind {
	case actors.FaultLink:
		e.Link = f.Link.String()
	case actors.FaultCoordinator:
		e.Recovery = RecoveryPreserving
		if f.FailJobs {
			e.Recovery = RecoveryFail
		}
	}
	return e
}
