package qos

import (
	"fmt"
	"time"
)

// Recovery is what a client does about the α that dropped tasks never
// correct (notes §2.5.2: the lock-out).
type Recovery string

// The recoveries. RecoveryNone is the paper's: α changes only on
// feedback, so a basic client whose α passes its capacity is locked out
// for good. RecoveryDecay feeds α the declared mean task time for each
// period in which no feedback came: α ← (α + mean)/2.
const (
	RecoveryNone  Recovery = "none"
	RecoveryDecay Recovery = "decay"
)

// Valid reports whether r is a known recovery.
func (r Recovery) Valid() bool { return r == RecoveryNone || r == RecoveryDecay }

// Verdict is what a client's bucket makes of a posted task.
type Verdict struct {
	// Class is the class the task is forwarded at (an index into the
	// classes, 0 highest): the client's own when conformant, the next
	// lower one when degraded. Meaningless when Dropped.
	Class int
	// Conformant: the bucket held α tokens (α within its capacity) and
	// took them.
	Conformant bool
	// Dropped: non-conformant in the last class; the task never runs and
	// its job fails.
	Dropped bool
	// Cost is the tokens taken: α when conformant, else 0 (degrading is
	// free).
	Cost float64
}

// Degraded reports whether the task goes on one class lower.
func (v Verdict) Degraded() bool { return !v.Conformant && !v.Dropped }

// Client is one client's side of the scheme: its class, its token bucket
// and its estimate α of the next task's cost in tokens (milliseconds).
// A task is conformant iff α ≤ the bucket's capacity and the bucket holds
// α tokens, and then costs α; otherwise, in the last class it is dropped,
// in any other it is forwarded one class lower at no cost. Each served
// task's reported time μ sets α ← (α + μ)/2.
type Client struct {
	classes  []Class
	class    int
	bucket   Bucket
	alpha    float64 // tokens
	declared float64 // the declared mean task time, tokens
	recovery Recovery
	heard    bool // feedback came since the last Silence
}

// NewClient returns a client of classes[class] whose tasks are declared
// to take mean milliseconds, which is also its first α, with a full
// bucket at now.
func NewClient(classes []Class, class int, mean float64, recovery Recovery, now time.Duration) *Client {
	if class < 0 || class >= len(classes) {
		panic(fmt.Sprintf("qos: class %d of %d", class, len(classes)))
	}
	return &Client{
		classes: classes, class: class, bucket: NewBucket(classes[class], now),
		alpha: mean, declared: mean, recovery: recovery,
	}
}

// Class is the client's class (an index, 0 highest).
func (c *Client) Class() int { return c.class }

// Alpha is the client's current estimate of a task's cost, in tokens.
func (c *Client) Alpha() float64 { return c.alpha }

// Post decides the fate of a task posted at now.
func (c *Client) Post(now time.Duration) Verdict {
	if c.bucket.Take(now, c.alpha) {
		return Verdict{Class: c.class, Conformant: true, Cost: c.alpha}
	}
	if c.class == len(c.classes)-1 {
		return Verdict{Class: c.class, Dropped: true}
	}
	return Verdict{Class: c.class + 1}
}

// Served takes a node's feedback for one of the client's tasks: it was
// served for mu. α ← (α + μ)/2, μ in milliseconds.
func (c *Client) Served(mu time.Duration) {
	c.alpha = (c.alpha + Tokens(mu)) / 2
	c.heard = true
}

// Silence ends one of the client's periods: under RecoveryDecay, when no
// feedback came in it, α ← (α + the declared mean)/2. It reports whether
// α changed.
func (c *Client) Silence() bool {
	heard := c.heard
	c.heard = false
	if heard || c.recovery != RecoveryDecay || c.alpha == c.declared {
		return false
	}
	c.alpha = (c.alpha + c.declared) / 2
	return true
}

// Tokens is a span of compute in tokens: milliseconds.
func Tokens(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
