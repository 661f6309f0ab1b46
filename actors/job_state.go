package actors

import (
	"fmt"
	"slices"

	"clusteremu/policies/sched"
)

// taskState is where one task of a job stands.
type taskState uint8

const (
	taskPending taskState = iota
	taskRunning
	taskDone
)

// task is one map or reduce of a job, as its job manager tracks it.
type task struct {
	state    taskState
	failures int                    // failed attempts (kills do not count)
	running  map[int32]sched.NodeID // live attempts and their nodes
	output   sched.NodeID           // maps: the node holding the output
	outBytes int64                  // maps: output bytes
	outAtt   int32                  // the attempt that wrote the output (the map's, or the reduce's that succeeded)
	replicas []sched.NodeID         // maps: the output's copies (job_recompute.go)
}

// jobState is a job manager's bookkeeping, kept apart from the actor so it
// can be tested on its own. Its methods return what the actor must send as
// effects; they never send anything themselves.
type jobState struct {
	id          sched.JobID
	maps        []task
	reduces     []task
	mapsDone    int
	reducesDone int
	slowStart   int // finished maps needed before reduces are released
	released    bool
	started     bool // its tasks were made pending (start)
	// reducerRefs holds runningReducers' answer until a reduce attempt
	// starts or ends (reducerRefsOK false): every finished map asks it.
	reducerRefs   []attemptRef
	reducerRefsOK bool
	maxAttempts   int
	// fetchFailures counts the fetch failures reported for each finished
	// map's output since it last ran; fetchLimit re-runs the map.
	fetchFailures map[int32]int
	// failedCopies are the output copies whose node failed to serve them
	// while another copy did (copiesFailed).
	failedCopies map[failedCopy]bool
	fetchLimit   int
	outcome      *jobOutcome
	// access binds cloned maps' copies to reduce clones (job_clones.go);
	// nil without [cloning].
	access *jobAccess
}

// committed lists the attempts whose output is the job's: each reduce's
// that succeeded, or each map's of a map-only job.
func (j *jobState) committed() []sched.Attempt {
	kind, tasks := sched.Reduce, j.reduces
	if len(j.reduces) == 0 {
		kind, tasks = sched.Map, j.maps
	}
	out := make([]sched.Attempt, len(tasks))
	for i := range tasks {
		out[i] = sched.Attempt{Job: j.id, Kind: kind, Task: int32(i), Attempt: tasks[i].outAtt}
	}
	return out
}

// jobOutcome is how a job ended.
type jobOutcome struct {
	Succeeded bool
	Reason    string
}

// effects is what a jobState event asks the job manager to do.
type effects struct {
	requeueMaps    []int32      // maps to make pending again at the coordinator
	requeueReduces []int32      // reduces to make pending (first release included)
	release        bool         // requeueReduces is the first release
	announce       []mapOutput  // map outputs to tell running reducers about
	reducers       []attemptRef // the reduce attempts to tell
	launch         bool         // the news is a reducer's first, at its launch
	lost           []int32      // map outputs the reducers must forget
	ended          *jobOutcome  // the job is over
	mapsFinished   bool         // the last map finished
	kill           []attemptRef // attempts to kill: a sibling finished their task
	waste          []attemptRef // copies to kill: they launched after their task ended
	told           []told       // map outputs bound to some reducers' slots (job_clones.go)
	unbound        []attemptRef // map copies to kill: every reduce clone reads another copy
	omega          []int32      // maps whose delay assignment's ω starts
}

// mapOutput says where a finished map's output lives.
type mapOutput struct {
	Map      int32
	Node     sched.NodeID
	Bytes    int64
	Attempt  int32
	Replicas []sched.NodeID
}

// attemptRef is a running attempt and its node: a reduce to tell of map
// outputs, or a sibling to kill.
type attemptRef struct {
	Attempt sched.Attempt
	Node    sched.NodeID
}

// newJobState sets up a job of maps and reduces. Reduces are released once
// ⌈slowStart × maps⌉ maps have finished: at start when slowStart is 0.
func newJobState(id sched.JobID, maps, reduces int, slowStart float64, maxAttempts int) *jobState {
	need := int(slowStart*float64(maps) + 0.999999999)
	return &jobState{
		id:          id,
		maps:        make([]task, maps),
		reduces:     make([]task, reduces),
		slowStart:   min(need, maps),
		maxAttempts: maxAttempts,
	}
}

// start returns the effects of the job's start: every map pending, and
// the reduces too when slow-start needs no finished map.
func (j *jobState) start() effects {
	j.started = true
	fx := effects{requeueMaps: make([]int32, len(j.maps))}
	for i := range fx.requeueMaps {
		fx.requeueMaps[i] = int32(i)
	}
	fx.requeueReduces = j.maybeRelease()
	fx.release = len(fx.requeueReduces) > 0
	return fx
}

func (j *jobState) tasks(kind sched.TaskKind) []task {
	if kind == sched.Map {
		return j.maps
	}
	return j.reduces
}

// launched records a running attempt; a reduce is told of every map
// output so far.
func (j *jobState) launched(a sched.Attempt, node sched.NodeID) (effects, error) {
	tk, err := j.task(a)
	if err != nil {
		return effects{}, err
	}
	if tk.running == nil {
		tk.running = make(map[int32]sched.NodeID)
	}
	tk.running[a.Attempt] = node
	j.runningChanged(a.Kind)
	if tk.state == taskDone {
		if a.Kind == sched.Map && j.bindingOpen(a.Task) {
			return effects{}, nil // a late clone the binding may still bind
		}
		// A copy the coordinator launched before it heard its task
		// end: it is waste, killed at once.
		return effects{waste: []attemptRef{{a, node}}}, nil
	}
	tk.state = taskRunning
	var fx effects
	if a.Kind == sched.Reduce && j.tracks() {
		return j.reduceLaunched(a, node, tk), nil
	}
	if a.Kind == sched.Reduce {
		fx.announce = j.outputs()
		fx.reducers = []attemptRef{{a, node}}
		fx.launch = true
	}
	return fx, nil
}

func (j *jobState) task(a sched.Attempt) (*task, error) {
	ts := j.tasks(a.Kind)
	if a.Job != j.id || a.Task < 0 || int(a.Task) >= len(ts) {
		return nil, fmt.Errorf("attempt %v does not belong to job %d", a, j.id)
	}
	return &ts[a.Task], nil
}

// waiting counts the tasks of the kind that may run and have no attempt:
// pending (reduces once released).
func (j *jobState) waiting(kind sched.TaskKind) int {
	if !j.started || kind == sched.Reduce && !j.released {
		return 0
	}
	n := 0
	for i := range j.tasks(kind) {
		if j.tasks(kind)[i].state == taskPending {
			n++
		}
	}
	return n
}

// done reports whether an attempt's task has finished.
func (j *jobState) done(a sched.Attempt) bool {
	tk, err := j.task(a)
	return err == nil && tk.state == taskDone
}

// running lists a task's running attempts and their nodes, in attempt
// order.
func (j *jobState) running(kind sched.TaskKind, task int32) []attemptRef {
	tk, err := j.task(sched.Attempt{Job: j.id, Kind: kind, Task: task})
	if err != nil {
		return nil
	}
	var out []attemptRef
	for _, att := range sortedAttempts(nil, tk.running) {
		out = append(out, attemptRef{sched.Attempt{Job: j.id, Kind: kind, Task: task, Attempt: att}, tk.running[att]})
	}
	return out
}

func (j *jobState) outputs() []mapOutput {
	var out []mapOutput
	for i := range j.maps {
		if j.maps[i].state == taskDone {
			out = append(out, mapOutput{int32(i), j.maps[i].output, j.maps[i].outBytes, j.maps[i].outAtt, j.maps[i].replicas})
		}
	}
	return out
}

// succeeded records a finished attempt. The first attempt of a task to
// succeed finishes it, and the task's other running attempts are killed;
// a sibling that succeeds before its kill arrives is ignored.
func (j *jobState) succeeded(a sched.Attempt, outBytes int64) (effects, error) {
	tk, err := j.task(a)
	if err != nil {
		return effects{}, err
	}
	node, ok := tk.running[a.Attempt]
	if !ok {
		return effects{}, fmt.Errorf("attempt %v finished but is not running", a)
	}
	delete(tk.running, a.Attempt)
	j.runningChanged(a.Kind)
	if a.Kind == sched.Map && j.tracksMap(a.Task) {
		return j.copySucceeded(a, tk, node, outBytes), nil
	}
	if tk.state == taskDone {
		return effects{}, nil
	}
	tk.state = taskDone
	var fx effects
	for _, att := range sortedAttempts(nil, tk.running) {
		fx.kill = append(fx.kill, attemptRef{sched.Attempt{Job: a.Job, Kind: a.Kind, Task: a.Task, Attempt: att}, tk.running[att]})
	}
	if a.Kind == sched.Map {
		tk.output, tk.outBytes, tk.outAtt, tk.replicas = node, outBytes, a.Attempt, nil
		j.mapsDone++
		fx.mapsFinished = j.mapsDone == len(j.maps)
		fx.announce = []mapOutput{{a.Task, node, outBytes, a.Attempt, nil}}
		fx.reducers = j.runningReducers()
		fx.requeueReduces = j.maybeRelease()
		fx.release = len(fx.requeueReduces) > 0
	} else {
		tk.outAtt = a.Attempt
		j.reducesDone++
	}
	fx.ended = j.maybeEnd()
	return fx, nil
}

// sortedAttempts appends a task's running attempts to buf in attempt
// order. A map finishing asks it of each of its job's reduces, most of
// them with none or one attempt running, so it allocates only for buf.
func sortedAttempts(buf []int32, running map[int32]sched.NodeID) []int32 {
	for att := range running {
		buf = append(buf, att)
	}
	slices.Sort(buf)
	return buf
}

// runningReducers returns the running reduce attempts in task and attempt
// order. The slice is shared until the next reduce starts or ends: callers
// read it and keep no part of it.
func (j *jobState) runningReducers() []attemptRef {
	if !j.reducerRefsOK {
		j.reducerRefs, j.reducerRefsOK = j.listRunningReducers(), true
	}
	return j.reducerRefs
}

// runningChanged notes that a task of the kind started or ended an attempt.
func (j *jobState) runningChanged(kind sched.TaskKind) {
	if kind == sched.Reduce {
		j.reducerRefs, j.reducerRefsOK = nil, false
	}
}

func (j *jobState) listRunningReducers() []attemptRef {
	var refs []attemptRef
	var buf []int32
	for i := range j.reduces {
		buf = sortedAttempts(buf[:0], j.reduces[i].running)
		for _, att := range buf {
			refs = append(refs, attemptRef{sched.Attempt{Job: j.id, Kind: sched.Reduce, Task: int32(i), Attempt: att}, j.reduces[i].running[att]})
		}
	}
	return refs
}

func (j *jobState) maybeRelease() []int32 {
	if j.released || j.mapsDone < j.slowStart || len(j.reduces) == 0 {
		return nil
	}
	j.released = true
	all := make([]int32, len(j.reduces))
	for i := range all {
		all[i] = int32(i)
	}
	return all
}

func (j *jobState) maybeEnd() *jobOutcome {
	if j.outcome != nil {
		return nil
	}
	if j.mapsDone == len(j.maps) && j.reducesDone == len(j.reduces) {
		j.outcome = &jobOutcome{Succeeded: true}
		return j.outcome
	}
	return nil
}

// ended records an attempt that failed or was killed. A failure counts
// towards the task's attempt limit and fails the job past it; a kill (a
// preemption, a lost node) never does.
func (j *jobState) ended(a sched.Attempt, o sched.Outcome, reason string) (effects, error) {
	tk, err := j.task(a)
	if err != nil {
		return effects{}, err
	}
	if _, ok := tk.running[a.Attempt]; !ok {
		return effects{}, fmt.Errorf("attempt %v ended (%v) but is not running", a, o)
	}
	delete(tk.running, a.Attempt)
	j.runningChanged(a.Kind)
	var fx effects
	if o == sched.Failed {
		tk.failures++
		if tk.failures >= j.maxAttempts && j.outcome == nil {
			j.outcome = &jobOutcome{Reason: fmt.Sprintf("task %v failed %d times, last: %s", a, tk.failures, reason)}
			fx.ended = j.outcome
			return fx, nil
		}
	}
	if tk.state == taskRunning && len(tk.running) == 0 {
		tk.state = taskPending
		j.requeue(&fx, a.Kind, a.Task)
	}
	if j.tracks() {
		j.copyEnded(&fx, a, tk)
	}
	return fx, nil
}

func (j *jobState) requeue(fx *effects, kind sched.TaskKind, t int32) {
	if kind == sched.Map {
		fx.requeueMaps = append(fx.requeueMaps, t)
	} else if j.released {
		fx.requeueReduces = append(fx.requeueReduces, t)
	}
}

// fetchFailed books reducers' failures to fetch maps' outputs from node:
// a map whose output there failed fetchLimit times runs again (Hadoop's
// fetch-failure rule), and the running reducers forget the output. It
// returns the maps run again.
func (j *jobState) fetchFailed(node sched.NodeID, maps []int32) (effects, int) {
	var fx effects
	if j.fetchLimit <= 0 || j.reducesDone == len(j.reduces) {
		return fx, 0
	}
	for _, m := range maps {
		if m < 0 || int(m) >= len(j.maps) || j.maps[m].state != taskDone || !j.maps[m].holds(node) && !j.copyOn(m, node) {
			continue // run again already, or announced elsewhere since
		}
		if j.fetchFailures == nil {
			j.fetchFailures = make(map[int32]int)
		}
		if j.fetchFailures[m]++; j.fetchFailures[m] < j.fetchLimit {
			continue
		}
		delete(j.fetchFailures, m)
		j.maps[m].state = taskPending
		j.mapsDone--
		fx.requeueMaps = append(fx.requeueMaps, m)
		fx.lost = append(fx.lost, m)
	}
	if len(fx.lost) > 0 {
		fx.reducers = j.runningReducers()
	}
	return fx, len(fx.lost)
}

// resynced is the job's account for a coordinator that restarted: the
// tasks still to run (reduces once released), those finished, and whether
// every map has.
func (j *jobState) resynced() *JobResynced {
	msg := &JobResynced{Job: j.id, MapsFinished: len(j.maps) > 0 && j.mapsDone == len(j.maps)}
	if !j.started {
		return msg // its setup is still running: nothing is pending yet
	}
	for i := range j.maps {
		switch j.maps[i].state {
		case taskPending:
			msg.PendingMaps = append(msg.PendingMaps, int32(i))
		case taskDone:
			msg.DoneMaps = append(msg.DoneMaps, int32(i))
		}
	}
	for i := range j.reduces {
		switch {
		case j.reduces[i].state == taskPending && j.released:
			msg.PendingReduces = append(msg.PendingReduces, int32(i))
		case j.reduces[i].state == taskDone:
			msg.DoneReduces = append(msg.DoneReduces, int32(i))
		}
	}
	return msg
}

// nodeLost re-queues the attempts that ran on the node and, while any
// reduce still needs them, the map outputs it held. The attempts are
// reported back so the job manager can record them as killed.
func (j *jobState) nodeLost(node sched.NodeID) (effects, []sched.Attempt) {
	var fx effects
	var gone []sched.Attempt
	var buf []int32
	for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
		ts := j.tasks(kind)
		for i := range ts {
			buf = sortedAttempts(buf[:0], ts[i].running)
			for _, att := range buf {
				if ts[i].running[att] == node {
					gone = append(gone, sched.Attempt{Job: j.id, Kind: kind, Task: int32(i), Attempt: att})
				}
			}
		}
	}
	for _, a := range gone {
		sub, _ := j.ended(a, sched.Killed, ReasonNodeLost)
		fx.requeueMaps = append(fx.requeueMaps, sub.requeueMaps...)
		fx.requeueReduces = append(fx.requeueReduces, sub.requeueReduces...)
	}
	j.dropCopiesOn(&fx, node)
	j.loseOutputs(&fx, func(m int32, t *task) bool { return t.output == node || j.copyOn(m, node) })
	return fx, gone
}

// evicted re-queues every finished map, whose output its node deleted to
// free intermediate space, while any reduce still needs them. Running
// attempts go on; reducers keep the outputs they fetched already.
func (j *jobState) evicted() (fx effects, lost int) {
	j.loseOutputs(&fx, func(int32, *task) bool { return true })
	return fx, len(fx.lost)
}

// suspected re-queues, while any reduce still needs them, the finished
// maps whose outputs are on a suspected node and nowhere else; it
// returns how many. An output copied to another node is read from there
// if the suspicion proves right.
func (j *jobState) suspected(node sched.NodeID) (fx effects, n int) {
	j.loseOutputs(&fx, func(_ int32, t *task) bool { return t.output == node && len(t.replicas) == 0 })
	return fx, len(fx.lost)
}

// loseOutputs makes the finished maps whose output is lost pending again,
// while any reduce still needs them, and tells the running reducers to
// forget them.
func (j *jobState) loseOutputs(fx *effects, lost func(int32, *task) bool) {
	if j.reducesDone == len(j.reduces) {
		return
	}
	for i := range j.maps {
		if m := &j.maps[i]; m.state == taskDone && lost(int32(i), m) {
			delete(j.fetchFailures, int32(i))
			j.mapsDone--
			fx.lost = append(fx.lost, int32(i))
			if j.access != nil {
				delete(j.access.maps, int32(i))
			}
			if len(m.running) > 0 && j.tracksMap(int32(i)) {
				m.state = taskRunning // a copy still running makes it again
				continue
			}
			m.state = taskPending
			fx.requeueMaps = append(fx.requeueMaps, int32(i))
		}
	}
	if len(fx.lost) > 0 {
		fx.reducers = j.runningReducers()
	}
}
