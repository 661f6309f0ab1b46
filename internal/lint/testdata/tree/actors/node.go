package actors

import (
	"math/rand"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

func heartbeatDue(ctx actor.Context, last time.Time) bool {
	ctx.SetReceiveTimeout(3 * time.Second)
	return time.Since(last) > 3*time.Second
}

func jitter() time.Duration {
	return time.Duration(rand.Int63n(int64(time.Second)))
}
