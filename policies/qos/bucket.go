package qos

import "time"

// Bucket is a token bucket refilled lazily: it holds at most capacity
// tokens and gains rate tokens per second of emulated time, computed when
// it is next looked at. It starts full.
type Bucket struct {
	rate, capacity float64
	tokens         float64
	at             time.Duration // when tokens was last brought up to date
}

// NewBucket returns a full bucket of the class at now.
func NewBucket(c Class, now time.Duration) Bucket {
	return Bucket{rate: c.Rate, capacity: c.Capacity, tokens: c.Capacity, at: now}
}

// Tokens is what the bucket holds at now, which must not be before the
// last time it was looked at.
func (b *Bucket) Tokens(now time.Duration) float64 {
	if now > b.at {
		b.tokens = min(b.capacity, b.tokens+b.rate*(now-b.at).Seconds())
		b.at = now
	}
	return b.tokens
}

// Capacity is the most tokens the bucket holds.
func (b *Bucket) Capacity() float64 { return b.capacity }

// Take removes n tokens at now when the bucket holds them and n is within
// its capacity, and reports whether it did: a conformant task. A
// non-conformant one takes nothing.
func (b *Bucket) Take(now time.Duration, n float64) bool {
	if n > b.capacity || b.Tokens(now) < n {
		return false
	}
	b.tokens -= n
	return true
}
