package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func status(id JobID, prio Priority, submit time.Duration, pendingMaps, pendingReduces int) *JobStatus {
	return &JobStatus{
		Job:         Job{ID: id, Priority: prio, Submit: submit, Maps: pendingMaps, Reduces: pendingReduces},
		PendingMaps: pendingMaps, PendingReduces: pendingReduces,
	}
}

func TestFIFOAssign(t *testing.T) {
	mapSlot := Slot{Node: 3, Rack: 0, Kind: Map}
	reduceSlot := Slot{Node: 3, Rack: 0, Kind: Reduce}
	tests := []struct {
		name   string
		jobs   []*JobStatus
		ended  []JobID
		slot   Slot
		want   JobID
		wantOK bool
	}{
		{
			name:   "earliest submission first",
			jobs:   []*JobStatus{status(2, Normal, 5*time.Second, 4, 0), status(1, Normal, time.Second, 4, 0)},
			slot:   mapSlot,
			want:   1,
			wantOK: true,
		},
		{
			name:   "priority before submission time",
			jobs:   []*JobStatus{status(1, Normal, time.Second, 4, 0), status(2, High, 5*time.Second, 4, 0)},
			slot:   mapSlot,
			want:   2,
			wantOK: true,
		},
		{
			name:   "equal submission broken by id",
			jobs:   []*JobStatus{status(7, Normal, time.Second, 1, 0), status(4, Normal, time.Second, 1, 0)},
			slot:   mapSlot,
			want:   4,
			wantOK: true,
		},
		{
			name:   "head job without pending maps is passed over",
			jobs:   []*JobStatus{status(1, Normal, 0, 0, 2), status(2, Normal, time.Second, 3, 0)},
			slot:   mapSlot,
			want:   2,
			wantOK: true,
		},
		{
			name:   "reduce slot goes to the first job with a pending reduce",
			jobs:   []*JobStatus{status(1, Normal, 0, 5, 0), status(2, Normal, time.Second, 0, 1)},
			slot:   reduceSlot,
			want:   2,
			wantOK: true,
		},
		{
			name:   "ended job is gone",
			jobs:   []*JobStatus{status(1, Normal, 0, 5, 0), status(2, Normal, time.Second, 5, 0)},
			ended:  []JobID{1},
			slot:   mapSlot,
			want:   2,
			wantOK: true,
		},
		{
			name: "nothing pending leaves the slot idle",
			jobs: []*JobStatus{status(1, Normal, 0, 0, 0)},
			slot: reduceSlot,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFIFO()
			for _, j := range tt.jobs {
				f.Submitted(j.Submit, j.Job)
			}
			for _, id := range tt.ended {
				f.Ended(time.Minute, id)
			}
			v := &fakeView{jobs: tt.jobs}
			got, ok := f.Assign(time.Minute, v, tt.slot)
			require.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, Assignment{Job: tt.want, Kind: tt.slot.Kind, MaxLocality: OffRack}, got)
			}
		})
	}
}

func TestFIFOFillsSlotsInQueueOrder(t *testing.T) {
	// Two jobs of two maps each, four free slots offered one by one with
	// the view updated after each launch, as the coordinator does: the
	// head job takes the first two slots, the second job the next two.
	jobs := []*JobStatus{status(1, Normal, 0, 2, 0), status(2, Normal, time.Second, 2, 0)}
	f := NewFIFO()
	for _, j := range jobs {
		f.Submitted(j.Submit, j.Job)
	}
	v := &fakeView{jobs: jobs}
	var order []JobID
	for i := range 5 {
		a, ok := f.Assign(time.Minute, v, Slot{Node: 1, Kind: Map, Index: i})
		if !ok {
			break
		}
		st := v.status(a.Job)
		st.PendingMaps--
		running(st, st.RunningMaps+1)
		order = append(order, a.Job)
	}
	assert.Equal(t, []JobID{1, 1, 2, 2}, order)
	assert.Empty(t, f.Tick(time.Minute, v))
}

func TestFIFOServesAContainerJobFirst(t *testing.T) {
	// A container goes to the first queued job that can use it, as YARN's
	// FIFO scheduler serves applications in order: job 1's map before job
	// 2's reduce; once job 1's reduces are released, job 1's reduce
	// before its own maps (the AM asks for reduces at a higher priority);
	// a job with nothing to run passes the container on.
	j1, j2 := status(1, Normal, 0, 3, 0), status(2, Normal, time.Second, 0, 2)
	f := NewFIFO()
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	v := &fakeView{jobs: []*JobStatus{j1, j2}}
	assert.Equal(t, offRack(1, Map), containerTo(t, f, v, time.Minute))
	j1.PendingReduces = 1
	assert.Equal(t, offRack(1, Reduce), containerTo(t, f, v, time.Minute))
	j1.PendingMaps, j1.PendingReduces = 0, 0
	assert.Equal(t, offRack(2, Reduce), containerTo(t, f, v, time.Minute))
	j2.PendingReduces = 0
	_, ok := f.AssignContainer(time.Minute, v, Slot{Kind: Map})
	assert.False(t, ok)
}

func TestFIFOWithDelaySkipsToALocalJob(t *testing.T) {
	// Job 1 heads the queue but has no node-local map on node 5; job 2
	// has. With delay scheduling job 2 launches node-local; once job 1 has
	// been skipped for T1 it may launch rack-local. Without delay
	// scheduling job 1 takes the slot at once.
	j1, j2 := status(1, Normal, 0, 3, 0), status(2, Normal, time.Second, 3, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2}, local: map[JobID]map[NodeID]Locality{1: {5: RackLocal}, 2: {5: NodeLocal}}}
	f := NewFIFOWithDelay(Waits{Enabled: true, T1: 10 * time.Second, T2: 10 * time.Second})
	plain := NewFIFO()
	for _, p := range []*FIFO{f, plain} {
		p.Submitted(0, j1.Job)
		p.Submitted(time.Second, j2.Job)
	}
	offer := func(p *FIFO, at time.Duration) Assignment {
		p.Heartbeat(at, 5)
		a, ok := p.Assign(at, v, Slot{Node: 5, Kind: Map})
		require.True(t, ok)
		return a
	}
	assert.Equal(t, Assignment{Job: 1, Kind: Map, MaxLocality: OffRack}, offer(plain, 0))
	assert.Equal(t, Assignment{Job: 2, Kind: Map, MaxLocality: NodeLocal}, offer(f, 0))
	assert.Equal(t, Assignment{Job: 2, Kind: Map, MaxLocality: NodeLocal}, offer(f, 5*time.Second))
	assert.Equal(t, Assignment{Job: 1, Kind: Map, MaxLocality: RackLocal}, offer(f, 10*time.Second))
	// Reduce slots never wait.
	j1.PendingReduces = 1
	a, ok := f.Assign(10*time.Second, v, Slot{Node: 5, Kind: Reduce})
	require.True(t, ok)
	assert.Equal(t, Assignment{Job: 1, Kind: Reduce, MaxLocality: OffRack}, a)
}

// An offer carrying an Explanation gets a note per job the policy looked
// at: its place in the order and what delay scheduling made of it. The
// answer is the same with or without one.
func TestFIFOExplainsItsAnswer(t *testing.T) {
	j1, j2 := status(1, Normal, 0, 3, 0), status(2, Normal, time.Second, 3, 0)
	j3 := status(3, Normal, 2*time.Second, 0, 0) // nothing pending: not looked at
	v := &fakeView{jobs: []*JobStatus{j1, j2, j3}, local: map[JobID]map[NodeID]Locality{1: {5: RackLocal}, 2: {5: NodeLocal}}}
	f := NewFIFOWithDelay(Waits{Enabled: true, T1: 10 * time.Second, T2: 10 * time.Second})
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	f.Submitted(2*time.Second, j3.Job)
	f.Heartbeat(3*time.Second, 5)
	why := &Explanation{}
	a, ok := f.Assign(3*time.Second, v, Slot{Node: 5, Kind: Map, Why: why})
	require.True(t, ok)
	assert.Equal(t, Assignment{Job: 2, Kind: Map, MaxLocality: NodeLocal}, a)
	assert.Equal(t, []JobNote{
		{1, "FIFO order 1: priority 2, submitted at 0s"},
		{1, "skipped by delay scheduling: its best map here is rack-local, and it has waited 0s at level node (t1 10s, t2 10s)"},
		{2, "FIFO order 2: priority 2, submitted at 1s"},
		{2, "takes the slot for a node-local map"},
	}, why.Notes)
}

// A memory-local map (its block in the node's cache, PACMan) is as local
// as delay scheduling waits for: the job takes the slot at once, its level
// stays node-local, and launching one neither adds a level nor lowers the
// job below node-local, so its rack-local wait still runs from T1.
func TestDelaySchedulingCountsMemoryAsNodeLocal(t *testing.T) {
	j1, j2 := status(1, Normal, 0, 3, 0), status(2, Normal, time.Second, 3, 0)
	v := &fakeView{jobs: []*JobStatus{j1, j2}, local: map[JobID]map[NodeID]Locality{1: {5: MemoryLocal, 6: RackLocal}, 2: {6: NodeLocal}}}
	f := NewFIFOWithDelay(Waits{Enabled: true, T1: 10 * time.Second, T2: 10 * time.Second})
	f.Submitted(0, j1.Job)
	f.Submitted(time.Second, j2.Job)
	why := &Explanation{}
	f.Heartbeat(0, 5)
	a, ok := f.Assign(0, v, Slot{Node: 5, Kind: Map, Why: why})
	require.True(t, ok)
	assert.Equal(t, Assignment{Job: 1, Kind: Map, MaxLocality: NodeLocal}, a)
	assert.Equal(t, JobNote{1, "takes the slot for a memory-local map"}, why.Notes[len(why.Notes)-1])
	f.Launched(0, Launch{Attempt: Attempt{Job: 1, Kind: Map}, Node: 5, Locality: MemoryLocal})
	assert.Equal(t, NodeLocal, f.delay.jobs[1].level)
	// On node 6 job 1 has only a rack-local map: skipped for job 2 until
	// it has waited T1, as a job at the node-local level is.
	f.Heartbeat(time.Second, 6)
	a, _ = f.Assign(time.Second, v, Slot{Node: 6, Kind: Map})
	assert.Equal(t, JobID(2), a.Job)
	f.Heartbeat(11*time.Second, 6)
	a, _ = f.Assign(11*time.Second, v, Slot{Node: 6, Kind: Map})
	assert.Equal(t, Assignment{Job: 1, Kind: Map, MaxLocality: RackLocal}, a)
	assert.Less(t, MemoryLocal, NodeLocal, "memory locality is the best level")
}
