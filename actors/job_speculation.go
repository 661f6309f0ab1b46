package actors

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// A job manager's part of speculation: it feeds its job's speculation
// policy (straggler.Policy) the attempts' launches, reports and ends,
// asks it to decide on each report and every straggler.DecidePeriod, and
// carries out its actions: copies queued at the coordinator (QueueCopy,
// WithdrawCopy), kills relayed to the nodes. It also measures each
// attempt that finishes its task against its phase for the coordinator's
// slow nodes and blacklist (AttemptMeasured), and counts what the policy
// launched and what paid off (MetricSpeculated, MetricSpeculationWon).

// jobSpeculation is a job manager's speculation state.
type jobSpeculation struct {
	policy straggler.Policy // nil: no speculation
	timer  TimerID
	// measure: tell the coordinator each finishing attempt's rate ratio.
	measure bool
	// bytes are each task's input, from its launches; rates each
	// phase's finishing attempts' progress rates, sorted.
	bytes map[straggler.Task]int64
	rates [2][]float64
	// copies are the attempts launched as copies of running tasks;
	// moving the tasks the policy restarted whose new attempt, queued as
	// a copy, has not launched, with the restart's reason; restarts the
	// tasks restarted, with the earliest end the attempts killed for the
	// new one projected (0: none known yet).
	copies   map[sched.Attempt]bool
	moving   map[straggler.Task]string
	restarts map[straggler.Task]time.Duration
	// cloned are the tasks Dolly cloned, by kind: those numbered below
	// (ClonesAdmitted.Tasks).
	cloned [2]int32
}

// decideTick asks the policy to decide, every straggler.DecidePeriod.
type decideTick struct{}

func newJobSpeculation(policy straggler.Policy, measure bool) *jobSpeculation {
	return &jobSpeculation{policy: policy, measure: measure, bytes: make(map[straggler.Task]int64),
		copies: make(map[sched.Attempt]bool), moving: make(map[straggler.Task]string),
		restarts: make(map[straggler.Task]time.Duration)}
}

// jobView is the job as its speculation policy sees it.
type jobView struct{ s *jobState }

// Waiting implements straggler.View.
func (v jobView) Waiting(kind sched.TaskKind) int { return v.s.waiting(kind) }

func taskOf(a sched.Attempt) straggler.Task { return straggler.Task{Kind: a.Kind, Task: a.Task} }

// armDecide sets the next periodic decision.
func (m *JobManager) armDecide(ctx actor.Context) {
	if sp := m.speculation; sp != nil && sp.policy != nil && m.state.outcome == nil {
		sp.timer = m.deps.Clock.After(straggler.DecidePeriod, ctx.Self(), &decideTick{})
	}
}

// clonesAdmitted marks the tasks of a phase Dolly cloned: the policy's
// actions on them are passed over, and their clones are no speculative
// copies. A phase cloned partly (admission "fcfs") leaves the policy its
// other tasks.
func (m *JobManager) clonesAdmitted(msg *ClonesAdmitted) {
	if sp := m.speculation; sp != nil && msg.Copies >= 2 {
		sp.cloned[msg.Kind] = int32(msg.Tasks)
	}
}

// clonedTask reports whether Dolly cloned the task.
func (sp *jobSpeculation) clonedTask(t straggler.Task) bool { return t.Task < sp.cloned[t.Kind] }

// speculationLaunched books a launch for the policy. A restarted task's
// new attempt kills the others.
func (m *JobManager) speculationLaunched(ctx actor.Context, msg *TaskLaunched) {
	sp := m.speculation
	if sp == nil {
		return
	}
	k := taskOf(msg.Attempt)
	sp.bytes[k] = msg.Bytes
	if reason, moving := sp.moving[k]; moving && msg.Copy {
		delete(sp.moving, k)
		sp.restarts[k] = 0
		m.deps.Metrics.Count(MetricSpeculated, 1)
		for _, r := range m.state.running(k.Kind, k.Task) {
			if r.Attempt != msg.Attempt {
				m.dir.relay(ctx, r.Node, &KillTask{Attempt: r.Attempt, Reason: reason, Project: true})
			}
		}
	} else if msg.Copy && !sp.clonedTask(k) {
		sp.copies[msg.Attempt] = true
		m.deps.Metrics.Count(MetricSpeculated, 1)
	}
	if sp.policy != nil {
		sp.policy.Launched(m.deps.Clock.Now(), straggler.Launch{Attempt: msg.Attempt, Node: msg.Node, Bytes: msg.Bytes, Copy: msg.Copy})
	}
}

// speculationProgressed gives the policy a report.
func (m *JobManager) speculationProgressed(r *TaskProgress) {
	if m.speculation != nil && m.speculation.policy != nil {
		m.speculation.policy.Progressed(m.deps.Clock.Now(), straggler.Report{
			Attempt: r.Attempt, Score: r.Score, Read: inputRead(r), Start: r.Start, At: r.At})
	}
}

// inputRead is the share of its input a report says the attempt has read:
// a map's block while it reads, a reduce's map outputs while it copies,
// all of it after.
func inputRead(r *TaskProgress) float64 {
	if r.Phase == PhaseRead || r.Phase == PhaseCopy {
		return r.Fraction
	}
	return 1
}

// speculationEnded books an attempt's end; finished tells whether it
// finished its task (the first of the task's attempts to succeed).
func (m *JobManager) speculationEnded(ctx actor.Context, msg *TaskFinished, finished bool) {
	sp := m.speculation
	if sp == nil {
		return
	}
	now, k := m.deps.Clock.Now(), taskOf(msg.Attempt)
	if at, restarted := sp.restarts[k]; restarted && msg.Projected > 0 && (at == 0 || msg.Projected < at) {
		sp.restarts[k] = msg.Projected
	}
	if finished {
		delete(sp.moving, k) // a restart whose new attempt never launched
		won := sp.copies[msg.Attempt]
		if projected, restarted := sp.restarts[k]; restarted {
			won = won || projected > 0 && now < projected
			delete(sp.restarts, k)
		}
		if won {
			m.deps.Metrics.Count(MetricSpeculationWon, 1)
		}
		if sp.measure {
			ctx.Send(m.coordinator, &AttemptMeasured{Attempt: msg.Attempt, Node: msg.Node, RateRatio: sp.rateRatio(msg, now)})
		}
	}
	delete(sp.copies, msg.Attempt)
	if sp.policy != nil {
		sp.policy.Ended(now, straggler.End{Attempt: msg.Attempt, Outcome: msg.Outcome})
	}
}

// rateRatio is an attempt's progress rate, its task's input over its
// duration, over the median of its phase's so far, its own included.
func (sp *jobSpeculation) rateRatio(msg *TaskFinished, now time.Duration) float64 {
	d := max((now - msg.Start).Seconds(), 1e-9)
	rate := float64(max(sp.bytes[taskOf(msg.Attempt)], 1)) / d
	rates := &sp.rates[msg.Attempt.Kind]
	i, _ := slices.BinarySearch(*rates, rate)
	*rates = slices.Insert(*rates, i, rate)
	n := len(*rates)
	med := (*rates)[n/2]
	if n%2 == 0 {
		med = ((*rates)[n/2-1] + (*rates)[n/2]) / 2
	}
	return rate / med
}

// speculationLost books the attempts lost with a node.
func (m *JobManager) speculationLost(gone []sched.Attempt) {
	if m.speculation == nil || m.speculation.policy == nil {
		return
	}
	for _, a := range gone {
		m.speculation.policy.Ended(m.deps.Clock.Now(), straggler.End{Attempt: a, Outcome: sched.Killed})
	}
}

// decide asks the policy what to do and does it.
func (m *JobManager) decide(ctx actor.Context) {
	sp := m.speculation
	if sp == nil || sp.policy == nil || m.state.outcome != nil {
		return
	}
	for _, act := range sp.policy.Decide(m.deps.Clock.Now(), jobView{m.state}) {
		if sp.clonedTask(act.Task) || act.Kind == straggler.Kill && sp.clonedTask(taskOf(act.Attempt)) {
			continue // Dolly's clones mitigate its stragglers
		}
		switch act.Kind {
		case straggler.Duplicate:
			ctx.Send(m.coordinator, &QueueCopy{Job: m.id, Kind: act.Task.Kind, Task: act.Task.Task})
		case straggler.Withdraw:
			ctx.Send(m.coordinator, &WithdrawCopy{Job: m.id, Kind: act.Task.Kind, Task: act.Task.Task})
		case straggler.Kill:
			for _, r := range m.state.running(act.Attempt.Kind, act.Attempt.Task) {
				if r.Attempt == act.Attempt {
					m.dir.relay(ctx, r.Node, &KillTask{Attempt: r.Attempt, Reason: act.Reason})
				}
			}
		case straggler.Restart:
			if len(m.state.running(act.Task.Kind, act.Task.Task)) == 0 {
				continue
			}
			sp.moving[act.Task] = act.Reason
			ctx.Send(m.coordinator, &QueueCopy{Job: m.id, Kind: act.Task.Kind, Task: act.Task.Task})
		}
	}
}
