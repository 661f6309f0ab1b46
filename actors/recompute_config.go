package actors

import (
	"fmt"
	"time"

	"clusteremu/policies/straggler"
	"clusteremu/units"
)

// IntermediateLossConfig is [intermediate_loss]: map outputs lost, or
// served by a node that does not answer, as Mantri's recomputes follow
// (the thesis's §3.2, §3.4; notes §1.4, §2.2). Whether an output is lost
// is drawn at its first fetch, from a stream keyed by the workload seed
// and the map's attempt, so every run compared meets the same losses on
// the same outputs (fabric_loss.go).
type IntermediateLossConfig struct {
	// Probability is the mean chance that an output is lost.
	Probability float64 `toml:"probability"`
	// HotNodes is the share of nodes that take half the losses (the
	// thesis's 5%); 0: none.
	HotNodes float64 `toml:"hot_nodes"`
	// Burst makes a node that lost an output lose the next ones 20 times
	// as often for a minute.
	Burst bool `toml:"burst"`
	// Episodes, when positive, clusters a node's losses in faulty
	// episodes rather than after each loss (Burst must be off): the node
	// spends that share of its time (below 1/straggler.BurstFactor) in
	// episodes a minute long on the mean, losing outputs BurstFactor
	// times as often as its mean in them, and the rest of its losses,
	// isolated, outside them (straggler.EpisodeFactor). 0: off, and the
	// key is not written.
	Episodes float64 `toml:"episodes,omitzero" json:",omitzero"`
	// Mode is "lost" (the output is gone: every later fetch of it fails
	// at once) or "unresponsive" (the data is kept, but its node fails
	// the output's fetches for a minute, then serves it again).
	Mode string `toml:"mode"`
}

// The loss modes of [intermediate_loss].
const (
	LossLost         = "lost"
	LossUnresponsive = "unresponsive"
)

// DefaultIntermediateLoss is [intermediate_loss] as the notes' model: 1%
// of outputs lost, 5% of the nodes taking half of them, bursts on, the
// data gone.
func DefaultIntermediateLoss() IntermediateLossConfig {
	return IntermediateLossConfig{Probability: 0.01, HotNodes: 0.05, Burst: true, Mode: LossLost}
}

// SetDefaults fills a zero table with DefaultIntermediateLoss, for an
// [intermediate_loss] a scenario creates with --set.
func (c *IntermediateLossConfig) SetDefaults() { *c = DefaultIntermediateLoss() }

// Validate checks [intermediate_loss].
func (c *IntermediateLossConfig) Validate(errs *Checks) {
	errs.Check(!(c.Probability >= 0 && c.Probability <= 1), "intermediate_loss.probability", c.Probability, "must be a probability in [0, 1]")
	errs.Check(!(c.HotNodes >= 0 && c.HotNodes <= 1), "intermediate_loss.hot_nodes", c.HotNodes,
		"must be a share of the nodes in [0, 1] (the thesis's 0.05; 0: none)")
	errs.Check(!(c.Episodes >= 0 && c.Episodes < 1.0/straggler.BurstFactor), "intermediate_loss.episodes", c.Episodes,
		fmt.Sprintf("must be a share of a node's time in [0, %g)", 1.0/straggler.BurstFactor))
	errs.Check(c.Episodes > 0 && c.Burst, "intermediate_loss.burst", c.Burst, "must be false with episodes, which replace the burst after a loss")
	errs.Check(c.Mode != LossLost && c.Mode != LossUnresponsive, "intermediate_loss.mode", c.Mode,
		fmt.Sprintf("must be %q or %q", LossLost, LossUnresponsive))
}

// RecomputeConfig is the recompute-avoidance part of [tasks] (Mantri,
// the thesis's §3.4): job managers copy outputs worth protecting to a
// node of the same rack, and when a node loses recompute_trigger outputs
// within recompute_window the coordinator has every job re-run its
// unread outputs there (job_recompute.go). Every key left out takes its
// default and is not written back, so a run that names none writes its
// scenario, and hashes its configuration, as before the keys existed.
type RecomputeConfig struct {
	// ProtectOutputs turns recompute avoidance on.
	ProtectOutputs bool `toml:"protect_outputs,omitempty"`
	// ReplicateBudget caps a job's replicated bytes at that share of the
	// bytes its tasks processed; nil: 0.1.
	ReplicateBudget *float64 `toml:"replicate_budget,omitempty"`
	// RecomputeTrigger is the losses within RecomputeWindow that make a
	// node suspected; nil: 2 within 60 s.
	RecomputeTrigger *int            `toml:"recompute_trigger,omitempty"`
	RecomputeWindow  *units.Duration `toml:"recompute_window,omitempty"`
}

// The defaults of the recompute-avoidance keys: the thesis's 10% budget
// and 2 recomputes in the last minute.
const (
	DefaultReplicateBudget  = 0.1
	DefaultRecomputeTrigger = 2
	DefaultRecomputeWindow  = time.Minute
)

// IsZero reports whether no key is named, which the configuration's hash
// leaves out.
func (r RecomputeConfig) IsZero() bool {
	return !r.ProtectOutputs && r.ReplicateBudget == nil && r.RecomputeTrigger == nil && r.RecomputeWindow == nil
}

// Budget is replicate_budget, its default when left out.
func (r RecomputeConfig) Budget() float64 {
	if r.ReplicateBudget == nil {
		return DefaultReplicateBudget
	}
	return *r.ReplicateBudget
}

// Trigger is recompute_trigger, its default when left out.
func (r RecomputeConfig) Trigger() int {
	if r.RecomputeTrigger == nil {
		return DefaultRecomputeTrigger
	}
	return *r.RecomputeTrigger
}

// Window is recompute_window, its default when left out.
func (r RecomputeConfig) Window() time.Duration {
	return orDefault(r.RecomputeWindow, DefaultRecomputeWindow)
}

// Validate checks the recompute-avoidance keys of [tasks].
func (r *RecomputeConfig) Validate(errs *Checks) {
	b := r.Budget()
	errs.Check(!(b >= 0 && b <= 1), "tasks.replicate_budget", b, "must be a share of the bytes processed in [0, 1] (the thesis's 0.1)")
	errs.Check(r.Trigger() < 1, "tasks.recompute_trigger", r.Trigger(), "must be ≥ 1 loss (the thesis's 2)")
	errs.Check(r.Window() < MinPeriod.Std(), "tasks.recompute_window", r.Window(), fmt.Sprintf("must be at least %v (the thesis's 60s)", MinPeriod))
}
