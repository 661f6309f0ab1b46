package straggler

import (
	"math"
	"time"

	"clusteremu/policies/sched"
)

// DryadParams are "dryad"'s parameters, the Dryad and Cosmos policy the
// thesis measures Mantri against in production:
//
//	percentile = 0.75 # copy a task running longer than this quantile of its phase's finished tasks
//	cap = 1.0         # copies running at once, a share of the slots
type DryadParams struct {
	Percentile float64 `toml:"percentile"`
	CapShare   float64 `toml:"cap"`
}

// DefaultDryadParams returns Dryad's 75th percentile, no cap.
func DefaultDryadParams() *DryadParams { return &DryadParams{Percentile: 0.75, CapShare: 1} }

// Validate implements Params.
func (p *DryadParams) Validate() error {
	var c checks
	c.share("percentile", p.Percentile, false)
	c.share("cap", p.CapShare, false)
	return c.err()
}

// Cap implements Params.
func (p *DryadParams) Cap() float64 { return p.CapShare }

// SlowNodes implements Params.
func (*DryadParams) SlowNodes() float64 { return 0 }

// dryad copies once every task that has run longer than the percentile
// of its phase's finished task durations, once all of the phase's tasks
// have started: Dryad "duplicates those that have been running for
// longer than the 75th percentile of task durations", one of the
// "current approaches" that act "only ... at the end of a phase", choosing
// among "the tasks that remain" (thesis §4.5), as Hadoop and LATE do
// after all tasks have started. While tasks still wait it would copy
// every large task of a skewed phase as soon as the small ones had
// finished, their durations setting the percentile.
type dryad struct {
	book
	p      DryadParams
	copied map[Task]bool
}

func newDryad(p *DryadParams, s Setup) Policy {
	return &dryad{book: newBook(s), p: *p, copied: map[Task]bool{}}
}

// Name implements Policy.
func (*dryad) Name() string { return "dryad" }

// Launched implements Policy: a task gets one copy.
func (d *dryad) Launched(now time.Duration, l Launch) {
	if l.Copy {
		d.copied[Task{l.Attempt.Kind, l.Attempt.Task}] = true
	}
	d.book.Launched(now, l)
}

// Decide implements Policy.
func (d *dryad) Decide(now time.Duration, v View) []Action {
	var want []Task
	for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
		p := &d.phases[kind]
		if len(p.durations) == 0 || !d.allStarted(kind, v) {
			continue
		}
		q := p.durations[max(int(math.Ceil(d.p.Percentile*float64(len(p.durations))))-1, 0)]
		for _, i := range p.live {
			t, k := &p.tasks[i], Task{kind, i}
			if d.copyable(k, t) && len(t.attempts) == 1 && !d.copied[k] && t.attempts[0].elapsed(now).Seconds() > q {
				want = append(want, k)
			}
		}
	}
	return d.sync(now, want, "dryad: running past the phase's percentile")
}
