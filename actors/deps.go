package actors

import (
	"math/rand/v2"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// Deps is what an actor needs from its run besides messages: the clock,
// its own seeded random stream, where to record what happened, and how to
// fail the run when an invariant breaks.
type Deps struct {
	Clock   Clock
	Rand    *rand.Rand
	Metrics Recorder
	// Fail stops the run with err; the actor goes on as if nothing
	// happened until the run stops it.
	Fail func(err error)
	// Done tells the run the work is finished.
	Done func()
	// Progress tells the run's stall watchdog that work moved forward.
	Progress func()
	// Props gives the props of an actor spawned by another (a job
	// manager by the coordinator), set up for the run's dispatcher.
	Props func(actor.Producer) *actor.Props
	// Perturb returns the extra delay of a deterministic run's next
	// perturbation of the kind aimed at target (an actor's name), drawn
	// from the schedule seed or pinned; nil when the run perturbs
	// nothing.
	Perturb func(kind Perturbation, target string) time.Duration
	// Intercept applies the run's message rules to a control message a
	// rack switch relays from one actor to another (names as in the run):
	// drop it, delay it by the duration, or neither; nil when the run has
	// no rules.
	Intercept func(from, to string, msg any) (drop bool, delay time.Duration)
}

// Perturbation is a kind of seeded control-plane delay (a scenario's
// [chaos]).
type Perturbation string

// The perturbations.
const (
	// PerturbRelay delays a control message in its rack switch.
	PerturbRelay Perturbation = "relay"
	// PerturbHeartbeat delays a node's heartbeat after its tick.
	PerturbHeartbeat Perturbation = "heartbeat"
)

// Progressing is a timer message whose pending delivery is work moving
// forward, such as a flow due to complete: the stall watchdog does not
// call a run stalled while one is pending.
type Progressing interface{ Progressing() }

// progressed tells the stall watchdog that work moved forward.
func (d Deps) progressed() {
	if d.Progress != nil {
		d.Progress()
	}
}

// Recorder receives the run's records. The cluster package implements it;
// it must be safe for use from several actors at once.
type Recorder interface {
	// JobSubmitted receives what a job is as it is submitted (Start -1,
	// no outcome): a job the run cuts off keeps this record.
	JobSubmitted(r JobRecord)
	// JobUpdated receives a running job's record when its start or its
	// eviction counts change: a job the run cuts off keeps the last.
	JobUpdated(r JobRecord)
	JobEnded(r JobRecord)
	// AttemptStarted receives an attempt as it launches on its node (End
	// −1): one the run cuts off keeps this record.
	AttemptStarted(r AttemptRecord)
	AttemptEnded(r AttemptRecord)
	FlowEnded(r FlowRecord)
	// AttemptProgressed receives each progress report a job manager gets
	// (tasks.progress_interval), and a last one at 1 when the attempt
	// succeeds.
	AttemptProgressed(p AttemptProgress)
	// LinksSampled receives what each topology link carried from From to
	// To (Carried[l] for LinkID l), when the fabric samples links.
	LinksSampled(s LinkSample)
	// Offered receives a slot offer the policy looked at jobs for, when
	// the coordinator explains its offers (CoordinatorConfig.Explain).
	Offered(o OfferRecord)
	// Noted receives what happened to a node at an instant: the
	// coordinator declaring it dead, or taking it back.
	Noted(n Note)
	// FaultFired receives a scripted fault taking effect or ending.
	FaultFired(e FaultEvent)
	// Count adds n to one of the run's counters (the Metric… names).
	Count(metric string, n int64)
	// CountJob adds n to one of the run's counters on behalf of a job:
	// a run with a warm-up (RunOptions.Warmup) leaves out its jobs'.
	CountJob(job sched.JobID, metric string, n int64)
	// QoSJobEnded receives a QoS client's job that ended (qos_client.go).
	QoSJobEnded(r QoSJobRecord)
	// ReplicaChanged receives a replica Scarlett's epochs added (its copy
	// landed) or removed ([replication]).
	ReplicaChanged(c ReplicaChange)
	// CoordinatorQueued receives a change of the messages waiting for or
	// in the coordinator's service (heartbeat.service_time): +1 as one
	// arrives, −1 as its service ends.
	CoordinatorQueued(at time.Duration, delta int)
}

// The counters actors keep (Recorder.Count); each is a summary metric.
const (
	// MetricLostToCrash counts messages that reached a crashed node.
	MetricLostToCrash = "messages.lost_to_crashes"
	// MetricHeldByPartition counts control messages a switch that was
	// down held until it came back up.
	MetricHeldByPartition = "messages.held_by_partitions"
	// MetricStaleReports counts reports of attempts already ended as
	// lost with their node, ignored: a partitioned node's, after it
	// healed.
	MetricStaleReports = "reports.stale"
	// MetricNodesRejoined counts nodes declared dead that registered again.
	MetricNodesRejoined = "nodes.rejoined"
	// MetricReducesPreempted counts the reduces an application master
	// killed for its maps, which could get no container
	// (cluster.containers).
	MetricReducesPreempted = "reduces.preempted"
	// MetricAMsLost counts the application masters lost with their
	// nodes (cluster.am_containers).
	MetricAMsLost = "ams.lost"
	// MetricContainersReserved counts the nodes reserved for a reduce
	// that did not fit them (cluster.containers).
	MetricContainersReserved = "containers.reserved"
	// MetricNodesLost counts nodes declared dead.
	MetricNodesLost = "nodes.lost"
	// MetricMapsRerunNodeLost counts finished maps run again because
	// their output was on a node declared dead; MetricMapsRerunFetch those
	// run again because reducers could not fetch their output.
	MetricMapsRerunNodeLost = "maps.rerun.node_lost"
	MetricMapsRerunFetch    = "maps.rerun.fetch_failures"
	// MetricOutputsLost counts the copies of map outputs
	// [intermediate_loss] lost at their first fetch; MetricRecomputed the
	// maps run again because reducers could not fetch their output, under
	// it; MetricRecomputedSuspected those run again, before any fetch of
	// them failed, because their node was suspected; MetricRecomputeAvoided
	// the fetches that failed on a lost copy and read a replica instead.
	MetricOutputsLost         = "outputs.lost"
	MetricRecomputed          = "tasks.recomputed"
	MetricRecomputedSuspected = "tasks.recomputed.suspected"
	MetricRecomputeAvoided    = "tasks.recompute_avoided"
	// MetricNodesSuspected counts the times a node was suspected of losing
	// outputs, MetricSuspicionsRight those after which it lost another
	// within tasks.recompute_window.
	MetricNodesSuspected  = "nodes.suspected"
	MetricSuspicionsRight = "nodes.suspected.right"
	// MetricProtectBytes counts the bytes copied to protect map outputs.
	MetricProtectBytes = "flows.bytes.protect"
	// MetricRackTrafficBytes counts the bytes [rack_traffic]'s other
	// work carried on the rack links.
	MetricRackTrafficBytes = "flows.bytes.rack_traffic"
	// MetricDroppedByRule and MetricDelayedByRule count control messages
	// a message rule dropped or delayed.
	MetricDroppedByRule = "messages.dropped"
	// MetricBlocksReReplicated counts block replicas the NameNode
	// restored after a node was lost, MetricBytesReReplicated their bytes.
	MetricBlocksReReplicated = "blocks.re_replicated"
	MetricBytesReReplicated  = "blocks.re_replicated_bytes"
	// MetricBytesRequested counts the bytes of every flow asked of the
	// fabric, for the run's conservation check: each is delivered by a
	// flow that completed, or carried in part and the rest abandoned by
	// one aborted or cut off.
	MetricBytesRequested = "flows.requested_bytes"
	// MetricSpeculated counts what speculation launched: copies of
	// running tasks and restarts; MetricSpeculationWon those that paid
	// off: a copy that finished its task, a restart whose task ended
	// before the killed attempt would have (AttemptRecord.Projected).
	MetricSpeculated     = "tasks.speculative.launched"
	MetricSpeculationWon = "tasks.speculative.won"
	// MetricNodesBlacklisted counts the windows nodes spent blacklisted
	// ([blacklist]).
	MetricNodesBlacklisted = "nodes.blacklisted"
	// MetricClonedPhases counts the phases Dolly cloned ([cloning]),
	// MetricClonesLaunched the clones that launched, and
	// MetricCloneBudgetPeak the budget's peak use, in millionths of the
	// kind's live slots (the increments of the peak add up to it).
	MetricClonedPhases    = "clones.phases"
	MetricClonesLaunched  = "clones.launched"
	MetricCloneBudgetPeak = "clones.budget_peak_micro"
	// MetricClonedJobs counts the jobs with a cloned phase,
	// MetricCloneBudgetMax the budget's peak use in millionths of β·C
	// (as MetricCloneBudgetPeak), MetricClonesPreempted the queued clones
	// admission "preempt" withdrew, and MetricClonesChargedBin (a prefix,
	// followed by the Table 2.1 bin from 1) the budget charged to each
	// bin's admitted phases, in slots.
	MetricClonedJobs       = "clones.jobs"
	MetricCloneBudgetMax   = "clones.budget_max_micro"
	MetricClonesPreempted  = "clones.preempted"
	MetricClonesChargedBin = "clones.charged.bin"
	// MetricAttemptsMeasured counts the attempts whose rate ratio the
	// coordinator measured for p (AttemptMeasured) and
	// MetricAttemptsStraggled those under StragglerRatio: over a run,
	// the p a p_period as long would measure.
	MetricAttemptsMeasured  = "clones.attempts_measured"
	MetricAttemptsStraggled = "clones.attempts_straggled"
	MetricDelayedByRule     = "messages.delayed"
	// MetricCoordinatorRequests counts the messages a coordinator with a
	// service time served in turn (those still queued at the run's end
	// not), MetricCoordinatorWaitNs the nanoseconds they waited before
	// their service began, MetricCoordinatorServiceNs the nanoseconds of
	// their service, and
	// MetricCoordinatorQueuePeak the most waiting or in service at once
	// (its increments add up to it).
	MetricCoordinatorRequests  = "coordinator.requests"
	MetricCoordinatorWaitNs    = "coordinator.wait_ns"
	MetricCoordinatorServiceNs = "coordinator.service_ns"
	MetricCoordinatorQueuePeak = "coordinator.queue.peak"
	// MetricCoordinatorLooked counts the jobs the scheduling policy
	// looked at while deciding the messages served
	// (heartbeat.service_per_job).
	MetricCoordinatorLooked = "coordinator.jobs_looked"
	// MetricCoordinatorSkipped counts the heartbeat calls whose nodes gave
	// them up (heartbeat.call_timeout) before their turn came.
	MetricCoordinatorSkipped = "coordinator.skipped"
)

// The counters of a run with [replication] (Scarlett).
const (
	// MetricReplicationBytes counts the bytes replica copies put on the
	// network (compressed), MetricReplicationBytesRaw the blocks' bytes.
	MetricReplicationBytes    = "replication.bytes"
	MetricReplicationBytesRaw = "replication.bytes_raw"
	// MetricReplicasAdded counts the copies that became replicas,
	// MetricReplicasRemoved the replicas the epochs removed.
	MetricReplicasAdded   = "replicas.added"
	MetricReplicasRemoved = "replicas.removed"
	// MetricStoredBytes is the bytes stored at base replication at the
	// last epoch, MetricExtraBytes the extra replicas' bytes its factors
	// keep: storage.overhead is their ratio.
	MetricStoredBytes = "storage.stored_bytes"
	MetricExtraBytes  = "storage.extra_bytes"
	// MetricHeldBytes is the bytes of the replicas removed from the live
	// lists that the disks still hold at the last epoch (lazy deletion),
	// MetricNodePeakBytes the most bytes one node's disk held at any time
	// of the run, live replicas and held ones.
	MetricHeldBytes     = "storage.held_bytes"
	MetricNodePeakBytes = "storage.node_peak_bytes"
)

// OfferRecord is one slot offer: the jobs the policy looked at with its
// reasons, and the attempt it launched there, if any.
type OfferRecord struct {
	At       time.Duration
	Node     sched.NodeID
	Kind     sched.TaskKind
	Slot     int
	Notes    []sched.JobNote
	Launched *sched.Attempt
	Locality sched.Locality
	// Waited is how long the heartbeat that made the offer waited for and
	// in the coordinator's service (heartbeat.service_time): it arrived
	// at At − Waited. 0 without a service time.
	Waited time.Duration
}

// Note is something that happened to a node at an instant.
type Note struct {
	At   time.Duration
	Node sched.NodeID
	What string
}

// ReplicaChange is a replica of block Block (from 0) of File, of Bytes,
// on Node, that Scarlett added (Added: its copy landed) or removed, at
// At.
type ReplicaChange struct {
	At    time.Duration
	File  string
	Block int
	Node  sched.NodeID
	Bytes int64
	Added bool
}

// LinkSample is what every link of the topology carried over a window.
type LinkSample struct {
	From, To time.Duration
	Carried  []int64
}

// JobRecord is a job's line in the run's results.
type JobRecord struct {
	ID     sched.JobID
	Name   string
	Pool   string
	Submit time.Duration
	// Admitted is when the coordinator admitted the job (its submission
	// unless a cap on running jobs held it); -1 while it waits.
	Admitted time.Duration
	Start    time.Duration // first attempt launched; -1 when none was
	Finish   time.Duration
	Maps     int
	Reduces  int
	// Input is the file the maps read; InputFiles, for a job over
	// several files, each of them and its blocks (nil otherwise).
	Input        string
	InputFiles   []FileRead `json:",omitempty"`
	InputBytes   int64
	ShuffleBytes int64
	OutputBytes  int64
	// Evictions counts the times the job's map outputs were evicted to
	// free intermediate space; EvictedMaps the finished maps re-run.
	Evictions, EvictedMaps int
	Succeeded              bool
	Reason                 string
}

// FileRead is one of the files a job over several files reads.
type FileRead struct {
	File   string
	Blocks int
}

// fileReads lists what a job over several files reads of each, in blocks
// of blockSize; nil for a job over one file.
func fileReads(spec workload.JobSpec, blockSize int64) []FileRead {
	if len(spec.InputFiles) == 0 {
		return nil
	}
	out := make([]FileRead, len(spec.InputFiles))
	for i, f := range spec.InputFiles {
		out[i] = FileRead{f.File, (&workload.JobSpec{InputBytes: f.Bytes}).MapCount(blockSize)}
	}
	return out
}

// submittedRecord is a job's record as submitted: what the job is, not
// yet how it ran.
func submittedRecord(id sched.JobID, spec workload.JobSpec, maps, reduces int) JobRecord {
	return JobRecord{
		ID: id, Name: spec.Name, Pool: spec.Pool, Submit: spec.Submit, Admitted: spec.Submit, Start: -1,
		Maps: maps, Reduces: reduces, Input: inputName(id, spec),
		InputBytes: spec.InputBytes, ShuffleBytes: spec.ShuffleBytes, OutputBytes: spec.OutputBytes,
	}
}

// AttemptRecord is an attempt's line in the run's results.
type AttemptRecord struct {
	Attempt     sched.Attempt
	Node        sched.NodeID
	Slot        int // the node's slot of the attempt's kind, from 0
	Locality    sched.Locality
	Start, End  time.Duration
	LocalBytes  int64 // input read from the node's own disk
	RemoteBytes int64 // input read or fetched over the network
	Outcome     sched.Outcome
	Reason      string
	// Phases are the attempt's phases that took time, in order: a map's
	// read, compute and write (spill or output); a reduce's copy, sort
	// (waiting for a computing slot), compute and write. Empty for a
	// record the attempt's node did not write.
	Phases []PhaseSpan
	// Projected is when an attempt a speculation policy killed to
	// restart its task would have ended at the pace of its last reports
	// (0: not killed so, or no progress reported).
	Projected time.Duration
}

// PhaseSpan is one phase of an attempt and when it ran.
type PhaseSpan struct {
	Phase      ProgressPhase
	Start, End time.Duration
}

// FlowRecord accounts for one flow: its size and what it delivered.
type FlowRecord struct {
	Key        FlowKey
	Src, Dst   sched.NodeID
	Transfer   Transfer
	Bytes      int64
	Delivered  int64
	Start, End time.Duration
	Completed  bool
	// CutOff: the flow was still running when the run ended.
	CutOff bool
	// MaxRate and CPUPerByte are the flow's own bound and CPU work per
	// byte on Dst (StartFlow), so its path can be told again.
	MaxRate, CPUPerByte float64
}
