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
	"math"
	"time"

	"clusteremu/policies/sched"
)

// Name is the policy's scenario name.
const Name = "race-fifo"

func init() { sched.Register(Name, DefaultParams, New) }

// Params are the policy's parameters in [scheduler]: slow_start is the
// fraction of a job's maps that must finish before its reduces run, as
// tasks.slow_start; fixed asks the view instead.
type Params struct {
	SlowStart float64 `toml:"slow_start"`
	Fixed     bool    `toml:"fixed"`
}

// DefaultParams returns slow_start = 0.05, fixed = false.
func DefaultParams() *Params { return &Params{SlowStart: 0.05} }

// Validate implements sched.Params.
func (p *Params) Validate() error {
	if !(p.SlowStart >= 0 && p.SlowStart <= 1) {
		return &sched.ParamError{Key: "slow_start", Value: p.SlowStart, Msg: "must be a number in [0, 1]"}
	}
	return nil
}

// Policy is FIFO for maps, and for reduces FIFO with its own readiness
// test: planted-buggy unless fixed.
type Policy struct {
	*sched.FIFO
	slowStart float64
	fixed     bool
	order     []sched.Job
}

// New builds the policy from valid parameters.
func New(p *Params) (sched.Policy, error) {
	return &Policy{FIFO: sched.NewFIFO(), slowStart: p.SlowStart, fixed: p.Fixed}, nil
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
