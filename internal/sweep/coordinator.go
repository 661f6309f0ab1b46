package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// WorkerName is the name a worker's actor is registered under: a worker
// at host:port is the actor host:port/worker.
const WorkerName = "worker"

// Pool is a coordinator's connection to its workers, ready to run sweeps
// one after another. Close releases it.
type Pool struct {
	system  *actor.ActorSystem
	remote  *remote.Remote
	workers []worker
}

// worker is a connected worker: its address, its actor, its capacity,
// and whether its connection was lost in an earlier sweep.
type worker struct {
	addr     string
	pid      *actor.PID
	parallel int
	lost     bool
}

// Connect joins the workers at addrs (host:port each) as a coordinator
// listening on the local address it reaches the first worker from. A
// worker that does not accept a connection, or does not answer as a
// worker of version within deadline, fails the whole connection with an
// error naming its address; so does one that refuses the coordinator's
// version. The deadline is the command line's, at connect time only:
// once connected, a worker is known lost by its connection, never by a
// timeout.
func Connect(addrs []string, version string, deadline time.Duration) (*Pool, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no worker addresses")
	}
	host := ""
	for _, addr := range addrs {
		local, err := reach(addr, deadline)
		if err != nil {
			return nil, err
		}
		if host == "" {
			host = local
		}
	}
	p := &Pool{system: newSystem()}
	p.remote = remote.NewRemote(p.system, remote.Configure(host, 0))
	p.remote.Start()
	for _, addr := range addrs {
		w, err := p.greet(addr, version, deadline)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.workers = append(p.workers, w)
	}
	return p, nil
}

// reach checks that something accepts connections at addr and returns
// the local host it was reached from.
func reach(addr string, deadline time.Duration) (string, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", fmt.Errorf("worker %q: not host:port: %v", addr, err)
	}
	conn, err := net.DialTimeout("tcp", addr, deadline)
	if err != nil {
		return "", fmt.Errorf("worker %s does not answer: %v", addr, err)
	}
	defer conn.Close()
	local, _, err := net.SplitHostPort(conn.LocalAddr().String())
	return local, err
}

// greet asks the worker at addr for its version and capacity.
func (p *Pool) greet(addr, version string, deadline time.Duration) (worker, error) {
	pid := actor.NewPID(addr, WorkerName)
	answer, err := p.system.Root.RequestFuture(pid, wrap(envelope{Hello: &Hello{Version: version}}), deadline).Result()
	if err != nil {
		return worker{}, fmt.Errorf("worker %s does not answer as a clusteremu worker within %v: %v", addr, deadline, err)
	}
	m, ok := answer.(*wrapperspb.BytesValue)
	if !ok {
		return worker{}, fmt.Errorf("worker %s answers %T, not a clusteremu worker's hello", addr, answer)
	}
	e, err := unwrap(m)
	switch {
	case err != nil:
		return worker{}, fmt.Errorf("worker %s: %v", addr, err)
	case e.HelloAnswered == nil:
		return worker{}, fmt.Errorf("worker %s answers something other than a hello", addr)
	case e.HelloAnswered.Refused != "":
		return worker{}, fmt.Errorf("worker %s refuses: %s", addr, e.HelloAnswered.Refused)
	}
	return worker{addr: addr, pid: pid, parallel: max(1, e.HelloAnswered.Parallel)}, nil
}

// Parallel is the number of units the pool's workers run at once.
func (p *Pool) Parallel() int {
	n := 0
	for _, w := range p.workers {
		n += w.parallel
	}
	return n
}

// Close stops the coordinator's side of the connections; the workers
// keep running, ready for another coordinator. After a lost worker the
// server is stopped at once rather than gracefully: protoactor's graceful
// stop tells every incoming stream to disconnect on a channel that a
// stream broken by the worker's death has already closed, and panics
// (send on closed channel).
func (p *Pool) Close() {
	graceful := !slices.ContainsFunc(p.workers, func(w worker) bool { return w.lost })
	p.remote.Shutdown(graceful)
	p.system.Shutdown()
}

// ErrInterrupted ends a sweep stopped before every unit finished.
var ErrInterrupted = errors.New("sweep interrupted")

// Run hands units out to the pool's workers, the lowest index first and
// each worker as many at once as it runs, and calls each with every
// unit's result in index order, each as soon as it and every unit before
// it have finished: the caller sees the results in the order of a local
// run whatever order they came in. A worker whose connection is lost
// (its process ended, its machine went away) has the units it held
// handed to the others, and lost, when not nil, is told its address and
// those units; a result that comes twice counts once. Run ends with the
// last unit, or with an error when a worker refused a unit (another
// version, or a scenario that resolves otherwise there), when every
// worker is lost, or when stop is closed (ErrInterrupted): then each has
// been called with the results finished so far, in index order with
// gaps. One sweep at a time.
func (p *Pool) Run(units []RunUnit, each func(i int, result json.RawMessage), lost func(addr string, units []int), stop <-chan struct{}) error {
	if len(units) == 0 {
		return nil
	}
	events := make(chan event, len(units)+len(p.workers)+1) // the dispatcher never blocks
	d := newDispatcher(units, p.workers, events)
	pid := p.system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return d }))
	// Subscribe, not SubscribeWithPredicate, which sets the predicate
	// after the subscription is published to the stream's readers.
	sub := p.system.EventStream.Subscribe(func(evt any) {
		if lost, ok := evt.(*remote.EndpointTerminatedEvent); ok {
			p.system.Root.Send(pid, &workerLost{addr: lost.Address})
		}
	})
	defer func() {
		p.system.EventStream.Unsubscribe(sub)
		p.system.Root.StopFuture(pid).Wait()
	}()
	got := make([]json.RawMessage, len(units))
	next := 0
	for next < len(units) {
		select {
		case <-stop:
			for i := next; i < len(units); i++ {
				if got[i] != nil {
					each(i, got[i])
				}
			}
			return ErrInterrupted
		case ev := <-events:
			switch {
			case ev.err != nil:
				return ev.err
			case ev.lost >= 0:
				p.workers[ev.lost].lost = true
				if lost != nil {
					lost(p.workers[ev.lost].addr, ev.units)
				}
				continue
			}
			got[ev.index] = ev.result
			for ; next < len(units) && got[next] != nil; next++ {
				each(next, got[next])
				got[next] = nil
			}
		}
	}
	return nil
}

// event is what the dispatcher tells Run: a unit's result, a lost worker
// (its index, −1 for none) and the units it held, or the error that ends
// the sweep.
type event struct {
	index  int
	result json.RawMessage
	lost   int
	units  []int
	err    error
}

// newSystem is an actor system that logs nothing: a coordinator's or a
// worker's output is its command's.
func newSystem() *actor.ActorSystem {
	return actor.NewActorSystem(
		actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}),
		actor.WithDeadLetterThrottleInterval(time.Millisecond),
	)
}
