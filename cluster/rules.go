package cluster

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"clusteremu/actors"
)

// MessageRule is one of a deterministic run's message rules, in the
// style of turmoil's: a control message between a node and the master
// (it crosses the node's rack switch) that matches From, To, Message and
// the window may be dropped or delayed. Rules are tried in order: a
// matching "pass" rule lets the message through untouched; a matching
// "drop" or "delay" rule fires with Probability, and the first that fires
// decides; a message no rule fires on passes. Whether a rule fires is a
// decision like [chaos]'s delays, drawn from the schedule seed, so
// explore varies it, a replay repeats it, and shrink drops it.
type MessageRule struct {
	// From and To match the sender's and the receiver's actor names
	// ("node-3", "coordinator", "coordinator/job-2") as path.Match
	// patterns, "*" any; a pattern also matches a name's last element
	// ("job-*" matches "coordinator/job-2").
	From, To string
	// Message is the message's type ("TaskFinished", "Heartbeat"); "*"
	// any.
	Message string
	// Start and End bound when the rule applies: [Start, End), End 0 the
	// run's end.
	Start, End time.Duration
	// Action is RulePass, RuleDrop or RuleDelay.
	Action string
	// Delay is a delay rule's extra latency.
	Delay time.Duration
	// Probability is the chance a matching drop or delay rule fires.
	Probability float64
	// Entry is the scenario's [[fault]] entry the rule comes from.
	Entry int
}

// The actions of a message rule.
const (
	RulePass  = "pass"
	RuleDrop  = "drop"
	RuleDelay = "delay"
)

// matches reports whether the rule applies to a message now.
func (r *MessageRule) matches(now time.Duration, from, to, typ string) bool {
	return now >= r.Start && (r.End == 0 || now < r.End) &&
		nameMatch(r.From, from) && nameMatch(r.To, to) && (r.Message == "*" || r.Message == typ)
}

func nameMatch(pattern, name string) bool {
	if ok, _ := path.Match(pattern, name); ok {
		return true
	}
	ok, _ := path.Match(pattern, path.Base(name))
	return ok
}

// messageType names a message as a rule does: its type without package.
func messageType(msg any) string {
	t := reflect.TypeOf(msg)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "nil"
	}
	return t.Name()
}

// validateRules checks the rules on their own.
func validateRules(rules []MessageRule, until time.Duration, check func(bool, string, any, string)) {
	for _, r := range rules {
		key := fmt.Sprintf("fault[%d]", r.Entry)
		check(r.Action != RulePass && r.Action != RuleDrop && r.Action != RuleDelay, key+".action", r.Action,
			fmt.Sprintf("must be %q, %q or %q", RulePass, RuleDrop, RuleDelay))
		check(r.Action == RuleDelay && r.Delay <= 0, key+".delay", r.Delay, "must be > 0 for a delay rule")
		check(!(r.Probability >= 0 && r.Probability <= 1), key+".probability", r.Probability, "must be in [0, 1]")
		check(r.End != 0 && r.End <= r.Start, key+".window", [2]time.Duration{r.Start, r.End}, "must be [from, to] with from < to")
		check(until > 0 && r.Start >= until, key+".window", [2]time.Duration{r.Start, r.End}, "must begin before the run's end")
		check(r.Message != "*" && !slices.Contains(actors.ControlMessages, r.Message), key+".message", r.Message,
			fmt.Sprintf("must be \"*\" or a control message a rack switch carries: %s", strings.Join(actors.ControlMessages, ", ")))
		for _, f := range []struct{ key, pattern string }{{".from", r.From}, {".to", r.To}} {
			_, err := path.Match(f.pattern, "")
			check(err != nil || f.pattern == "", key+f.key, f.pattern, `must be an actor name or a pattern ("node-*", "coordinator", "job-*", "*")`)
		}
	}
}

// intercept applies the rules to a relayed message: drop it, delay it, or
// let it pass (false, 0). A fired rule is a decision: drawn, or pinned.
func (ex *executor) intercept(from, to string, msg any) (bool, time.Duration) {
	c := &ex.course
	typ := messageType(msg)
	k := delayKey{"rule", to}
	n := c.counts[k]
	c.counts[k] = n + 1
	if c.pinned != nil {
		if _, drop := c.pinned[decisionKey{ex.now, DecideDrop, to, n}]; drop {
			ex.recordRule(DecideDrop, to, n, 0)
			return true, 0
		}
		if d, ok := c.pinned[decisionKey{ex.now, DecideDelay, to, n}]; ok {
			ex.recordRule(DecideDelay, to, n, d)
			return false, d
		}
		return false, 0
	}
	for i := range c.rules {
		r := &c.rules[i]
		if !r.matches(ex.now, from, to, typ) {
			continue
		}
		if r.Action == RulePass {
			return false, 0
		}
		if ex.chaosRng.Float64() >= r.Probability {
			continue
		}
		if r.Action == RuleDrop {
			ex.recordRule(DecideDrop, to, n, 0)
			return true, 0
		}
		ex.recordRule(DecideDelay, to, n, r.Delay)
		return false, r.Delay
	}
	return false, 0
}

// recordRule logs a rule's decision.
func (ex *executor) recordRule(kind DecisionKind, to string, n uint64, d time.Duration) {
	if ex.course.record {
		ex.course.log = append(ex.course.log, Decision{At: ex.now, Kind: kind, Target: to, Count: n, Delay: d})
	}
}
