package sched

import (
	"testing"
	"time"
)

// mapView is a View indexed by job, for benchmarks with many jobs.
type mapView struct {
	fakeView
	byID map[JobID]*JobStatus
}

func (v *mapView) Job(id JobID) (JobStatus, bool) {
	if j := v.byID[id]; j != nil {
		return *j, true
	}
	return JobStatus{}, false
}

func (v *mapView) BestLocality(id JobID, kind TaskKind, _ NodeID) (Locality, bool) {
	j := v.byID[id]
	if j == nil || j.Pending(kind) == 0 {
		return 0, false
	}
	return OffRack, true
}

// BenchmarkFairHeartbeat answers heartbeats of a 400-slot cluster shared
// by 400 small jobs (Zaharia et al.'s Table 3 load): each op, two
// attempts finish, and the heartbeating node's two free map slots are
// offered and filled. A job that has run all its tasks is replaced by a
// new one.
func BenchmarkFairHeartbeat(b *testing.B) {
	const jobs, maps = 400, 3
	v := &mapView{fakeView: fakeView{slots: map[TaskKind]int{Map: 400, Reduce: 200}}, byID: map[JobID]*JobStatus{}}
	f := NewFair(FairConfig{Delay: Waits{}})
	now := time.Duration(0)
	next := JobID(1)
	submit := func() {
		st := &JobStatus{Job: Job{ID: next, Maps: maps, Submit: now, Weight: 1}, PendingMaps: maps}
		next++
		v.jobs = append(v.jobs, st)
		v.byID[st.ID] = st
		f.Submitted(now, st.Job)
	}
	for range jobs {
		submit()
	}
	var live []Attempt
	launch := func(node NodeID) {
		s := Slot{Node: node, Kind: Map}
		a, ok := f.Assign(now, v, s)
		if !ok {
			return
		}
		st := v.byID[a.Job]
		st.PendingMaps--
		st.RunningMaps++
		st.MapAttempts++
		at := Attempt{Job: a.Job, Kind: Map, Task: int32(st.Maps - st.PendingMaps - 1)}
		live = append(live, at)
		f.Launched(now, Launch{Attempt: at, Node: node, Locality: OffRack})
	}
	finish := func() {
		if len(live) == 0 {
			return
		}
		at := live[0]
		live = live[1:]
		st := v.byID[at.Job]
		st.RunningMaps--
		st.MapAttempts--
		st.FinishedMaps++
		f.Finished(now, Finish{Attempt: at, Outcome: Succeeded, At: now})
		if st.FinishedMaps == st.Maps {
			f.Ended(now, st.ID)
			delete(v.byID, st.ID)
			for i, j := range v.jobs {
				if j == st {
					v.jobs = append(v.jobs[:i], v.jobs[i+1:]...)
					break
				}
			}
			submit()
		}
	}
	for i := range 400 { // fill the cluster
		launch(NodeID(i % 100))
	}
	b.ResetTimer()
	for i := range b.N {
		now += 30 * time.Millisecond
		node := NodeID(i % 100)
		finish()
		finish()
		f.Heartbeat(now, node)
		launch(node)
		launch(node)
	}
}
