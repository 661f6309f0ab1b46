package workload

import "time"

// Durations as data are allowed.
const heartbeat = 3 * time.Second

func at(n int) time.Duration { return time.Duration(n) * heartbeat }
