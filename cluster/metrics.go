package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"clusteremu/actors"
	"clusteremu/policies/sched"
)

// JobOutcome is how a job ended: succeeded, failed with a reason, or cut
// off by the run's deadline while it was still running.
type JobOutcome string

// Job outcomes.
const (
	JobSucceeded JobOutcome = "succeeded"
	JobFailed    JobOutcome = "failed"
	JobCutOff    JobOutcome = "cut-off"
)

// JobResult is one job's line in the records.
type JobResult struct {
	actors.JobRecord
	Outcome JobOutcome
	// Reference is the job's response time alone on the empty cluster
	// (Config.Run.Slowdown); 0 when not measured or when it failed alone.
	Reference time.Duration
	// Size is the slot-seconds its attempts held in that reference run,
	// by sched.TaskKind: Ghit & Epema's job size, the sum of its task
	// runtimes; zero when not measured.
	Size [2]float64
}

// TotalSize is the job's size, maps and reduces, in slot-seconds.
func (j *JobResult) TotalSize() float64 { return j.Size[0] + j.Size[1] }

// Slowdown is the job's response time over its reference runtime, 0 when
// either is missing.
func (j *JobResult) Slowdown() float64 {
	if j.Outcome != JobSucceeded || j.Reference <= 0 {
		return 0
	}
	return float64(j.Finish-j.Submit) / float64(j.Reference)
}

// Records are a run's records, sorted: jobs by ID, attempts by attempt.
// Attempts are those that ended; CutOff those still running when the run
// ended, each with End at the run's end (they count in no metric).
type Records struct {
	Jobs []JobResult
	// Admission: the run capped its running jobs ([scheduler]
	// max_running), so each job's admission instant means something.
	Admission bool
	// Evicting: the policy may evict tasks for locality
	// (sched.Evicting), so tasks.evicted means something.
	Evicting bool
	// Cloning: the run clones with Dolly ([cloning]).
	Cloning  bool
	Attempts []actors.AttemptRecord // empty when the run tallied them (RunOptions.TallyAttempts)
	CutOff   []actors.AttemptRecord
	// Tally counts the attempts that ended, in the order they ended.
	Tally AttemptTally
	Flows FlowTotals
	// Progress holds the attempts' progress reports (tasks.progress_interval)
	// in attempt order, each attempt's in the order they arrived.
	Progress []actors.AttemptProgress
	// Links is what each link carried over time (RunOptions.LinkSamples).
	Links LinkSeries
	// Notes are what happened to nodes, in the order it happened.
	Notes []actors.Note
	// Offers are the slot offers the policy looked at jobs for, in order,
	// when the run explains them (RunOptions.Explain).
	Offers []actors.OfferRecord
	// FlowList is every flow's record, in the order they ended, when the
	// run kept them (RunOptions.KeepFlows).
	FlowList []actors.FlowRecord
	// Faults are the scripted faults as they took effect and ended.
	Faults []actors.FaultEvent
	// Counters are the run's counters by metric name (actors.Metric…).
	Counters map[string]int64
	// PartitionSlots are the slots of each partition of a policy that
	// splits them between queues (sched.Partitioned), by sched.TaskKind;
	// partition k is PartitionSlots[k-1]. Empty for other policies.
	PartitionSlots [][2]int
	// Hardware is what each kind of node did when the cluster has
	// [[cluster.class]] entries: the nodes of no class first, then each
	// class, those with nodes; nil otherwise.
	Hardware []Hardware
	// Cache is what the caches did, nil for a run without [cache].
	Cache *CacheTotals
	// Phases are the phases of the jobs that succeeded, in job order,
	// maps first, when the run measures them (Config.MeasuresStragglers);
	// nil otherwise.
	Phases []PhaseResult
	// ReducePhases: the summary gives the reduce phases' metrics apart
	// too (phases.reduce.*), in a run that names a reduce placement.
	ReducePhases bool
	// QoSJobs are the QoS clients' jobs that ended, by class, client and
	// job; empty without QoS clients.
	QoSJobs []actors.QoSJobRecord
	// Replication is what the replica copies moved beside the tasks, nil
	// for a run without [replication].
	Replication *ReplicationTotals
	// Recompute: the run has [intermediate_loss] or protects outputs.
	Recompute bool
	// Serves: the coordinator takes time over each message
	// (heartbeat.service_time, service_per_task, service_per_job), and the
	// summary gives its queue (coordinator.*).
	Serves bool
	// CallsTimeOut: the nodes give up their heartbeat calls after
	// heartbeat.call_timeout, and the summary counts those the
	// coordinator skipped.
	CallsTimeOut bool
	// ReduceContainers, when > 0, is the containers a reduce takes where
	// the nodes' slots are containers (cluster.containers): the summary
	// counts the reduces the application masters took back for their
	// maps, and the load is over the containers. 0: slots.
	ReduceContainers int
	// Workflows are the jobs of each workflow, jobs linked by waiting for
	// one another (Workflows): the summary gives each workflow's outcome
	// and makespan. nil without.
	Workflows [][]sched.JobID
	// AMs: the application masters hold containers
	// (cluster.am_containers); the summary counts those lost.
	AMs bool
	// CoordinatorQueue is the coordinator's queue window by window, with
	// a service time; nil without.
	CoordinatorQueue []QueueSpan
	// Warmup is run.warmup: Summarize leaves out the jobs submitted
	// before it and their phases, and the recorder tallied none of their
	// attempts nor counted anything on their behalf (Recorder.CountJob).
	Warmup time.Duration
}

// CacheTotals is what a run's caches did, from the maps that succeeded:
// the input bytes they read and those read from memory, and the jobs that
// succeeded with maps and those whose every map read from memory (the
// all-or-nothing property: only those speed up all the way).
type CacheTotals struct {
	MapBytes, MemoryBytes int64
	JobsWithMaps          int
	AllMemoryLocal        int
}

// cacheTally counts, as attempts end, each job's succeeded maps and those
// that read from memory, and the bytes.
type cacheTally struct {
	maps                  map[sched.JobID][2]int // succeeded maps, of them memory-local
	mapBytes, memoryBytes int64
}

func (c *cacheTally) add(a actors.AttemptRecord) {
	if a.Attempt.Kind != sched.Map || a.Outcome != sched.Succeeded {
		return
	}
	n := c.maps[a.Attempt.Job]
	n[0]++
	read := a.LocalBytes + a.RemoteBytes
	c.mapBytes += read
	if a.Locality == sched.MemoryLocal {
		n[1]++
		c.memoryBytes += read
	}
	c.maps[a.Attempt.Job] = n
}

// LinkSeries is what the topology's links carried, window by window:
// Samples[i].Carried[l] is link l's bytes (CPU work, for a CPU link) over
// the i-th window, Names[l] and Capacity[l] its name and capacity.
type LinkSeries struct {
	Names    []string
	Capacity []float64
	Samples  []actors.LinkSample
}

// Utilisation is link l's mean utilisation over sample i: what it carried
// over what its capacity could have.
func (s *LinkSeries) Utilisation(i, l int) float64 { return s.Use(s.Samples[i], l) }

// Use is link l's mean utilisation over the window w, a sample of these
// links that the series need not hold (RunOptions.OnLinks).
func (s *LinkSeries) Use(w actors.LinkSample, l int) float64 {
	return LinkUtilisation(w.Carried[l], s.Capacity[l], w.From, w.To)
}

// LinkUtilisation is a link's mean utilisation over the window from..to:
// what it carried over what its capacity (per second) could have; 0 for a
// link without capacity or an empty window.
func LinkUtilisation(carried int64, capacity float64, from, to time.Duration) float64 {
	if capacity <= 0 || to <= from {
		return 0
	}
	return float64(carried) / (capacity * (to - from).Seconds())
}

// FlowTotals accounts for every byte the fabric carried.
type FlowTotals struct {
	Completed, Aborted, CutOff int
	Bytes                      int64 // sizes of completed flows
	Delivered                  int64 // bytes carried by all flows
	AbortedBytes, AbortedDue   int64 // carried by aborted flows, and their sizes
	CutOffBytes, CutOffDue     int64 // carried by flows running at the run's end, and their sizes
}

// Abandoned is the bytes aborted flows were asked for and never carried.
func (t FlowTotals) Abandoned() int64 { return t.AbortedDue - t.AbortedBytes }

// recorder collects records from the actors (actors.Recorder). It checks
// the run's record invariants as they arrive: an attempt ends once, a job
// ends once, a completed flow delivered exactly its size. What a hook
// (RunOptions.OnAttemptEnded and the others) receives it does not keep.
type recorder struct {
	// admission: the run caps its running jobs (Records.Admission);
	// evicting: its policy may evict for locality (Records.Evicting).
	admission, evicting, cloning bool
	mu                           sync.Mutex
	submitted                    map[sched.JobID]actors.JobRecord
	updated                      map[sched.JobID]actors.JobRecord
	jobs                         map[sched.JobID]actors.JobRecord
	running                      map[sched.Attempt]actors.AttemptRecord
	attempts                     map[sched.Attempt]actors.AttemptRecord
	flows                        FlowTotals
	progress                     []actors.AttemptProgress
	links                        LinkSeries
	notes                        []actors.Note
	keepFlows                    bool
	tallyOnly                    bool // RunOptions.TallyAttempts
	tally                        AttemptTally
	// partition is the 1-based partition of an attempt's slot, nil when
	// the policy does not partition; partSlots the partitions' slots.
	partition func(actors.AttemptRecord) int
	partSlots [][2]int
	// hardware books attempts to their nodes' kinds; nil when every node
	// is alike.
	hardware *hardwareTally
	offers   []actors.OfferRecord
	flowList []actors.FlowRecord
	faults   []actors.FaultEvent
	counters map[string]int64
	qosJobs  []actors.QoSJobRecord
	// lost are the attempts booked as lost with their node (or reported by
	// a node before it was), when a live node may be declared dead (a run
	// with faults, message rules or a service time): the other report
	// of such an attempt is stale, not a second end. A run that keeps its
	// attempt records finds them there instead.
	lost  map[sched.Attempt]bool
	hooks hooks
	// sampled is what each link carried up to lastSample's end, the
	// samples summed, for the run's last window (Cluster.lastLinkSample);
	// lastSample is the latest window, for the live view.
	sampled    []int64
	lastSample actors.LinkSample
	// cache counts the maps' memory reads, nil without a cache.
	cache *cacheTally
	// phases follows each job's tasks, when the run measures phases.
	phases *phaseTally
	// warmup is run.warmup (Records.Warmup).
	warmup time.Duration
	// repl keeps the spans of copies and of tasks' network flows, nil
	// without [replication].
	repl *replTally
	// recompute: the run has [intermediate_loss] or protects outputs
	// (recompute.go).
	recompute bool
	// queue keeps the coordinator's queue when it serves its messages
	// in turn (Records.Serves); nil otherwise.
	queue *queueTally
	// callsTimeOut: heartbeat.call_timeout is set (Records.CallsTimeOut).
	callsTimeOut bool
	// reduceContainers is Records.ReduceContainers.
	reduceContainers int
	workflows        [][]sched.JobID // Records.Workflows
	ams              bool            // Records.AMs
	errs             []error
}

// hooks are RunOptions' streaming hooks, each nil when unset.
type hooks struct {
	attemptEnded func(actors.AttemptRecord)
	links        func(actors.LinkSample)
	offer        func(actors.OfferRecord)
	flowEnded    func(actors.FlowRecord)
	progress     func(actors.AttemptProgress)
}

// configure takes what the recorder keeps and forwards from the run's
// options.
func (r *recorder) configure(o *RunOptions) {
	r.warmup = o.Warmup.Std()
	r.keepFlows = o.KeepFlows
	r.tallyOnly = o.TallyAttempts
	r.hooks = hooks{attemptEnded: o.OnAttemptEnded, links: o.OnLinks, offer: o.OnOffer,
		flowEnded: o.OnFlowEnded, progress: o.OnProgress}
}

// countCaches has the recorder count the maps' memory reads, for a run
// with a cache.
func (r *recorder) countCaches() {
	r.cache = &cacheTally{maps: make(map[sched.JobID][2]int)}
}

// measured reports whether a job counts in the metrics: it was submitted
// at or after the warm-up.
func (r *recorder) measured(job sched.JobID) bool {
	return r.warmup <= 0 || r.submitted[job].Submit >= r.warmup
}

// keepsAttempts reports whether ended attempts' records are kept.
func (r *recorder) keepsAttempts() bool { return !r.tallyOnly && r.hooks.attemptEnded == nil }

func newRecorder() *recorder {
	return &recorder{
		submitted: make(map[sched.JobID]actors.JobRecord),
		updated:   make(map[sched.JobID]actors.JobRecord),
		jobs:      make(map[sched.JobID]actors.JobRecord),
		running:   make(map[sched.Attempt]actors.AttemptRecord),
		attempts:  make(map[sched.Attempt]actors.AttemptRecord),
		counters:  make(map[string]int64),
	}
}

func (r *recorder) violate(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf(format, args...))
}

// JobSubmitted implements actors.Recorder.
func (r *recorder) JobSubmitted(rec actors.JobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	putOnce(r, r.submitted, rec.ID, rec, "job %d submitted twice")
}

// putOnce stores v at k; k there already breaks an invariant.
func putOnce[K comparable, V any](r *recorder, m map[K]V, k K, v V, twice string) {
	if _, dup := m[k]; dup {
		r.violate(twice, k)
	}
	m[k] = v
}

// JobUpdated implements actors.Recorder.
func (r *recorder) JobUpdated(rec actors.JobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updated[rec.ID] = rec
}

// AttemptStarted implements actors.Recorder.
func (r *recorder) AttemptStarted(rec actors.AttemptRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	putOnce(r, r.running, rec.Attempt, rec, "attempt %v started twice")
}

// JobEnded implements actors.Recorder.
func (r *recorder) JobEnded(rec actors.JobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.jobs[rec.ID]; dup {
		r.violate("job %d ended twice", rec.ID)
	}
	if _, ok := r.submitted[rec.ID]; !ok {
		r.violate("job %d ended but was never submitted", rec.ID)
	}
	r.jobs[rec.ID] = rec
	delete(r.updated, rec.ID) // only a job cut off reads its last update
	if r.phases != nil {
		r.phases.jobEnded(rec.ID, rec.Succeeded)
	}
}

// AttemptEnded implements actors.Recorder. An attempt ends once; but one
// whose node was declared dead ends twice when the node was only cut off
// and records it later (or recorded it before the news of its loss
// reached its job manager): whichever record comes second is stale and
// dropped. (Its job manager counts the stale report, MetricStaleReports.)
func (r *recorder) AttemptEnded(rec actors.AttemptRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	started, running := r.running[rec.Attempt]
	if running && rec.Start < 0 {
		// Booked lost by its job manager, which never heard when it began.
		rec.Node, rec.Slot, rec.Locality, rec.Start = started.Node, started.Slot, started.Locality, started.Start
	}
	lost := rec.Reason == actors.ReasonNodeLost
	if prev, dup := r.attempts[rec.Attempt]; dup {
		if lost || prev.Reason == actors.ReasonNodeLost {
			return
		}
		r.violate("attempt %v ended twice (%v at %v, then %v at %v)", rec.Attempt, prev.Outcome, prev.End, rec.Outcome, rec.End)
	}
	keep := r.keepsAttempts()
	if r.lost != nil {
		if prevLost, seen := r.lost[rec.Attempt]; seen {
			if !prevLost && !lost {
				r.violate("attempt %v ended twice (then %v at %v)", rec.Attempt, rec.Outcome, rec.End)
			}
			delete(r.lost, rec.Attempt)
			return
		}
		if !keep {
			// Either report may come first; the other finds this mark.
			r.lost[rec.Attempt] = lost
		}
	}
	if !running && !keep && rec.Start >= 0 {
		r.violate("attempt %v ended twice, or never started", rec.Attempt)
	}
	if r.measured(rec.Attempt.Job) {
		r.tally.add(rec, r.partition)
		if r.hardware != nil {
			r.hardware.add(rec)
		}
		if r.cache != nil {
			r.cache.add(rec)
		}
	}
	if r.phases != nil {
		r.phases.ended(rec)
	}
	delete(r.running, rec.Attempt)
	switch {
	case r.hooks.attemptEnded != nil:
		r.hooks.attemptEnded(rec)
	case keep:
		r.attempts[rec.Attempt] = rec
	}
}

// FaultFired implements actors.Recorder.
func (r *recorder) FaultFired(e actors.FaultEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, e)
	if !e.End {
		r.counters["faults."+string(e.Kind)]++
	}
}

// QoSJobEnded implements actors.Recorder.
func (r *recorder) QoSJobEnded(j actors.QoSJobRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.qosJobs = append(r.qosJobs, j)
}

// ReplicaChanged implements actors.Recorder.
func (r *recorder) ReplicaChanged(c actors.ReplicaChange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.repl != nil {
		r.repl.changes = append(r.repl.changes, c)
	}
}

// Count implements actors.Recorder.
func (r *recorder) Count(metric string, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters[metric] += n
}

// CountJob implements actors.Recorder: a job submitted before the
// warm-up's end counts nothing.
func (r *recorder) CountJob(job sched.JobID, metric string, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.measured(job) {
		r.counters[metric] += n
	}
}

// AttemptProgressed implements actors.Recorder.
func (r *recorder) AttemptProgressed(p actors.AttemptProgress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !(p.Score >= 0 && p.Score <= 1 && p.Fraction >= 0 && p.Fraction <= 1) {
		r.violate("%v reported progress %v (%v of its %v phase)", p.Attempt, p.Score, p.Fraction, p.Phase)
	}
	if r.hooks.progress != nil {
		r.hooks.progress(p)
		return
	}
	r.progress = append(r.progress, p)
}

// Offered implements actors.Recorder.
func (r *recorder) Offered(o actors.OfferRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hooks.offer != nil {
		r.hooks.offer(o)
		return
	}
	r.offers = append(r.offers, o)
}

// Noted implements actors.Recorder.
func (r *recorder) Noted(n actors.Note) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, n)
}

// LinksSampled implements actors.Recorder.
func (r *recorder) LinksSampled(s actors.LinkSample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.sampled) < len(s.Carried) {
		r.sampled = append(r.sampled, 0)
	}
	for l, b := range s.Carried {
		r.sampled[l] += b
	}
	r.lastSample = s
	if r.hooks.links != nil {
		r.hooks.links(s)
		return
	}
	r.links.Samples = append(r.links.Samples, s)
}

// sampledSoFar returns the end of the last link sample and what each link
// carried up to it.
func (r *recorder) sampledSoFar() (time.Duration, []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSample.To, slices.Clone(r.sampled)
}

// FlowEnded implements actors.Recorder.
func (r *recorder) FlowEnded(rec actors.FlowRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.hooks.flowEnded != nil:
		r.hooks.flowEnded(rec)
	case r.keepFlows:
		r.flowList = append(r.flowList, rec)
	}
	r.flows.Delivered += rec.Delivered
	if r.repl != nil {
		r.repl.flow(rec)
	}
	if r.recompute {
		r.recomputeFlow(rec)
	}
	if rec.CutOff {
		r.flows.CutOff++
		r.flows.CutOffBytes += rec.Delivered
		r.flows.CutOffDue += rec.Bytes
		return
	}
	if rec.Completed {
		r.flows.Completed++
		r.flows.Bytes += rec.Bytes
		if rec.Delivered != rec.Bytes {
			r.violate("flow %v completed with %d of %d bytes", rec.Key, rec.Delivered, rec.Bytes)
		}
		return
	}
	r.flows.Aborted++
	r.flows.AbortedBytes += rec.Delivered
	r.flows.AbortedDue += rec.Bytes
	if rec.Delivered < 0 || rec.Delivered > rec.Bytes {
		r.violate("flow %v aborted with %d of %d bytes", rec.Key, rec.Delivered, rec.Bytes)
	}
}

// partitioned has the recorder tally each attempt's slot time by the
// policy's partition of its slot, and counts each partition's slots.
func (r *recorder) partitioned(p sched.Partitioned, shape sched.Shape) {
	r.partition = func(a actors.AttemptRecord) int {
		return p.Partition(sched.Slot{Node: a.Node, Kind: a.Attempt.Kind, Index: a.Slot})
	}
	for kind := range shape.Slots {
		for node := range shape.Nodes {
			for i := range shape.Of(sched.NodeID(node), sched.TaskKind(kind)) {
				k := p.Partition(sched.Slot{Node: sched.NodeID(node), Kind: sched.TaskKind(kind), Index: i})
				for len(r.partSlots) < k {
					r.partSlots = append(r.partSlots, [2]int{})
				}
				r.partSlots[k-1][kind]++
			}
		}
	}
	r.tally.Partitions = make([][2]float64, len(r.partSlots))
}

// totals sums the tally over the jobs that succeeded.
func (c *cacheTally) totals(jobs []JobResult) *CacheTotals {
	t := &CacheTotals{MapBytes: c.mapBytes, MemoryBytes: c.memoryBytes}
	for _, j := range jobs {
		if j.Outcome != JobSucceeded || j.Maps == 0 {
			continue
		}
		t.JobsWithMaps++
		if n := c.maps[j.ID]; n[0] >= j.Maps && n[1] == n[0] {
			t.AllMemoryLocal++
		}
	}
	return t
}

// counts returns how many jobs were submitted and have ended so far.
func (r *recorder) counts() (submitted, ended int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.submitted), len(r.jobs)
}

// results assembles the sorted records; jobs submitted but not ended by
// the run's end are cut off at end.
func (r *recorder) results(end time.Duration) (*Records, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &Records{Flows: r.flows, Tally: r.tally, PartitionSlots: slices.Clone(r.partSlots), Admission: r.admission, Evicting: r.evicting, Cloning: r.cloning,
		Warmup: r.warmup, Recompute: r.recompute, Serves: r.queue != nil, CallsTimeOut: r.callsTimeOut, ReduceContainers: r.reduceContainers,
		Workflows: r.workflows, AMs: r.ams}
	if r.queue != nil {
		res.CoordinatorQueue = r.queue.until(end)
	}
	res.Tally.Partitions = slices.Clone(r.tally.Partitions)
	res.Hardware = r.hardware.results()
	if r.repl != nil {
		res.Replication = r.repl.totals()
	}
	// Conservation: every byte asked of the fabric was delivered by a flow
	// that completed, or belongs to one aborted or cut off (carried in
	// part, the rest abandoned).
	if req, f := r.counters[actors.MetricBytesRequested], r.flows; req != f.Bytes+f.AbortedDue+f.CutOffDue {
		r.violate("bytes: %d requested, but %d completed + %d aborted (%d carried, %d abandoned) + %d cut off",
			req, f.Bytes, f.AbortedDue, f.AbortedBytes, f.Abandoned(), f.CutOffDue)
	}
	for id, sub := range r.submitted {
		rec, ok := r.jobs[id]
		status := JobCutOff
		switch {
		case !ok:
			rec = sub
			if last, updated := r.updated[id]; updated {
				rec = last
			}
			rec.Finish = end
		case rec.Succeeded:
			status = JobSucceeded
		default:
			status = JobFailed
		}
		res.Jobs = append(res.Jobs, JobResult{JobRecord: rec, Outcome: status})
	}
	slices.SortFunc(res.Jobs, func(a, b JobResult) int { return int(a.ID - b.ID) })
	for _, a := range r.attempts {
		res.Attempts = append(res.Attempts, a)
	}
	for _, a := range r.running {
		a.End = end
		res.CutOff = append(res.CutOff, a)
	}
	byAttempt := func(a, b actors.AttemptRecord) int { return sched.CompareAttempts(a.Attempt, b.Attempt) }
	slices.SortFunc(res.Attempts, byAttempt)
	slices.SortFunc(res.CutOff, byAttempt)
	res.Progress = slices.Clone(r.progress)
	res.Links = r.links
	res.Notes = slices.Clone(r.notes)
	res.FlowList = slices.Clone(r.flowList)
	res.Offers = slices.Clone(r.offers)
	res.Faults = slices.Clone(r.faults)
	res.Counters = maps.Clone(r.counters)
	res.QoSJobs = slices.Clone(r.qosJobs)
	slices.SortFunc(res.QoSJobs, func(a, b actors.QoSJobRecord) int {
		return cmp.Or(cmp.Compare(a.Class, b.Class), cmp.Compare(a.Client, b.Client), cmp.Compare(a.Job, b.Job))
	})
	if r.cache != nil {
		res.Cache = r.cache.totals(res.Jobs)
	}
	if r.phases != nil {
		res.Phases = slices.Clone(r.phases.results)
		res.ReducePhases = r.phases.byKind
		slices.SortFunc(res.Phases, func(a, b PhaseResult) int { return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Kind, b.Kind)) })
		if res.Phases == nil {
			res.Phases = []PhaseResult{}
		}
	}
	slices.SortStableFunc(res.Progress, func(a, b actors.AttemptProgress) int { return sched.CompareAttempts(a.Attempt, b.Attempt) })
	return res, errors.Join(r.errs...)
}
