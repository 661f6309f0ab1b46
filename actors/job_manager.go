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
	admitted    time.Duration // when the coordinator admitted the job
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
	// sent is the stage progress by kind last sent to the coordinator
	// (JobProgressed); nil sends none, as for a policy that does not read
	// it (sched.NeedsProgress).
	sent *[2]float64
	// ended are the attempts whose end it booked, when each may be
	// reported twice: by its node and by the coordinator
	// (HeartbeatConfig.Reliable).
	ended map[sched.Attempt]bool
	// speculation is the job's speculation (job_speculation.go), nil
	// when the run neither speculates nor measures nodes.
	speculation *jobSpeculation
	// waves measures the job's wave-width for the cache directory, nil
	// without a cache.
	waves *waveWidth
	// inputFiles are the files the job reads when it reads several.
	inputFiles []FileRead
	// placement places the job's reduces by rack (job_placement.go),
	// asking the fabric for its links; nil when reduces go anywhere.
	placement *reducePlacement
	fabric    *actor.PID
	// reportLosses: tell the coordinator of the outputs re-run because
	// they could not be fetched, under [intermediate_loss]
	// (job_recompute.go).
	reportLosses bool
	// protect copies outputs to rack-mates (job_recompute.go); nil
	// without tasks.protect_outputs.
	protect *outputProtection
	// measureClones: measure the job's cloned maps and its reduces for
	// delay assignment's ω (ClonesMeasured).
	measureClones bool
	clonesSeen    *cloneSamples
	// events batches the news of finished maps for the running reducers
	// (job_events.go); nil relays each as its map ends.
	events *mapEvents
}

// waveWidth is a job's wave-width over its map phase, PACMan's Σ w·t(w):
// the time-weighted mean number of its maps running at once, from the
// first map's launch to the last one's end. The thesis samples the
// running tasks every second; here the integral is exact, summed at each
// launch and end the job manager hears of.
type waveWidth struct {
	files   []string // the job's input files: each gets the job's width
	running int
	first   time.Duration // the first launch; -1 before
	last    time.Duration // the last change
	area    float64       // Σ running × seconds
	ended   bool          // the map phase ended: every map finished
}

// change books a map attempt launched (+1) or ended (−1) at now.
func (w *waveWidth) change(now time.Duration, delta int) {
	if w.ended {
		return
	}
	if w.first < 0 && delta > 0 {
		w.first = now
	}
	if w.first >= 0 {
		w.area += float64(w.running) * (now - w.last).Seconds()
	}
	w.running += delta
	w.last = now
}

// width is the measured wave-width, 0 when nothing ran.
func (w *waveWidth) width() float64 {
	if w.first < 0 || w.last <= w.first {
		return 0
	}
	return w.area / (w.last - w.first).Seconds()
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
		m.handleProgress(ctx, msg)
		m.speculationProgressed(msg)
		m.decide(ctx)
	case *NodeLost:
		m.handleNodeLost(ctx, msg)
	case *ClonesAdmitted:
		m.clonesAdmitted(msg)
		m.apply(ctx, m.state.accessAdmitted(msg))
	case *mapEventsDue:
		m.flushEvents(ctx)
	case *omegaDue:
		if m.state.outcome == nil {
			m.apply(ctx, m.state.omegaExpired(msg.Map))
		}
	case *RackLinksMeasured:
		m.handleRackLinks(ctx, msg)
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
		m.reportLost(ctx, msg.Node, rerun, m.state.copiesFailed(msg.Node, msg.Served))
		m.apply(ctx, fx)
	case *NodeSuspected:
		m.handleNodeSuspected(ctx, msg)
	case *OutputReplicated:
		m.handleOutputReplicated(ctx, msg)
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
	if m.waves != nil && msg.Attempt.Kind == sched.Map {
		m.waves.change(m.deps.Clock.Now(), 1)
	}
	fx, err := m.state.launched(msg.Attempt, msg.Node)
	m.check(err)
	if m.protect != nil {
		m.protect.lossRate[msg.Node] = msg.LossRate
	}
	m.speculationLaunched(ctx, msg)
	m.apply(ctx, fx)
}

// handleProgress keeps an attempt's latest progress report, for whatever
// decides speculation (Progress).
func (m *JobManager) handleProgress(ctx actor.Context, msg *TaskProgress) {
	p := rated(*msg)
	m.progress[msg.Attempt] = p
	m.deps.Metrics.AttemptProgressed(p)
	m.maybeSendProgress(ctx, msg.Attempt.Kind)
}

// maybeSendProgress tells the coordinator the kind's stage progress when
// it is asked for and has moved since it was last sent.
func (m *JobManager) maybeSendProgress(ctx actor.Context, kind sched.TaskKind) {
	if m.sent == nil || m.state.outcome != nil {
		return
	}
	if p := m.stageProgress(kind); p != m.sent[kind] {
		m.sent[kind] = p
		ctx.Send(m.coordinator, &JobProgressed{Job: m.id, Kind: kind, Progress: p})
	}
}

// stageProgress is the mean over the kind's tasks of each one's progress:
// 1 when finished, else the best latest score of its running attempts (0
// before any report). The tasks are summed in order, so the figure is the
// same to the last bit from run to run.
func (m *JobManager) stageProgress(kind sched.TaskKind) float64 {
	tasks := m.state.tasks(kind)
	if len(tasks) == 0 {
		return 0
	}
	sum := 0.0
	for i := range tasks {
		t := &tasks[i]
		if t.state == taskDone {
			sum++
			continue
		}
		best := 0.0
		for n := range t.running {
			if p, ok := m.progress[sched.Attempt{Job: m.id, Kind: kind, Task: int32(i), Attempt: n}]; ok {
				best = max(best, p.Score)
			}
		}
		sum += best
	}
	return sum / float64(len(tasks))
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
	if err == nil && msg.Outcome == sched.Succeeded {
		m.sampleClones(msg, finished)
	}
	m.mapEnded(msg.Attempt)
	m.speculationEnded(ctx, msg, finished && err == nil)
	m.apply(ctx, fx)
	if finished && err == nil {
		m.maybeProtect(ctx, msg)
	}
	m.decide(ctx)
	m.maybeSendProgress(ctx, msg.Attempt.Kind)
}

// mapEnded books a map attempt's end in the job's wave-width; the map
// phase ends with its last map.
func (m *JobManager) mapEnded(a sched.Attempt) {
	if m.waves == nil || a.Kind != sched.Map {
		return
	}
	m.waves.change(m.deps.Clock.Now(), -1)
	if m.state.mapsDone == len(m.state.maps) {
		m.waves.ended = true
	}
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
		m.mapEnded(a)
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
	m.check(m.state.checkReads(&fx))
	over := m.state.outcome != nil && fx.ended == nil
	if !over && fx.mapsFinished && m.reportMaps {
		ctx.Send(m.coordinator, &MapsFinished{Job: m.id})
	}
	if !over && fx.release && m.placement != nil {
		// The reduces wait for the links' measure to be placed.
		m.placement.held, fx.requeueReduces = fx.requeueReduces, nil
		ctx.Send(m.fabric, &MeasureRackLinks{Owner: ctx.Self()})
	}
	if !over && (len(fx.requeueMaps) > 0 || len(fx.requeueReduces) > 0) {
		ctx.Send(m.coordinator, &RequeueTasks{Job: m.id, Maps: fx.requeueMaps, Reduces: fx.requeueReduces})
	}
	if !over && (len(fx.announce) > 0 || len(fx.lost) > 0) {
		// Each reduce attempt gets its news after its LaunchTask: see
		// MapOutputs. The reducers share one list, which no one writes.
		m.announce(ctx, fx.reducers, toMessages(fx.announce), fx.lost, fx.launch)
	}
	if !over {
		for _, t := range fx.told {
			// A binding follows the batch as other news does, so a
			// reducer never hears of a copy before a loss sent earlier.
			m.announce(ctx, []attemptRef{t.ref}, toMessages(t.outs), t.lost, fx.launch)
		}
		for _, mp := range fx.omega {
			m.deps.Clock.After(m.state.access.omega, ctx.Self(), &omegaDue{Map: mp})
		}
	}
	for _, r := range fx.kill {
		m.dir.relay(ctx, r.Node, &KillTask{Attempt: r.Attempt, Reason: "another attempt of the task succeeded"})
	}
	for _, r := range fx.unbound {
		m.dir.relay(ctx, r.Node, &KillTask{Attempt: r.Attempt, Reason: ReasonCopyUnbound})
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
	rec.Start, rec.Admitted = m.first, m.admitted
	rec.Evictions, rec.EvictedMaps = m.evictions, m.evictedMaps
	rec.InputFiles = m.inputFiles
	return rec
}

// end records the job and tells the coordinator, which kills whatever of
// the job still runs.
func (m *JobManager) end(ctx actor.Context, o *jobOutcome) {
	if m.speculation != nil && m.speculation.timer != 0 {
		m.deps.Clock.Cancel(m.speculation.timer)
	}
	m.dropEvents()
	rec := m.record()
	rec.Finish = m.deps.Clock.Now()
	rec.Succeeded, rec.Reason = o.Succeeded, o.Reason
	m.deps.Metrics.JobEnded(rec)
	if m.waves != nil {
		if w := m.waves.width(); w > 0 {
			for _, f := range m.waves.files {
				ctx.Send(m.coordinator, &WaveWidthMeasured{File: f, Width: w})
			}
		}
	}
	m.sendClonesMeasured(ctx)
	ended := &JobEnded{Job: m.id, Succeeded: o.Succeeded, Reason: o.Reason}
	if o.Succeeded && m.spec.Output != "" {
		ended.Committed = m.state.committed()
	}
	ctx.Send(m.coordinator, ended)
}
