package straggler

import (
	"time"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// HadoopParams are "hadoop"'s parameters, Hadoop 1's speculative
// execution (JobInProgress's hasSpeculativeTask):
//
//	min_runtime = "60s" # a task runs this long before it may be copied
//	gap = 0.2           # its progress score this far below its phase's average
//	cap = 1.0           # copies running at once, a share of the slots
type HadoopParams struct {
	MinRuntime units.Duration `toml:"min_runtime"`
	Gap        float64        `toml:"gap"`
	CapShare   float64        `toml:"cap"`
}

// DefaultHadoopParams returns Hadoop 1's values: 60 s, 0.2, no cap.
func DefaultHadoopParams() *HadoopParams {
	return &HadoopParams{MinRuntime: units.Duration(time.Minute), Gap: 0.2, CapShare: 1}
}

// Validate implements Params.
func (p *HadoopParams) Validate() error {
	var c checks
	c.duration("min_runtime", p.MinRuntime)
	c.share("gap", p.Gap, true)
	c.share("cap", p.CapShare, false)
	return c.err()
}

// Cap implements Params.
func (p *HadoopParams) Cap() float64 { return p.CapShare }

// SlowNodes implements Params.
func (*HadoopParams) SlowNodes() float64 { return 0 }

// hadoop copies, once all of a phase's tasks have started, every task
// with a single attempt that has run min_runtime and whose progress score
// is gap below the average of its phase's tasks (a finished task counts
// 1, a running one its best attempt's score): "after all tasks have
// started, Hadoop uses slots that free up to duplicate any task that has
// read less data than the others" (thesis §4.5). Slots that free up take
// the copies: the coordinator launches them ahead of pending tasks,
// which a phase whose tasks have all started has none of.
type hadoop struct {
	book
	p HadoopParams
}

func newHadoop(p *HadoopParams, s Setup) Policy { return &hadoop{book: newBook(s), p: *p} }

// Name implements Policy.
func (*hadoop) Name() string { return "hadoop" }

// Decide implements Policy.
func (h *hadoop) Decide(now time.Duration, v View) []Action {
	var want []Task
	for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
		if !h.allStarted(kind, v) {
			continue
		}
		p := &h.phases[kind]
		avg := p.averageScore()
		for _, i := range p.live {
			t, k := &p.tasks[i], Task{kind, i}
			if !h.copyable(k, t) || len(t.attempts) != 1 {
				continue
			}
			a := t.attempts[0]
			if a.elapsed(now) >= h.p.MinRuntime.Std() && a.score < avg-h.p.Gap {
				want = append(want, k)
			}
		}
	}
	return h.sync(now, want, "hadoop: its progress is gap below its phase's average")
}

// averageScore is the mean progress over the phase's tasks: 1 for a
// finished task, the best attempt's score for a running one, 0 else.
func (p *phase) averageScore() float64 {
	if len(p.tasks) == 0 {
		return 0
	}
	sum := 0.0
	for i := range p.tasks {
		t := &p.tasks[i]
		if t.done {
			sum++
			continue
		}
		best := 0.0
		for _, a := range t.attempts {
			best = max(best, a.score)
		}
		sum += best
	}
	return sum / float64(len(p.tasks))
}
