package cluster

import (
	"fmt"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/units"
)

// Chaos is a deterministic run's seeded control-plane perturbation, the
// scenario's [chaos] table. Its draws come from the schedule seed, so a
// seed explores timings as well as the order of same-instant messages,
// while the workload stays the same.
type Chaos struct {
	// RelayJitter delays each control message's hop through a rack switch
	// by a further [0, RelayJitter), on top of the control latency. A
	// switch keeps each destination's messages in the order it got them,
	// as a switch port's queue does.
	RelayJitter units.Duration `toml:"relay_jitter"`
	// HeartbeatJitter delays each heartbeat by [0, HeartbeatJitter) after
	// its periodic tick. It must stay below the heartbeat interval, so a
	// node's heartbeats keep their order.
	HeartbeatJitter units.Duration `toml:"heartbeat_jitter"`
}

// On reports whether the run perturbs anything.
func (c Chaos) On() bool { return c.RelayJitter > 0 || c.HeartbeatJitter > 0 }

// DecisionKind says what a Decision decides.
type DecisionKind string

// The decisions of a deterministic run.
const (
	// DecideOrder delivers the target's message before the others ready
	// at the same instant.
	DecideOrder DecisionKind = "order"
	// DecideRelay delays a control message to the target in its rack
	// switch by the decision's delay.
	DecideRelay = DecisionKind(actors.PerturbRelay)
	// DecideHeartbeat delays the target node's heartbeat by the delay.
	DecideHeartbeat = DecisionKind(actors.PerturbHeartbeat)
	// DecideDrop drops a relayed control message to the target (a
	// message rule fired); DecideDelay delays one by the delay.
	DecideDrop  DecisionKind = "drop"
	DecideDelay DecisionKind = "delay"
)

// Decision is one place where a deterministic run leaves its default
// course: the default delivers same-instant messages in the order they
// were posted (FIFO) and perturbs nothing. A seeded run departs from it
// wherever its draws say so; a pinned run (RunOptions.Pinned) departs only
// at the decisions it is given, which is how a failure is shrunk.
//
// Decisions are addressed by emulated instant, actor and message count,
// so one keeps its meaning when others are dropped, as long as the run
// still reaches that point at that instant. An order decision says: at
// At, deliver Target's message number Count (counting from 0, system
// messages included) before Before's message number BeforeCount, the one
// FIFO would deliver next. A delay decision says: at At, delay the
// Count-th perturbation of its kind aimed at Target by Delay.
type Decision struct {
	At          time.Duration `json:"at"`
	Kind        DecisionKind  `json:"kind"`
	Target      string        `json:"target"`
	Count       uint64        `json:"count"`
	Before      string        `json:"before,omitempty"`
	BeforeCount uint64        `json:"before_count,omitempty"`
	Delay       time.Duration `json:"delay,omitempty"`
}

func (d Decision) String() string {
	switch d.Kind {
	case DecideOrder:
		return fmt.Sprintf("at %v: deliver %s's message #%d before %s's #%d", d.At, d.Target, d.Count, d.Before, d.BeforeCount)
	case DecideRelay:
		return fmt.Sprintf("at %v: delay relayed message #%d to %s by %v", d.At, d.Count, d.Target, d.Delay)
	case DecideHeartbeat:
		return fmt.Sprintf("at %v: delay heartbeat #%d of %s by %v", d.At, d.Count, d.Target, d.Delay)
	case DecideDrop:
		return fmt.Sprintf("at %v: drop relayed message #%d to %s (a message rule)", d.At, d.Count, d.Target)
	case DecideDelay:
		return fmt.Sprintf("at %v: delay relayed message #%d to %s by %v (a message rule)", d.At, d.Count, d.Target, d.Delay)
	}
	return fmt.Sprintf("at %v: %s %s #%d", d.At, d.Kind, d.Target, d.Count)
}

// Validate checks a decision read from a file.
func (d Decision) Validate() error {
	var bad []string
	switch d.Kind {
	case DecideOrder:
		if d.Before == "" || d.Before == d.Target {
			bad = append(bad, fmt.Sprintf("before %q: must name another actor", d.Before))
		}
	case DecideRelay, DecideHeartbeat, DecideDelay:
		if d.Delay <= 0 {
			bad = append(bad, fmt.Sprintf("delay %v: must be > 0", d.Delay))
		}
	case DecideDrop:
	default:
		bad = append(bad, fmt.Sprintf("kind %q: must be %q, %q, %q, %q or %q", d.Kind, DecideOrder, DecideRelay, DecideHeartbeat, DecideDrop, DecideDelay))
	}
	if d.At < 0 {
		bad = append(bad, fmt.Sprintf("at %v: must be ≥ 0", d.At))
	}
	if d.Target == "" {
		bad = append(bad, "target: must name an actor")
	}
	if len(bad) > 0 {
		return fmt.Errorf("decision %s", strings.Join(bad, "; "))
	}
	return nil
}

// decisionKey addresses a decision: for an order, by the message it goes
// before.
type decisionKey struct {
	at     time.Duration
	kind   DecisionKind
	target string
	count  uint64
}

func (d Decision) key() decisionKey {
	if d.Kind == DecideOrder {
		return decisionKey{d.At, d.Kind, d.Before, d.BeforeCount}
	}
	return decisionKey{d.At, d.Kind, d.Target, d.Count}
}

// pinnedOrder is an order decision of a pinned run.
type pinnedOrder struct {
	target string
	count  uint64
}

// delayKey counts the delays drawn of one kind for one target.
type delayKey struct {
	kind   DecisionKind
	target string
}

// course is how a deterministic executor decides: by drawing from the
// schedule seed, or by following a pinned set of decisions; and whether
// it records where it left the default course.
type course struct {
	chaos   Chaos
	rules   []MessageRule
	pinned  map[decisionKey]time.Duration // delays; nil: draw
	orders  map[decisionKey][]pinnedOrder // by the message they go before
	record  bool
	log     []Decision
	counts  map[delayKey]uint64
	pending uint64 // messages posted, for FIFO order
}

func newCourse(opts RunOptions) course {
	c := course{chaos: opts.Chaos, rules: opts.Rules, record: opts.RecordDecisions, counts: make(map[delayKey]uint64)}
	if opts.Pinned {
		c.pinned = make(map[decisionKey]time.Duration)
		c.orders = make(map[decisionKey][]pinnedOrder)
		for _, d := range opts.Decisions {
			if d.Kind == DecideOrder {
				c.orders[d.key()] = append(c.orders[d.key()], pinnedOrder{d.Target, d.Count})
			} else {
				c.pinned[d.key()] = d.Delay
			}
		}
	}
	return c
}

// perturbs reports whether actors must ask for delays: the run has chaos,
// or follows pinned decisions that hold delays.
func (c *course) perturbs() bool {
	return c.chaos.On() || len(c.pinned) > 0
}

// intercepts reports whether rack switches must ask about each message:
// the run has message rules, or follows pinned decisions that may hold
// their outcomes.
func (c *course) intercepts() bool {
	return len(c.rules) > 0 || len(c.pinned) > 0
}

// bound is the largest delay of a kind the run draws.
func (c *course) bound(kind DecisionKind) time.Duration {
	switch kind {
	case DecideRelay:
		return c.chaos.RelayJitter.Std()
	case DecideHeartbeat:
		return c.chaos.HeartbeatJitter.Std()
	}
	return 0
}

// delay returns the next delay of the kind for the target: drawn with the
// schedule seed, or the pinned one (none when not pinned).
func (ex *executor) delay(kind DecisionKind, target string) time.Duration {
	c := &ex.course
	k := delayKey{kind, target}
	n := c.counts[k]
	c.counts[k] = n + 1
	var d time.Duration
	switch {
	case c.pinned != nil:
		d = c.pinned[decisionKey{ex.now, kind, target, n}]
	case c.bound(kind) > 0:
		d = time.Duration(ex.chaosRng.Int64N(int64(c.bound(kind))))
	}
	if d > 0 && c.record {
		c.log = append(c.log, Decision{At: ex.now, Kind: kind, Target: target, Count: n, Delay: d})
	}
	return d
}

// fifo returns the ready mailbox whose next message was posted first.
func (ex *executor) fifo() *mailbox {
	best := ex.ready[0]
	for _, m := range ex.ready[1:] {
		if m.headSeq() < best.headSeq() {
			best = m
		}
	}
	return best
}

// pinnedChoice delivers FIFO's next message unless a pinned decision puts
// a ready message before it (the first listed when several do). It
// records the decisions it followed, so a pinned run's log holds only the
// decisions that took effect.
func (ex *executor) pinnedChoice() *mailbox {
	f := ex.fifo()
	for _, o := range ex.course.orders[decisionKey{ex.now, DecideOrder, f.name, f.steps}] {
		for _, m := range ex.ready {
			if m.name == o.target && m.steps == o.count {
				ex.recordOrder(m, f)
				return m
			}
		}
	}
	return f
}

// recordOrder logs delivering m's message before f's, FIFO's pick.
func (ex *executor) recordOrder(m, f *mailbox) {
	if ex.course.record && m != f {
		ex.course.log = append(ex.course.log, Decision{
			At: ex.now, Kind: DecideOrder, Target: m.name, Count: m.steps, Before: f.name, BeforeCount: f.steps,
		})
	}
}

// drawChoice picks a ready mailbox with the schedule seed (a uniform
// draw, or PCT's priorities), recording the pick when it is not the FIFO
// one.
func (ex *executor) drawChoice() *mailbox {
	var m *mailbox
	if ex.pct != nil {
		m = ex.pct.choose(ex.ready)
	} else {
		m = ex.ready[ex.rng.IntN(len(ex.ready))]
	}
	if ex.course.record {
		ex.recordOrder(m, ex.fifo())
	}
	return m
}
