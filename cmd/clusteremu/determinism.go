package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// lookBack is how many agreeing deliveries a divergence report shows
// before the first that differs.
const lookBack = 8

// checkDeterminism runs the scenario twice at once and compares them
// delivery by delivery, as they go: the second run's deliveries wait in a
// channel for the first's to meet them, so the check holds a window of
// the runs, not their logs, and stops both at the first step where they
// part. Two runs that agree on every delivery must agree on every metric
// too; a message's contents that differ show as soon as they change what
// is delivered next. It returns the exit code.
func checkDeterminism(sc *scenarios.Scenario, stdout, stderr io.Writer) int {
	if err := needsDeterministic(sc, "run --check-determinism"); err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitUsage
	}
	cfg := sc.Config
	cfg.Run.Slowdown = false // the reference runs are runs of their own
	cmp := newLockstep()
	cfgA, cfgB := cfg, cfg
	cfgA.Run.OnEvent, cfgB.Run.OnEvent = cmp.meet, cmp.send
	first, err := cluster.Build(cfgA)
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	cmp.interrupt(first)
	endWatch := onInterrupt(stderr, func() { cmp.interrupted.Store(true); cmp.stop() })
	var wg sync.WaitGroup
	var b runOutcome
	wg.Go(func() { // a run is built on the goroutine that runs it
		defer close(cmp.events)
		second, err := cluster.Build(cfgB)
		if err != nil {
			b = outcomeOf(nil, err)
			return
		}
		cmp.interrupt(second)
		b = outcomeOf(second.Run())
	})
	a := outcomeOf(first.Run())
	cmp.finish()
	wg.Wait()
	endWatch()
	return cmp.report(stdout, a, b)
}

// lockstep compares two runs' deliveries as they happen.
type lockstep struct {
	events   chan cluster.Event // the second run's deliveries
	done     chan struct{}      // closed when the check stops reading
	mu       sync.Mutex
	stopped  bool
	runs     []*cluster.Cluster // to interrupt when the runs part
	recent   []cluster.Event    // the last agreeing deliveries, oldest first
	agreed   uint64
	diverged bool
	a, b     *cluster.Event // the deliveries that differ; nil: that run had ended
	// interrupted: Ctrl-C stopped the check, which proves nothing.
	interrupted atomic.Bool
}

func newLockstep() *lockstep {
	return &lockstep{events: make(chan cluster.Event, 4096), done: make(chan struct{})}
}

// interrupt adds a run to stop when the check stops; one added after it
// stopped is stopped at once.
func (l *lockstep) interrupt(c *cluster.Cluster) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs = append(l.runs, c)
	if l.stopped {
		c.Interrupt()
	}
}

// send passes one of the second run's deliveries on, unless the check
// has stopped reading.
func (l *lockstep) send(e cluster.Event) {
	select {
	case l.events <- e:
	case <-l.done:
	}
}

// meet compares one of the first run's deliveries with the second's.
func (l *lockstep) meet(a cluster.Event) {
	if l.diverged {
		return
	}
	b, ok := <-l.events
	if ok && a == b {
		l.agreed++
		if l.recent = append(l.recent, a); len(l.recent) > lookBack {
			l.recent = l.recent[1:]
		}
		return
	}
	l.diverged, l.a = true, &a
	if ok {
		l.b = &b
	}
	l.stop()
}

// stop ends both runs and lets the second stop sending.
func (l *lockstep) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.stopped = true
	close(l.done)
	for _, c := range l.runs {
		c.Interrupt()
	}
}

// finish is called when the first run has ended: a delivery of the
// second's still to come is one the first never made.
func (l *lockstep) finish() {
	if !l.diverged && !l.interrupted.Load() {
		if b, ok := <-l.events; ok {
			l.diverged, l.b = true, &b
		}
	}
	l.stop()
	for range l.events { // let the second run end
	}
}

// runOutcome is how a run ended, as the check compares it.
type runOutcome struct {
	summary cluster.Summary
	end     string
}

func outcomeOf(rep *cluster.Report, err error) runOutcome {
	var o runOutcome
	if rep != nil {
		o.summary, o.end = rep.Summary, fmt.Sprintf("%s at %v", rep.End.Reason, rep.End.At)
	}
	if err != nil {
		o.end += ": " + err.Error()
	}
	return o
}

// report prints the verdict and returns the exit code: 0 when the runs
// agree, 1 when they part.
func (l *lockstep) report(w io.Writer, a, b runOutcome) int {
	if l.interrupted.Load() && !l.diverged {
		fmt.Fprintf(w, "interrupted: the two runs agreed on their first %d deliveries\n", l.agreed)
		return exitInterrupted
	}
	if l.diverged {
		step := l.agreed + 1
		fmt.Fprintf(w, "not deterministic: the two runs part at step %d\n", step)
		fmt.Fprintf(w, "  first run:  %s\n", describeEvent(l.a))
		fmt.Fprintf(w, "  second run: %s\n", describeEvent(l.b))
		if len(l.recent) > 0 {
			fmt.Fprintln(w, "the deliveries before it, the same in both:")
			for i := range l.recent {
				fmt.Fprintf(w, "  %s\n", describeEvent(&l.recent[i]))
			}
		}
		fmt.Fprintln(w, "a Go map's order reaching a decision, a wall-clock read or a shared random source is the usual cause; replay the step with --out DIR --events")
		return exitFailed
	}
	if names := differingMetrics(a.summary, b.summary); len(names) > 0 || a.end != b.end {
		fmt.Fprintf(w, "not deterministic: the two runs agree on all %d deliveries but end apart (%s against %s; metrics that differ: %v)\n",
			l.agreed, a.end, b.end, names)
		return exitFailed
	}
	fmt.Fprintf(w, "deterministic: two runs agree on all %d deliveries and on every metric (%d), ending %s\n",
		l.agreed, len(a.summary), a.end)
	return 0
}

// describeEvent prints a delivery, or that the run had none left.
func describeEvent(e *cluster.Event) string {
	if e == nil {
		return "no delivery: the run had ended"
	}
	return fmt.Sprintf("step %d at %v: %s from %s to %s", e.Step, e.At, e.Type, e.Sender, e.Receiver)
}

// differingMetrics are the names whose values differ, or that one summary
// lacks, in name order.
func differingMetrics(a, b cluster.Summary) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(a)) {
		if v, ok := b[name]; !ok || !sameValue(v, a[name]) {
			out = append(out, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// sameValue compares two metric values bit for bit, NaN equal to NaN.
func sameValue(x, y float64) bool { return x == y || (x != x && y != y) }
