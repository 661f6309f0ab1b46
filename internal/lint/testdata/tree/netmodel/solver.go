package netmodel

import (
	"math/rand"
	"time"
)

// Seeded streams and time arithmetic are allowed.
func draw(seed int64, d time.Duration) time.Duration {
	rng := rand.New(rand.NewSource(seed))
	return time.Duration(rng.Int63n(int64(d))) + time.Unix(0, 0).Sub(time.Unix(0, 0))
}
