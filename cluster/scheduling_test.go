package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// What the scheduling interface promises a policy, checked on real
// actors: the slot it is offered is the slot the attempt runs in, the end
// it hears of is when the attempt really ended, an attempt that fails
// counts towards the task's limit, and a copy of a running task ends with
// its task.

// tracer is FIFO that remembers what the coordinator told it. With
// oddMaps it runs maps in odd-numbered map slots only, as a policy that
// partitions a node's slots between queues would; with copies it copies
// every running map of a job with no map left pending onto another free
// map slot, once.
type tracer struct {
	*sched.FIFO
	oddMaps  bool
	copies   bool
	slots    map[sched.Attempt]int
	launched map[sched.Attempt]time.Duration
	// held is each attempt's slot time from its launch to the end the
	// policy heard of.
	held    map[sched.Attempt]time.Duration
	running map[sched.Attempt]sched.NodeID
	copied  map[int32]bool
}

// traced is the tracer the last run built.
var traced *tracer

// tracerParams are the tracer's parameters.
type tracerParams struct {
	OddMaps bool `toml:"odd_maps"`
	Copies  bool `toml:"copies"`
}

func (*tracerParams) Validate() error { return nil }

func init() {
	sched.Register("tracer", func() *tracerParams { return &tracerParams{} }, func(p *tracerParams) (sched.Policy, error) {
		traced = &tracer{
			FIFO: sched.NewFIFO(), oddMaps: p.OddMaps, copies: p.Copies,
			slots: map[sched.Attempt]int{}, launched: map[sched.Attempt]time.Duration{},
			held: map[sched.Attempt]time.Duration{}, running: map[sched.Attempt]sched.NodeID{}, copied: map[int32]bool{},
		}
		return traced, nil
	})
}

func (p *tracer) Name() string { return "tracer" }

// SlotAware asks for every free slot when the tracer leaves some idle.
func (p *tracer) SlotAware() bool { return p.oddMaps }

func (p *tracer) Launched(now time.Duration, l sched.Launch) {
	p.slots[l.Attempt], p.launched[l.Attempt], p.running[l.Attempt] = l.Slot, now, l.Node
	p.FIFO.Launched(now, l)
}

func (p *tracer) Finished(now time.Duration, f sched.Finish) {
	p.held[f.Attempt] = f.At - p.launched[f.Attempt]
	delete(p.running, f.Attempt)
}

func (p *tracer) Assign(now time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	if p.oddMaps && s.Kind == sched.Map && s.Index%2 == 0 {
		return sched.Assignment{}, false
	}
	if a, ok := p.FIFO.Assign(now, v, s); ok || !p.copies || s.Kind != sched.Map {
		return a, ok
	}
	for a, node := range p.running {
		if a.Kind == sched.Map && node != s.Node && !p.copied[a.Task] {
			p.copied[a.Task] = true
			return sched.Assignment{Job: a.Job, Kind: sched.Map, MaxLocality: sched.OffRack, Copy: true, Task: a.Task}, true
		}
	}
	return sched.Assignment{}, false
}

func TestAttemptsRunInTheSlotTheyWereOffered(t *testing.T) {
	// 50 jobs on 40 nodes under a policy that runs maps only in odd map
	// slots (1 and 3 of 4): every map must run in the slot it was
	// offered, and so in an odd one. A node that took its lowest free
	// slot would run most maps in slot 0; before the coordinator named
	// the slot, about a third of the attempts ran elsewhere than offered.
	cfg := fourRacks()
	cfg.Scheduler.Name, cfg.Scheduler.Params = "tracer", &tracerParams{OddMaps: true}
	rep := run(t, cfg)
	require.Len(t, traced.slots, len(rep.Records.Attempts))
	require.Equal(t, 50.0, rep.Summary["jobs.succeeded"])
	elsewhere := 0
	for _, a := range rep.Records.Attempts {
		slot, ok := traced.slots[a.Attempt]
		require.True(t, ok, "%v was never launched", a.Attempt)
		if slot != a.Slot {
			elsewhere++
		}
		if a.Attempt.Kind == sched.Map {
			assert.Equal(t, 1, a.Slot%2, "%v", a.Attempt)
		}
	}
	assert.Zero(t, elsewhere, "attempts that ran in another slot than the one offered")
}

func TestAPolicyHearsWhenAttemptsReallyEnded(t *testing.T) {
	// With no control latency an attempt starts on its node at the
	// instant the coordinator launches it, so the slot time a policy
	// counts from Launched to Finish.At must equal the record's duration
	// exactly; counted to the heartbeat that reported the end, it would
	// exceed it by up to a heartbeat interval. (The last attempts end the
	// run before a heartbeat reports them.)
	cfg := smallCluster()
	cfg.Scheduler.Name = "tracer"
	cfg.Workload = [][]workload.JobSpec{{
		{Name: "a", InputBytes: 12 * mib, Reduces: 2, ShuffleBytes: 4 * mib, MapCPU: workload.PerMiB(7 * time.Second), ReduceCPU: workload.PerMiB(time.Second)},
		{Name: "b", Submit: 10 * time.Second, InputBytes: 6 * mib, MapCPU: workload.PerMiB(11 * time.Second)},
	}}
	rep := run(t, cfg)
	heard := 0
	for _, a := range rep.Records.Attempts {
		if held, ok := traced.held[a.Attempt]; ok {
			heard++
			assert.Equal(t, a.End-a.Start, held, "%v", a.Attempt)
		}
	}
	assert.Len(t, traced.held, heard)
	assert.Greater(t, heard, len(rep.Records.Attempts)-4)
}

func TestAJobFailsOnceATaskFailsMaxAttemptsTimes(t *testing.T) {
	cfg := smallCluster()
	cfg.Tasks.FailureProbability, cfg.Tasks.MaxAttempts = 1, 2
	cfg.Workload = [][]workload.JobSpec{{{Name: "doomed", InputBytes: 4 * mib, MapCPU: workload.PerMiB(5 * time.Second)}}}
	rep := run(t, cfg)
	job := rep.Records.Jobs[0]
	assert.Equal(t, JobFailed, job.Outcome)
	assert.Regexp(t, `^task j1-map\d\.1 failed 2 times, last: failed at the end of its compute \(tasks\.failure_probability\)$`, job.Reason)
	for _, a := range rep.Records.Attempts {
		assert.NotEqual(t, sched.Succeeded, a.Outcome, "%v", a.Attempt)
		if a.Outcome == sched.Failed {
			assert.Equal(t, 5*time.Second, a.End-a.Start, "%v fails when its compute ends", a.Attempt)
		}
	}
	assert.GreaterOrEqual(t, rep.Summary["tasks.failed"], 2.0)
	assert.Equal(t, 1.0, rep.Summary["jobs.failed"])

	// Some failures under the limit: the job succeeds, every task once.
	cfg.Tasks.FailureProbability, cfg.Tasks.MaxAttempts = 0.3, 10
	cfg.Workload = [][]workload.JobSpec{{{Name: "unlucky", InputBytes: 20 * mib, Reduces: 2, ShuffleBytes: 2 * mib,
		MapCPU: workload.PerMiB(time.Second), ReduceCPU: workload.PerMiB(time.Second)}}}
	rep = run(t, cfg)
	require.Equal(t, JobSucceeded, rep.Records.Jobs[0].Outcome, rep.Records.Jobs[0].Reason)
	assert.Positive(t, rep.Summary["tasks.failed"])
	assert.Positive(t, rep.Summary["tasks.failed.slot_seconds"])
	succeeded := map[string]int{}
	for _, a := range rep.Records.Attempts {
		if a.Outcome == sched.Succeeded {
			succeeded[fmt.Sprintf("%v%d", a.Attempt.Kind, a.Attempt.Task)]++
		}
	}
	assert.Len(t, succeeded, 22)
	for task, n := range succeeded {
		assert.Equal(t, 1, n, task)
	}
}

func TestACopyAndItsTaskEndOnce(t *testing.T) {
	// One 60 s map on a two-node cluster. The policy launches it, then
	// copies it onto the other node's free slot at that node's next
	// heartbeat. The original finishes first; the job manager kills the
	// copy, whose slot time counts as killed work, and the task ends once.
	cfg := smallCluster()
	cfg.Scheduler.Name, cfg.Scheduler.Params = "tracer", &tracerParams{Copies: true}
	cfg.Workload = [][]workload.JobSpec{{{Name: "one", InputBytes: mib, MapCPU: workload.PerMiB(time.Minute)}}}
	rep := run(t, cfg)
	require.Equal(t, JobSucceeded, rep.Records.Jobs[0].Outcome)
	require.Len(t, rep.Records.Attempts, 2)
	first, copy := rep.Records.Attempts[0], rep.Records.Attempts[1]
	assert.Equal(t, int32(1), copy.Attempt.Attempt)
	assert.NotEqual(t, first.Node, copy.Node)
	assert.Equal(t, sched.Succeeded, first.Outcome)
	assert.Equal(t, sched.Killed, copy.Outcome)
	assert.Equal(t, "another attempt of the task succeeded", copy.Reason)
	assert.Equal(t, first.End, copy.End, "killed at once: no control latency")
	assert.Equal(t, 1.0, rep.Summary["tasks.killed"])
	assert.InDelta(t, (copy.End - copy.Start).Seconds(), rep.Summary["tasks.killed.slot_seconds"], 1e-9)
	assert.Less(t, rep.Records.Jobs[0].Finish, copy.Start+time.Minute, "the job did not wait for the copy")
}
