package cluster

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

// hub sends a task to every worker and starts the next wave when all have
// replied; it closes done, when there is one, after the last wave.
type hub struct {
	workers       []*actor.PID
	left, waiting int
	done          chan struct{}
}

type (
	wave   struct{ left int }
	task   struct{}
	answer struct{}
)

func (h *hub) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case []*actor.PID:
		h.workers = m
	case *wave:
		h.left = m.left
		h.next(ctx)
	case *answer:
		if h.waiting--; h.waiting == 0 {
			h.next(ctx)
		}
	}
}

func (h *hub) next(ctx actor.Context) {
	if h.left == 0 {
		if h.done != nil {
			close(h.done)
		}
		return
	}
	h.left--
	h.waiting = len(h.workers)
	for _, w := range h.workers {
		ctx.Send(w, &task{})
	}
}

// worker answers every task to the hub.
type worker struct{ hub *actor.PID }

func (w *worker) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*task); ok {
		ctx.Send(w.hub, &answer{})
	}
}

const fanWorkers = 100

// startFanOut spawns a hub and its workers with spawn and starts enough
// waves for about b.N messages (two per worker and wave).
func startFanOut(b *testing.B, spawn func(string, actor.Producer) *actor.PID, send func(*actor.PID, any), done chan struct{}) {
	h := spawn("hub", func() actor.Actor { return &hub{done: done} })
	ws := make([]*actor.PID, fanWorkers)
	for i := range ws {
		ws[i] = spawn(fmt.Sprintf("w%d", i), func() actor.Actor { return &worker{hub: h} })
	}
	send(h, ws)
	b.ResetTimer()
	send(h, &wave{max(1, b.N/(2*fanWorkers))})
}

// BenchmarkFanOutFanIn reports waves of 100 tasks and 100 answers through
// the deterministic executor, the concurrent dispatcher and raw
// protoactor; each op is one message.
func BenchmarkFanOutFanIn(b *testing.B) {
	onRuntime := func(opts RunOptions) func(*testing.B) {
		return func(b *testing.B) {
			r := NewRuntime(opts)
			spawn := func(name string, p actor.Producer) *actor.PID { pid, _ := r.Spawn(name, p); return pid }
			startFanOut(b, spawn, r.Send, nil)
			r.Run()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
		}
	}
	b.Run("deterministic", onRuntime(RunOptions{}))
	b.Run("concurrent", onRuntime(RunOptions{Deterministic: new(false)}))
	b.Run("protoactor-default", func(b *testing.B) {
		sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}))
		var pids []*actor.PID
		spawn := func(_ string, p actor.Producer) *actor.PID {
			pid := sys.Root.Spawn(actor.PropsFromProducer(p))
			pids = append(pids, pid)
			return pid
		}
		done := make(chan struct{})
		startFanOut(b, spawn, sys.Root.Send, done)
		<-done
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
		for _, pid := range pids {
			sys.Root.Stop(pid)
		}
		sys.Shutdown()
	})
}
