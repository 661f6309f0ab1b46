package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// JobManager runs one job (the ApplicationMaster): it tracks the job's
// tasks and attempts, releases reduces at slow-start, tells reducers where
// map outputs are, re-runs what a lost node took with it, and reports the
// job's end. The coordinator stops it once the job has ended.
type JobManager struct {
	id          sched.JobID
	spec        workload.JobSpec
	coordinator *actor.PID
	dir         *Directory
	deps        Deps
	state       *jobState
	first       time.Duration // first launch; -1 before
	// setup is the job's initialisation before its tasks become
	// runnable (Hadoop's job setup: reading the splits, the setup task).
	setup time.Duration
	// reportMaps: tell the coordinator when the map phase ends
	// (MapsFinished), for compute-aware reducer placement.
	reportMaps bool
	// evictions counts the times the job's map outputs were evicted, and
	// evictedMaps the finished maps that had to run again.
	evictions, evictedMaps int
	// progress holds each running attempt's latest progress report.
	progress map[sched.Attempt]AttemptProgress
	// lost are the attempts booked as lost with their node whose own
	// report may still come, from a node cut off by a partition: it is
	// stale when it does.
	lost map[sched.Attempt]bool
	// ended are the attempts whose end it booked, when each may be
	// reported twice: by its node and by the coordinator
	// (HeartbeatConfig.Reliable).
	ended map[sched.Attempt]bool
	// speculation is the job's speculation (job_speculation.go), nil
	// when the run neither speculates nor measures nodes.
	speculation *jobSpeculation
}

// AttemptProgress is what a job manager knows of a running attempt's
// progress: its latest report and the progress rate it gives, score per
// second since the attempt's launch (LATE's and Mantri's rate).
type AttemptProgress struct {
	TaskProgress
	Rate float64
}

// setupDone makes the job's tasks runnable after its setup.
type setupDone struct{}

// NewJobManager returns a job manager's state. Maps is the job's map count
// at the cluster's block size.
func NewJobManager(id sched.JobID, spec workload.JobSpec, maps int, slowStart float64, maxAttempts int,
	coordinator *actor.PID, dir *Directory, deps Deps) *JobManager {
	return &JobManager{
		id: id, spec: spec, coordinator: coordinator, dir: dir, deps: deps,
		state: newJobState(id, maps, spec.Reduces, slowStart, maxAttempts),
		first: -1, progress: make(map[sched.Attempt]AttemptProgress), lost: make(map[sched.Attempt]bool),
	}
}

// Receive implements actor.Actor.
func (m *JobManager) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		if m.setup > 0 {
			m.deps.Clock.After(m.setup, ctx.Self(), &setupDone{})
			return
		}
		m.apply(ctx, m.state.start())
		m.armDecide(ctx)
	case *setupDone:
		if m.state.outcome == nil {
			m.apply(ctx, m.state.start())
			m.armDecide(ctx)
		}
	case *decideTick:
		m.decide(ctx)
		m.armDecide(ctx)
	case *TaskLaunched:
		m.handleLaunched(ctx, msg)
	case *TaskFinished:
		m.handleFinished(ctx, msg)
	case *TaskProgress:
		m.handleProgress(msg)
		m.speculationProgressed(msg)
		m.decide(ctx)
	case *NodeLost:
		m.handleNodeLost(ctx, msg)
	case *EvictOutputs:
		fx, lost := m.state.evicted()
		m.evictions++
		m.evictedMaps += lost
		m.deps.Metrics.JobUpdated(m.record())
		m.apply(ctx, fx)
	case *FailJob:
		m.fail(ctx, msg.Reason)
	case *FetchFailed:
		fx, rerun := m.state.fetchFailed(msg.Node, msg.Maps)
		m.deps.Metrics.Count(MetricMapsRerunFetch, int64(rerun))
		m.apply(ctx, fx)
	case *ResyncJob:
		if m.state.outcome == nil {
			ctx.Send(m.coordinator, m.state.resynced())
		}
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		m.deps.Fail(fmt.Errorf("job manager %d: unhandled message %T", m.id, msg))
	}
}

func (m *JobManager) handleLaunched(ctx actor.Context, msg *TaskLaunched) {
	if m.first < 0 {
		m.first = m.deps.Clock.Now()
		m.deps.Metrics.JobUpdated(m.record())
	}
	fx, err := m.state.launched(msg.Attempt, msg.Node)
	m.check(err)
	m.speculationLaunched(msg)
	m.apply(ctx, fx)
}

// handleProgress keeps an attempt's latest progress report, for whatever
// decides speculation (Progress).
func (m *JobManager) handleProgress(msg *TaskProgress) {
	p := rated(*msg)
	m.progress[msg.Attempt] = p
	m.deps.Metrics.AttemptProgressed(p)
}

// rated is a report with its progress rate: score per second since the
// attempt's launch (0 at the launch itself).
func rated(r TaskProgress) AttemptProgress {
	p := AttemptProgress{TaskProgress: r}
	if held := (r.At - r.Start).Seconds(); held > 0 {
		p.Rate = r.Score / held
	}
	return p
}

// Progress returns an attempt's latest progress report, if it has sent
// one and is still running.
func (m *JobManager) Progress(a sched.Attempt) (AttemptProgress, bool) {
	p, ok := m.progress[a]
	return p, ok
}

func (m *JobManager) handleFinished(ctx actor.Context, msg *TaskFinished) {
	if m.ended != nil {
		if m.ended[msg.Attempt] {
			return // its other report came first
		}
		m.ended[msg.Attempt] = true
	}
	if m.lost[msg.Attempt] {
		delete(m.lost, msg.Attempt)
		m.deps.Metrics.Count(MetricStaleReports, 1)
		return
	}
	if last, reported := m.progress[msg.Attempt]; reported {
		delete(m.progress, msg.Attempt)
		if msg.Outcome == sched.Succeeded {
			// A succeeded attempt is done: its progress ends at 1.
			last.Fraction, last.Score, last.At = 1, 1, m.deps.Clock.Now()
			m.deps.Metrics.AttemptProgressed(rated(last.TaskProgress))
		}
	}
	var fx effects
	var err error
	finished := msg.Outcome == sched.Succeeded && !m.state.done(msg.Attempt)
	if msg.Outcome == sched.Succeeded {
		fx, err = m.state.succeeded(msg.Attempt, msg.OutputBytes)
	} else {
		fx, err = m.state.ended(msg.Attempt, msg.Outcome, msg.Reason)
	}
	m.check(err)
	m.speculationEnded(ctx, msg, finished && err == nil)
	m.apply(ctx, fx)
	m.decide(ctx)
}

func (m *JobManager) handleNodeLost(ctx actor.Context, msg *NodeLost) {
	fx, gone := m.state.nodeLost(msg.Node)
	m.speculationLost(gone)
	m.deps.Metrics.Count(MetricMapsRerunNodeLost, int64(len(fx.lost)))
	now := m.deps.Clock.Now()
	for _, a := range gone {
		// The node took the attempt with it, or was cut off from the
		// cluster with it; a report that comes after is stale.
		m.lost[a] = true
		m.deps.Metrics.AttemptEnded(AttemptRecord{
			Attempt: a, Node: msg.Node, Start: -1, End: now, Outcome: sched.Killed, Reason: ReasonNodeLost,
		})
	}
	m.apply(ctx, fx)
}

func (m *JobManager) check(err error) {
	if err != nil {
		m.deps.Fail(fmt.Errorf("job manager %d: %w", m.id, err))
	}
}

// apply carries out a state change's effects as messages. Once the job is
// over, re-runs are no longer asked for.
func (m *JobManager) apply(ctx actor.Context, fx effects) {
	over := m.state.outcome != nil && fx.ended == nil
	if !over && fx.mapsFinished && m.reportMaps {
		ctx.Send(m.coordinator, &MapsFinished{Job: m.id})
	}
	if !over && (len(fx.requeueMaps) > 0 || len(fx.requeueReduces) > 0) {
		ctx.Send(m.coordinator, &RequeueTasks{Job: m.id, Maps: fx.requeueMaps, Reduces: fx.requeueReduces})
	}
	if !over && (len(fx.announce) > 0 || len(fx.lost) > 0) {
		// Each reduce attempt gets its news after its LaunchTask: see
		// MapOutputs.
		for _, r := range fx.reducers {
			m.dir.relay(ctx, r.Node, &MapOutputs{Reduce: r.Attempt, Outputs: toMessages(fx.announce), Lost: fx.lost})
		}
	}
	for _, r := range fx.kill {
		m.dir.relay(ctx, r.Node, &KillTask{Attempt: r.Attempt, Reason: "another attempt of the task succeeded"})
	}
	for _, r := range fx.waste {
		m.dir.relay(ctx, r.Node, &KillTask{Attempt: r.Attempt, Reason: "a copy launched after its task ended"})
	}
	if fx.ended != nil {
		m.end(ctx, fx.ended)
	}
}

func toMessages(outs []mapOutput) []MapOutput {
	msgs := make([]MapOutput, len(outs))
	for i, o := range outs {
		msgs[i] = MapOutput(o)
	}
	return msgs
}

func (m *JobManager) fail(ctx actor.Context, reason string) {
	if m.state.outcome != nil {
		return
	}
	m.state.outcome = &jobOutcome{Reason: reason}
	m.end(ctx, m.state.outcome)
}

// record is the job's record so far.
func (m *JobManager) record() JobRecord {
	rec := submittedRecord(m.id, m.spec, len(m.state.maps), len(m.state.reduces))
	rec.Start = m.first
	rec.Evictions, rec.EvictedMaps = m.evictions, m.evictedMaps
	return rec
}

// end records the job and tells the coordinator, which kills whatever of
// the job still runs.
func (m *JobManager) end(ctx actor.Context, o *jobOutcome) {
	if m.speculation != nil && m.speculation.timer != 0 {
		m.deps.Clock.Cancel(m.speculation.timer)
	}
	rec := m.record()
	rec.Finish = m.deps.Clock.Now()
	rec.Succeeded, rec.Reason = o.Succeeded, o.Reason
	m.deps.Metrics.JobEnded(rec)
	ctx.Send(m.coordinator, &JobEnded{Job: m.id, Succeeded: o.Succeeded, Reason: o.Reason})
}
