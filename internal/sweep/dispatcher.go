package sweep

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// dispatcher is the coordinator's actor of one sweep. It hands units
// out as the ledger says, passes results on to Run, and hears from
// protoactor's remote, through its endpoint events, when the connection
// to a worker is lost. It only translates: the ledger decides.
//
// Loss is heard of through EndpointTerminatedEvent rather than by
// watching each worker's actor: the same event, from which the remote's
// endpoint watcher derives its Terminated messages, but without the
// watch's forwarding, which reads the remote's shutdown flag on a
// goroutine of its own and so races with a pool's Close.
type dispatcher struct {
	units   []RunUnit
	workers []worker
	ledger  *ledger
	events  chan<- event
	ended   bool // an error was sent: nothing more is handed out
}

// workerLost is the remote's word that the connection to a worker's
// address is gone.
type workerLost struct{ addr string }

func newDispatcher(units []RunUnit, workers []worker, events chan<- event) *dispatcher {
	capacities := make([]int, len(workers))
	for i, w := range workers {
		capacities[i] = w.parallel
	}
	d := &dispatcher{units: units, workers: workers, ledger: newLedger(len(units), capacities), events: events}
	for i, w := range workers {
		if w.lost {
			d.ledger.lose(i) // in an earlier sweep
		}
	}
	return d
}

// Receive is the dispatcher's message switch.
func (d *dispatcher) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		d.handleStarted(ctx)
	case *wrapperspb.BytesValue:
		d.handleAnswer(ctx, msg)
	case *workerLost:
		d.handleWorkerLost(ctx, msg)
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		d.end(fmt.Errorf("sweep: the dispatcher got an unexpected %T", msg))
	}
}

func (d *dispatcher) handleStarted(ctx actor.Context) {
	if d.ledger.live() == 0 {
		d.end(fmt.Errorf("every worker was lost: %d of %d units not run", d.ledger.left, len(d.units)))
	}
	for w := range d.workers {
		d.handOut(ctx, w)
	}
}

// handleAnswer takes a worker's UnitFinished.
func (d *dispatcher) handleAnswer(ctx actor.Context, msg *wrapperspb.BytesValue) {
	e, err := unwrap(msg)
	switch {
	case err != nil:
		d.end(err)
		return
	case e.UnitFinished == nil:
		d.end(fmt.Errorf("sweep: a worker sent something other than a unit's result"))
		return
	}
	f := e.UnitFinished
	switch {
	case f.Refused != "":
		d.end(fmt.Errorf("a worker refused %s: %s", d.describe(f.Index), f.Refused))
		return
	case len(f.Result) == 0:
		d.end(fmt.Errorf("a worker answered %s with neither a result nor a refusal", d.describe(f.Index)))
		return
	}
	if d.ledger.finish(f.Index) && !d.ended {
		d.events <- event{index: f.Index, result: f.Result, lost: -1}
	}
	for w := range d.workers {
		d.handOut(ctx, w)
	}
}

// handleWorkerLost takes a worker's loss: its units go to the others.
func (d *dispatcher) handleWorkerLost(ctx actor.Context, msg *workerLost) {
	for w := range d.workers {
		if d.workers[w].addr != msg.addr || d.ledger.workers[w].lost {
			continue
		}
		back := d.ledger.lose(w)
		if d.ended {
			return
		}
		d.events <- event{lost: w, units: back}
		if d.ledger.live() == 0 && !d.ledger.complete() {
			d.end(fmt.Errorf("every worker was lost: %d of %d units not run", d.ledger.left, len(d.units)))
			return
		}
		for v := range d.workers {
			d.handOut(ctx, v)
		}
	}
}

// handOut sends worker w the units the ledger gives it.
func (d *dispatcher) handOut(ctx actor.Context, w int) {
	if d.ended {
		return
	}
	for _, i := range d.ledger.hand(w) {
		ctx.Request(d.workers[w].pid, wrap(envelope{RunUnit: &d.units[i]}))
	}
}

// end sends Run the error that ends the sweep, once.
func (d *dispatcher) end(err error) {
	if d.ended {
		return
	}
	d.ended = true
	d.events <- event{err: err, lost: -1}
}

// describe names a unit in an error.
func (d *dispatcher) describe(i int) string {
	if i < 0 || i >= len(d.units) {
		return fmt.Sprintf("unit %d", i)
	}
	u := d.units[i]
	if u.Seed != 0 {
		return fmt.Sprintf("unit %d (%s, schedule seed %d)", i, u.Name, u.Seed)
	}
	return fmt.Sprintf("unit %d (%s)", i, u.Name)
}
