package sched

import (
	"fmt"
	"testing"
	"time"
)

// mapView is a View indexed by job, for benchmarks with many jobs. Like
// the coordinator's job table it counts its changes (Versioned), which
// the benchmarks must mark (changed).
type mapView struct {
	fakeView
	byID    map[JobID]*JobStatus
	version uint64
}

func (v *mapView) Version() uint64 { return v.version }

func (v *mapView) changed() { v.version++ }

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
		v.changed()
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
		v.changed()
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
		v.changed()
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

// BenchmarkMultiQueueHeartbeat answers heartbeats of 100 nodes × (4 map +
// 2 reduce) slots under FBQ and TAGS (L_1 = 5 s; TAGS with [50, 50], so
// map slots 0 and 1 of every node are queue 1's) with the given number of
// active jobs of 3 maps each, all submitted before the clock starts. Each
// op, a node's map slots 0 and 3 end their attempts (launched 100 ops, 3
// s, before, so a job's second map to end demotes it) and are offered
// again; a job that has run all its maps ends and a new one replaces it.
func BenchmarkMultiQueueHeartbeat(b *testing.B) {
	for _, name := range []string{"fbq", "tags"} {
		for _, jobs := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/jobs=%d", name, jobs), func(b *testing.B) { benchMultiQueue(b, name, jobs) })
		}
	}
}

func benchMultiQueue(b *testing.B, name string, jobs int) {
	params, err := NewParams(name)
	if err != nil {
		b.Fatal(err)
	}
	params.(*MultiQueueParams).Limits = seconds(5)
	p, err := New(name, params, Shape{Nodes: 100, Slots: [2]int{4, 2}})
	if err != nil {
		b.Fatal(err)
	}
	benchQueueHeartbeats(b, p, jobs)
}

// BenchmarkLASMQHeartbeat is BenchmarkMultiQueueHeartbeat's load under
// LAS_MQ with its defaults (10 queues, α_1 = 100 s, weights 10^(k−i),
// the remaining-tasks order): each heartbeat plans afresh, demoting,
// ordering and splitting the slots over every job, then fills two slots.
func BenchmarkLASMQHeartbeat(b *testing.B) {
	for _, jobs := range []int{30, 300, 3000} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			benchQueueHeartbeats(b, NewLASMQ(*DefaultLASMQParams()), jobs)
		})
	}
}

// benchQueueHeartbeats answers heartbeats of 100 nodes × 4 map slots
// under p with jobs of 3 maps always active: each op, a node's slots 0
// and 3 end their attempts, heartbeat and are filled again, every 30 ms.
func benchQueueHeartbeats(b *testing.B, p Policy, jobs int) {
	const nodes, maps = 100, 3
	v := &mapView{fakeView: fakeView{slots: map[TaskKind]int{Map: 400, Reduce: 200}}, byID: map[JobID]*JobStatus{}}
	now := time.Duration(0)
	next := JobID(1)
	submit := func() {
		st := &JobStatus{Job: Job{ID: next, Maps: maps, Submit: now}, PendingMaps: maps}
		next++
		v.byID[st.ID] = st
		v.changed()
		p.Submitted(now, st.Job)
	}
	for range jobs {
		submit()
	}
	slots := make([][4]*Attempt, nodes)
	launch := func(node NodeID, index int) {
		s := Slot{Node: node, Kind: Map, Index: index}
		a, ok := p.Assign(now, v, s)
		if !ok {
			return
		}
		st := v.byID[a.Job]
		st.PendingMaps--
		v.changed()
		st.RunningMaps++
		st.MapAttempts++
		at := Attempt{Job: a.Job, Kind: Map, Task: int32(st.Maps - st.PendingMaps - 1)}
		slots[node][index] = &at
		p.Launched(now, Launch{Attempt: at, Node: node, Slot: index, Locality: OffRack})
	}
	finish := func(node NodeID, index int) {
		at := slots[node][index]
		if at == nil {
			return
		}
		slots[node][index] = nil
		st := v.byID[at.Job]
		st.RunningMaps--
		st.MapAttempts--
		st.FinishedMaps++
		v.changed()
		p.Finished(now, Finish{Attempt: *at, Node: node, Outcome: Succeeded, At: now})
		if st.FinishedMaps == st.Maps {
			p.Ended(now, st.ID)
			delete(v.byID, st.ID)
			submit()
		}
	}
	for node := range NodeID(nodes) {
		for index := range 4 {
			launch(node, index)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now += 30 * time.Millisecond
		node := NodeID(i % nodes)
		finish(node, 0)
		finish(node, 3)
		p.Heartbeat(now, node)
		launch(node, 0)
		launch(node, 3)
	}
}
