package cluster

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/units"
)

// pinger bounces a ball with its peer until the count runs out; the last
// hit closes done when there is one.
type pinger struct {
	peer *actor.PID
	done chan struct{}
}

type ball struct{ left int }

func (p *pinger) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.PID:
		p.peer = m
	case *ball:
		if m.left == 0 {
			if p.done != nil {
				close(p.done)
			}
			return
		}
		ctx.Send(p.peer, &ball{m.left - 1})
	}
}

// BenchmarkPingPong reports one-in-flight ping-pong through the
// deterministic executor and through protoactor's default dispatcher;
// each op is one message.
func BenchmarkPingPong(b *testing.B) {
	b.Run("deterministic", func(b *testing.B) {
		r := NewRuntime(RunOptions{})
		x, _ := r.Spawn("x", func() actor.Actor { return &pinger{} })
		y, _ := r.Spawn("y", func() actor.Actor { return &pinger{} })
		r.Send(x, y)
		r.Send(y, x)
		r.Send(x, &ball{b.N})
		b.ResetTimer()
		r.Run()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
	})
	b.Run("concurrent", func(b *testing.B) {
		r := NewRuntime(RunOptions{Deterministic: new(false)})
		x, _ := r.Spawn("x", func() actor.Actor { return &pinger{} })
		y, _ := r.Spawn("y", func() actor.Actor { return &pinger{} })
		r.Send(x, y)
		r.Send(y, x)
		b.ResetTimer()
		r.Send(x, &ball{b.N})
		r.Run()
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
	})
	b.Run("protoactor-default", func(b *testing.B) {
		sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
			return slog.New(slog.NewTextHandler(io.Discard, nil))
		}))
		done := make(chan struct{})
		x := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &pinger{done: done} }))
		y := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &pinger{done: done} }))
		sys.Root.Send(x, y)
		sys.Root.Send(y, x)
		b.ResetTimer()
		sys.Root.Send(x, &ball{b.N})
		<-done
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
		sys.Root.Stop(x)
		sys.Root.Stop(y)
		sys.Shutdown()
	})
}

// heartbeater sends a heartbeat to the sink on every tick.
type heartbeater struct{ sink *actor.PID }

type beat struct{}

func (h *heartbeater) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*beat); ok {
		ctx.Send(h.sink, &beat{})
	}
}

// BenchmarkHeartbeatHour is 1,000 nodes heartbeating every 3 s to one
// coordinator for one emulated hour: 1.2 M timer messages and 1.2 M
// heartbeats per op, in virtual time.
func BenchmarkHeartbeatHour(b *testing.B) {
	for range b.N {
		r := NewRuntime(RunOptions{Until: units.Duration(time.Hour)})
		count := 0
		sink, _ := r.Spawn("coordinator", func() actor.Actor {
			return actor.ReceiveFunc(func(ctx actor.Context) {
				if _, ok := ctx.Message().(*beat); ok {
					count++
				}
			})
		})
		for i := range 1000 {
			pid, _ := r.Spawn(fmt.Sprintf("node-%d", i), func() actor.Actor { return &heartbeater{sink: sink} })
			phase := time.Duration(i+1) * 2 * time.Millisecond // in (0, 3 s): 1,200 beats each
			r.Clock().Every(phase, 3*time.Second, pid, &beat{})
		}
		r.Run()
		if count != 1_200_000 {
			b.Fatalf("%d heartbeats, want 1200000", count)
		}
	}
}

// BenchmarkScaledDrift runs one emulated minute at ×30 (2 s of wall time)
// with 100 nodes heartbeating every second, and reports how far the wall
// time strayed from 2 s, in percent, and the emulated time held back.
func BenchmarkScaledDrift(b *testing.B) {
	for range b.N {
		r := NewRuntime(RunOptions{Clock: Scaled, Speedup: 30, Until: units.Duration(time.Minute)})
		sink, _ := r.Spawn("coordinator", func() actor.Actor { return actor.ReceiveFunc(func(actor.Context) {}) })
		for i := range 100 {
			pid, _ := r.Spawn(fmt.Sprintf("node-%d", i), func() actor.Actor { return &heartbeater{sink: sink} })
			r.Clock().Every(time.Duration(i+1)*10*time.Millisecond, time.Second, pid, &beat{})
		}
		start := time.Now()
		res := r.Run()
		wall := time.Since(start)
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		b.ReportMetric(100*math.Abs(wall.Seconds()/2-1), "drift%")
		b.ReportMetric(res.Lag.Seconds()*1000, "lag-ms")
	}
}
