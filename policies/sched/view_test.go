package sched

import (
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeView is a View over a fixed table, for policy tests. Tests change
// the table through the pointers they hold; the view hands out copies.
type fakeView struct {
	jobs  []*JobStatus
	local map[JobID]map[NodeID]Locality // best pending-map locality per node; absent = OffRack
	slots map[TaskKind]int
	// progress is each job's stage progress by kind; absent = 0.
	progress map[JobID][2]float64
}

func (v *fakeView) Jobs() iter.Seq[JobStatus] {
	return func(yield func(JobStatus) bool) {
		for _, j := range v.jobs {
			if !yield(*j) {
				return
			}
		}
	}
}

func (v *fakeView) Job(id JobID) (JobStatus, bool) {
	if j := v.status(id); j != nil {
		return *j, true
	}
	return JobStatus{}, false
}

func (v *fakeView) status(id JobID) *JobStatus {
	for _, j := range v.jobs {
		if j.ID == id {
			return j
		}
	}
	return nil
}

func (v *fakeView) BestLocality(id JobID, kind TaskKind, node NodeID) (Locality, bool) {
	j, ok := v.Job(id)
	if !ok || j.Pending(kind) == 0 {
		return 0, false
	}
	if kind == Reduce {
		return OffRack, true
	}
	if l, ok := v.local[id][node]; ok {
		return l, true
	}
	return OffRack, true
}

func (v *fakeView) Slots(kind TaskKind) int { return v.slots[kind] }

func (v *fakeView) Progress(id JobID, kind TaskKind) float64 { return v.progress[id][kind] }

// running sets a job's running maps, one attempt each.
func running(st *JobStatus, maps int) {
	st.RunningMaps, st.MapAttempts = maps, maps
}

// containerTo offers the policy a container on node 0 at now and returns
// what it assigns there, failing the test when it leaves the container
// idle.
func containerTo(t *testing.T, c ContainerAware, v View, now time.Duration) Assignment {
	t.Helper()
	a, ok := c.AssignContainer(now, v, Slot{Kind: Map})
	require.True(t, ok, "the container stays idle")
	return a
}

// offRack is an assignment of a task of the kind from the job, at any
// locality.
func offRack(job JobID, kind TaskKind) Assignment {
	return Assignment{Job: job, Kind: kind, MaxLocality: OffRack}
}
