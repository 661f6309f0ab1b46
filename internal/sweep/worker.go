package sweep

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Runner runs one unit on a worker, by the same code a local run of the
// unit takes, and returns its result encoded for the coordinator, or why
// it refuses the unit (a scenario that does not load here, or loads to
// another configuration than the coordinator's), or neither when the unit
// was cut short because the worker is stopping: the coordinator, seeing
// the worker go, runs it on another.
type Runner func(u RunUnit) (result json.RawMessage, refused string)

// WorkerOptions configure Serve.
type WorkerOptions struct {
	Listen   string // host:port; port 0 picks a free one
	Version  string // clusteremu's version: a coordinator of another is refused
	Parallel int    // units run at once, ≥ 1
	Run      Runner
	// Ready, when not nil, is told the address the worker listens on,
	// once it does.
	Ready func(addr string)
	// Unhandled, when not nil, is told of a message the worker ignores:
	// one that is not of the protocol, from something that is not a
	// coordinator.
	Unhandled func(msg any)
}

// Serve runs a worker until stop is closed: an actor named WorkerName,
// reachable through protoactor's remote at o.Listen, takes units from any
// coordinator of its version and o.Parallel goroutines run them. A unit
// running when stop closes finishes first (the Runner may cut it short).
func Serve(o WorkerOptions, stop <-chan struct{}) error {
	host, port, err := listenAddress(o.Listen)
	if err != nil {
		return err
	}
	system := newSystem()
	r := remote.NewRemote(system, remote.Configure(host, port))
	r.Start()
	queue := make(chan job, queueLen)
	var pool sync.WaitGroup
	for range max(1, o.Parallel) {
		pool.Go(func() {
			for j := range queue {
				result, refused := o.Run(j.unit)
				if result == nil && refused == "" {
					continue // the unit was cut short: the worker is going away
				}
				system.Root.Send(j.reply, wrap(envelope{UnitFinished: &UnitFinished{Index: j.unit.Index, Result: result, Refused: refused}}))
			}
		})
	}
	w := &workerActor{version: o.Version, parallel: max(1, o.Parallel), queue: queue, unhandled: o.Unhandled}
	pid, err := system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return w }), WorkerName)
	if err == nil && o.Ready != nil {
		o.Ready(system.Address())
	}
	if err == nil {
		<-stop
	}
	r.Shutdown(true)
	if pid != nil {
		system.Root.StopFuture(pid).Wait()
	}
	close(queue)
	pool.Wait()
	system.Shutdown()
	return err
}

// queueLen bounds the units a worker has taken and not started: a
// coordinator sends no more than Parallel at once, so only coordinators
// sharing a worker fill it.
const queueLen = 1024

// listenAddress splits host:port, checking that the port is free, so a
// bad address is an error rather than the remote's panic.
func listenAddress(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("--listen %q: not host:port: %v", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("--listen %q: the port must be a number in [0, 65535]", addr)
	}
	if port != 0 {
		lis, err := net.Listen("tcp", addr)
		if err != nil {
			return "", 0, fmt.Errorf("--listen %s: %v", addr, err)
		}
		lis.Close()
	}
	return host, port, nil
}

// job is a unit taken and whom to answer.
type job struct {
	unit  RunUnit
	reply *actor.PID
}

// workerActor is a worker's face to coordinators: it answers hellos and
// queues units for the worker's goroutines, refusing a coordinator of
// another version.
type workerActor struct {
	version   string
	parallel  int
	queue     chan<- job
	unhandled func(msg any)
}

// Receive is the worker's message switch.
func (w *workerActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *wrapperspb.BytesValue:
		w.handleMessage(ctx, msg)
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		w.report(msg) // not a clusteremu coordinator: nothing to answer it with
	}
}

// report tells of a message the worker ignores.
func (w *workerActor) report(msg any) {
	if w.unhandled != nil {
		w.unhandled(msg)
	}
}

func (w *workerActor) handleMessage(ctx actor.Context, msg *wrapperspb.BytesValue) {
	e, err := unwrap(msg)
	switch {
	case err != nil:
		w.report(err) // not a coordinator of any version: nothing to answer
	case e.Hello != nil:
		ctx.Respond(wrap(envelope{HelloAnswered: &HelloAnswered{Version: w.version, Parallel: w.parallel, Refused: w.refuse(e.Hello.Version)}}))
	case e.RunUnit != nil:
		w.handleRunUnit(ctx, e.RunUnit)
	default:
		w.report(msg)
	}
}

func (w *workerActor) handleRunUnit(ctx actor.Context, u *RunUnit) {
	if why := w.refuse(u.Version); why != "" {
		ctx.Respond(wrap(envelope{UnitFinished: &UnitFinished{Index: u.Index, Refused: why}}))
		return
	}
	w.queue <- job{unit: *u, reply: ctx.Sender()}
}

// refuse is why a coordinator of the given version is refused, or "".
func (w *workerActor) refuse(version string) string {
	if version == w.version {
		return ""
	}
	return fmt.Sprintf("this worker runs clusteremu %s, the coordinator %s: start workers from the coordinator's binary", w.version, version)
}
