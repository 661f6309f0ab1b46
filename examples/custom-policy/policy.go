package custompolicy

import (
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// Name is the policy's scenario name: [scheduler] name = "backoff-fifo".
const Name = "backoff-fifo"

func init() { sched.Register(Name, DefaultParams, New) }

// Params are the policy's parameters in [scheduler]; it has none.
type Params struct{}

// DefaultParams returns the (empty) parameters.
func DefaultParams() *Params { return &Params{} }

// Validate implements sched.Params; there is nothing to check.
func (*Params) Validate() error { return nil }

// Fixed, when set, makes every policy built from then on ask the view on
// every offer instead of backing off. The example's tests set it from
// their -fixed flag, so that the fix runs on the same scenario, whose
// stored failures then replay against it.
var Fixed bool

// Policy is FIFO over its own queue of jobs. To save work on a busy
// cluster it backs a job off reduce slots once the view says the job
// has no reduce to run, until it hears that one of the job's maps ended:
// a job's reduces are released as its maps end, so that is the wake-up.
type Policy struct {
	queue []sched.JobID
	// asleep holds the jobs backed off reduce slots; only looked up,
	// never ranged over, so its order never reaches a decision.
	asleep map[sched.JobID]bool
	fixed  bool
}

// New builds the policy.
func New(*Params) (sched.Policy, error) {
	return &Policy{asleep: map[sched.JobID]bool{}, fixed: Fixed}, nil
}

// Name implements sched.Policy.
func (*Policy) Name() string { return Name }

// Submitted implements sched.Policy: the job joins the queue's tail.
func (p *Policy) Submitted(_ time.Duration, job sched.Job) { p.queue = append(p.queue, job.ID) }

// Ended implements sched.Policy: the job leaves the queue.
func (p *Policy) Ended(_ time.Duration, id sched.JobID) {
	p.queue = slices.DeleteFunc(p.queue, func(j sched.JobID) bool { return j == id })
	delete(p.asleep, id)
}

// Finished implements sched.Policy: a map that ended wakes its job.
//
// This is where the race lives. The coordinator hears of the map from the
// node's heartbeat; the job manager hears of it from the node's separate
// TaskFinished message and only then releases the job's reduces, in a
// message of its own. The policy assumes the release is there by the time
// the heartbeat is. When the heartbeat wins, the offers that follow it
// find no reduce, the job goes back to sleep, and when the job's last map
// was the one that ended, nothing wakes it again: its reduces never run
// and the run stalls.
func (p *Policy) Finished(_ time.Duration, f sched.Finish) {
	if f.Attempt.Kind == sched.Map {
		delete(p.asleep, f.Attempt.Job)
	}
}

// Assign implements sched.Policy: the slot goes to the first queued job,
// awake for reduces, with a task of the slot's kind pending.
func (p *Policy) Assign(_ time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	for _, id := range p.queue {
		if s.Kind == sched.Reduce && p.asleep[id] {
			continue
		}
		if loc, ok := v.BestLocality(id, s.Kind, s.Node); ok {
			return sched.Assignment{Job: id, Kind: s.Kind, MaxLocality: loc}, true
		}
		if s.Kind == sched.Reduce && !p.fixed {
			p.asleep[id] = true
		}
	}
	return sched.Assignment{}, false
}

// Launched, Heartbeat and Tick implement sched.Policy; the queue needs
// none of them.
func (*Policy) Launched(time.Duration, sched.Launch)              {}
func (*Policy) Heartbeat(time.Duration, sched.NodeID)             {}
func (*Policy) Tick(time.Duration, sched.View) []sched.Preemption { return nil }
