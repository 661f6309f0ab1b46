package actors

import (
	"iter"
	"maps"
	"slices"
	"sort"
	"time"

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
// A task queued again (an attempt failed or was killed, its output was
// lost) goes to the front of every list, the latest first, as Hadoop's
// failMap and failReduce put it; the entries of its earlier queuing are
// stale for good, so whether a query dropped them already changes nothing
// a later pick sees: a policy's questions never change which task runs.
// A reduce Mantri's placement named a rack for is listed under that rack
// too, and a node elsewhere takes it only once its wait there has ended
// (bestReduce).
type jobTable struct {
	rackOf []sched.RackID // by node
	jobs   map[sched.JobID]*tableJob
	order  []*tableJob // submission order
	// mem is the cache directory's view, nil without a cache: a pending
	// map whose block a node caches is memory-local there. Caching nodes
	// join a job's index as hints (byMemory), re-checked when taken, since
	// a block may leave a cache while its map waits. memFirst has a node
	// take a memory-local map before any other of the job's.
	mem      memoryIndex
	memFirst bool
	readers  map[*file][]*tableJob // the jobs reading each input, with a cache
	// now is the emulated time of the event the coordinator handles: a
	// reduce placed in a rack waits there until its wait ends.
	now time.Duration
	// version moves with every call that may change a job's status or the
	// jobs listed, so a policy may keep what it made of them while it
	// stands (sched.Versioned). Only the methods of this file write a
	// status, and each that does moves it first.
	version uint64
	// pending[kind][id] is active job id's pending tasks of the kind, as
	// its status counts them, in one dense array by job ID: a policy asks
	// of job after job in its order whether it has a task for a slot
	// (bestLocality), and most have none, which this answers without a
	// map lookup and a cold job record each.
	pending [2][]int32
}

// memoryIndex is what the job table asks the cache directory.
type memoryIndex interface {
	cached(f *file, task int32, node sched.NodeID) bool
	holders(f *file, task int32) []sched.NodeID
	// idle reports whether a node has a free map slot: it takes a map at
	// its next heartbeat.
	idle(node sched.NodeID) bool
}

// spared is what a node makes of a pending map another node may cache.
type spared uint8

const (
	takeIt   spared = iota // no other node caches its block
	takeLast               // another node caches it but has no free slot: taken when nothing else is
	leaveIt                // another node caches it and has a free slot: left for that node
)

type tableJob struct {
	status sched.JobStatus
	input  *file          // nil when the input could not be stored
	tasks  [2]taskEntries // by kind and task
	byNode map[sched.NodeID]*taskList
	byRack map[sched.RackID]*taskList
	// byMemory lists pending maps under the nodes caching their blocks,
	// with a cache.
	byMemory map[sched.NodeID]*taskList
	anyMap   taskList
	reduces  taskList
	// placed are the reduces Mantri's placement named a rack for, by
	// task, and reducesIn lists them by rack; both nil until one is.
	placed    []rackPlace
	reducesIn map[sched.RackID]*taskList
}

// rackPlace is the rack a reduce was queued for and when it may leave
// it; gen is the queuing it was named at (0: never), so a reduce queued
// again without a rack is no longer held there.
type rackPlace struct {
	rack  sched.RackID
	until time.Duration
	gen   int32
}

// queued lists a pending task: the task and which of its queuings this is.
type queued struct{ task, gen int32 }

// taskEntry is where one task of a job stands at the coordinator.
type taskEntry struct {
	next    int32         // the number of its next attempt
	live    int32         // running attempts
	gen     int32         // times queued: only entries of the latest are valid
	since   time.Duration // last queued
	pending bool
	done    bool
}

func newJobTable(rackOf []sched.RackID) *jobTable {
	return &jobTable{rackOf: rackOf, jobs: make(map[sched.JobID]*tableJob)}
}

// add registers a submitted job with no pending task yet.
func (t *jobTable) add(job sched.Job, input *file) {
	t.version++
	j := &tableJob{
		status: sched.JobStatus{Job: job},
		input:  input,
		tasks:  [2]taskEntries{make(taskEntries, job.Maps), make(taskEntries, job.Reduces)},
		byNode: make(map[sched.NodeID]*taskList),
		byRack: make(map[sched.RackID]*taskList),
	}
	t.jobs[job.ID] = j
	i := sort.Search(len(t.order), func(i int) bool { return submittedBefore(job, t.order[i].status.Job) })
	t.order = slices.Insert(t.order, i, j)
	if t.mem != nil && input != nil {
		j.byMemory = make(map[sched.NodeID]*taskList)
		if t.readers == nil {
			t.readers = make(map[*file][]*tableJob)
		}
		for _, p := range input.stored() {
			t.readers[p.file] = append(t.readers[p.file], j)
		}
	}
}

func submittedBefore(a, b sched.Job) bool {
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	return a.ID < b.ID
}

// remove forgets a job.
func (t *jobTable) remove(id sched.JobID) {
	t.version++
	j, ok := t.jobs[id]
	if !ok {
		return
	}
	delete(t.jobs, id)
	t.setPending(id, sched.Map, 0)
	t.setPending(id, sched.Reduce, 0)
	t.order = slices.DeleteFunc(t.order, func(o *tableJob) bool { return o == j })
	if j.input == nil {
		return
	}
	for _, p := range j.input.stored() {
		if r := t.readers[p.file]; r != nil {
			if r = slices.DeleteFunc(r, func(o *tableJob) bool { return o == j }); len(r) == 0 {
				delete(t.readers, p.file)
			} else {
				t.readers[p.file] = r
			}
		}
	}
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
	t.version++
	j, e := t.entry(id, sched.Map, task)
	if e == nil || e.pending || j.input == nil {
		return
	}
	if e.done {
		e.done = false
		j.status.FinishedMaps--
	}
	again := e.gen > 0
	e.pending, e.since = true, t.now
	e.gen++
	q := queued{task, e.gen}
	j.status.PendingMaps++
	t.setPending(id, sched.Map, j.status.PendingMaps)
	for _, n := range j.input.block(task).replicas {
		listAt(j.byNode, n).add(q, again)
		listAt(j.byRack, t.rackOf[n]).add(q, again) // once per rack
	}
	j.anyMap.add(q, again)
	if j.byMemory != nil {
		for _, n := range t.mem.holders(j.input, task) {
			listAt(j.byMemory, n).add(q, again)
		}
	}
}

// memoryAdded lists the pending maps that read block index of f under
// node, whose cache now holds it.
func (t *jobTable) memoryAdded(f *file, index int32, node sched.NodeID) {
	for _, j := range t.readers[f] {
		task, ok := j.input.taskOf(f, index)
		if !ok || int(task) >= len(j.tasks[sched.Map]) {
			continue
		}
		if e := &j.tasks[sched.Map][task]; e.pending {
			listAt(j.byMemory, node).add(queued{task, e.gen}, e.gen > 1)
		}
	}
}

// launchedMap reports whether an active job has launched a map (MIN's
// oracle: the job has read its block).
func (t *jobTable) launchedMap(id sched.JobID, task int32) bool {
	_, e := t.entry(id, sched.Map, task)
	return e != nil && e.next > 0
}

// replicaAdded lists the pending maps that read block index of f under
// node, which now holds a replica of it, so they are found node-local
// (and rack-local) there.
func (t *jobTable) replicaAdded(f *file, index int, node sched.NodeID) {
	for _, id := range slices.Sorted(maps.Keys(t.jobs)) {
		j := t.jobs[id]
		if j.input == nil {
			continue
		}
		task, ok := j.input.taskOf(f, int32(index))
		if !ok || int(task) >= len(j.tasks[sched.Map]) {
			continue
		}
		if e := &j.tasks[sched.Map][task]; e.pending {
			q := queued{task, e.gen}
			listAt(j.byNode, node).add(q, e.gen > 1)
			listAt(j.byRack, t.rackOf[node]).add(q, e.gen > 1)
		}
	}
}

// hangingMaps counts the job's pending maps queued more than wait before
// now (an application master's hanging map requests).
func (t *jobTable) hangingMaps(id sched.JobID, now, wait time.Duration) int {
	j := t.jobs[id]
	if j == nil {
		return 0
	}
	n := 0
	for i := range j.tasks[sched.Map] {
		if e := &j.tasks[sched.Map][i]; e.pending && now-e.since > wait {
			n++
		}
	}
	return n
}

// addReduce makes a reduce task pending.
func (t *jobTable) addReduce(id sched.JobID, task int32) {
	t.version++
	j, e := t.entry(id, sched.Reduce, task)
	if e == nil || e.pending || e.done {
		return
	}
	again := e.gen > 0
	e.pending = true
	e.gen++
	j.reduces.add(queued{task, e.gen}, again)
	j.status.PendingReduces++
	t.setPending(id, sched.Reduce, j.status.PendingReduces)
}

// addReduceIn makes a reduce task pending in a rack, which it leaves for
// any other after wait.
func (t *jobTable) addReduceIn(id sched.JobID, task int32, rack sched.RackID, wait time.Duration) {
	t.addReduce(id, task)
	j, e := t.entry(id, sched.Reduce, task)
	if e == nil || !e.pending {
		return
	}
	if j.placed == nil {
		j.placed = make([]rackPlace, len(j.tasks[sched.Reduce]))
		j.reducesIn = make(map[sched.RackID]*taskList)
	}
	j.placed[task] = rackPlace{rack: rack, until: t.now + wait, gen: e.gen}
	listAt(j.reducesIn, rack).add(queued{task, e.gen}, e.gen > 1)
}

// take removes the best-placed pending task of the kind for the node, no
// worse than max, and reports it with its locality.
func (t *jobTable) take(id sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	t.version++
	j := t.jobs[id]
	if j == nil {
		return 0, 0, false
	}
	if kind == sched.Reduce {
		task, loc, ok := t.bestReduce(j, node)
		if ok {
			j.tasks[sched.Reduce][task].pending = false
			j.status.PendingReduces--
			t.setPending(id, sched.Reduce, j.status.PendingReduces)
		}
		return task, loc, ok
	}
	task, loc, ok := t.bestMap(j, node, max)
	if ok {
		j.tasks[sched.Map][task].pending = false
		j.status.PendingMaps--
		t.setPending(id, sched.Map, j.status.PendingMaps)
	}
	return task, loc, ok
}

// bestLocality reports the best locality of a pending task of the kind on
// the node, and false when the job has none.
func (t *jobTable) bestLocality(id sched.JobID, kind sched.TaskKind, node sched.NodeID) (sched.Locality, bool) {
	if p := t.pending[kind]; id < 0 || id >= sched.JobID(len(p)) || p[id] == 0 {
		return 0, false
	}
	j := t.jobs[id]
	if kind == sched.Reduce {
		_, loc, ok := t.bestReduce(j, node)
		return loc, ok
	}
	_, loc, ok := t.bestMap(j, node, sched.OffRack)
	return loc, ok
}

// setPending records job id's pending tasks of the kind (pending).
func (t *jobTable) setPending(id sched.JobID, kind sched.TaskKind, n int) {
	p := t.pending[kind]
	if id < 0 || id >= sched.JobID(len(p)) && n == 0 {
		return
	}
	if id >= sched.JobID(len(p)) {
		p = slices.Grow(p, int(id)+1-len(p))[:id+1]
		t.pending[kind] = p
	}
	p[id] = int32(n)
}

// bestReduce finds the pending reduce a node may take: one placed in the
// node's rack (rack-local), else the first one placed nowhere or done
// waiting for its rack (off-rack). A reduce reads from every map, so a
// locality bound does not apply to it: the rack is the placement's.
func (t *jobTable) bestReduce(j *tableJob, node sched.NodeID) (int32, sched.Locality, bool) {
	listed := j.tasks[sched.Reduce].listed
	if j.placed == nil {
		task, ok := j.reduces.first(listed)
		return task, sched.OffRack, ok
	}
	placedNow := func(q queued) bool { return listed(q) && j.placed[q.task].gen == q.gen }
	if task, ok := firstIn(j.reducesIn, t.rackOf[node], placedNow); ok {
		return task, sched.RackLocal, true
	}
	free := func(q queued) bool { return !placedNow(q) || j.placed[q.task].until <= t.now }
	task, ok := j.reduces.firstWhere(listed, free)
	return task, sched.OffRack, ok
}

// bestMap finds the best-placed pending map, dropping taken tasks and
// gone replicas from the heads of the lists it looks at.
func (t *jobTable) bestMap(j *tableJob, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	if j.byMemory == nil {
		return t.bestStored(j, node, max, nil)
	}
	maps := j.tasks[sched.Map]
	if t.memFirst {
		inMemory := func(q queued) bool { return maps.listed(q) && t.mem.cached(j.input, q.task, node) }
		if task, ok := firstIn(j.byMemory, node, inMemory); ok {
			return task, sched.MemoryLocal, true
		}
	}
	// A map another node caches is left for that node: while it has a
	// free slot, and otherwise while this one has other work (spareScan).
	spare := func(task int32) spared {
		h := t.mem.holders(j.input, task)
		switch {
		case len(h) == 0 || slices.Contains(h, node):
			return takeIt
		case slices.ContainsFunc(h, t.mem.idle):
			return leaveIt
		}
		return takeLast
	}
	task, loc, ok := t.bestStored(j, node, max, spare)
	if ok && t.mem.cached(j.input, task, node) {
		loc = sched.MemoryLocal // the map read from memory where it runs
	}
	return task, loc, ok
}

// bestStored finds the best-placed pending map by where its block is
// stored: node-local, rack-local, then any. With spare, at each level it
// takes a map no other node caches first, then one whose caching node is
// busy, among the first spareScan maps; one whose caching node has a free
// slot it leaves to that node.
func (t *jobTable) bestStored(j *tableJob, node sched.NodeID, max sched.Locality, spare func(int32) spared) (int32, sched.Locality, bool) {
	maps := j.tasks[sched.Map]
	onNode := func(q queued) bool { return maps.listed(q) && j.holds(q.task, node) }
	if task, ok := firstIn(j.byNode, node, onNode); ok {
		if task, ok = j.byNode[node].sparing(task, onNode, spare); ok {
			return task, sched.NodeLocal, true
		}
	}
	if max < sched.RackLocal {
		return 0, 0, false
	}
	rack := t.rackOf[node]
	inRack := func(q queued) bool { return maps.listed(q) && t.inRack(j, q.task, rack) }
	if task, ok := firstIn(j.byRack, rack, inRack); ok {
		if task, ok = j.byRack[rack].sparing(task, inRack, spare); ok {
			return task, sched.RackLocal, true
		}
	}
	if max < sched.OffRack {
		return 0, 0, false
	}
	task, ok := j.anyMap.first(maps.listed)
	if ok {
		task, ok = j.anyMap.sparing(task, maps.listed, spare)
	}
	return task, sched.OffRack, ok
}

// spareScan bounds how far down a list a node looks past maps other
// nodes cache, so a take stays O(1).
const spareScan = 64

// sparing returns the first valid task from first on, among spareScan,
// that spare says to take, or else the first it says to take last; none
// when every one it saw is to be left. It drops nothing.
func (l *taskList) sparing(first int32, valid func(queued) bool, spare func(int32) spared) (int32, bool) {
	if spare == nil {
		return first, true
	}
	switch spare(first) {
	case takeIt:
		return first, true
	case takeLast:
		return l.scanSpared(first, true, valid, spare)
	}
	return l.scanSpared(0, false, valid, spare)
}

// scanSpared looks through the list for a task to take, falling back on
// last when there is one (found).
func (l *taskList) scanSpared(last int32, found bool, valid func(queued) bool, spare func(int32) spared) (int32, bool) {
	seen := 0
	check := func(q queued) bool {
		if !valid(q) {
			return false
		}
		seen++
		switch spare(q.task) {
		case takeIt:
			return true
		case takeLast:
			if !found {
				last, found = q.task, true
			}
		}
		return false
	}
	for i := len(l.again) - 1; i >= 0 && seen < spareScan; i-- {
		if check(l.again[i]) {
			return l.again[i].task, true
		}
	}
	for i := 0; i < len(l.fresh) && seen < spareScan; i++ {
		if check(l.fresh[i]) {
			return l.fresh[i].task, true
		}
	}
	return last, found
}

type taskEntries []taskEntry

// listed reports whether q is a valid listing: its task is pending, from
// the queuing q lists.
func (es taskEntries) listed(q queued) bool {
	e := &es[q.task]
	return e.pending && e.gen == q.gen
}

// taskList is one list of pending tasks: the tasks queued again, latest
// first (a stack whose top is its last element), before the tasks queued
// for the first time, in order.
type taskList struct{ again, fresh []queued }

// add lists q at the front when its task is queued again, else at the
// back. A map with two replicas in one rack is listed there once.
func (l *taskList) add(q queued, again bool) {
	switch {
	case again && (len(l.again) == 0 || l.again[len(l.again)-1] != q):
		l.again = append(l.again, q)
	case !again && (len(l.fresh) == 0 || l.fresh[len(l.fresh)-1] != q):
		l.fresh = append(l.fresh, q)
	}
}

// first returns the first task still valid, dropping the invalid ones
// before it.
func (l *taskList) first(valid func(queued) bool) (int32, bool) {
	for len(l.again) > 0 && !valid(l.again[len(l.again)-1]) {
		l.again = l.again[:len(l.again)-1]
	}
	if len(l.again) > 0 {
		return l.again[len(l.again)-1].task, true
	}
	for len(l.fresh) > 0 && !valid(l.fresh[0]) {
		l.fresh = l.fresh[1:]
	}
	if len(l.fresh) > 0 {
		return l.fresh[0].task, true
	}
	return 0, false
}

// firstWhere returns the first valid task that pick accepts, dropping the
// invalid ones before the first valid one; it scans the list past tasks
// pick refuses, O(tasks listed).
func (l *taskList) firstWhere(valid, pick func(queued) bool) (int32, bool) {
	if _, ok := l.first(valid); !ok {
		return 0, false
	}
	for i := len(l.again) - 1; i >= 0; i-- {
		if q := l.again[i]; valid(q) && pick(q) {
			return q.task, true
		}
	}
	for _, q := range l.fresh {
		if valid(q) && pick(q) {
			return q.task, true
		}
	}
	return 0, false
}

func listAt[K comparable](index map[K]*taskList, key K) *taskList {
	l := index[key]
	if l == nil {
		l = &taskList{}
		index[key] = l
	}
	return l
}

// firstIn returns the first valid task listed under key, forgetting the
// key once its list is empty.
func firstIn[K comparable](index map[K]*taskList, key K, valid func(queued) bool) (int32, bool) {
	l := index[key]
	if l == nil {
		return 0, false
	}
	task, ok := l.first(valid)
	if !ok {
		delete(index, key)
	}
	return task, ok
}

// holds reports whether the node holds a live replica of the map's block.
func (j *tableJob) holds(task int32, node sched.NodeID) bool {
	return slices.Contains(j.input.block(task).replicas, node)
}

func (t *jobTable) inRack(j *tableJob, task int32, rack sched.RackID) bool {
	return slices.ContainsFunc(j.input.block(task).replicas, func(n sched.NodeID) bool { return t.rackOf[n] == rack })
}

// mapLocality is how close the nearest live replica of a map's block is to
// the node.
func (t *jobTable) mapLocality(id sched.JobID, task int32, node sched.NodeID) sched.Locality {
	j, e := t.entry(id, sched.Map, task)
	switch {
	case e == nil || j.input == nil:
		return sched.OffRack
	case t.mem != nil && t.mem.cached(j.input, task, node):
		return sched.MemoryLocal
	case j.holds(task, node):
		return sched.NodeLocal
	case t.inRack(j, task, t.rackOf[node]):
		return sched.RackLocal
	}
	return sched.OffRack
}

// copyable reports whether a task runs and has not finished, so another
// attempt of it may launch.
// taskDone reports whether a task has finished.
func (t *jobTable) taskDone(id sched.JobID, kind sched.TaskKind, task int32) bool {
	_, e := t.entry(id, kind, task)
	return e != nil && e.done
}

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
	t.version++
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
	t.version++
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

// finished books a task its job manager finished before the coordinator
// restarted.
func (t *jobTable) finished(id sched.JobID, kind sched.TaskKind, task int32) {
	t.version++
	j, e := t.entry(id, kind, task)
	if e == nil || e.done {
		return
	}
	e.done = true
	*countsOf(&j.status, kind).finished++
}

// kindCounts points at a job's counters of one kind of task.
type kindCounts struct{ pending, running, finished, attempts *int }

func countsOf(st *sched.JobStatus, kind sched.TaskKind) kindCounts {
	if kind == sched.Map {
		return kindCounts{&st.PendingMaps, &st.RunningMaps, &st.FinishedMaps, &st.MapAttempts}
	}
	return kindCounts{&st.PendingReduces, &st.RunningReduces, &st.FinishedReduces, &st.ReduceAttempts}
}
