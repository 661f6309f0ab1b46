package actors

import (
	"sort"

	"clusteremu/policies/sched"
)

// jobTable is the coordinator's picture of the active jobs: each job's
// counts and its pending tasks, with the pending maps indexed by the nodes
// and racks that hold their input (Hadoop's per-job locality caches, YARN's
// resource requests). It implements sched.View for the policy.
//
// The indices use lazy deletion: a taken task stays in the lists of its
// other replicas' nodes and racks and is skipped when met, so taking a task
// costs O(1) amortised and adding one O(replicas).
type jobTable struct {
	rackOf []sched.RackID // by node
	jobs   map[sched.JobID]*tableJob
	order  []*sched.JobStatus // submission order
	slots  [2]int             // live slots by kind
	// admitsReduce, when set, says whether a node takes another reducer
	// of a job (copy-compute splitting's per-job cap).
	admitsReduce func(sched.JobID, sched.NodeID) bool
	// admitsMap, when set, says whether a node has intermediate space for
	// another map of a job.
	admitsMap func(sched.JobID, sched.NodeID) bool
}

type tableJob struct {
	status  sched.JobStatus
	byNode  map[sched.NodeID][]int32
	byRack  map[sched.RackID][]int32
	anyMap  []int32
	pending map[int32]bool // pending map tasks
	reduces []int32        // pending reduce tasks, FIFO
}

func newJobTable(rackOf []sched.RackID) *jobTable {
	return &jobTable{rackOf: rackOf, jobs: make(map[sched.JobID]*tableJob)}
}

// add registers a submitted job with no pending task yet.
func (t *jobTable) add(job sched.Job) {
	j := &tableJob{
		status:  sched.JobStatus{Job: job},
		byNode:  make(map[sched.NodeID][]int32),
		byRack:  make(map[sched.RackID][]int32),
		pending: make(map[int32]bool),
	}
	t.jobs[job.ID] = j
	i := sort.Search(len(t.order), func(i int) bool { return submittedBefore(job, t.order[i].Job) })
	t.order = append(t.order, nil)
	copy(t.order[i+1:], t.order[i:])
	t.order[i] = &j.status
}

func submittedBefore(a, b sched.Job) bool {
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	return a.ID < b.ID
}

// remove forgets a job.
func (t *jobTable) remove(id sched.JobID) {
	if _, ok := t.jobs[id]; !ok {
		return
	}
	delete(t.jobs, id)
	for i, st := range t.order {
		if st.ID == id {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// addMap makes a map task pending, preferring the nodes holding its input.
func (t *jobTable) addMap(id sched.JobID, task int32, replicas []sched.NodeID) {
	j := t.jobs[id]
	if j == nil || j.pending[task] {
		return
	}
	j.pending[task] = true
	j.status.PendingMaps++
	for _, n := range replicas {
		j.byNode[n] = append(j.byNode[n], task)
		r := t.rackOf[n]
		if l := j.byRack[r]; len(l) == 0 || l[len(l)-1] != task {
			j.byRack[r] = append(l, task)
		}
	}
	j.anyMap = append(j.anyMap, task)
}

// unfinished takes back a finished map whose output was lost.
func (t *jobTable) unfinished(id sched.JobID) {
	if j := t.jobs[id]; j != nil {
		j.status.FinishedMaps--
	}
}

// addReduce makes a reduce task pending.
func (t *jobTable) addReduce(id sched.JobID, task int32) {
	if j := t.jobs[id]; j != nil {
		j.reduces = append(j.reduces, task)
		j.status.PendingReduces++
	}
}

// take removes the best-placed pending task of the kind for the node, no
// worse than max, and reports it with its locality.
func (t *jobTable) take(id sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	j := t.jobs[id]
	if j == nil {
		return 0, 0, false
	}
	if kind == sched.Reduce {
		if len(j.reduces) == 0 {
			return 0, 0, false
		}
		task := j.reduces[0]
		j.reduces = j.reduces[1:]
		j.status.PendingReduces--
		return task, sched.OffRack, true
	}
	if t.admitsMap != nil && !t.admitsMap(id, node) {
		return 0, 0, false
	}
	task, loc, ok := j.bestMap(node, t.rackOf[node], max)
	if ok {
		delete(j.pending, task)
		j.status.PendingMaps--
	}
	return task, loc, ok
}

// bestMap finds the best-placed pending map, dropping taken tasks from the
// heads of the lists it looks at.
func (j *tableJob) bestMap(node sched.NodeID, rack sched.RackID, max sched.Locality) (int32, sched.Locality, bool) {
	if task, ok := firstPendingIn(j.pending, j.byNode, node); ok {
		return task, sched.NodeLocal, true
	}
	if max < sched.RackLocal {
		return 0, 0, false
	}
	if task, ok := firstPendingIn(j.pending, j.byRack, rack); ok {
		return task, sched.RackLocal, true
	}
	if max < sched.OffRack {
		return 0, 0, false
	}
	for len(j.anyMap) > 0 && !j.pending[j.anyMap[0]] {
		j.anyMap = j.anyMap[1:]
	}
	if len(j.anyMap) == 0 {
		return 0, 0, false
	}
	return j.anyMap[0], sched.OffRack, true
}

// firstPendingIn returns the first pending task listed under key, dropping
// the taken tasks before it.
func firstPendingIn[K comparable](pending map[int32]bool, index map[K][]int32, key K) (int32, bool) {
	list := index[key]
	for len(list) > 0 && !pending[list[0]] {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(index, key)
		return 0, false
	}
	index[key] = list
	return list[0], true
}

// launched counts a launch of the kind as running.
func (t *jobTable) launched(id sched.JobID, kind sched.TaskKind) {
	if j := t.jobs[id]; j != nil {
		if kind == sched.Map {
			j.status.RunningMaps++
		} else {
			j.status.RunningReduces++
		}
	}
}

// ended counts an attempt of the kind as no longer running; a successful
// one also counts as finished.
func (t *jobTable) ended(id sched.JobID, kind sched.TaskKind, succeeded bool) {
	j := t.jobs[id]
	if j == nil {
		return
	}
	done := 0
	if succeeded {
		done = 1
	}
	if kind == sched.Map {
		j.status.RunningMaps--
		j.status.FinishedMaps += done
	} else {
		j.status.RunningReduces--
		j.status.FinishedReduces += done
	}
}

// setSlots records the live cluster's slots of each kind.
func (t *jobTable) setSlots(maps, reduces int) { t.slots = [2]int{maps, reduces} }

// Jobs implements sched.View.
func (t *jobTable) Jobs() []*sched.JobStatus { return t.order }

// Job implements sched.View.
func (t *jobTable) Job(id sched.JobID) *sched.JobStatus {
	if j := t.jobs[id]; j != nil {
		return &j.status
	}
	return nil
}

// BestLocality implements sched.View.
func (t *jobTable) BestLocality(id sched.JobID, kind sched.TaskKind, node sched.NodeID) (sched.Locality, bool) {
	j := t.jobs[id]
	if j == nil || j.status.Pending(kind) == 0 {
		return 0, false
	}
	if kind == sched.Reduce {
		if t.admitsReduce != nil && !t.admitsReduce(id, node) {
			return 0, false
		}
		return sched.OffRack, true
	}
	if t.admitsMap != nil && !t.admitsMap(id, node) {
		return 0, false
	}
	_, loc, ok := j.bestMap(node, t.rackOf[node], sched.OffRack)
	return loc, ok
}

// Slots implements sched.View.
func (t *jobTable) Slots(kind sched.TaskKind) int { return t.slots[kind] }
