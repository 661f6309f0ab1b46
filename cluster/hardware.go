package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/sched"
)

// HardwareMetrics prefixes the metrics of each kind of node when the
// cluster has [[cluster.class]] entries: hardware.<class>.utilisation.map
// and .reduce (the slot-seconds held in its nodes' slots of the kind over
// their number × the run's length), hardware.<class>.work (its share of
// all the slot-seconds held) and hardware.<class>.maps.seconds.mean (the
// mean time of the maps that succeeded there). The nodes of no class are
// hardware.cluster.
const HardwareMetrics = "hardware."

// BaseHardware names the nodes of no class in HardwareMetrics.
const BaseHardware = "cluster"

// hardwareMetricNames are the metrics each kind of node has.
var hardwareMetricNames = []string{"utilisation.map", "utilisation.reduce", "work", "maps.seconds.mean"}

// Hardware is what the nodes of one kind did: their slots, and what the
// attempts that ended on them held.
type Hardware struct {
	Name  string
	Nodes int
	Slots [2]int // map slots and reducers
	// Busy is the slot-seconds held by kind; Maps and MapSeconds count
	// the maps that succeeded and the seconds they held.
	Busy       [2]float64
	Maps       int
	MapSeconds float64
}

// hardwareTally books each ended attempt to its node's kind.
type hardwareTally struct {
	of    []int // node → index in kinds
	kinds []Hardware
}

// newHardwareTally sorts the nodes into [cluster]'s and each class's; nil
// when every node is alike.
func newHardwareTally(c *actors.ClusterConfig, t *actors.TasksConfig) *hardwareTally {
	if !c.Heterogeneous() {
		return nil
	}
	h := &hardwareTally{kinds: []Hardware{{Name: BaseHardware}}}
	for _, k := range c.Classes {
		h.kinds = append(h.kinds, Hardware{Name: k.Name})
	}
	c.EachNode(func(node int, hw *actors.ClusterConfig) {
		i := c.ClassOf(node) + 1
		h.of = append(h.of, i)
		k := &h.kinds[i]
		k.Nodes++
		k.Slots[0] += hw.MapSlots
		k.Slots[1] += t.Reducers(hw.ReduceSlots)
	})
	return h
}

// add books an attempt that ended.
func (h *hardwareTally) add(a actors.AttemptRecord) {
	if a.Start < 0 || int(a.Node) >= len(h.of) {
		return // lost before it launched: it held no slot
	}
	k := &h.kinds[h.of[a.Node]]
	d := (a.End - a.Start).Seconds()
	k.Busy[a.Attempt.Kind] += d
	if a.Attempt.Kind == sched.Map && a.Outcome == sched.Succeeded {
		k.Maps++
		k.MapSeconds += d
	}
}

// results are the kinds that have nodes.
func (h *hardwareTally) results() []Hardware {
	if h == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(h.kinds), func(k Hardware) bool { return k.Nodes == 0 })
}

// summarizeHardware sets each kind of node's metrics.
func summarizeHardware(s Summary, res *Records, end time.Duration) {
	total := res.Tally.Busy[0] + res.Tally.Busy[1]
	for _, k := range res.Hardware {
		prefix := HardwareMetrics + k.Name + "."
		for kind, name := range []string{"utilisation.map", "utilisation.reduce"} {
			if k.Slots[kind] > 0 && end > 0 {
				s[prefix+name] = k.Busy[kind] / (float64(k.Slots[kind]) * end.Seconds())
			}
		}
		if total > 0 {
			s[prefix+"work"] = (k.Busy[0] + k.Busy[1]) / total
		}
		if k.Maps > 0 {
			s[prefix+"maps.seconds.mean"] = k.MapSeconds / float64(k.Maps)
		}
	}
}

// hardwareMetricError says why a name under HardwareMetrics is no metric,
// nil when it is one.
func hardwareMetricError(name, rest string) error {
	for _, m := range hardwareMetricNames {
		if class, ok := strings.CutSuffix(rest, "."+m); ok && class != "" {
			return nil
		}
	}
	return fmt.Errorf("%s: a kind of node has %s under hardware.<class>. (hardware.%s. for the nodes of no class)",
		name, strings.Join(hardwareMetricNames, ", "), BaseHardware)
}
