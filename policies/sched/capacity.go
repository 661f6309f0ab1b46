package sched

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Capacity is YARN's (and Hadoop 1's) Capacity scheduler as Álvarez-Tabío
// et al. describe it (§V-C, notes §2.3): named queues, each guaranteed a
// percentage of the cluster's slots and allowed up to a maximum. A job
// joins the queue its pool names (DefaultQueue when it names none). Per
// slot kind, a free slot goes to the queue with the least used / capacity
// (used: the slots of the kind its jobs' attempts hold; capacity: its
// percentage of the kind's slots) among the queues with a task for the
// node that hold fewer than their maximum; ties go to the queue listed
// first. Within the queue the slot goes to the first job, by priority then
// submission, with a task for the node (FIFO with priorities). A queue
// takes slots beyond its capacity while the others do not want them, and
// gives them back only as its attempts end: nothing is preempted.
//
// Assign costs O(jobs + queues) per slot.
type Capacity struct {
	queues []CapacityQueue
	index  map[string]int
	jobs   map[JobID]Job
	// order is the active jobs by priority, submission and ID.
	order []Job
	// delay is node_locality_delay, and missed each job's scheduling
	// opportunities passed up by kind since it last took a node- or
	// rack-local container (capacity_delay.go); nil while delay is 0.
	delay  int
	missed map[missedKey]int
}

// DefaultQueue is the queue of a job that names no pool.
const DefaultQueue = "default"

// CapacityParams are "capacity"'s parameters:
//
//	queues = [{name = "prod", capacity = 70, max_capacity = 100},
//	          {name = "default", capacity = 30, max_capacity = 50}]
//
// Capacities are percentages of each slot kind and add up to 100, as
// YARN's do; max_capacity (default 100) is at least the capacity. The
// default is one queue, "default", with all the slots.
type CapacityParams struct {
	Queues []CapacityQueue `toml:"queues"`
	// NodeLocalityDelay is YARN's node-locality-delay: the scheduling
	// opportunities a job passes up waiting for a node-local map before it
	// takes a rack-local one (see Capacity); 0, the default here, waits
	// for none and places off-rack at once (YARN's own default is 40).
	NodeLocalityDelay int `toml:"node_locality_delay,omitzero"`
}

// CapacityQueue is one queue of "capacity": its name, which jobs' pools
// name, and its capacity and maximum, percent of each slot kind.
type CapacityQueue struct {
	Name        string   `toml:"name"`
	Capacity    float64  `toml:"capacity"`
	MaxCapacity *float64 `toml:"max_capacity"` // nil: 100
}

// DefaultCapacityParams returns "capacity"'s defaults: one queue,
// "default", of capacity 100.
func DefaultCapacityParams() *CapacityParams {
	return &CapacityParams{Queues: []CapacityQueue{{Name: DefaultQueue, Capacity: 100}}}
}

// max is the queue's maximum, percent.
func (q CapacityQueue) max() float64 {
	if q.MaxCapacity == nil {
		return 100
	}
	return *q.MaxCapacity
}

// Validate implements Params.
func (p *CapacityParams) Validate() error {
	var c paramChecks
	c.check(len(p.Queues) == 0, "queues", p.Queues, `must list at least one queue, like [{name = "default", capacity = 100}]`)
	sum := 0.0
	first := map[string]int{}
	for i, q := range p.Queues {
		key := fmt.Sprintf("queues[%d]", i)
		c.check(q.Name == "", key+".name", nil, "missing; every queue needs a name, which jobs' pools name")
		if j, dup := first[q.Name]; dup && q.Name != "" {
			c.check(true, key+".name", q.Name, fmt.Sprintf("names queues[%d] again: a queue is declared once", j))
		} else {
			first[q.Name] = i
		}
		c.number(key+".capacity", q.Capacity, 0, 100)
		if q.MaxCapacity != nil {
			m := *q.MaxCapacity
			c.check(!(m <= 100), key+".max_capacity", m, "must be a percentage of the slots, at most 100")
			c.check(m < q.Capacity, key+".max_capacity", m, fmt.Sprintf("must be at least the queue's capacity, %g", q.Capacity))
		}
		sum += q.Capacity
	}
	c.check(len(p.Queues) > 0 && !(math.Abs(sum-100) < 1e-9), "queues", capacities(p.Queues),
		fmt.Sprintf("capacities must add up to 100 (they add up to %g)", sum))
	c.check(p.NodeLocalityDelay < 0 || p.NodeLocalityDelay > 1_000_000, "node_locality_delay", p.NodeLocalityDelay,
		"must be 0 (no delay) … 1000000 scheduling opportunities")
	return c.err()
}

// capacities lists the queues' capacities, for an error.
func capacities(qs []CapacityQueue) []float64 {
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = q.Capacity
	}
	return out
}

// HasQueue reports whether a job of the pool has a queue to join: one
// named as the pool, or for a job without a pool, DefaultQueue.
func (p *CapacityParams) HasQueue(pool string) bool {
	if pool == "" {
		pool = DefaultQueue
	}
	return slices.ContainsFunc(p.Queues, func(q CapacityQueue) bool { return q.Name == pool })
}

func init() {
	Register("capacity", DefaultCapacityParams, func(p *CapacityParams) (Policy, error) {
		c := NewCapacity(p.Queues)
		c.delay = p.NodeLocalityDelay
		return c, nil
	})
}

// NewCapacity returns a Capacity scheduler of the queues, which must be
// valid (CapacityParams.Validate).
func NewCapacity(queues []CapacityQueue) *Capacity {
	c := &Capacity{queues: slices.Clone(queues), index: map[string]int{}, jobs: map[JobID]Job{}}
	for i, q := range queues {
		c.index[q.Name] = i
	}
	return c
}

// Name implements Policy.
func (*Capacity) Name() string { return "capacity" }

// queueOf is the job's queue: its pool's, DefaultQueue's for a job
// without one, and the first queue for a pool no queue is named after
// (which a scenario refuses).
func (c *Capacity) queueOf(j Job) int {
	name := j.Pool
	if name == "" {
		name = DefaultQueue
	}
	return c.index[name]
}

// QueueShare implements QueueShares: the queue's capacity.
func (c *Capacity) QueueShare(pool string) (string, float64) {
	q := c.queues[c.queueOf(Job{Pool: pool})]
	return q.Name, q.Capacity / 100
}

// Submitted implements Policy: the job takes its place by priority, then
// submission.
func (c *Capacity) Submitted(_ time.Duration, job Job) {
	c.jobs[job.ID] = job
	i, _ := slices.BinarySearchFunc(c.order, job, func(a, b Job) int {
		if before(a, b) {
			return -1
		}
		return 1
	})
	c.order = slices.Insert(c.order, i, job)
}

// Ended implements Policy.
func (c *Capacity) Ended(_ time.Duration, id JobID) {
	delete(c.jobs, id)
	delete(c.missed, missedKey{id, Map})
	delete(c.missed, missedKey{id, Reduce})
	c.order = slices.DeleteFunc(c.order, func(j Job) bool { return j.ID == id })
}

// Launched implements Policy; the slots held are read from the view.
func (*Capacity) Launched(time.Duration, Launch) {}

// Finished implements Policy.
func (*Capacity) Finished(time.Duration, Finish) {}

// Heartbeat implements Policy.
func (*Capacity) Heartbeat(time.Duration, NodeID) {}

// Assign gives the slot to the queue of least used / capacity among those
// below their maximum with a task for the node, and in it to the first
// job by priority and submission with one.
func (c *Capacity) Assign(_ time.Duration, v View, s Slot) (Assignment, bool) {
	return c.assign(v, s, false)
}

// AssignContainer implements ContainerAware, as YARN's Capacity Scheduler
// assigns a container: a queue's use is the containers its jobs hold of
// both kinds, and its first job with a task for the node takes it, a
// reduce before a map.
func (c *Capacity) AssignContainer(_ time.Duration, v View, s Slot) (Assignment, bool) {
	return c.assign(v, s, true)
}

// assign is Assign over the slots of s's kind, or with either over the
// containers, which View.Slots counts for each kind.
func (c *Capacity) assign(v View, s Slot, either bool) (Assignment, bool) {
	n := len(c.queues)
	used := make([]int, n)
	size := 1
	if either {
		size = reduceSize(v)
	}
	for st := range v.Jobs() {
		if _, ok := c.jobs[st.ID]; !ok {
			continue
		}
		if either {
			used[c.queueOf(st.Job)] += st.MapAttempts + size*st.ReduceAttempts
		} else {
			used[c.queueOf(st.Job)] += st.Attempts(s.Kind)
		}
	}
	if c.delay > 0 {
		return c.assignDelayed(v, s, either, used)
	}
	// first[q] is queue q's first job with a task for the node.
	type queued struct {
		job   JobID
		kind  TaskKind
		found bool
	}
	first := make([]queued, n)
	for _, j := range c.order {
		q := c.queueOf(j)
		if first[q].found {
			continue
		}
		kind, ok := s.Kind, false
		if either {
			kind, ok = containerKind(v, j.ID, s.Node)
		} else {
			_, ok = v.BestLocality(j.ID, kind, s.Node)
		}
		first[q] = queued{j.ID, kind, ok}
	}
	slots := float64(v.Slots(s.Kind))
	best, bestRatio := -1, 0.0
	for q, queue := range c.queues {
		if !first[q].found || float64(used[q]) >= queue.max()/100*slots-1e-9 {
			continue
		}
		r := ratio(float64(used[q]), queue.Capacity/100*slots)
		if best < 0 || r < bestRatio {
			best, bestRatio = q, r
		}
	}
	if best < 0 {
		return Assignment{}, false
	}
	if s.Why != nil {
		q := c.queues[best]
		what := s.Kind.String() + " slots"
		if either {
			what = "containers"
		}
		s.Why.Note(first[best].job, "capacity: queue %q holds %d of %d %s (capacity %g%%, maximum %g%%), the least used / capacity; its first job by priority and submission",
			q.Name, used[best], int(slots), what, q.Capacity, q.max())
	}
	return Assignment{Job: first[best].job, Kind: first[best].kind, MaxLocality: OffRack}, true
}

// Headroom implements Headroom, as YARN's Capacity Scheduler computes an
// application's: its queue's maximum capacity of the containers less what
// the queue's jobs hold (users' limits are not modelled).
func (c *Capacity) Headroom(v View, job JobID) (int, bool) {
	j, ok := c.jobs[job]
	if !ok {
		return 0, false
	}
	q, size, used := c.queueOf(j), reduceSize(v), 0
	for st := range v.Jobs() {
		if k, ok := c.jobs[st.ID]; ok && c.queueOf(k) == q {
			used += st.MapAttempts + size*st.ReduceAttempts
		}
	}
	most := int(math.Floor(c.queues[q].max()/100*float64(v.Slots(Map)) + 1e-9))
	return max(0, most-used), true
}

// Tick implements Policy; Capacity never preempts.
func (*Capacity) Tick(time.Duration, View) []Preemption { return nil }

// Queued is implemented by the parameters of a policy whose jobs join
// named queues by their pool (Capacity): HasQueue reports whether a job of
// the pool, "" for none, has a queue to join. A scenario refuses a pool
// that has none.
type Queued interface {
	HasQueue(pool string) bool
}
