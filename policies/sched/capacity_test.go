package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capacityOf builds "capacity" from its parameters through the registry,
// as a scenario does.
func capacityOf(t *testing.T, queues ...CapacityQueue) Policy {
	t.Helper()
	p, err := New("capacity", &CapacityParams{Queues: queues}, Shape{})
	require.NoError(t, err)
	return p
}

func pct(x float64) *float64 { return &x }

// fill offers free map slots of node 0 until p declines one or none is
// left, launching a pending map of the job it picks each time, and
// returns the slots each job took.
func fill(t *testing.T, p Policy, v *fakeView, now time.Duration, free int) map[JobID]int {
	t.Helper()
	took := map[JobID]int{}
	p.Heartbeat(now, 0)
	for ; free > 0; free-- {
		a, ok := p.Assign(now, v, Slot{Kind: Map})
		if !ok {
			break
		}
		st := v.status(a.Job)
		require.Positive(t, st.PendingMaps, "job %d has no pending map", a.Job)
		st.PendingMaps--
		st.RunningMaps++
		st.MapAttempts++
		took[a.Job]++
	}
	return took
}

// end ends n of the job's running maps.
func end(st *JobStatus, n int) {
	st.RunningMaps -= n
	st.MapAttempts -= n
	st.FinishedMaps += n
}

// The case: queues prod and adhoc of capacities 70 and 30 and
// maxima 100 and 50 over 100 map slots, tasks of 10 s. Alone, prod takes
// all 100 slots and adhoc 50, its maximum, leaving 50 idle. With prod
// holding all 100 when adhoc's job arrives, adhoc gets nothing until
// prod's tasks end (no preemption); one task later, at 10 s, the 100 freed
// slots go to the queue of least used / capacity each, 70 to prod and 30
// to adhoc, and so on every wave.
func TestCapacityTakesIdleSlotsAndShrinksAsTasksEnd(t *testing.T) {
	queues := []CapacityQueue{{Name: "prod", Capacity: 70, MaxCapacity: pct(100)}, {Name: "adhoc", Capacity: 30, MaxCapacity: pct(50)}}
	const sec = time.Second
	for _, tc := range []struct {
		pool string
		want int
	}{{"prod", 100}, {"adhoc", 50}} {
		p := capacityOf(t, queues...)
		st := status(1, Normal, 0, 1000, 0)
		st.Pool = tc.pool
		v := &fakeView{jobs: []*JobStatus{st}, slots: map[TaskKind]int{Map: 100}}
		p.Submitted(0, st.Job)
		assert.Equal(t, map[JobID]int{1: tc.want}, fill(t, p, v, 0, 100), "%s alone", tc.pool)
	}

	p := capacityOf(t, queues...)
	prod, adhoc := status(1, Normal, 0, 1000, 0), status(2, Normal, 5*sec, 1000, 0)
	prod.Pool, adhoc.Pool = "prod", "adhoc"
	v := &fakeView{jobs: []*JobStatus{prod}, slots: map[TaskKind]int{Map: 100}}
	p.Submitted(0, prod.Job)
	assert.Equal(t, map[JobID]int{1: 100}, fill(t, p, v, 0, 100))
	v.jobs = append(v.jobs, adhoc)
	p.Submitted(5*sec, adhoc.Job)
	assert.Empty(t, fill(t, p, v, 5*sec, 0), "no slot is free: nothing is taken back")
	end(prod, 100)
	assert.Equal(t, map[JobID]int{1: 70, 2: 30}, fill(t, p, v, 10*sec, 100), "one task later")
	end(prod, 70)
	end(adhoc, 30)
	assert.Equal(t, map[JobID]int{1: 70, 2: 30}, fill(t, p, v, 20*sec, 100), "every wave")
}

// Within a queue a slot goes by priority, then submission; a job without
// a pool joins "default"; a queue with no task for the node is passed
// over, and when no queue has one the slot stays idle.
func TestCapacityOrderWithinAQueue(t *testing.T) {
	p := capacityOf(t, CapacityQueue{Name: "default", Capacity: 50}, CapacityQueue{Name: "prod", Capacity: 50})
	early, urgent, other := status(1, Normal, 0, 2, 0), status(2, High, time.Second, 2, 0), status(3, Normal, 0, 0, 1)
	other.Pool = "prod"
	v := &fakeView{jobs: []*JobStatus{early, urgent, other}, slots: map[TaskKind]int{Map: 10, Reduce: 10}}
	for _, st := range v.jobs {
		p.Submitted(st.Submit, st.Job)
	}
	assert.Equal(t, map[JobID]int{2: 2, 1: 2}, fill(t, p, v, time.Second, 10), "the high-priority job first, then the early one; prod has no map")
	a, ok := p.Assign(time.Second, v, Slot{Kind: Reduce})
	require.True(t, ok)
	assert.Equal(t, JobID(3), a.Job)
	p.Ended(2*time.Second, 3)
	_, ok = p.Assign(2*time.Second, v, Slot{Kind: Reduce})
	assert.False(t, ok)
}

// Capacities must add up to 100, each maximum be at least its capacity
// and at most 100, names be given once; every problem is reported at its
// key.
func TestCapacityParamsValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		queues []CapacityQueue
		want   []string
	}{
		{"not 100", []CapacityQueue{{Name: "a", Capacity: 70}, {Name: "b", Capacity: 20}},
			[]string{"scheduler.queues = [70, 20]: capacities must add up to 100 (they add up to 90)"}},
		{"max below capacity", []CapacityQueue{{Name: "a", Capacity: 70, MaxCapacity: pct(60)}, {Name: "b", Capacity: 30, MaxCapacity: pct(120)}},
			[]string{"scheduler.queues[0].max_capacity = 60: must be at least the queue's capacity, 70",
				"scheduler.queues[1].max_capacity = 120: must be a percentage of the slots, at most 100"}},
		{"names", []CapacityQueue{{Capacity: 50}, {Name: "b", Capacity: 25}, {Name: "b", Capacity: 25}},
			[]string{"scheduler.queues[0].name: missing; every queue needs a name, which jobs' pools name",
				`scheduler.queues[2].name = "b": names queues[1] again: a queue is declared once`}},
		{"none", nil, []string{`scheduler.queues = []: must list at least one queue, like [{name = "default", capacity = 100}]`}},
		{"negative", []CapacityQueue{{Name: "a", Capacity: -10}, {Name: "b", Capacity: 110}},
			[]string{"scheduler.queues[0].capacity = -10: must be a number in [0, 100]",
				"scheduler.queues[1].capacity = 110: must be a number in [0, 100]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&CapacityParams{Queues: tc.queues}).Validate()
			require.Error(t, err)
			assert.Equal(t, tc.want, paramErrors(t, err))
		})
	}
	require.NoError(t, DefaultCapacityParams().Validate())
	assert.True(t, DefaultCapacityParams().HasQueue(""))
	assert.False(t, DefaultCapacityParams().HasQueue("prod"))
}

// A container goes to the queue holding least of the containers over its
// capacity, counting both kinds: prod's job holds 4 maps of 10
// containers, adhoc's 3 reduces (ranked by maps alone, adhoc would hold
// none); at 50% each adhoc is below prod, and its job takes the container
// with a reduce, which it asks for before its map. Once adhoc holds 5 and
// is at its maximum, prod's job takes it with a map.
func TestCapacityServesAContainerByAllAQueueHolds(t *testing.T) {
	p := capacityOf(t, CapacityQueue{Name: "prod", Capacity: 50}, CapacityQueue{Name: "adhoc", Capacity: 50, MaxCapacity: pct(50)})
	prod, adhoc := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 2, 1)
	prod.Pool, adhoc.Pool = "prod", "adhoc"
	prod.MapAttempts, adhoc.ReduceAttempts = 4, 3
	p.Submitted(0, prod.Job)
	p.Submitted(time.Second, adhoc.Job)
	v := &fakeView{jobs: []*JobStatus{prod, adhoc}, slots: map[TaskKind]int{Map: 10, Reduce: 10}}
	c, ok := p.(ContainerAware)
	require.True(t, ok)
	assert.Equal(t, offRack(2, Reduce), containerTo(t, c, v, time.Minute))
	adhoc.PendingReduces, adhoc.ReduceAttempts = 0, 5
	assert.Equal(t, offRack(1, Map), containerTo(t, c, v, time.Minute))
}

// A job's headroom is its queue's maximum of the containers less what the
// queue's jobs hold.
func TestCapacityHeadroomIsTheQueuesMaximumLeft(t *testing.T) {
	p := capacityOf(t, CapacityQueue{Name: "prod", Capacity: 50}, CapacityQueue{Name: "adhoc", Capacity: 50, MaxCapacity: pct(50)})
	prod, adhoc, more := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 2, 1), status(3, Normal, time.Second, 1, 0)
	prod.Pool, adhoc.Pool, more.Pool = "prod", "adhoc", "adhoc"
	prod.MapAttempts, adhoc.ReduceAttempts, more.MapAttempts = 4, 3, 1
	for _, j := range []*JobStatus{prod, adhoc, more} {
		p.Submitted(0, j.Job)
	}
	v := &fakeView{jobs: []*JobStatus{prod, adhoc, more}, slots: map[TaskKind]int{Map: 10, Reduce: 10}}
	h, ok := p.(Headroom)
	require.True(t, ok)
	for _, tc := range []struct {
		job  JobID
		want int
	}{{1, 6}, {2, 1}, {3, 1}} {
		got, ok := h.Headroom(v, tc.job)
		assert.True(t, ok)
		assert.Equal(t, tc.want, got, "job %d", tc.job)
	}
	more.MapAttempts = 3 // the queue holds more than its maximum: none left
	got, _ := h.Headroom(v, 2)
	assert.Zero(t, got)
	_, ok = h.Headroom(v, 9)
	assert.False(t, ok, "a job the policy does not know")
}

// A pool's queue and its capacity as a share, the AMs' share of which its
// application masters may hold.
func TestCapacityQueueShare(t *testing.T) {
	p := capacityOf(t, CapacityQueue{Name: "prod", Capacity: 70}, CapacityQueue{Name: DefaultQueue, Capacity: 30})
	q, ok := p.(QueueShares)
	require.True(t, ok)
	for _, tc := range []struct {
		pool, queue string
		share       float64
	}{{"prod", "prod", 0.7}, {"", DefaultQueue, 0.3}, {DefaultQueue, DefaultQueue, 0.3}} {
		queue, share := q.QueueShare(tc.pool)
		assert.Equal(t, tc.queue, queue)
		assert.InDelta(t, tc.share, share, 1e-12)
	}
}
