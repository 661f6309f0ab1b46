// Package race is the worked example of `clusteremu explore`: a FIFO
// policy with a planted race between two messages that travel separately,
// the scenario that exposes it, and the fix. README.md walks through it.
//
// The policy launches a job's reduces itself once the job's slow-start
// fraction of maps has finished, judging that from the finished maps the
// coordinator has booked. The coordinator books a map when the node's
// heartbeat reports it; but reduces become runnable only when the job
// manager releases them, and the job manager hears of the map from the
// node's TaskFinished message. The two messages leave the node separately
// (the heartbeat on its next tick) and cross the control network with
// their own delays. Usually TaskFinished arrives first. When the heartbeat
// wins, the policy assigns a reduce the job manager has not released, and
// the coordinator fails the run: the policy named a job with no such task.
//
// The fix (parameter fixed = true) asks the coordinator's view whether
// the job has a pending reduce for the node instead of counting maps.
package race

import (
	"fmt"
	"math"
	"time"

	"clusteremu/policies/sched"
)

// Name is the policy's scenario name.
const Name = "race-fifo"

func init() { sched.Register(Name, New) }

// Policy is FIFO for maps, and for reduces FIFO with its own readiness
// test: planted-buggy unless fixed.
type Policy struct {
	*sched.FIFO
	slowStart float64
	fixed     bool
	order     []sched.Job
}

// New builds the policy from [scheduler]: slow_start (the fraction of a
// job's maps that must finish before its reduces run, as tasks.slow_start;
// default 0.05) and fixed (default false).
func New(params map[string]any) (sched.Policy, error) {
	p := &Policy{FIFO: sched.NewFIFO(), slowStart: 0.05}
	for k, v := range params {
		switch k {
		case "slow_start":
			f, ok := v.(float64)
			if i, isInt := v.(int64); isInt {
				f, ok = float64(i), true
			}
			if !ok || !(f >= 0 && f <= 1) {
				return nil, fmt.Errorf("scheduler.slow_start = %v: must be a number in [0, 1]", v)
			}
			p.slowStart = f
		case "fixed":
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("scheduler.fixed = %v: must be true or false", v)
			}
			p.fixed = b
		default:
			return nil, fmt.Errorf("scheduler.%s: unknown parameter of %s; allowed: slow_start, fixed", k, Name)
		}
	}
	return p, nil
}

// Name implements sched.Policy.
func (*Policy) Name() string { return Name }

// Submitted implements sched.Policy.
func (p *Policy) Submitted(now time.Duration, job sched.Job) {
	p.FIFO.Submitted(now, job)
	p.order = append(p.order, job)
}

// Ended implements sched.Policy.
func (p *Policy) Ended(now time.Duration, id sched.JobID) {
	p.FIFO.Ended(now, id)
	for i, j := range p.order {
		if j.ID == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
}

// Assign implements sched.Policy: maps as FIFO does; a reduce slot to the
// first job whose reduces look ready.
func (p *Policy) Assign(now time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	if s.Kind == sched.Map {
		return p.FIFO.Assign(now, v, s)
	}
	for _, j := range p.order {
		st, ok := v.Job(j.ID)
		if ok && p.reducesReady(v, st, s.Node) {
			return sched.Assignment{Job: j.ID, Kind: sched.Reduce, MaxLocality: sched.OffRack}, true
		}
	}
	return sched.Assignment{}, false
}

// reducesReady is where the race lives.
func (p *Policy) reducesReady(v sched.View, st sched.JobStatus, node sched.NodeID) bool {
	if p.fixed {
		// The job manager's release is the truth: ask the view.
		_, ok := v.BestLocality(st.ID, sched.Reduce, node)
		return ok
	}
	// BUG: the coordinator's count of finished maps runs ahead of the
	// job manager's whenever a heartbeat beats a TaskFinished message.
	need := int(math.Ceil(p.slowStart * float64(st.Maps)))
	return st.FinishedMaps >= need && st.RunningReduces+st.FinishedReduces < st.Reduces
}
