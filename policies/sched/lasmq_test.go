package sched

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/units"
)

// toyJob is a job of the slot-level toy: maps of one length, submitted
// at an instant.
type toyJob struct {
	submit time.Duration
	maps   int
}

// toyRun runs jobs of maps of the given length on one node of slots map
// slots under p, as the emulator does with out-of-band heartbeats and no
// latency: at an instant, the jobs submitted then arrive first; then each
// attempt that ends is booked on a heartbeat of its own, which offers
// every free slot. It returns each job's response time.
func toyRun(t *testing.T, p Policy, slots int, length time.Duration, jobs []toyJob) []time.Duration {
	t.Helper()
	v := &fakeView{slots: map[TaskKind]int{Map: slots}}
	type attempt struct {
		a   Attempt
		end time.Duration
	}
	var running []attempt
	next := make([]int32, len(jobs))
	resp := make([]time.Duration, len(jobs))
	free := slots
	offer := func(now time.Duration) {
		p.Heartbeat(now, 0)
		for free > 0 {
			asg, ok := p.Assign(now, v, Slot{Kind: Map})
			if !ok {
				return
			}
			st := v.status(asg.Job)
			require.NotNil(t, st)
			require.Positive(t, st.PendingMaps)
			st.PendingMaps--
			st.RunningMaps++
			st.MapAttempts++
			a := Attempt{Job: asg.Job, Kind: Map, Task: next[asg.Job-1]}
			next[asg.Job-1]++
			running = append(running, attempt{a, now + length})
			p.Launched(now, Launch{Attempt: a})
			free--
		}
	}
	arrived := 0
	for arrived < len(jobs) || len(running) > 0 {
		now := time.Duration(1<<62 - 1)
		if arrived < len(jobs) {
			now = jobs[arrived].submit
		}
		for _, r := range running {
			now = min(now, r.end)
		}
		for arrived < len(jobs) && jobs[arrived].submit == now {
			j := jobs[arrived]
			arrived++
			st := status(JobID(arrived), Normal, j.submit, j.maps, 0)
			v.jobs = append(v.jobs, st)
			p.Submitted(now, st.Job)
			offer(now)
		}
		for i := 0; i < len(running); {
			r := running[i]
			if r.end != now {
				i++
				continue
			}
			running = slices.Delete(running, i, i+1)
			st := v.status(r.a.Job)
			st.RunningMaps--
			st.MapAttempts--
			st.FinishedMaps++
			free++
			p.Finished(now, Finish{Attempt: r.a, Outcome: Succeeded, At: now})
			if st.FinishedMaps == st.Maps {
				resp[r.a.Job-1] = now - st.Submit
				p.Ended(now, st.ID)
				v.jobs = slices.DeleteFunc(v.jobs, func(j *JobStatus) bool { return j.ID == st.ID })
			}
			offer(now)
		}
	}
	return resp
}

// lasmqWith builds "lasmq" with its defaults changed by set.
func lasmqWith(t *testing.T, set func(*LASMQParams)) Policy {
	t.Helper()
	p := DefaultLASMQParams()
	if set != nil {
		set(p)
	}
	pol, err := New("lasmq", p, Shape{})
	require.NoError(t, err)
	return pol
}

// The toy of Hu et al.'s Fig. 1 (notes §2.7), in slots: 10 map slots,
// maps of 100 s; A = 40 maps at 0, B = 40 at 100 s, C = 10 at 200 s.
// LAS serves each newcomer alone until it has as much service as the
// others (B from 100 s, C from 200 s), then A and B share: 900 / 800 /
// 100 s. LAS_MQ with two queues, α_1 = 1000 slot-seconds, strict and FIFO
// in a queue demotes A at 100 s and B at 200 s with 1000 each; C runs
// 200–300 s, then A alone to 600 s and B to 900 s: 600 / 800 / 100 s, A
// 33% sooner and B and C the same (the paper's "from 9 to 6"). FIFO runs
// A, B, C in turn (400 / 700 / 700 s); the paper's IDEAL, SRPT, keeps A
// (3000 s left) before B (4000 s) and runs C as it comes: 500 / 800 /
// 100 s.
func TestToyOfFigure1(t *testing.T) {
	jobs := []toyJob{{0, 40}, {100 * time.Second, 40}, {200 * time.Second, 10}}
	srpt := NewSRPT()
	srptJobs := func(p Policy) Policy {
		// SRPT knows each job's size: maps × 100 s.
		return &sized{Policy: p, work: map[JobID]time.Duration{1: 4000 * time.Second, 2: 4000 * time.Second, 3: 1000 * time.Second}}
	}
	tests := []struct {
		name string
		p    Policy
		want [3]float64 // seconds
	}{
		{"fifo", NewFIFO(), [3]float64{400, 700, 700}},
		{"las", NewLAS(), [3]float64{900, 800, 100}},
		{"lasmq, 2 queues, α_1 = 1000 s, strict, fifo", lasmqWith(t, func(p *LASMQParams) {
			p.Queues, p.FirstThreshold, p.Strict, p.Order = 2, units.Duration(1000*time.Second), true, OrderFIFO
		}), [3]float64{600, 800, 100}},
		{"lasmq, the same, remaining order and stage aware", lasmqWith(t, func(p *LASMQParams) {
			p.Queues, p.FirstThreshold, p.Strict = 2, units.Duration(1000*time.Second), true
		}), [3]float64{600, 800, 100}},
		{"srpt", srptJobs(srpt), [3]float64{500, 800, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := toyRun(t, tt.p, 10, 100*time.Second, jobs)
			for i, want := range tt.want {
				assert.Equal(t, time.Duration(want*float64(time.Second)), resp[i], "job %c", 'A'+i)
			}
		})
	}
}

// sized tells the policy each job's Work, as the sizing pass does.
type sized struct {
	Policy
	work map[JobID]time.Duration
}

func (s *sized) Submitted(now time.Duration, job Job) {
	job.Work = s.work[job.ID]
	s.Policy.Submitted(now, job)
}

// Stage awareness (Hu et al. §3.5): a stage's service over its progress
// once the progress reaches min_progress, its service as it is below.
func TestLASMQStageAwareService(t *testing.T) {
	l := NewLASMQ(*DefaultLASMQParams())
	l.Submitted(0, Job{ID: 1, Maps: 10})
	run(l, 1, 0, 0, 100*time.Second) // 100 slot-seconds of maps
	tests := []struct {
		progress float64
		aware    bool
		want     float64
	}{
		{0.10, true, 1000},
		{0.09, true, 100},
		{0.50, true, 200},
		{1, true, 100},
		{0.10, false, 100},
	}
	for _, tt := range tests {
		l.p.StageAware = tt.aware
		v := &fakeView{progress: map[JobID][2]float64{1: {tt.progress, 0}}}
		assert.InDelta(t, tt.want, l.Service(100*time.Second, v, 1), 1e-9, "progress %v, stage aware %v", tt.progress, tt.aware)
	}
	// A reduce weighs two containers: 50 s of reduce is 100 slot-seconds,
	// projected over its progress as the maps are.
	a := Attempt{Job: 1, Kind: Reduce}
	l.Launched(100*time.Second, Launch{Attempt: a})
	l.p.StageAware = true
	v := &fakeView{progress: map[JobID][2]float64{1: {1, 0.25}}}
	assert.InDelta(t, 100+400, l.Service(150*time.Second, v, 1), 1e-9)
}

// A job moves down to the first queue whose threshold exceeds its
// service, past several at once, and never up.
func TestLASMQDemotesDownOnly(t *testing.T) {
	l := NewLASMQ(*DefaultLASMQParams()) // α = 100, 1000, 10000, … s
	j := status(1, Normal, 0, 10, 0)
	v := &fakeView{jobs: []*JobStatus{j}, slots: map[TaskKind]int{Map: 10}}
	l.Submitted(0, j.Job)
	run(l, 1, 0, 0, 2000*time.Second)
	l.replan(2000*time.Second, v)
	assert.Equal(t, 2, l.jobs[1].queue, "2000 slot-seconds: past α_1 and α_2, into queue 3")
	// Progress that lowers the projection does not move it back up.
	l.p.StageAware = true
	v.progress = map[JobID][2]float64{1: {1, 0}}
	l.replan(2000*time.Second, v)
	assert.Equal(t, 2, l.jobs[1].queue)
	v.progress = map[JobID][2]float64{1: {0.1, 0}} // projects 20,000: queue 4, below α_4
	l.replan(2000*time.Second, v)
	assert.Equal(t, 3, l.jobs[1].queue)
}

// Weights split a kind's slots over the non-empty queues, each share
// filled in order up to the jobs' tasks, the rest evenly; a slot goes to
// the first job below its target.
func TestLASMQWeightedTargets(t *testing.T) {
	// Three queues, base 10: weights 100, 10, 1. Job 1 is in queue 1 with
	// 200 tasks, job 2 in queue 2 with 5, job 3 in queue 3 with 200; queue
	// shares of 100 slots over the three: 100·100/111, 100·10/111,
	// 100·1/111 = 90.09, 9.009, 0.9009. Job 2 takes 5 of its 9.009; the
	// 4.009 left go evenly to the three jobs (1.336 each).
	l := NewLASMQ(LASMQParams{Queues: 3, FirstThreshold: units.Duration(100 * time.Second), Step: 10, WeightBase: 10,
		Order: OrderRemaining, MinProgress: 0.1, ReduceWeight: 2})
	j1, j2, j3 := status(1, Normal, 0, 200, 0), status(2, Normal, time.Second, 5, 0), status(3, Normal, 2*time.Second, 200, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2, j3}, slots: map[TaskKind]int{Map: 100}}
	for _, j := range v.jobs {
		l.Submitted(0, j.Job)
	}
	run(l, 2, 0, 0, 150*time.Second)  // queue 2
	run(l, 3, 0, 0, 1500*time.Second) // queue 3
	l.replan(1500*time.Second, v)
	spare := (100*10/111.0 - 5) / 3
	assert.InDelta(t, 100*100/111.0+spare, l.plan.target[Map][1], 1e-9)
	assert.InDelta(t, 5+spare, l.plan.target[Map][2], 1e-9)
	assert.InDelta(t, 100*1/111.0+spare, l.plan.target[Map][3], 1e-9)
	// Job 1 is below its target, first in queue order: it takes a slot;
	// at 92 running it is above, and job 2 (0 running) takes the next.
	assert.Equal(t, JobID(1), assigned(t, l, v, Slot{Kind: Map}))
	running(j1, 92)
	l.plan.at = time.Hour // as assigned asks, one plan
	assert.Equal(t, JobID(2), assigned(t, l, v, Slot{Kind: Map}))
}

// Within a queue, the job with the fewest remaining weighted tasks of its
// current stage comes first (a reduce counting reduce_weight); with
// order = "fifo" the first submitted.
func TestLASMQInQueueOrder(t *testing.T) {
	big := status(1, Normal, 0, 30, 0)
	small := status(2, Normal, time.Second, 4, 0)
	reducing := status(3, Normal, 2*time.Second, 0, 3) // maps done: 3 reduces × 2 = 6
	reducing.Maps, reducing.FinishedMaps = 10, 10
	v := &fakeView{jobs: []*JobStatus{big, small, reducing}, slots: map[TaskKind]int{Map: 10, Reduce: 10}}
	for _, order := range []string{OrderRemaining, OrderFIFO} {
		l := lasmqWith(t, func(p *LASMQParams) { p.Order = order }).(*LASMQ)
		for _, j := range v.jobs {
			l.Submitted(0, j.Job)
		}
		l.replan(0, v)
		var got []JobID
		for _, j := range l.plan.order {
			got = append(got, j.job.ID)
		}
		want := map[string][]JobID{OrderRemaining: {2, 3, 1}, OrderFIFO: {1, 2, 3}}[order]
		assert.Equal(t, want, got, order)
	}
}

func TestLASMQParamsRefused(t *testing.T) {
	p := DefaultLASMQParams()
	p.Queues, p.Step, p.FirstThreshold, p.WeightBase, p.MinProgress, p.Order, p.ReduceWeight = 0, 1, 0, 0.5, 0, "lifo", 0
	assert.Equal(t, `scheduler.queues = 0: must be a whole number in [1, 64]
scheduler.first_threshold = "0s": must be a duration > 0 (slot-seconds of service) like "100s"
scheduler.step = 1: must be a finite number > 1
scheduler.weight_base = 0.5: must be a finite number ≥ 1
scheduler.order = "lifo": must be "remaining" or "fifo"
scheduler.min_progress = 0: must be a number in (0, 1]
scheduler.reduce_weight = 0: must be a finite number > 0`, p.Validate().Error())
	p = DefaultLASMQParams()
	p.MinProgress = 1.5
	assert.ErrorContains(t, p.Validate(), "min_progress = 1.5")
}

func TestLASServesAContainerToTheLeastServedJob(t *testing.T) {
	// Job 1 has held a map for 10 s, job 2 nothing: job 2, least served,
	// takes the container, with its reduce before its map. Once job 2 has
	// no task left for the node, job 1 takes it.
	l := NewLAS()
	j1, j2 := status(1, Normal, 0, 3, 0), status(2, Normal, time.Second, 2, 1)
	l.Submitted(0, j1.Job)
	l.Submitted(time.Second, j2.Job)
	l.Launched(0, Launch{Attempt: Attempt{Job: 1, Kind: Map}})
	j1.MapAttempts = 1
	v := &fakeView{jobs: []*JobStatus{j1, j2}}
	assert.Equal(t, offRack(2, Reduce), containerTo(t, l, v, 10*time.Second))
	j2.PendingMaps, j2.PendingReduces = 0, 0
	assert.Equal(t, offRack(1, Map), containerTo(t, l, v, 10*time.Second))
}

func TestLASMQServesAContainerByTheContainersAJobHolds(t *testing.T) {
	// 10 containers, strict, FIFO in the queue: job 1 asks for 6 maps and
	// holds 4, so its target is all it asks, 10, and it takes the
	// container with a map; once it holds them all, job 2, at or above
	// its target of none left, takes the next with its reduce first, as
	// the container would otherwise idle.
	p := lasmqWith(t, func(p *LASMQParams) { p.Strict, p.Order = true, OrderFIFO })
	j1, j2 := status(1, Normal, 0, 6, 0), status(2, Normal, time.Second, 1, 1)
	j1.MapAttempts = 4
	p.Submitted(0, j1.Job)
	p.Submitted(time.Second, j2.Job)
	v := &fakeView{jobs: []*JobStatus{j1, j2}, slots: map[TaskKind]int{Map: 10, Reduce: 10}}
	c := p.(ContainerAware)
	assert.Equal(t, offRack(1, Map), containerTo(t, c, v, time.Minute))
	j1.PendingMaps, j1.MapAttempts = 0, 10
	assert.Equal(t, offRack(2, Reduce), containerTo(t, c, v, time.Minute+time.Second))
}

func TestLASMQSplitsTheSlotsOverTheQueuesInUseAlone(t *testing.T) {
	// Weighted, 3 queues: one job in queue 1 wanting 100 maps of 10 slots
	// gets all 10 as its target, not 10 plus the shares of the empty
	// queues 2 and 3 (10 × (10 + 1) / 100 more); so does one job in
	// queue 3 alone, where the empty queues 1 and 2 would add 1,100.
	for _, service := range []time.Duration{0, time.Hour} {
		p := lasmqWith(t, func(p *LASMQParams) { p.Queues, p.FirstThreshold = 3, units.Duration(100*time.Second) }).(*LASMQ)
		j := status(1, Normal, 0, 100, 0)
		p.Submitted(0, j.Job)
		if service > 0 {
			p.Launched(0, Launch{Attempt: Attempt{Job: 1, Kind: Map}})
			j.MapAttempts = 1
		}
		v := &fakeView{jobs: []*JobStatus{j}, slots: map[TaskKind]int{Map: 10, Reduce: 2}}
		_, ok := p.Assign(service, v, Slot{Kind: Map})
		require.True(t, ok)
		assert.InDelta(t, 10, p.plan.target[Map][1], 1e-9, "service %v", service)
	}
}
