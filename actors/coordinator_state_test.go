package actors

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// The coordinator's core on its own: events in, effects out, no actors.
// The cluster is four nodes on two racks (nodes 0 and 1 on rack 0, 2 and
// 3 on rack 1), two map slots and one reduce slot each, 100-byte blocks
// in two replicas, which tests pin where they need to.

// scriptPolicy is FIFO that first hands out the assignments a test
// queued, each on the first offer of a slot of its kind, and logs what
// the coordinator tells it.
type scriptPolicy struct {
	*sched.FIFO
	next []sched.Assignment
	log  []string
}

func (p *scriptPolicy) Assign(now time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	if len(p.next) > 0 && p.next[0].Kind == s.Kind {
		a := p.next[0]
		p.next = p.next[1:]
		return a, true
	}
	return p.FIFO.Assign(now, v, s)
}

func (p *scriptPolicy) Launched(now time.Duration, l sched.Launch) {
	p.log = append(p.log, fmt.Sprintf("%v launched %v on node %d slot %d, %v", now, l.Attempt, l.Node, l.Slot, l.Locality))
	p.FIFO.Launched(now, l)
}

func (p *scriptPolicy) Finished(now time.Duration, f sched.Finish) {
	p.log = append(p.log, fmt.Sprintf("%v finished %v on node %d: %v at %v", now, f.Attempt, f.Node, f.Outcome, f.At))
}

func (p *scriptPolicy) takeLog() []string {
	log := p.log
	p.log = nil
	return log
}

func testCore(mod func(*CoordinatorConfig)) (*coordState, *scriptPolicy) {
	cfg := &CoordinatorConfig{
		RackOf: []sched.RackID{0, 0, 1, 1}, Streams: 1,
		HDFS:      HDFSConfig{BlockSize: 100, Replication: 2},
		Heartbeat: HeartbeatConfig{Interval: units.Duration(3 * time.Second), DeadAfter: 10, AssignMultiple: true},
		Tasks:     TasksConfig{SlowStart: 0.05, MaxAttempts: 4},
	}
	if mod != nil {
		mod(cfg)
	}
	p := &scriptPolicy{FIFO: sched.NewFIFO()}
	s := newCoordState(cfg, p, 1)
	for i := range cfg.RackOf {
		reg := &RegisterNode{Node: sched.NodeID(i), Rack: cfg.RackOf[i], MapSlots: 2, Reducers: 1}
		if c := cfg.Cluster.Containers; c > 0 {
			reg.MapSlots, reg.Reducers, reg.Containers = c, c/cfg.Cluster.ReduceSize(), c
		}
		s.register(0, reg)
	}
	return s, p
}

// said lists the core's effects since the last call, one line each, with
// a line for the end of the run or a failure.
func said(s *coordState) []string { return lines(s.take()) }

// lines are an output's effects, one line each, with a line for the end
// of the run or a failure.
func lines(out coordOut) []string {
	var lines []string
	for _, e := range out.effects {
		lines = append(lines, e.String())
	}
	if out.done {
		lines = append(lines, "done")
	}
	if out.err != nil {
		lines = append(lines, "error: "+out.err.Error())
	}
	return lines
}

// jobSpec is a job of one 100-byte map with a shuffle of the given bytes
// to one reduce, or no reduce when shuffle is 0.
func jobSpec(reduces int, shuffle int64) workload.JobSpec {
	return workload.JobSpec{Name: "j", InputBytes: 100, Reduces: reduces, ShuffleBytes: shuffle}
}

// submitMaps submits job id with one map per replica list, its blocks on
// those nodes, and makes every map pending as its job manager would.
func submitMaps(t *testing.T, s *coordState, now time.Duration, id sched.JobID, reduces int, replicas ...[]sched.NodeID) {
	t.Helper()
	spec := workload.JobSpec{Name: fmt.Sprint("job", id), InputBytes: int64(100 * len(replicas)), Reduces: reduces, ShuffleBytes: int64(10 * reduces)}
	submitJob(t, s, now, id, spec, replicas...)
}

// submitJob submits a job whose maps' blocks are on the nodes given, and
// makes every map pending.
func submitJob(t *testing.T, s *coordState, now time.Duration, id sched.JobID, spec workload.JobSpec, replicas ...[]sched.NodeID) {
	t.Helper()
	s.submit(now, now, id, spec)
	require.Equal(t, []string{fmt.Sprintf("spawn job-%d: %d maps, %d reduces", id, len(replicas), spec.Reduces)}, said(s))
	for i, r := range replicas {
		pin(s.blocks, s.jobs[id].input, i, r)
	}
	req := &RequeueTasks{Job: id}
	for i := range replicas {
		req.Maps = append(req.Maps, int32(i))
	}
	s.requeue(req)
}

// pin moves block i of a file to the given nodes, in the block map's
// index and bytes of what each node holds too.
func pin(b *blockMap, f *file, i int, nodes []sched.NodeID) {
	for n, refs := range b.onNode {
		b.onNode[n] = slices.DeleteFunc(refs, func(r blockRef) bool { return r.file == f && r.index == i })
	}
	for _, n := range f.blocks[i].replicas {
		b.stored[n] -= f.blocks[i].bytes
	}
	f.blocks[i].replicas = slices.Clone(nodes)
	for _, n := range nodes {
		b.onNode[n] = append(b.onNode[n], blockRef{f, i})
		b.stored[n] += f.blocks[i].bytes
	}
}

func attempt(job sched.JobID, kind sched.TaskKind, task, n int32) sched.Attempt {
	return sched.Attempt{Job: job, Kind: kind, Task: task, Attempt: n}
}

func ended(a sched.Attempt, o sched.Outcome, at time.Duration) AttemptEnded {
	return AttemptEnded{Attempt: a, Outcome: o, At: at}
}

func TestAnAttemptRunsInTheSlotItWasOffered(t *testing.T) {
	s, p := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2}, []sched.NodeID{0, 3}, []sched.NodeID{1, 3})

	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{
		"launch j1-map0.0 on node 0 map slot 0, node, reads node 0",
		"launch j1-map1.0 on node 0 map slot 1, node, reads node 0",
	}, said(s))
	assert.Equal(t, []string{
		"1s launched j1-map0.0 on node 0 slot 0, node",
		"1s launched j1-map1.0 on node 0 slot 1, node",
	}, p.takeLog())

	// The launches have not reached the node: its next heartbeat reports
	// nothing ended, and both slots stay taken.
	s.heartbeat(4*time.Second, &Heartbeat{Node: 0})
	assert.Empty(t, said(s))

	// The first map ends at 6.5 s; the heartbeat at 7 s frees slot 0, and
	// the last map goes there, rack-local (its block is on node 1).
	s.heartbeat(7*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{2, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Succeeded, 6500*time.Millisecond)}})
	assert.Equal(t, []string{"launch j1-map2.0 on node 0 map slot 0, rack, reads node 1"}, said(s))
	assert.Equal(t, []string{
		"7s finished j1-map0.0 on node 0: succeeded at 6.5s",
		"7s launched j1-map2.0 on node 0 slot 0, rack",
	}, p.takeLog(), "the policy hears when the attempt ended, not when the heartbeat came")
	st := status(s.table, 1)
	assert.Equal(t, [4]int{0, 2, 1, 2}, [4]int{st.PendingMaps, st.RunningMaps, st.FinishedMaps, st.MapAttempts})
}

// evenDecliner leaves every even-numbered slot idle and counts the offers.
type evenDecliner struct {
	*sched.FIFO
	aware  bool
	offers []string
}

func (p *evenDecliner) SlotAware() bool { return p.aware }

func (p *evenDecliner) Assign(now time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	p.offers = append(p.offers, fmt.Sprintf("%v slot %d", s.Kind, s.Index))
	if s.Index%2 == 0 {
		return sched.Assignment{}, false
	}
	return p.FIFO.Assign(now, v, s)
}

func TestADeclinedSlotEndsTheOffersUnlessThePolicyIsSlotAware(t *testing.T) {
	for _, aware := range []bool{false, true} {
		t.Run(fmt.Sprintf("slot-aware=%v", aware), func(t *testing.T) {
			cfg := &CoordinatorConfig{
				RackOf: []sched.RackID{0, 0}, Streams: 1,
				HDFS:      HDFSConfig{BlockSize: 100, Replication: 2},
				Heartbeat: HeartbeatConfig{Interval: units.Duration(3 * time.Second), AssignMultiple: true},
				Tasks:     TasksConfig{SlowStart: 0.05, MaxAttempts: 4},
			}
			p := &evenDecliner{FIFO: sched.NewFIFO(), aware: aware}
			s := newCoordState(cfg, p, 1)
			s.register(0, &RegisterNode{Node: 0, Rack: 0, MapSlots: 2, Reducers: 1})
			s.register(0, &RegisterNode{Node: 1, Rack: 0, MapSlots: 2, Reducers: 1})
			submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1})
			s.heartbeat(time.Second, &Heartbeat{Node: 0})
			if !aware {
				assert.Empty(t, said(s), "FIFO would decline slot 1 as it declined slot 0")
				assert.Equal(t, []string{"map slot 0", "reduce slot 0"}, p.offers)
				return
			}
			assert.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 1, node, reads node 0"}, said(s))
			assert.Equal(t, []string{"map slot 0", "map slot 1", "reduce slot 0"}, p.offers)
		})
	}
}

func TestOneTaskPerKindPerHeartbeatWithoutAssignMultiple(t *testing.T) {
	s, _ := testCore(func(c *CoordinatorConfig) { c.Heartbeat.AssignMultiple = false })
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2}, []sched.NodeID{0, 3})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, node, reads node 0"}, said(s))
	s.heartbeat(4*time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{"launch j1-map1.0 on node 0 map slot 1, node, reads node 0"}, said(s))
}

func TestAPolicyNamingNoSuchTaskFailsTheRun(t *testing.T) {
	tests := []struct {
		name string
		asg  sched.Assignment
		want string
	}{
		{"a job with no reduce pending", sched.Assignment{Job: 1, Kind: sched.Reduce, MaxLocality: sched.OffRack},
			"coordinator: fifo assigned job 1 a reduce slot on node 2, but it has no such task within remote"},
		{"a job that does not exist", sched.Assignment{Job: 9, Kind: sched.Map, MaxLocality: sched.OffRack},
			"coordinator: fifo assigned job 9 a map slot on node 2, but it has no such task within remote"},
		{"a map closer than it can run", sched.Assignment{Job: 1, Kind: sched.Map, MaxLocality: sched.NodeLocal},
			"coordinator: fifo assigned job 1 a map slot on node 2, but it has no such task within node"},
		{"a copy of a task not running", sched.Assignment{Job: 1, Kind: sched.Map, MaxLocality: sched.OffRack, Copy: true},
			"coordinator: fifo assigned job 1 a map slot on node 2, but it has no such running task to copy within remote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := testCore(nil)
			submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1})
			p.next = []sched.Assignment{tt.asg}
			s.heartbeat(time.Second, &Heartbeat{Node: 2})
			got := said(s)
			if tt.asg.Kind == sched.Reduce {
				assert.Equal(t, "launch j1-map0.0 on node 2 map slot 0, remote, reads node 0", got[0], "FIFO's map first")
				got = got[1:]
			}
			assert.Equal(t, []string{"error: " + tt.want}, got)
		})
	}
}

func TestLocalityIsDecidedFromTheCurrentReplicas(t *testing.T) {
	// Map 0's replicas are on node 1 (rack 0) and node 3 (rack 1). Node 1
	// is declared dead: on node 0 the map is off-rack and reads node 3,
	// where the launch and the policy's delay decision agree.
	s, p := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{1, 3})
	s.heartbeat(0, &Heartbeat{Node: 0}) // launches it rack-local...
	require.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, rack, reads node 1"}, said(s))
	// ...but it fails, and node 1 dies before it runs again.
	s.heartbeat(3*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{1, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Failed, 2*time.Second)}})
	for _, n := range []sched.NodeID{0, 2, 3} {
		s.heartbeat(30*time.Second, &Heartbeat{Node: n})
	}
	s.checkLiveness(31 * time.Second)
	assert.Equal(t, []string{"node-1 declared dead", "job-1 ← NodeLost 1"}, said(s))
	s.requeue(&RequeueTasks{Job: 1, Maps: []int32{0}})
	view := coordView{s}
	loc, ok := view.BestLocality(1, sched.Map, 0)
	require.True(t, ok)
	assert.Equal(t, sched.OffRack, loc, "no replica is left on rack 0")
	p.next = []sched.Assignment{{Job: 1, Kind: sched.Map, MaxLocality: sched.RackLocal}}
	s.heartbeat(32*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{1, 0}})
	assert.Equal(t, []string{"error: coordinator: fifo assigned job 1 a map slot on node 0, but it has no such task within rack"}, said(s))
	s.heartbeat(33*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{1, 0}})
	assert.Equal(t, []string{"launch j1-map0.1 on node 0 map slot 0, remote, reads node 3"}, said(s))
	p.takeLog()
}

func TestACopyRunsBesideItsTaskAndTheFirstToSucceedFinishesIt(t *testing.T) {
	s, p := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	require.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, node, reads node 0"}, said(s))

	// Node 2 holds the other replica: the copy runs node-local there.
	p.next = []sched.Assignment{{Job: 1, Kind: sched.Map, MaxLocality: sched.NodeLocal, Copy: true, Task: 0}}
	s.heartbeat(2*time.Second, &Heartbeat{Node: 2})
	assert.Equal(t, []string{"launch j1-map0.1 on node 2 map slot 0, node, reads node 2, a copy"}, said(s))
	st := status(s.table, 1)
	assert.Equal(t, [3]int{0, 1, 2}, [3]int{st.PendingMaps, st.RunningMaps, st.MapAttempts}, "one task, two attempts")

	// The copy succeeds; the job manager kills the original, which node 0
	// reports killed. The task finished once.
	s.heartbeat(8*time.Second, &Heartbeat{Node: 2, Launches: [2]int64{1, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 1), sched.Succeeded, 7*time.Second)}})
	s.heartbeat(9*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{1, 0},
		Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Killed, 8500*time.Millisecond)}})
	assert.Empty(t, said(s))
	st = status(s.table, 1)
	assert.Equal(t, [4]int{0, 0, 1, 0}, [4]int{st.PendingMaps, st.RunningMaps, st.FinishedMaps, st.MapAttempts})
	assert.Equal(t, []string{
		"2s launched j1-map0.1 on node 2 slot 0, node",
		"8s finished j1-map0.1 on node 2: succeeded at 7s",
		"9s finished j1-map0.0 on node 0: killed at 8.5s",
	}, p.takeLog()[1:])
}

func TestAJobEndingKillsWhatItStillRunsAndEndsTheRun(t *testing.T) {
	s, _ := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2}, []sched.NodeID{1, 3})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	require.Len(t, said(s), 2)
	s.workloadSubmitted()
	assert.Empty(t, said(s), "a job is still running")
	s.jobEnded(2*time.Second, 1)
	assert.Equal(t, []string{
		"kill j1-map0.0 on node 0: job ended",
		"kill j1-map1.0 on node 0: job ended",
		"done",
	}, said(s))
}

func TestASilentNodeIsDeclaredDeadAndItsAttemptsEnd(t *testing.T) {
	s, p := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{2, 0})
	s.heartbeat(time.Second, &Heartbeat{Node: 2})
	require.Len(t, said(s), 1)
	for _, n := range []sched.NodeID{0, 1, 3} {
		s.heartbeat(20*time.Second, &Heartbeat{Node: n})
	}
	s.checkLiveness(31 * time.Second)
	assert.Empty(t, said(s), "node 2 was heard 30 s ago: not yet")
	s.checkLiveness(32 * time.Second)
	assert.Equal(t, []string{"node-2 declared dead", "job-1 ← NodeLost 2"}, said(s))
	assert.Equal(t, "32s finished j1-map0.0 on node 2: killed at 32s", p.takeLog()[1])
	assert.Equal(t, 6, coordView{s}.Slots(sched.Map))
	assert.Equal(t, []sched.NodeID{0}, s.jobs[1].input.blocks[0].replicas)

	// It was only cut off: its next heartbeat is told, once, to drop what
	// it ran and register afresh; until it does it stays dead.
	s.heartbeat(33*time.Second, &Heartbeat{Node: 2})
	assert.Equal(t, []string{"node-2 ← ReinitNode"}, said(s))
	s.heartbeat(36*time.Second, &Heartbeat{Node: 2})
	assert.Empty(t, said(s), "told once")
	assert.Equal(t, 6, coordView{s}.Slots(sched.Map))

	// Registered again, with its disk: its slots and its replica are back.
	s.register(37*time.Second, &RegisterNode{Node: 2, Rack: 1, MapSlots: 2, Reducers: 1})
	assert.Equal(t, []string{"node-2 registered again"}, said(s))
	assert.Equal(t, 8, coordView{s}.Slots(sched.Map))
	assert.Equal(t, []sched.NodeID{0, 2}, s.jobs[1].input.blocks[0].replicas)
}

func TestANodeThatRestartsBeforeItIsDeclaredDeadLosesWhatItRan(t *testing.T) {
	s, p := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{2, 0})
	s.heartbeat(time.Second, &Heartbeat{Node: 2})
	require.Len(t, said(s), 1)
	// Its disk is lost: the replica it held does not come back.
	s.register(5*time.Second, &RegisterNode{Node: 2, Rack: 1, MapSlots: 2, Reducers: 1, DiskLost: true})
	assert.Equal(t, []string{"node-2 restarted", "job-1 ← NodeLost 2", "node-2 registered again"}, said(s))
	assert.Equal(t, "5s finished j1-map0.0 on node 2: killed at 5s", p.takeLog()[1])
	assert.Equal(t, 8, coordView{s}.Slots(sched.Map))
	assert.Equal(t, []sched.NodeID{0}, s.jobs[1].input.blocks[0].replicas)
}

func TestCommitPendingCountsAFinishedTaskWhileItsSlotIsOffered(t *testing.T) {
	// Hadoop's commit-pending counting: the heartbeat that reports job
	// 1's map done offers its slot while job 1 still counts it as
	// running, so FIFO sees job 1 at 1 running map of 1 and the job
	// table's counts during the offer show it.
	for _, commit := range []bool{false, true} {
		s, p := testCore(func(c *CoordinatorConfig) { c.Tasks.CommitPendingRunning = commit })
		submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2}, []sched.NodeID{0, 2}, []sched.NodeID{0, 2})
		s.heartbeat(time.Second, &Heartbeat{Node: 0})
		require.Len(t, said(s), 2)
		var during sched.JobStatus
		p.next = nil
		probe := &probePolicy{scriptPolicy: p, seen: &during}
		s.policy = probe
		s.heartbeat(5*time.Second, &Heartbeat{Node: 0, Launches: [2]int64{2, 0},
			Ended: []AttemptEnded{ended(attempt(1, sched.Map, 0, 0), sched.Succeeded, 4*time.Second)}})
		require.Equal(t, []string{"launch j1-map2.0 on node 0 map slot 0, node, reads node 0"}, said(s))
		if commit {
			assert.Equal(t, [2]int{0, 2}, [2]int{during.FinishedMaps, during.MapAttempts})
		} else {
			assert.Equal(t, [2]int{1, 1}, [2]int{during.FinishedMaps, during.MapAttempts})
		}
		st := status(s.table, 1)
		assert.Equal(t, [2]int{1, 2}, [2]int{st.FinishedMaps, st.MapAttempts}, "booked after the offers")
	}
}

// probePolicy records job 1's status when the first slot is offered.
type probePolicy struct {
	*scriptPolicy
	seen *sched.JobStatus
}

func (p *probePolicy) Assign(now time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	if p.seen.ID == 0 {
		*p.seen, _ = v.Job(1)
	}
	return p.scriptPolicy.Assign(now, v, s)
}

func TestTheViewHandsOutCopies(t *testing.T) {
	s, _ := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2})
	v := coordView{s}
	for st := range v.Jobs() {
		st.PendingMaps = 99
	}
	st, ok := v.Job(1)
	require.True(t, ok)
	st.PendingMaps = 42
	again, _ := v.Job(1)
	assert.Equal(t, 1, again.PendingMaps)
	_, ok = v.Job(2)
	assert.False(t, ok)
}

func TestAJobWhoseInputCannotBeStoredFails(t *testing.T) {
	s, _ := testCore(nil)
	spec := workload.JobSpec{Name: "a", InputFile: "shared", InputBytes: 100}
	s.submit(0, 0, 1, spec)
	said(s)
	spec.InputBytes = 200
	s.submit(0, 0, 2, spec)
	assert.Equal(t, []string{
		"spawn job-2: 2 maps, 0 reduces",
		`job-2 ← FailJob: file "shared" is 100 bytes, not 200`,
	}, said(s))
	s.requeue(&RequeueTasks{Job: 2, Maps: []int32{0, 1}})
	assert.Zero(t, status(s.table, 2).PendingMaps, "its maps never become pending")
}

func TestInjectedFailuresAreDrawnPerAttempt(t *testing.T) {
	// With probability 1 every attempt fails; with 0.5 about half do, and
	// the same attempts whatever else the run did.
	s, _ := testCore(func(c *CoordinatorConfig) { c.Tasks.FailureProbability = 1 })
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 2})
	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	assert.Equal(t, []string{"launch j1-map0.0 on node 0 map slot 0, node, reads node 0, fails"}, said(s))

	draw := func() []bool {
		s, _ := testCore(func(c *CoordinatorConfig) { c.Tasks.FailureProbability = 0.5 })
		var fails []bool
		for task := range int32(200) {
			spec, err := s.taskSpec(&coordJob{spec: workload.JobSpec{Reduces: 1}, maps: 200, input: inputOn([]sched.NodeID{0})},
				attempt(1, sched.Reduce, task, 0), 0, sched.OffRack)
			require.NoError(t, err)
			fails = append(fails, spec.Fail)
		}
		return fails
	}
	first := draw()
	assert.Equal(t, first, draw())
	n := 0
	for _, f := range first {
		if f {
			n++
		}
	}
	assert.InDelta(t, 100, n, 25)
}

// A stalled run's report says what each job waits for.
func TestWaitingSaysWhatEachJobWaitsFor(t *testing.T) {
	s, _ := testCore(nil)
	submitMaps(t, s, 0, 1, 0, []sched.NodeID{0, 1})
	assert.Equal(t, []string{"job 1 (job1): 1 map pending, which fifo launches nowhere",
		"1 workload stream(s) still to submit jobs"}, s.waiting())
	s.workloadSubmitted()

	s.heartbeat(time.Second, &Heartbeat{Node: 0})
	said(s)
	assert.Equal(t, []string{"job 1 (job1): 1 running attempt(s) that did not end within the stall time"}, s.waiting())

	// Every node gone: nothing has a slot.
	s, _ = testCore(nil)
	submitMaps(t, s, 0, 1, 2, []sched.NodeID{0, 1}, []sched.NodeID{2, 3})
	s.requeue(&RequeueTasks{Job: 1, Reduces: []int32{0, 1}})
	for n := range sched.NodeID(4) {
		s.nodes[n].dead = true
	}
	s.updateSlots()
	s.workloadSubmitted()
	assert.Equal(t, []string{"job 1 (job1): 2 maps pending, but no live node has a map slot; " +
		"2 reduces pending, but no live node has a reduce slot"}, s.waiting())
}
