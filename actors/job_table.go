package actors

import (
	"iter"
	"slices"
	"sort"

	"clusteremu/policies/sched"
)

// jobTable is the coordinator's picture of the active jobs: each job's
// task and attempt counts and its pending tasks, with the pending maps
// indexed by the nodes and racks that hold their input (Hadoop's per-job
// locality caches, YARN's resource requests). A task may have several
// running attempts (speculative copies, clones); the first to succeed
// finishes it.
//
// Locality is read from the block map's current replicas: the indices
// list each pending map under the nodes and racks of the replicas it had
// when it was queued, and an entry whose replica has since gone (its node
// died) is dropped when met, so the table never promises a locality the
// NameNode cannot give. The indices use lazy deletion: a taken task stays
// in the lists of its other replicas' nodes and racks and is skipped when
// met, so taking a task costs O(1) amortised and adding one O(replicas).
type jobTable struct {
	rackOf []sched.RackID // by node
	jobs   map[sched.JobID]*tableJob
	order  []*tableJob // submission order
}

type tableJob struct {
	status  sched.JobStatus
	input   *file          // nil when the input could not be stored
	tasks   [2][]taskEntry // by kind and task
	byNode  map[sched.NodeID][]int32
	byRack  map[sched.RackID][]int32
	anyMap  []int32
	reduces []int32 // pending reduce tasks, FIFO
}

// taskEntry is where one task of a job stands at the coordinator.
type taskEntry struct {
	next    int32 // the number of its next attempt
	live    int32 // running attempts
	pending bool
	done    bool
}

func newJobTable(rackOf []sched.RackID) *jobTable {
	return &jobTable{rackOf: rackOf, jobs: make(map[sched.JobID]*tableJob)}
}

// add registers a submitted job with no pending task yet.
func (t *jobTable) add(job sched.Job, input *file) {
	j := &tableJob{
		status: sched.JobStatus{Job: job},
		input:  input,
		tasks:  [2][]taskEntry{make([]taskEntry, job.Maps), make([]taskEntry, job.Reduces)},
		byNode: make(map[sched.NodeID][]int32),
		byRack: make(map[sched.RackID][]int32),
	}
	t.jobs[job.ID] = j
	i := sort.Search(len(t.order), func(i int) bool { return submittedBefore(job, t.order[i].status.Job) })
	t.order = slices.Insert(t.order, i, j)
}

func submittedBefore(a, b sched.Job) bool {
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	return a.ID < b.ID
}

// remove forgets a job.
func (t *jobTable) remove(id sched.JobID) {
	j, ok := t.jobs[id]
	if !ok {
		return
	}
	delete(t.jobs, id)
	t.order = slices.DeleteFunc(t.order, func(o *tableJob) bool { return o == j })
}

// job returns an active job, or nil.
func (t *jobTable) job(id sched.JobID) *tableJob { return t.jobs[id] }

// statuses yields a copy of every active job's status in submission order.
func (t *jobTable) statuses() iter.Seq[sched.JobStatus] {
	return func(yield func(sched.JobStatus) bool) {
		for _, j := range t.order {
			if !yield(j.status) {
				return
			}
		}
	}
}

// entry returns a task's entry, or nil when the job or task is unknown.
func (t *jobTable) entry(id sched.JobID, kind sched.TaskKind, task int32) (*tableJob, *taskEntry) {
	j := t.jobs[id]
	if j == nil || task < 0 || int(task) >= len(j.tasks[kind]) {
		return nil, nil
	}
	return j, &j.tasks[kind][task]
}

// addMap makes a map task pending, indexed by the nodes and racks holding
// its input now. A finished map made pending again lost its output.
func (t *jobTable) addMap(id sched.JobID, task int32) {
	j, e := t.entry(id, sched.Map, task)
	if e == nil || e.pending || j.input == nil {
		return
	}
	if e.done {
		e.done = false
		j.status.FinishedMaps--
	}
	e.pending = true
	j.status.PendingMaps++
	for _, n := range j.input.blocks[task].replicas {
		j.byNode[n] = append(j.byNode[n], task)
		r := t.rackOf[n]
		if l := j.byRack[r]; len(l) == 0 || l[len(l)-1] != task {
			j.byRack[r] = append(l, task)
		}
	}
	j.anyMap = append(j.anyMap, task)
}

// addReduce makes a reduce task pending.
func (t *jobTable) addReduce(id sched.JobID, task int32) {
	j, e := t.entry(id, sched.Reduce, task)
	if e == nil || e.pending || e.done {
		return
	}
	e.pending = true
	j.reduces = append(j.reduces, task)
	j.status.PendingReduces++
}

// take removes the best-placed pending task of the kind for the node, no
// worse than max, and reports it with its locality.
func (t *jobTable) take(id sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	j := t.jobs[id]
	if j == nil {
		return 0, 0, false
	}
	if kind == sched.Reduce {
		for len(j.reduces) > 0 && !j.tasks[sched.Reduce][j.reduces[0]].pending {
			j.reduces = j.reduces[1:]
		}
		if len(j.reduces) == 0 {
			return 0, 0, false
		}
		task := j.reduces[0]
		j.reduces = j.reduces[1:]
		j.tasks[sched.Reduce][task].pending = false
		j.status.PendingReduces--
		return task, sched.OffRack, true
	}
	task, loc, ok := t.bestMap(j, node, max)
	if ok {
		j.tasks[sched.Map][task].pending = false
		j.status.PendingMaps--
	}
	return task, loc, ok
}

// bestLocality reports the best locality of a pending task of the kind on
// the node, and false when the job has none.
func (t *jobTable) bestLocality(id sched.JobID, kind sched.TaskKind, node sched.NodeID) (sched.Locality, bool) {
	j := t.jobs[id]
	if j == nil || j.status.Pending(kind) == 0 {
		return 0, false
	}
	if kind == sched.Reduce {
		return sched.OffRack, true
	}
	_, loc, ok := t.bestMap(j, node, sched.OffRack)
	return loc, ok
}

// bestMap finds the best-placed pending map, dropping taken tasks and
// gone replicas from the heads of the lists it looks at.
func (t *jobTable) bestMap(j *tableJob, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	maps := j.tasks[sched.Map]
	onNode := func(task int32) bool { return maps[task].pending && j.holds(task, node) }
	if task, ok := firstIn(j.byNode, node, onNode); ok {
		return task, sched.NodeLocal, true
	}
	if max < sched.RackLocal {
		return 0, 0, false
	}
	rack := t.rackOf[node]
	inRack := func(task int32) bool { return maps[task].pending && t.inRack(j, task, rack) }
	if task, ok := firstIn(j.byRack, rack, inRack); ok {
		return task, sched.RackLocal, true
	}
	if max < sched.OffRack {
		return 0, 0, false
	}
	for len(j.anyMap) > 0 && !maps[j.anyMap[0]].pending {
		j.anyMap = j.anyMap[1:]
	}
	if len(j.anyMap) == 0 {
		return 0, 0, false
	}
	return j.anyMap[0], sched.OffRack, true
}

// firstIn returns the first task listed under key that is still valid,
// dropping the invalid ones before it.
func firstIn[K comparable](index map[K][]int32, key K, valid func(int32) bool) (int32, bool) {
	list := index[key]
	for len(list) > 0 && !valid(list[0]) {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(index, key)
		return 0, false
	}
	index[key] = list
	return list[0], true
}

// holds reports whether the node holds a live replica of the map's block.
func (j *tableJob) holds(task int32, node sched.NodeID) bool {
	return slices.Contains(j.input.blocks[task].replicas, node)
}

func (t *jobTable) inRack(j *tableJob, task int32, rack sched.RackID) bool {
	return slices.ContainsFunc(j.input.blocks[task].replicas, func(n sched.NodeID) bool { return t.rackOf[n] == rack })
}

// mapLocality is how close the nearest live replica of a map's block is to
// the node.
func (t *jobTable) mapLocality(id sched.JobID, task int32, node sched.NodeID) sched.Locality {
	j, e := t.entry(id, sched.Map, task)
	switch {
	case e == nil || j.input == nil:
		return sched.OffRack
	case j.holds(task, node):
		return sched.NodeLocal
	case t.inRack(j, task, t.rackOf[node]):
		return sched.RackLocal
	}
	return sched.OffRack
}

// copyable reports whether a task runs and has not finished, so another
// attempt of it may launch.
func (t *jobTable) copyable(id sched.JobID, kind sched.TaskKind, task int32) bool {
	_, e := t.entry(id, kind, task)
	return e != nil && e.live > 0 && !e.done
}

// attempt numbers the next attempt of a task.
func (t *jobTable) attempt(id sched.JobID, kind sched.TaskKind, task int32) sched.Attempt {
	a := sched.Attempt{Job: id, Kind: kind, Task: task}
	if _, e := t.entry(id, kind, task); e != nil {
		a.Attempt = e.next
		e.next++
	}
	return a
}

// launched counts an attempt as running.
func (t *jobTable) launched(a sched.Attempt) {
	j, e := t.entry(a.Job, a.Kind, a.Task)
	if e == nil {
		return
	}
	c := countsOf(&j.status, a.Kind)
	e.live++
	*c.attempts++
	if e.live == 1 {
		*c.running++
	}
}

// ended counts an attempt as no longer running; the first to succeed
// finishes its task.
func (t *jobTable) ended(a sched.Attempt, succeeded bool) {
	j, e := t.entry(a.Job, a.Kind, a.Task)
	if e == nil || e.live == 0 {
		return
	}
	c := countsOf(&j.status, a.Kind)
	e.live--
	*c.attempts--
	if e.live == 0 {
		*c.running--
	}
	if succeeded && !e.done {
		e.done = true
		*c.finished++
	}
}

// kindCounts points at a job's counters of one kind of task.
type kindCounts struct{ pending, running, finished, attempts *int }

func countsOf(st *sched.JobStatus, kind sched.TaskKind) kindCounts {
	if kind == sched.Map {
		return kindCounts{&st.PendingMaps, &st.RunningMaps, &st.FinishedMaps, &st.MapAttempts}
	}
	return kindCounts{&st.PendingReduces, &st.RunningReduces, &st.FinishedReduces, &st.ReduceAttempts}
}
