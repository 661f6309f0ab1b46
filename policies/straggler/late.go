package straggler

import (
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// LATEParams are "late"'s parameters (Zaharia et al., OSDI 2008, as
// Ananthanarayanan's thesis uses it):
//
//	slow_task = 0.25    # a task's rate in the slowest quarter of its phase's
//	slow_node = 0.25    # no copy on the slowest quarter of the nodes
//	cap = 0.1           # copies running at once, a share of the slots
//	early = false       # Early-LATE: act while tasks still wait
//	min_runtime = "60s" # a task runs this long before its rate is judged
type LATEParams struct {
	SlowTask   float64        `toml:"slow_task"`
	SlowNode   float64        `toml:"slow_node"`
	CapShare   float64        `toml:"cap"`
	Early      bool           `toml:"early"`
	MinRuntime units.Duration `toml:"min_runtime"`
}

// DefaultLATEParams returns LATE's thresholds: 25%, 25%, a cap of 10%,
// not early, a minute.
func DefaultLATEParams() *LATEParams {
	return &LATEParams{SlowTask: 0.25, SlowNode: 0.25, CapShare: 0.1, MinRuntime: units.Duration(time.Minute)}
}

// Validate implements Params.
func (p *LATEParams) Validate() error {
	var c checks
	c.share("slow_task", p.SlowTask, false)
	c.share("slow_node", p.SlowNode, true)
	c.share("cap", p.CapShare, false)
	c.duration("min_runtime", p.MinRuntime)
	return c.err()
}

// Cap implements Params.
func (p *LATEParams) Cap() float64 { return p.CapShare }

// SlowNodes implements Params.
func (p *LATEParams) SlowNodes() float64 { return p.SlowNode }

// late copies, per phase, the one task with the longest estimated time
// left, (1 − score) / rate with the rate score per second since launch,
// among the tasks with a single attempt whose rate is at or below the
// slow_task quantile of the phase's running attempts: LATE "duplicates
// only those reading at a slow rate" and, once all tasks have started,
// the one that would finish last. Early-LATE is the same while tasks
// still wait. The coordinator keeps copies within cap and off the
// slow_node share of the slowest nodes.
type late struct {
	book
	p     LATEParams
	rates []float64 // Decide's scratch space
}

func newLATE(p *LATEParams, s Setup) Policy { return &late{book: newBook(s), p: *p} }

// Name implements Policy.
func (l *late) Name() string {
	if l.p.Early {
		return "early-late"
	}
	return "late"
}

// Decide implements Policy.
func (l *late) Decide(now time.Duration, v View) []Action {
	var want []Task
	for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
		if !l.p.Early && !l.allStarted(kind, v) {
			continue
		}
		if k, ok := l.slowest(now, kind); ok {
			want = append(want, k)
		}
	}
	return l.sync(now, want, "late: the longest time left among the slow tasks")
}

// slowest is the phase's task to copy, if any.
func (l *late) slowest(now time.Duration, kind sched.TaskKind) (Task, bool) {
	p := &l.phases[kind]
	rates := l.rates[:0]
	defer func() { l.rates = rates[:0] }()
	for _, i := range p.live {
		for _, a := range p.tasks[i].attempts {
			if a.reports > 0 && a.elapsed(now) >= l.p.MinRuntime.Std() {
				rates = append(rates, a.sinceLaunch())
			}
		}
	}
	if len(rates) == 0 {
		return Task{}, false
	}
	slices.Sort(rates)
	threshold := rates[max(int(math.Ceil(l.p.SlowTask*float64(len(rates))))-1, 0)]
	best, left := Task{}, -1.0
	for _, i := range p.live {
		t, k := &p.tasks[i], Task{kind, i}
		if !l.copyable(k, t) || len(t.attempts) != 1 {
			continue
		}
		a := t.attempts[0]
		r := a.sinceLaunch()
		if a.reports == 0 || a.elapsed(now) < l.p.MinRuntime.Std() || r > threshold {
			continue
		}
		timeLeft := math.Inf(1)
		if r > 0 {
			timeLeft = (1 - a.score) / r
		}
		if timeLeft > left {
			best, left = k, timeLeft
		}
	}
	return best, left >= 0
}
