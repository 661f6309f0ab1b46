package race

import (
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"clusteremu/policies/sched"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// view is a coordinator view of one job.
type view struct{ st sched.JobStatus }

func (v *view) Jobs() iter.Seq[sched.JobStatus] {
	return func(yield func(sched.JobStatus) bool) { yield(v.st) }
}
func (v *view) Job(id sched.JobID) (sched.JobStatus, bool) { return v.st, id == v.st.ID }
func (v *view) BestLocality(_ sched.JobID, kind sched.TaskKind, _ sched.NodeID) (sched.Locality, bool) {
	return sched.OffRack, v.st.Pending(kind) > 0
}
func (v *view) Slots(sched.TaskKind) int { return 10 }

func TestTheHeartbeatThatBeatsTaskFinished(t *testing.T) {
	job := sched.Job{ID: 1, Maps: 20, Reduces: 2, Weight: 1}
	// The heartbeat reporting the first map has been booked (one of 20
	// maps is slow-start 0.05), but the job manager has not yet heard the
	// node's TaskFinished, so no reduce is pending.
	v := &view{st: sched.JobStatus{Job: job, RunningMaps: 19, MapAttempts: 19, FinishedMaps: 1}}
	slot := sched.Slot{Node: 3, Kind: sched.Reduce}

	for _, fixed := range []bool{false, true} {
		p, err := New(map[string]any{"slow_start": 0.05, "fixed": fixed})
		require.NoError(t, err)
		p.Submitted(0, job)
		_, ok := p.Assign(0, v, slot)
		assert.Equal(t, !fixed, ok, "fixed = %v: a reduce assigned before its release", fixed)
	}

	// Once the job manager has released the reduces both agree.
	v.st.PendingReduces = 2
	for _, fixed := range []bool{false, true} {
		p, _ := New(map[string]any{"fixed": fixed})
		p.Submitted(0, job)
		a, ok := p.Assign(0, v, slot)
		assert.True(t, ok)
		assert.Equal(t, sched.Assignment{Job: 1, Kind: sched.Reduce, MaxLocality: sched.OffRack}, a)
	}
}

func TestParametersAreChecked(t *testing.T) {
	_, err := New(map[string]any{"fixd": true})
	assert.EqualError(t, err, "scheduler.fixd: unknown parameter of race-fifo; allowed: slow_start, fixed")
	_, err = New(map[string]any{"slow_start": 2.0})
	assert.EqualError(t, err, "scheduler.slow_start = 2: must be a number in [0, 1]")
	_, err = New(map[string]any{"fixed": "yes"})
	assert.EqualError(t, err, "scheduler.fixed = yes: must be true or false")
}
