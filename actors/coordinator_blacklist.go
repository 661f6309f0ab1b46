package actors

import (
	"fmt"
	"slices"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// BlacklistConfig is [blacklist]: the thesis's enhanced blacklisting
// (§4.1.3), which keeps machines likely to straggle out of the cluster
// for a window. With name "ewma", at the end of each window a node's
// predicted straggler probability is ½ its share of stragglers in the
// window just ended and ½ its long-term share, a straggler being an
// attempt whose progress rate was under half its phase's median
// (AttemptMeasured); above threshold, the node takes no task for the next
// window. "none", the default, blacklists nothing.
type BlacklistConfig struct {
	Name      string         `toml:"name"`
	Window    units.Duration `toml:"window"`
	Threshold float64        `toml:"threshold"`
}

// Blacklist names.
const (
	BlacklistNone = "none"
	BlacklistEWMA = "ewma"
)

// DefaultBlacklist is no blacklist, with the thesis's 1 h window and
// p_b = 0.3 when named.
func DefaultBlacklist() BlacklistConfig {
	return BlacklistConfig{Name: BlacklistNone, Window: units.Duration(time.Hour), Threshold: 0.3}
}

// On reports whether the blacklist acts.
func (b BlacklistConfig) On() bool { return b.Name == BlacklistEWMA }

// IsZero reports whether the table changes nothing, which the
// configuration's hash leaves out.
func (b BlacklistConfig) IsZero() bool { return !b.On() }

// Validate checks [blacklist].
func (b *BlacklistConfig) Validate(errs *Checks) {
	errs.Check(b.Name != BlacklistNone && b.Name != BlacklistEWMA, "blacklist.name", b.Name,
		fmt.Sprintf("must be %q or %q", BlacklistNone, BlacklistEWMA))
	errs.Check(b.Window < MinPeriod, "blacklist.window", b.Window, fmt.Sprintf("must be at least %v (the thesis tried 5m and 1h)", MinPeriod))
	errs.Check(!(b.Threshold >= 0 && b.Threshold <= 1), "blacklist.threshold", b.Threshold, "must be a probability in [0, 1] (the thesis tried 0.3, 0.5 and 0.7)")
}

// StragglerRatio is the rate ratio under which an attempt counts as a
// straggler: "progress rate is less than half of the median progress
// rate among tasks in its phase" (thesis §4.1.3).
const StragglerRatio = 0.5

// blacklist is the ewma blacklist, an admission rule: a listed node takes
// no task.
type blacklist struct {
	threshold float64
	// window and long count each node's measured attempts and
	// stragglers in the current window and over the run.
	window, long []stragglerCount
	listed       []bool
}

type stragglerCount struct{ attempts, stragglers int }

func (c stragglerCount) share() float64 { return float64(c.stragglers) / float64(c.attempts) }

func newBlacklist(cfg BlacklistConfig, nodes int) *blacklist {
	return &blacklist{threshold: cfg.Threshold, window: make([]stragglerCount, nodes), long: make([]stragglerCount, nodes),
		listed: make([]bool, nodes)}
}

func (b *blacklist) admits(_ sched.JobID, _ sched.TaskKind, node sched.NodeID) bool {
	return !b.listed[node]
}
func (*blacklist) reported(*Heartbeat)                             {}
func (*blacklist) launched(sched.NodeID, sched.Attempt, *TaskSpec) {}
func (*blacklist) registered(sched.NodeID, [2]int64)               {}

// measured books an attempt's rate ratio on its node.
func (b *blacklist) measured(msg *AttemptMeasured) {
	if int(msg.Node) >= len(b.window) {
		return
	}
	c := &b.window[msg.Node]
	c.attempts++
	if msg.RateRatio < StragglerRatio {
		c.stragglers++
	}
}

// endWindow predicts each node's straggler probability, lists those
// above the threshold for the next window and starts a new one. It
// lists at most half the nodes, the likeliest first, so a cluster whose
// nodes all straggle alike still runs. It returns the nodes listed.
func (b *blacklist) endWindow() []sched.NodeID {
	type guess struct {
		node sched.NodeID
		p    float64
	}
	var over []guess
	for i := range b.window {
		w := b.window[i]
		b.long[i].attempts += w.attempts
		b.long[i].stragglers += w.stragglers
		b.window[i] = stragglerCount{}
		b.listed[i] = false
		if b.long[i].attempts == 0 {
			continue
		}
		long, last := b.long[i].share(), b.long[i].share() // no news in the window: the long term alone
		if w.attempts > 0 {
			last = w.share()
		}
		if p := (last + long) / 2; p > b.threshold {
			over = append(over, guess{sched.NodeID(i), p})
		}
	}
	slices.SortStableFunc(over, func(a, b guess) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return 0
	})
	var out []sched.NodeID
	for _, g := range over[:min(len(over), len(b.listed)/2)] {
		b.listed[g.node] = true
		out = append(out, g.node)
	}
	slices.Sort(out)
	return out
}
