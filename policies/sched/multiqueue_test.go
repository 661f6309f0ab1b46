package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/units"
)

const ks = 1000 * time.Second

// mq builds a multi-queue policy by name with parameters changed by set.
func mq(t *testing.T, name string, shape Shape, set func(*MultiQueueParams)) Policy {
	t.Helper()
	p, err := NewParams(name)
	require.NoError(t, err)
	if set != nil {
		set(p.(*MultiQueueParams))
	}
	pol, err := New(name, p, shape)
	require.NoError(t, err)
	return pol
}

// run launches a map of the job in the given slot at start and ends it at
// end, reported then.
func run(p Policy, job JobID, task int32, start, end time.Duration) {
	a := Attempt{Job: job, Kind: Map, Task: task}
	p.Launched(start, Launch{Attempt: a})
	p.Finished(end, Finish{Attempt: a, Outcome: Succeeded, At: end})
}

// assigned is the job the policy gives the slot to, 0 when none.
func assigned(t *testing.T, p Policy, v View, s Slot) JobID {
	t.Helper()
	a, ok := p.Assign(time.Hour, v, s)
	if !ok {
		return 0
	}
	require.Equal(t, s.Kind, a.Kind)
	return a.Job
}

func TestFBQDemotesAtExactlyTheLimit(t *testing.T) {
	// L_1 = 200 s. Job 1 came first; after two maps of 100 s its service
	// is 199.999 s, then 200 s: at exactly L_1 it moves to queue 2, and
	// job 2, in queue 1, comes first. The demoted job still gets a slot
	// job 2 cannot use (its maps are all running): multiplexing.
	j1, j2 := status(1, Normal, 0, 6, 0), status(2, Normal, 50*time.Second, 2, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2}}
	f := mq(t, "fbq", Shape{}, func(p *MultiQueueParams) { p.Limits = seconds(200) })
	f.Submitted(0, j1.Job)
	f.Submitted(50*time.Second, j2.Job)
	slot := Slot{Node: 0, Kind: Map}
	run(f, 1, 0, 0, 100*time.Second)
	run(f, 1, 1, 0, 100*time.Second-time.Millisecond)
	assert.Equal(t, JobID(1), assigned(t, f, v, slot), "service 199.999 s < L_1: still first")
	run(f, 1, 2, 100*time.Second, 100*time.Second+time.Millisecond)
	assert.Equal(t, JobID(2), assigned(t, f, v, slot), "service 200 s = L_1: demoted behind job 2")
	j2.PendingMaps = 0
	running(j2, 2)
	assert.Equal(t, JobID(1), assigned(t, f, v, slot), "queue 1 cannot use the slot: queue 2 gets it")
	j1.PendingMaps = 0
	assert.Equal(t, JobID(0), assigned(t, f, v, slot))
}

func TestServiceCountsTheAttemptsRealEnd(t *testing.T) {
	// A 100 s attempt reported on a heartbeat 3 s after it ended adds
	// 100 s, not 103 s: with L_1 = 200 s, two such attempts demote the job
	// and two of 99 s do not.
	for _, tt := range []struct {
		held    time.Duration
		demoted bool
	}{{100 * time.Second, true}, {99 * time.Second, false}} {
		j1, j2 := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 2, 0)
		v := &fakeView{jobs: []*JobStatus{j1, j2}}
		f := mq(t, "fbq", Shape{}, func(p *MultiQueueParams) { p.Limits = seconds(200) })
		f.Submitted(0, j1.Job)
		f.Submitted(time.Second, j2.Job)
		for task := range int32(2) {
			a := Attempt{Job: 1, Kind: Map, Task: task}
			f.Launched(0, Launch{Attempt: a})
			f.Finished(tt.held+3*time.Second, Finish{Attempt: a, Outcome: Succeeded, At: tt.held})
		}
		want := JobID(1)
		if tt.demoted {
			want = 2
		}
		assert.Equal(t, want, assigned(t, f, v, Slot{Kind: Map}), "attempts of %v", tt.held)
	}
}

func TestKilledAndFailedAttemptsCountAsService(t *testing.T) {
	j1, j2 := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 2, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2}}
	f := mq(t, "fbq", Shape{}, func(p *MultiQueueParams) { p.Limits = seconds(200) })
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	for task, o := range []Outcome{Killed, Failed} {
		a := Attempt{Job: 1, Kind: Map, Task: int32(task)}
		f.Launched(0, Launch{Attempt: a})
		f.Finished(100*time.Second, Finish{Attempt: a, Outcome: o, At: 100 * time.Second})
	}
	assert.Equal(t, JobID(2), assigned(t, f, v, Slot{Kind: Map}))
}

func TestCountRunningDemotesOnAHeartbeat(t *testing.T) {
	// With count_running, two attempts running since 0 have given job 1
	// 200 s of service at 100 s: the heartbeat then demotes it. Without,
	// it stays until they end.
	for _, count := range []bool{false, true} {
		j1, j2 := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 2, 0)
		v := &fakeView{jobs: []*JobStatus{j1, j2}}
		f := mq(t, "fbq", Shape{}, func(p *MultiQueueParams) { p.Limits, p.CountRunning = seconds(200), count })
		f.Submitted(0, j1.Job)
		f.Submitted(time.Second, j2.Job)
		for task := range int32(2) {
			f.Launched(0, Launch{Attempt: Attempt{Job: 1, Kind: Map, Task: task}})
		}
		f.Heartbeat(100*time.Second-time.Millisecond, 0)
		assert.Equal(t, JobID(1), assigned(t, f, v, Slot{Kind: Map}))
		f.Heartbeat(100*time.Second, 0)
		want := JobID(1)
		if count {
			want = 2
		}
		assert.Equal(t, want, assigned(t, f, v, Slot{Kind: Map}), "count_running = %v", count)
	}
}

func TestLimitsAreCumulativeOrIncrements(t *testing.T) {
	// K = 4 with limits 4,000 / 10,000 / 36,000 s. Cumulative: a job with
	// 12,000 s of service is in queue 3 (past 4,000 and 10,000). As
	// increments the thresholds are 4,000, 14,000 and 50,000 s: queue 2.
	for _, tt := range []struct {
		perQueue bool
		queue    int
	}{{false, 3}, {true, 2}} {
		f := mq(t, "fbq", Shape{}, func(p *MultiQueueParams) {
			p.Queues, p.Limits, p.LimitsPerQueue = 4, seconds(4000, 10000, 36000), tt.perQueue
		}).(*FBQ)
		f.Submitted(0, Job{ID: 1})
		run(f, 1, 0, 0, 12*ks)
		assert.Equal(t, tt.queue, f.jobs[1].queue+1, "limits_per_queue = %v", tt.perQueue)
	}
}

func TestTAGSPartitionsEverySlotKindIndexMajor(t *testing.T) {
	// [30, 70] on 100 nodes × (6 + 2): partition 1 holds round(0.3 × 600) =
	// 180 map slots (slot 0 of every node, slot 1 of nodes 0–79) and 60
	// reduce slots (slot 0 of nodes 0–59).
	shape := Shape{Nodes: 100, Slots: [2]int{6, 2}}
	tags := mq(t, "tags", shape, func(p *MultiQueueParams) { p.Partitions = []float64{30, 70} }).(*TAGS)
	var count [2][3]int
	for kind, n := range shape.Slots {
		for node := range shape.Nodes {
			for i := range n {
				count[kind][tags.Partition(Slot{Node: NodeID(node), Kind: TaskKind(kind), Index: i})]++
			}
		}
	}
	assert.Equal(t, [2][3]int{{0, 180, 420}, {0, 60, 140}}, count)
	assert.Equal(t, 1, tags.Partition(Slot{Node: 79, Kind: Map, Index: 1}))
	assert.Equal(t, 2, tags.Partition(Slot{Node: 80, Kind: Map, Index: 1}))
	assert.Equal(t, 1, tags.Partition(Slot{Node: 59, Kind: Reduce, Index: 0}))
	assert.Equal(t, 2, tags.Partition(Slot{Node: 60, Kind: Reduce, Index: 0}))
	assert.True(t, tags.SlotAware())
}

// Nodes of unequal slots ([[cluster.class]]) are ranked as the even
// shape ranks them, index by index and node by node within an index, so
// a partition's share still spreads over the nodes: [50, 50] of nodes
// with 2, 1 and 3 map slots gives partition 1 slot 0 of every node.
func TestTAGSPartitionsUnequalNodes(t *testing.T) {
	shape := Shape{Nodes: 3, Slots: [2]int{4, 1}, NodeSlots: [2][]int{{2, 1, 3}, {1, 1, 1}}}
	assert.Equal(t, 6, shape.Total(Map))
	assert.Equal(t, 3, shape.Of(2, Map))
	tags := mq(t, "tags", shape, func(p *MultiQueueParams) { p.Partitions = []float64{50, 50} }).(*TAGS)
	var got [3][]int
	for node, n := range shape.NodeSlots[Map] {
		for i := range n {
			got[node] = append(got[node], tags.Partition(Slot{Node: NodeID(node), Kind: Map, Index: i}))
		}
	}
	assert.Equal(t, [3][]int{{1, 2}, {1}, {1, 2, 2}}, got)
	assert.Equal(t, [][]int32{{0, 3}, {1}, {2, 4, 5}}, slotRanks([]int{2, 1, 3}))
}

func TestTAGSNeverOffersAPartitionToAnotherQueue(t *testing.T) {
	// Job 1 has been demoted to queue 2; job 2 in queue 1 has nothing to
	// run. A partition-1 slot stays idle rather than go to job 1, and a
	// partition-2 slot never goes to job 2.
	shape := Shape{Nodes: 100, Slots: [2]int{6, 2}}
	j1, j2 := status(1, Normal, 0, 50, 5), status(2, Normal, time.Second, 0, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2}}
	tags := mq(t, "tags", shape, func(p *MultiQueueParams) { p.Limits, p.Partitions = seconds(100), []float64{30, 70} })
	tags.Submitted(0, j1.Job)
	tags.Submitted(time.Second, j2.Job)
	run(tags, 1, 0, 0, 100*time.Second)
	p1, p2 := Slot{Node: 3, Kind: Map, Index: 0}, Slot{Node: 3, Kind: Map, Index: 5}
	assert.Equal(t, JobID(0), assigned(t, tags, v, p1))
	assert.Equal(t, JobID(1), assigned(t, tags, v, p2))
	assert.Equal(t, JobID(0), assigned(t, tags, v, Slot{Node: 3, Kind: Reduce, Index: 0}))
	assert.Equal(t, JobID(1), assigned(t, tags, v, Slot{Node: 99, Kind: Reduce, Index: 1}))
	j2.PendingMaps = 4
	assert.Equal(t, JobID(2), assigned(t, tags, v, p1))
	assert.Equal(t, JobID(1), assigned(t, tags, v, p2))
}

func TestAQueueWithoutSlotsIsSkipped(t *testing.T) {
	// C_1 = 0: every job joins queue 2, which has every slot, and the
	// policy chooses as fifo does, for every slot of every kind, before
	// and after jobs are served.
	shape := Shape{Nodes: 4, Slots: [2]int{3, 1}}
	jobs := []*JobStatus{status(1, Normal, 0, 2, 1), status(2, Normal, time.Second, 3, 0), status(3, Normal, 2*time.Second, 1, 2)}
	v := &fakeView{jobs: jobs}
	for _, name := range []string{"tags", "sita"} {
		p := mq(t, name, shape, func(p *MultiQueueParams) { p.Partitions = []float64{0, 100} })
		fifo := NewFIFO()
		for _, j := range jobs {
			p.Submitted(j.Submit, j.Job)
			fifo.Submitted(j.Submit, j.Job)
		}
		for kind, n := range shape.Slots {
			for node := range shape.Nodes {
				for i := range n {
					s := Slot{Node: NodeID(node), Kind: TaskKind(kind), Index: i}
					assert.Equal(t, assigned(t, fifo, v, s), assigned(t, p, v, s), "%s %+v", name, s)
				}
			}
		}
		run(p, 1, 0, 0, 100*ks) // far past L_1: there is no queue 1 to leave
		assert.Equal(t, JobID(1), assigned(t, p, v, Slot{Kind: Map}), name)
	}
}

func TestSITACutoffs(t *testing.T) {
	// Two finished jobs fix the fit at service = input / 1 MB seconds
	// (1 MB → 1 s, 1 GB → 1,000 s). With cutoffs 100 s and 10,000 s a job
	// of 99 MB goes to queue 1, 100 MB (exactly L_1) and 9.9 GB to queue
	// 2, 10 GB to queue 3; a job without input to queue 1.
	s := mq(t, "sita", Shape{Nodes: 10, Slots: [2]int{2, 1}}, func(p *MultiQueueParams) {
		p.Queues, p.Limits, p.Partitions = 3, seconds(100, 10000), []float64{20, 30, 50}
	}).(*SITA)
	finish := func(id JobID, input int64, service time.Duration) {
		s.Submitted(0, Job{ID: id, InputBytes: input})
		run(s, id, 0, 0, service)
		s.Ended(service, id)
	}
	finish(1, 1e6, time.Second)
	finish(2, 1e9, 1000*time.Second)
	for _, tt := range []struct {
		input int64
		queue int
	}{{0, 1}, {99e6, 1}, {100e6, 2}, {9.9e9, 2}, {10e9, 3}, {1e12, 3}} {
		id := JobID(100 + tt.input%97)
		s.Submitted(0, Job{ID: id, InputBytes: tt.input})
		assert.Equal(t, tt.queue, s.jobs[id].queue+1, "input %d, predicted %v", tt.input, s.jobs[id].predicted)
	}
}

func TestCOMPRanksAmongTheLastFinished(t *testing.T) {
	// K = 4: the last 3 finished jobs had service 10, 100 and 1,000 s
	// (inputs 1, 10 and 100 MB, so the fit is service = 10 s per MB); a
	// job predicted larger than exactly m of them joins queue m + 1. A
	// fourth finished job (10 GB, 100,000 s) pushes the first out.
	c := mq(t, "comp", Shape{}, func(p *MultiQueueParams) { p.Queues = 4 }).(*COMP)
	next := JobID(1)
	submit := func(input int64) *mqJob {
		c.Submitted(0, Job{ID: next, InputBytes: input})
		next++
		return c.jobs[next-1]
	}
	done := func(input int64, service time.Duration) {
		j := submit(input)
		run(c, j.job.ID, 0, 0, service)
		c.Ended(service, j.job.ID)
	}
	assert.Equal(t, 1, submit(1e9).queue+1, "nothing finished: queue 1")
	done(1e6, 10*time.Second)
	done(10e6, 100*time.Second)
	done(100e6, 1000*time.Second)
	for _, tt := range []struct {
		input int64
		queue int
	}{{0, 1}, {0.5e6, 1}, {1e6, 1}, {2e6, 2}, {20e6, 3}, {200e6, 4}} {
		assert.Equal(t, tt.queue, submit(tt.input).queue+1, "input %d", tt.input)
	}
	done(10e9, 100*ks)
	assert.Equal(t, []time.Duration{100 * time.Second, 1000 * time.Second, 100 * ks}, c.history)
	assert.Equal(t, 1, submit(2e6).queue+1, "20 s is now below all three")
}

func TestCOMPWaitsForAnEndedJobsLastAttempt(t *testing.T) {
	// The coordinator may hear a job has ended before the heartbeat that
	// reports its last attempt: the job's service, and with it COMP's
	// history, includes that attempt once it is booked.
	c := mq(t, "comp", Shape{}, nil).(*COMP)
	c.Submitted(0, Job{ID: 1, InputBytes: 1e6})
	a := Attempt{Job: 1, Kind: Map}
	c.Launched(0, Launch{Attempt: a})
	c.Ended(50*time.Second, 1)
	assert.Empty(t, c.history)
	c.Finished(52*time.Second, Finish{Attempt: a, At: 50 * time.Second})
	assert.Equal(t, []time.Duration{50 * time.Second}, c.history)
	assert.Empty(t, c.jobs)
	assert.Empty(t, c.runs)
}

func TestTheFitIsLogLog(t *testing.T) {
	// 1, 10 and 100 GB took 10, 100 and 1,000 s: the line through the
	// logs has slope 1 and predicts 10,000 s for 1 TB.
	var f sizeFit
	assert.Zero(t, f.predict(1e12), "no job finished")
	f.add(1e9, 10*time.Second)
	f.add(1e9, 20*time.Second)
	assert.Zero(t, f.predict(1e12), "two finished jobs, one input")
	f.add(0, time.Hour) // no input: says nothing of the line
	f.add(10e9, 100*time.Second)
	f.add(100e9, 1000*time.Second)
	var g sizeFit
	g.add(1e9, 10*time.Second)
	g.add(10e9, 100*time.Second)
	g.add(100e9, 1000*time.Second)
	assert.InDelta(t, 10000, g.predict(1e12).Seconds(), 1e-6)
	assert.InDelta(t, 10, g.predict(1e9).Seconds(), 1e-6)
	assert.Zero(t, g.predict(0))
	assert.Greater(t, f.predict(1e9).Seconds(), 10.0, "the 20 s job raises the line at 1 GB")
}

func TestMultiQueueParams(t *testing.T) {
	for _, name := range []string{"fbq", "tags", "sita", "comp"} {
		p, err := NewParams(name)
		require.NoError(t, err)
		assert.NoError(t, p.Validate(), name)
	}
	d := func(s ...float64) []units.Duration { return seconds(s...) }
	for _, tt := range []struct {
		name string
		set  func(*MultiQueueParams)
		want []string
	}{
		{"fbq", func(p *MultiQueueParams) { p.Queues = 1 }, []string{
			`scheduler.queues = 1: must be a whole number in [2, 64]: one queue is fifo`}},
		{"fbq", func(p *MultiQueueParams) { p.Queues = 3 }, []string{
			`scheduler.limits = ["3h20m0s"]: must list queues − 1 = 2 limits (L_1 … L_2, as slot-seconds like "12000s"); the last queue has none`}},
		{"fbq", func(p *MultiQueueParams) { p.Queues, p.Limits = 4, d(4000, 3000, 0) }, []string{
			`scheduler.limits[1] = "50m0s": must be above limits[0] = 1h6m40s: limits are cumulative (limits_per_queue = true reads them as each queue's increment)`,
			`scheduler.limits[2] = "0s": must be a duration > 0 (slot-seconds of service)`}},
		{"fbq", func(p *MultiQueueParams) { p.Partitions = []float64{50, 50} }, []string{
			`scheduler.partitions = [50, 50]: fbq does not partition the slots: only tags and sita take partitions`}},
		{"comp", func(p *MultiQueueParams) { p.Limits, p.Partitions = d(100), []float64{100} }, []string{
			`scheduler.limits = ["1m40s"]: comp takes no limits: it ranks a job's predicted size among the last queues − 1 finished jobs' service`,
			`scheduler.partitions = [100]: comp does not partition the slots: only tags and sita take partitions`}},
		{"tags", func(p *MultiQueueParams) { p.Partitions = []float64{30, 30, 40} }, []string{
			`scheduler.partitions = [30, 30, 40]: must list a percentage of the slots for each of the 2 queues`}},
		{"sita", func(p *MultiQueueParams) { p.Partitions = []float64{-10, 100} }, []string{
			`scheduler.partitions[0] = -10: must be a percentage in [0, 100]`,
			`scheduler.partitions = [-10, 100]: must add up to 100 (they add up to 90)`}},
		{"sita", func(p *MultiQueueParams) { p.CountRunning = true }, []string{
			`scheduler.count_running = true: sita never demotes a job: count_running applies to fbq and tags`}},
	} {
		p, err := NewParams(tt.name)
		require.NoError(t, err)
		tt.set(p.(*MultiQueueParams))
		assert.Equal(t, tt.want, paramErrors(t, p.Validate()), tt.name)
	}
	// As increments, limits need not increase.
	p := DefaultFBQParams()
	p.Queues, p.Limits, p.LimitsPerQueue = 3, d(4000, 1000), true
	assert.NoError(t, p.Validate())
	assert.Equal(t, []time.Duration{4 * ks, 5 * ks}, p.thresholds())
}

func TestMultiQueueExplainsItsAnswer(t *testing.T) {
	j1 := status(1, Normal, 0, 3, 0)
	v := &fakeView{jobs: []*JobStatus{j1}}
	f := mq(t, "fbq", Shape{}, nil)
	f.Submitted(0, j1.Job)
	why := &Explanation{}
	_, ok := f.Assign(time.Second, v, Slot{Kind: Map, Why: why})
	require.True(t, ok)
	assert.Equal(t, []JobNote{{1, "fbq: queue 1 of 2, FIFO order 1, service 0s of its limit 3h20m0s; takes the slot for a map"}}, why.Notes)
	assert.Empty(t, f.Tick(time.Second, v))
}

func TestOffersResumeWithinAHeartbeat(t *testing.T) {
	// Within one node's heartbeat a job passed over stays passed over
	// (launches only take tasks away): the scan resumes where it found the
	// last job. Another node, the next heartbeat, or a change to the
	// queues scans from the head again, where job 1 has a new pending map.
	j1, j2, j3 := status(1, Normal, 0, 0, 0), status(2, Normal, time.Second, 1, 0), status(3, Normal, 2*time.Second, 5, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2, j3}}
	f := mq(t, "fbq", Shape{}, nil)
	for _, j := range v.jobs {
		f.Submitted(j.Submit, j.Job)
	}
	offer := func(now time.Duration, node NodeID) JobID {
		a, ok := f.Assign(now, v, Slot{Node: node, Kind: Map})
		require.True(t, ok)
		return a.Job
	}
	f.Heartbeat(time.Minute, 4)
	assert.Equal(t, JobID(2), offer(time.Minute, 4))
	j2.PendingMaps = 0
	j1.PendingMaps = 1 // not looked at again within this heartbeat
	assert.Equal(t, JobID(3), offer(time.Minute, 4))
	assert.Equal(t, JobID(1), offer(time.Minute, 5), "another node: from the head")
	f.Heartbeat(2*time.Minute, 4)
	assert.Equal(t, JobID(1), offer(2*time.Minute, 4), "the next heartbeat: from the head")
	f.Heartbeat(3*time.Minute, 4)
	j1.PendingMaps = 0
	assert.Equal(t, JobID(3), offer(3*time.Minute, 4))
	f.Submitted(3*time.Minute, Job{ID: 4})
	j1.PendingMaps = 1
	assert.Equal(t, JobID(1), offer(3*time.Minute, 4), "a job joined a queue: from the head")
}

func TestMultiQueueServesAContainerJobFirst(t *testing.T) {
	// Higher queues first and FIFO in a queue, a job's reduce before its
	// map: job 1's map, then, its reduces released, job 1's reduce; with
	// nothing of job 1's left, job 2's map.
	j1, j2 := status(1, Normal, 0, 3, 0), status(2, Normal, time.Second, 2, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2}}
	f := mq(t, "fbq", Shape{}, nil)
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	c := f.(ContainerAware)
	why := &Explanation{}
	got, ok := c.AssignContainer(time.Minute, v, Slot{Kind: Map, Why: why})
	require.True(t, ok)
	assert.Equal(t, offRack(1, Map), got)
	assert.Equal(t, []JobNote{{1, "fbq: queue 1 of 2, FIFO order 1, service 0s of its limit 3h20m0s; takes the container for a map"}}, why.Notes)
	j1.PendingReduces = 1
	assert.Equal(t, offRack(1, Reduce), containerTo(t, c, v, time.Minute))
	j1.PendingMaps, j1.PendingReduces = 0, 0
	assert.Equal(t, offRack(2, Map), containerTo(t, c, v, time.Minute))
}
