package actors

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// coordState is the coordinator's core: every decision the cluster master
// makes, as a plain struct that never sends a message, reads a clock or
// sees an actor. Events come in as method calls with the emulated time
// (a heartbeat, a job submitted or ended, a tick); what the coordinator
// must do comes out as effects the Coordinator actor turns into messages
// (coordOut), as etcd's raft core returns what to send. Its roles live in
// their own files: offers and scheduling (coordinator_offers.go), the
// NameNode (coordinator_namenode.go), node liveness and the run's end
// (coordinator_liveness.go), and the admission rules beyond free slots
// (coordinator_admission.go, coordinator_space.go).
type coordState struct {
	cfg *CoordinatorConfig
	// suspected keeps maps off suspected nodes (tasks.protect_outputs).
	suspected *suspectedNodes
	policy    sched.Policy
	// slotAware: the policy is offered every free slot (sched.SlotAware).
	slotAware bool
	table     *jobTable
	blocks    *blockMap
	rerepl    reReplication
	nodes     []nodeEntry
	jobs      map[sched.JobID]*coordJob
	running   map[sched.Attempt]placed
	// restarted: the coordinator crashed and came back at least once
	// (coordinator_recovery.go).
	restarted bool
	// waited is how long the message being handled waited for and in
	// the coordinator's service (coordinator_service.go), for the offers
	// it explains.
	waited time.Duration
	// looked counts the jobs the policy looked at through the view
	// (coordView) since the service last reset it, for
	// heartbeat.service_per_job.
	looked int64
	// admit are the admission rules a node's slot offer passes before a
	// task of a job may take it; copies and space are the same rules by
	// their concrete types, nil when off.
	admit  []admission
	copies *copyCompute
	space  *spaceAdmission
	// cache is the cache directory's role (coordinator_cache.go), nil
	// without a cache.
	cache *cacheRole
	black *blacklist
	// spec is the coordinator's part of speculation, nil when off;
	// clones is Dolly's cloning (coordinator_clones.go), nil when off.
	spec   *speculation
	clones *cloning
	// scarlett is Scarlett's role (coordinator_scarlett.go), nil without
	// [replication].
	scarlett *scarlettRole
	// liveSlots counts the slots of the live nodes, by kind.
	liveSlots [2]int
	liveNodes int // registered and not declared dead (updateSlots)
	// viewing: a policy asks through the view, which shows a reduce that
	// does not fit the node, so that it may reserve the node (reserve).
	viewing bool
	// reserved counts the nodes reserved for each job's reduces, and
	// reservedNodes lists them.
	reserved      map[sched.JobID]int
	reservedNodes map[sched.NodeID]struct{}
	// freeContainers counts the live nodes' free containers
	// (cluster.containers), the AM's headroom; preempting holds the
	// reduces an AM is killing for its maps, until they end
	// (coordinator_containers.go).
	freeContainers int
	// amWait are the jobs waiting for their application master's
	// container, in order; amHeld counts the containers the AMs hold
	// (coordinator_am.go).
	amWait     []amWaiting
	amHeld     int
	amQueues   map[string]int // the containers each queue's AMs hold (sched.QueueShares)
	preempting map[sched.Attempt]bool
	// rampedDown holds the jobs whose AM took reduces back on the latest
	// tick, which release no reduce until the next.
	rampedDown map[sched.JobID]bool
	// progress is each active job's stage progress by kind, as its job
	// manager last reported it (JobProgressed); kept only for a policy
	// that reads it (sched.NeedsProgress).
	progress map[sched.JobID][2]float64
	// held are the jobs submitted while MaxRunning jobs ran, waiting in
	// submission order to be admitted.
	held []heldJob
	// streams counts the workload streams yet to say WorkloadSubmitted.
	streams  int
	finished bool
	out      coordOut
}

// coordJob is what the coordinator keeps of a job besides its place in
// the job table.
type coordJob struct {
	spec  workload.JobSpec
	maps  int
	input *file // nil when it could not be stored
	// parts are the reduces' cuts of every map output (partition_cov),
	// as workload.SkewedCuts gives them; nil for even shares.
	parts []uint64
	am    amJob // its application master's container (coordinator_am.go)
}

// heldJob is a job waiting for admission.
type heldJob struct {
	id   sched.JobID
	spec workload.JobSpec
}

// placed is where a running attempt runs.
type placed struct {
	node sched.NodeID
	slot int
	at   time.Duration // launched (resynced: registered again)
}

// coordOut is what the core asks its actor to do, in the order it asked.
type coordOut struct {
	effects []coordEffect
	records []JobRecord // jobs as they were submitted
	offers  []OfferRecord
	// counts are counters to add to (Recorder.Count), jobCounts on
	// behalf of jobs (Recorder.CountJob).
	counts    []count
	jobCounts []jobCount
	// replicas are the replicas Scarlett added and removed.
	replicas []ReplicaChange
	// progress: work moved forward (a launch, a job's end, an eviction).
	progress bool
	// done: every stream has submitted its last job and every job ended.
	done bool
	// err: a broken invariant, such as a policy naming a task that does
	// not exist; the run fails with the first.
	err error
}

// coordEffect is one thing the coordinator tells another actor. Its
// String form is what the core's tests compare.
type coordEffect interface{ String() string }

// The effects.
type (
	// spawnJobManager starts a job's manager, which asks for its tasks.
	spawnJobManager struct {
		job       sched.JobID
		spec      workload.JobSpec
		maps      int
		slowStart float64
		admitted  time.Duration
	}
	// launchAttempt sends LaunchTask to the node's slot and TaskLaunched
	// to the job manager, in that order.
	launchAttempt struct {
		attempt  sched.Attempt
		node     sched.NodeID
		slot     int
		locality sched.Locality
		spec     TaskSpec
		bytes    int64 // the task's input (TaskLaunched.Bytes)
		copied   bool  // a copy of a running task
	}
	// killAttempt sends KillTask to the node running the attempt.
	killAttempt struct {
		attempt sched.Attempt
		node    sched.NodeID
		reason  string
	}
	// tellJob sends a message to a job's manager.
	tellJob struct {
		job sched.JobID
		msg any
	}
	// tellNode sends a message to a node through its rack switch.
	tellNode struct {
		node sched.NodeID
		msg  any
	}
	// noteNode records what happened to a node (Recorder.Noted).
	noteNode struct {
		node sched.NodeID
		what string
	}
)

// count is an addition to a run counter.
type count struct {
	metric string
	n      int64
}

// jobCount is an addition to a run counter on behalf of a job
// (Recorder.CountJob).
type jobCount struct {
	job sched.JobID
	count
}

func (e *spawnJobManager) String() string {
	return fmt.Sprintf("spawn job-%d: %d maps, %d reduces", e.job, e.maps, e.spec.Reduces)
}

func (e *launchAttempt) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "launch %v on node %d %v slot %d, %v", e.attempt, e.node, e.attempt.Kind, e.slot, e.locality)
	if e.attempt.Kind == sched.Map {
		fmt.Fprintf(&b, ", reads node %d", e.spec.Source)
	}
	if e.spec.Fail {
		b.WriteString(", fails")
	}
	if e.copied {
		b.WriteString(", a copy")
	}
	return b.String()
}

func (e *killAttempt) String() string {
	return fmt.Sprintf("kill %v on node %d: %s", e.attempt, e.node, e.reason)
}

func (e *tellJob) String() string  { return fmt.Sprintf("job-%d ← %s", e.job, describeMsg(e.msg)) }
func (e *tellNode) String() string { return fmt.Sprintf("node-%d ← %s", e.node, describeMsg(e.msg)) }
func (e *noteNode) String() string { return fmt.Sprintf("node-%d %s", e.node, e.what) }

// describeMsg names a message and its content in a line.
func describeMsg(msg any) string {
	switch m := msg.(type) {
	case *FailJob:
		return "FailJob: " + m.Reason
	case *NodeLost:
		return fmt.Sprintf("NodeLost %d", m.Node)
	case *ReinitNode:
		return "ReinitNode"
	case *EvictOutputs:
		return "EvictOutputs"
	case *DropJobData:
		return fmt.Sprintf("DropJobData job %d", m.Job)
	case *ReplicateBlock:
		return fmt.Sprintf("ReplicateBlock %d: %s block %d to node %d", m.Copy, m.File, m.Block, m.To)
	case *ClonesAdmitted:
		return fmt.Sprintf("ClonesAdmitted %v: %d copies of its tasks below %d", m.Kind, m.Copies, m.Tasks)
	}
	return fmt.Sprintf("%T", msg)
}

// newCoordState returns the core of a coordinator; seed seeds the block
// placement streams.
func newCoordState(cfg *CoordinatorConfig, policy sched.Policy, seed uint64) *coordState {
	s := &coordState{
		cfg: cfg, policy: policy, slotAware: isSlotAware(policy),
		table:    newJobTable(cfg.RackOf),
		blocks:   newBlockMap(int64(cfg.HDFS.BlockSize), cfg.HDFS.Replication, cfg.RackOf, seed),
		nodes:    make([]nodeEntry, len(cfg.RackOf)),
		jobs:     make(map[sched.JobID]*coordJob),
		running:  make(map[sched.Attempt]placed),
		amQueues: map[string]int{},
		progress: make(map[sched.JobID][2]float64),
		streams:  cfg.Streams,
	}
	s.setUpAdmission()
	s.setUpCache()
	s.setUpScarlett()
	s.indexMemory()
	if s.cache != nil {
		s.preload(cfg.Preloaded)
	}
	return s
}

// indexMemory lets the job table see the cache directory, when there is
// one.
func (s *coordState) indexMemory() {
	if s.cache != nil {
		s.table.mem, s.table.memFirst = s.cache, s.cfg.Cache.MemoryFirst
	}
}

// setUpAdmission makes the admission rules the configuration asks for,
// with no node reported yet.
func (s *coordState) setUpAdmission() {
	cfg := s.cfg
	if cfg.Tasks.CopyCompute {
		perJob := make([]int, len(cfg.RackOf))
		for n := range perJob {
			hw := cfg.Cluster.ForNode(n)
			perJob[n] = cfg.Tasks.ComputeSlots(hw.ReduceSlots)
		}
		s.copies = newCopyCompute(perJob, cfg.Tasks.ComputeAware)
		s.admit = append(s.admit, s.copies)
	}
	if space := nodeSpace(&cfg.Cluster, len(cfg.RackOf)); space != nil {
		s.space = newSpaceAdmission(space)
		s.admit = append(s.admit, s.space)
	}
	if cfg.Cluster.Containers > 0 {
		rampup, _ := rampLimits(&cfg.Tasks)
		s.preempting, s.rampedDown = make(map[sched.Attempt]bool), make(map[sched.JobID]bool)
		s.admit = append(s.admit, &rampUp{s: s, limit: rampup})
	}
	if cfg.Blacklist.On() {
		s.black = newBlacklist(cfg.Blacklist, len(cfg.RackOf))
		s.admit = append(s.admit, s.black)
	}
	if cfg.Speculation.On {
		s.spec = newSpeculation(cfg.Speculation, len(cfg.RackOf))
	}
	if cfg.Cloning.On() {
		s.clones = newCloning(cfg.Cloning)
	}
}

// partsKey sets a job's stream of partition shares apart from the block
// placement streams: keyed by the workload seed and the job, so a job's
// reference run alone draws the same shares.
const partsKey = 0x7061727473 << 24 // "parts"

// take hands over what the core has asked for since the last take.
func (s *coordState) take() coordOut {
	if s.scarlett != nil {
		s.peakGauge()
	}
	out := s.out
	s.out = coordOut{}
	return out
}

func (s *coordState) emit(e coordEffect) { s.out.effects = append(s.out.effects, e) }

// fail records a broken invariant; the first one fails the run.
func (s *coordState) fail(format string, args ...any) {
	if s.out.err == nil {
		s.out.err = fmt.Errorf("coordinator: "+format, args...)
	}
}

// submit stores a job's input as blocks, registers the job with the table
// and the policy, and spawns its job manager, which asks for its tasks.
//
// at is when the client submitted it, which is now unless the coordinator
// was down then (coordinator_recovery.go).
func (s *coordState) submit(now, at time.Duration, id sched.JobID, spec workload.JobSpec) {
	spec.Submit = at // a closed worker's spec holds its think time
	maps := spec.MapCount(int64(s.cfg.HDFS.BlockSize))
	rec := submittedRecord(id, spec, maps, spec.Reduces)
	rec.InputFiles = fileReads(spec, int64(s.cfg.HDFS.BlockSize))
	if limit := s.cfg.MaxRunning; limit > 0 && spec.Upstream == "" && (s.admittedJobs() >= limit || len(s.held) > 0) {
		rec.Admitted = -1
		s.out.records = append(s.out.records, rec)
		s.held = append(s.held, heldJob{id, spec})
		return
	}
	if s.amOn() && spec.Upstream == "" {
		rec.Admitted = -1 // when its AM has a container
	} else {
		rec.Admitted = now
	}
	s.out.records = append(s.out.records, rec)
	s.accept(now, id, spec)
}

// admittedJobs counts the jobs admitted: started, or waiting for their
// AM's container.
func (s *coordState) admittedJobs() int {
	n := len(s.jobs)
	for _, w := range s.amWait {
		if !w.restart {
			n++
		}
	}
	return n
}

// storeInput stores a starting job's input: a file of its own, the file
// it shares, or the files it reads behind a view of its own.
func (s *coordState) storeInput(id sched.JobID, spec workload.JobSpec, maps int) (*file, error) {
	if len(spec.InputFiles) > 0 {
		return s.blocks.view(inputName(id, spec), spec.InputFiles, int64(s.cfg.HDFS.BlockSize), spec.ReadsOutput)
	}
	return s.blocks.ensureSplits(inputName(id, spec), spec.InputBytes, blockSizeFor(spec, maps, int64(s.cfg.HDFS.BlockSize)), spec.InputCoV, spec.Maps)
}

// maybeAdmit admits the jobs held longest while fewer than MaxRunning
// run.
func (s *coordState) maybeAdmit(now time.Duration) {
	for len(s.held) > 0 && s.admittedJobs() < s.cfg.MaxRunning {
		h := s.held[0]
		s.held = s.held[1:]
		s.accept(now, h.id, h.spec)
	}
}

// start starts an admitted job: see submit.
func (s *coordState) start(now time.Duration, id sched.JobID, spec workload.JobSpec) {
	at := spec.Submit
	maps := spec.MapCount(int64(s.cfg.HDFS.BlockSize))
	job := &coordJob{spec: spec, maps: maps}
	if spec.PartitionCoV > 0 && spec.Reduces > 0 {
		job.parts = workload.SkewedCuts(s.blocks.stream(partsKey^uint64(id)), spec.Reduces, spec.PartitionCoV)
	}
	s.jobs[id] = job
	var input *file
	err := errors.New(spec.Upstream) // a job it waits for failed: it reads nothing
	if spec.Upstream == "" {
		input, err = s.storeInput(id, spec, maps)
	}
	if err == nil {
		job.input = input
	}
	s.table.add(sched.Job{
		ID: id, Name: spec.Name, Pool: spec.Pool, Priority: sched.Priority(spec.Priority),
		Weight: spec.Weight, Submit: at, Maps: maps, Reduces: spec.Reduces, InputBytes: spec.InputBytes, Work: spec.Work,
	}, job.input)
	s.policy.Submitted(now, s.table.job(id).status.Job)
	slowStart := spec.SlowStart
	if slowStart == 0 {
		slowStart = s.cfg.Tasks.SlowStart
	}
	s.emit(&spawnJobManager{job: id, spec: spec, maps: maps, slowStart: slowStart, admitted: now})
	switch {
	case err != nil:
		s.emit(&tellJob{id, &FailJob{Job: id, Reason: err.Error()}})
	case s.space != nil:
		s.space.addJob(id, spec, maps, job.input)
		if why := s.space.neverFits(id, maps, spec.ShuffleBytes); why != "" {
			s.emit(&tellJob{id, &FailJob{Job: id, Reason: why}})
		}
	}
}

// requeue makes a job's tasks pending: maps indexed by the live replicas
// of their input blocks. A finished map re-queued lost its output.
func (s *coordState) requeue(msg *RequeueTasks) {
	job := s.jobs[msg.Job]
	if job == nil || job.input == nil {
		return // the job has ended, or its input could not be stored
	}
	if len(msg.Maps) > 0 && job.input.count() != job.maps {
		s.emit(&tellJob{msg.Job, &FailJob{Job: msg.Job, Reason: fmt.Sprintf(
			"input file %q has %d blocks but the job has %d maps", inputName(msg.Job, job.spec), job.input.count(), job.maps)}})
		return
	}
	if len(msg.Maps) > 0 && s.copies != nil {
		s.copies.setMapsFinished(msg.Job, false)
	}
	mapsIn, reducesIn := msg.Maps, msg.Reduces
	if s.cfg.Tasks.LargestFirst {
		mapsIn = s.largestFirst(msg.Job, sched.Map, msg.Maps, func(m int32) int64 { return job.input.block(m).bytes })
		reducesIn = s.largestFirst(msg.Job, sched.Reduce, msg.Reduces, func(r int32) int64 {
			if job.parts == nil {
				return 0
			}
			return int64(job.parts[r+1] - job.parts[r])
		})
	}
	for _, m := range mapsIn {
		s.table.addMap(msg.Job, m)
	}
	s.addReduces(msg, reducesIn)
	if s.clones != nil {
		s.cloneRelease(msg.Job, sched.Map, msg.Maps)
		s.cloneRelease(msg.Job, sched.Reduce, msg.Reduces)
	}
}

// addReduces makes reduces pending, each in the rack msg names for it
// when it names one (Mantri's placement), in the order given.
func (s *coordState) addReduces(msg *RequeueTasks, reduces []int32) {
	if msg.Racks == nil {
		for _, r := range reduces {
			s.table.addReduce(msg.Job, r)
		}
		return
	}
	rackOf := make(map[int32]sched.RackID, len(msg.Reduces))
	for i, r := range msg.Reduces {
		if i < len(msg.Racks) {
			rackOf[r] = msg.Racks[i]
		}
	}
	for _, r := range reduces {
		if rack, ok := rackOf[r]; ok {
			s.table.addReduceIn(msg.Job, r, rack, s.cfg.Tasks.Wait())
		} else {
			s.table.addReduce(msg.Job, r)
		}
	}
}

// largestFirst orders tasks to queue so that the job table hands out the
// largest first: tasks queued for the first time go to the back of its
// lists in descending size, tasks queued again to the front, where the
// last added is taken first, so in ascending size after them. Ties keep
// task order.
func (s *coordState) largestFirst(id sched.JobID, kind sched.TaskKind, tasks []int32, size func(int32) int64) []int32 {
	var fresh, again []int32
	for _, t := range tasks {
		if _, e := s.table.entry(id, kind, t); e != nil && e.gen > 0 {
			again = append(again, t)
		} else {
			fresh = append(fresh, t)
		}
	}
	bySize := func(a, b int32) int { return cmp.Compare(size(b), size(a)) }
	slices.SortStableFunc(fresh, bySize)
	slices.SortStableFunc(again, bySize)
	slices.Reverse(again)
	return append(fresh, again...)
}

// mapsFinished books the job manager's word that every map of a job has
// finished.
func (s *coordState) mapsFinished(job sched.JobID) {
	if s.copies != nil && s.jobs[job] != nil {
		s.copies.setMapsFinished(job, true)
	}
}

// jobProgressed books a job manager's stage progress.
func (s *coordState) jobProgressed(msg *JobProgressed) {
	if s.jobs[msg.Job] == nil || msg.Kind > sched.Reduce {
		return // it ended meanwhile
	}
	p := s.progress[msg.Job]
	p[msg.Kind] = msg.Progress
	s.progress[msg.Job] = p
}

// jobEnded forgets the job and kills whatever of it still runs.
func (s *coordState) jobEnded(now time.Duration, id sched.JobID) {
	if _, ok := s.jobs[id]; !ok {
		return
	}
	for _, a := range s.runningOf(id) {
		s.emit(&killAttempt{a, s.running[a].node, "job ended"})
	}
	s.scarlettJobEnded(now, id)
	s.blocks.dropWrites(id) // committed, or never to be
	s.amEnded(s.jobs[id])
	if s.containersOn() {
		s.dropReservations(id)
	}
	s.amWait = slices.DeleteFunc(s.amWait, func(w amWaiting) bool { return w.id == id })
	if s.space != nil {
		s.spaceJobEnded(id)
	}
	if s.copies != nil {
		s.copies.setMapsFinished(id, false)
	}
	if s.clones != nil {
		s.cloneJobEnded(id)
	}
	if s.spec != nil {
		s.spec.jobEnded(id)
	}
	s.out.progress = true
	s.table.remove(id)
	s.cacheJobEnded(id)
	delete(s.progress, id)
	s.policy.Ended(now, id)
	if spec := s.jobs[id].spec; spec.InputFile == "" && len(spec.InputFiles) == 0 {
		s.blocks.forget(inputName(id, spec)) // a private input: no other job reads it
	}
	delete(s.jobs, id)
	s.maybeAdmit(now)
	s.maybeFinish()
}

// runningOf lists a job's running attempts in a stable order.
func (s *coordState) runningOf(id sched.JobID) []sched.Attempt {
	var out []sched.Attempt
	for a := range s.running {
		if a.Job == id {
			out = append(out, a)
		}
	}
	sortAttempts(out)
	return out
}

// policyTick runs the policy's periodic work and kills the attempts it
// preempts; their nodes report them ended on their next heartbeat.
func (s *coordState) policyTick(now time.Duration) {
	s.preemptReduces(now)
	for _, p := range s.policy.Tick(now, coordView{s}) {
		if at, ok := s.running[p.Attempt]; ok {
			s.emit(&killAttempt{p.Attempt, at.node, p.Reason})
		}
	}
}

func isSlotAware(p sched.Policy) bool {
	sa, ok := p.(sched.SlotAware)
	return ok && sa.SlotAware()
}
