package cluster

import (
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// newActorSystem makes the actor system a run's actors live in.
//
// protoactor builds each system's process registry as 1,024 concurrent
// maps of 32 shards each, some 3 MB; a reference pass makes a run per
// job, and building registries was an eighth of its CPU. So a
// deterministic run takes a system that an earlier one left empty
// (reusableSystems) when there is one. Nothing of the earlier run is
// left in it: its actors are stopped and gone from the registry, its
// event-stream subscription is removed, and the registry's counter of
// generated names starts again where a new system's does.
func newActorSystem(reuse bool) *actor.ActorSystem {
	if reuse {
		if sys, ok := reusableSystems.Get().(*actor.ActorSystem); ok {
			atomic.StoreUint64(&sys.ProcessRegistry.SequenceID, 0)
			return sys
		}
	}
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}),
		// The dead-letter throttle starts a goroutine that lives one
		// interval; a short interval lets it end before leak checks.
		actor.WithDeadLetterThrottleInterval(time.Millisecond),
	)
}

// reusableSystems are actor systems whose deterministic runs ended with
// every actor stopped; sync.Pool lets the collector drop those no run
// takes.
var reusableSystems sync.Pool

// releaseActorSystem ends a deterministic run's system: it is kept for
// another run when none of the run's top-level actors (whose children
// stop before them) is still registered, and shut down otherwise.
func releaseActorSystem(sys *actor.ActorSystem, top []*actor.PID) {
	for _, pid := range top {
		if _, alive := sys.ProcessRegistry.GetLocal(pid.Id); alive {
			sys.Shutdown()
			return
		}
	}
	reusableSystems.Put(sys)
}
