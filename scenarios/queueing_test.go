package scenarios

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/policies/sched"
)

// The queueing validation's jobs, replayed through an ideal queue of c
// FIFO servers on the run's own arrivals and task times (Lindley's
// recursion for one server, Kiefer and Wolfowitz's for c), set apart
// what the emulator adds from the closed forms' sampling error. A slot
// freed by an ended map is offered at once, so a job waits beyond the
// ideal queue only when it arrives at an idle node, for the node's next
// heartbeat, and the jobs queued behind it in the same busy period wait
// as long: on one server every job starts less than one heartbeat
// interval (100 ms) after its ideal start, and never before it, so about
// half an interval on the mean (`go test -run
// TestQueueingValidationAgainstAnIdealQueue -v ./scenarios` prints it).
// Delay scheduling that waits without end for a node-local slot makes
// each of four one-slot nodes its own FIFO queue of the jobs whose block
// it holds: the replay then queues each job at its own node.
func TestQueueingValidationAgainstAnIdealQueue(t *testing.T) {
	const interval = 100 * time.Millisecond
	partitioned := []string{"cluster.nodes_per_rack=4", "scheduler.delay=true", "scheduler.t1=100h", "scheduler.t2=100h"}
	for _, tc := range []struct {
		name    string
		slots   int
		set     []string
		perNode bool // each node its own queue
	}{
		{"M/M/1 at 0.5", 1, nil, false},
		{"M/M/1 at 0.8", 1, []string{"workload.synthetic[0].load=0.8"}, false},
		{"M/D/1 at 0.8", 1, []string{"workload.synthetic[0].load=0.8", "workload.synthetic[0].task_dist=constant"}, false},
		{"M/M/4 at 0.8", 4, []string{"workload.synthetic[0].load=0.8", "cluster.map_slots=4"}, false},
		{"M/M/4 on four nodes at 0.8", 4, []string{"workload.synthetic[0].load=0.8", "cluster.nodes_per_rack=4"}, false},
		{"4 × M/M/1 by delay scheduling at 0.8", 1, append(partitioned, "workload.synthetic[0].load=0.8"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rec := runValidation(t, "validation/queueing.toml", 0, append(tc.set, "workload.synthetic[0].jobs=2000")...)
			emu, ideal, late := againstIdealFIFO(t, rec, tc.slots, tc.perNode)
			t.Logf("mean response %.4f s, the ideal queue's %.4f s: %.4f s added, at most %v a job", emu, ideal, emu-ideal, late)
			require.GreaterOrEqual(t, emu, ideal)
			require.Less(t, emu-ideal, interval.Seconds(), "on the mean, a heartbeat interval at most")
			if tc.slots == 1 {
				require.Less(t, late, interval, "a job later than its ideal start by a heartbeat interval or more")
			}
		})
	}
}

// Processor sharing on one core: the validation's maps on 60 slots and a
// single core share it, so the run's jobs, replayed through an ideal
// processor-sharing server on their own arrivals and draws, end as they
// would there but for the wait for a heartbeat before a map launches
// (under 100 ms, so about half an interval on the mean).
func TestQueueingValidationAgainstAnIdealProcessorSharingCore(t *testing.T) {
	const interval = 100 * time.Millisecond
	for _, dist := range []string{"constant", "uniform"} {
		t.Run(dist, func(t *testing.T) {
			sc, rec := runValidation(t, "validation/queueing.toml", 0, "cluster.map_slots=60", "cluster.cores=1",
				"workload.synthetic[0].slots=1", "workload.synthetic[0].task_dist="+dist, "workload.synthetic[0].jobs=2000")
			specs := sc.Config.Jobs()
			var arrive, work, resp []float64
			for _, j := range bySubmission(rec) {
				require.Equal(t, cluster.JobSucceeded, j.Outcome)
				arrive = append(arrive, j.Submit.Seconds())
				work = append(work, specs[j.ID-1].MapTime.Seconds())
				resp = append(resp, (j.Finish - j.Submit).Seconds())
			}
			emu, ideal := cluster.Mean(resp), cluster.Mean(idealPS(arrive, work))
			t.Logf("mean response %.4f s, the ideal processor sharing's %.4f s: %.4f s added", emu, ideal, emu-ideal)
			require.GreaterOrEqual(t, emu, ideal)
			require.Less(t, emu-ideal, interval.Seconds(), "on the mean, a heartbeat interval at most")
		})
	}
}

// againstIdealFIFO returns the mean response of the run's jobs, each of
// one attempt, the mean they would have had in c FIFO servers without
// overhead (c at each node, each job at its attempt's, when perNode),
// and the most a job started after its ideal start. It fails on a job
// that started before its ideal start.
func againstIdealFIFO(t *testing.T, rec *cluster.Records, c int, perNode bool) (emu, ideal float64, late time.Duration) {
	t.Helper()
	type attempt struct {
		start, took time.Duration
		node        sched.NodeID
	}
	ran := map[int64]attempt{}
	for _, a := range rec.Attempts {
		_, twice := ran[int64(a.Attempt.Job)]
		require.False(t, twice, "job %d ran two attempts", a.Attempt.Job)
		ran[int64(a.Attempt.Job)] = attempt{a.Start, a.End - a.Start, a.Node}
	}
	jobs := bySubmission(rec)
	servers := map[sched.NodeID][]time.Duration{} // when each server frees, by queue
	for _, j := range jobs {
		a, ok := ran[int64(j.ID)]
		require.True(t, ok, "job %d ran no attempt", j.ID)
		var queue sched.NodeID
		if perNode {
			queue = a.node
		}
		if servers[queue] == nil {
			servers[queue] = make([]time.Duration, c)
		}
		free := servers[queue]
		k := slices.Index(free, slices.Min(free))
		start := max(j.Submit, free[k])
		free[k] = start + a.took
		require.GreaterOrEqual(t, a.start, start, "job %d started before its ideal start", j.ID)
		late = max(late, a.start-start)
		emu += (j.Finish - j.Submit).Seconds()
		ideal += (start + a.took - j.Submit).Seconds()
	}
	return emu / float64(len(jobs)), ideal / float64(len(jobs)), late
}

// The priority validation's two classes, replayed through an ideal
// non-preemptive priority queue on one server (the waiting job of the
// highest priority next, the earliest among equals) on the run's own
// arrivals and task times: each class's mean response is the ideal's
// but for the heartbeat a job arriving at an idle node waits for (under
// 100 ms, so about half an interval on the mean; a job of the other
// class arriving within it may then go first, so a class may also gain a
// little). First come, first served on the same jobs is seconds away for
// each class, so the runs follow the priorities and not the arrivals.
func TestPriorityValidationAgainstAnIdealQueue(t *testing.T) {
	const interval = 100 * time.Millisecond
	for _, tc := range []struct {
		name string
		set  []string
	}{
		{"equal classes at 0.25 + 0.25", nil},
		{"equal classes at 0.35 + 0.35", []string{"workload.synthetic[0].load=0.35", "workload.synthetic[1].load=0.35"}},
		{"short jobs first", []string{"workload.synthetic[0].task_time=5s", "workload.synthetic[1].task_time=20s", "workload.synthetic[1].jobs=500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, rec := runValidation(t, "validation/priority.toml", 0, append([]string{"workload.synthetic[0].jobs=2000", "workload.synthetic[1].jobs=2000"}, tc.set...)...)
			specs := sc.Config.Jobs()
			took := map[int64]float64{}
			for _, a := range rec.Attempts {
				took[int64(a.Attempt.Job)] = (a.End - a.Start).Seconds()
			}
			var arrive, work, resp []float64
			var class []int
			for _, j := range bySubmission(rec) {
				require.Equal(t, cluster.JobSucceeded, j.Outcome)
				arrive = append(arrive, j.Submit.Seconds())
				work = append(work, took[int64(j.ID)])
				class = append(class, specs[j.ID-1].Priority)
				resp = append(resp, (j.Finish - j.Submit).Seconds())
			}
			ideal, fcfs := idealPriority(arrive, work, class), idealFCFS(arrive, work)
			for _, p := range []int{1, 3} {
				var emu, want, first []float64
				for i, c := range class {
					if c == p {
						emu, want, first = append(emu, resp[i]), append(want, ideal[i]), append(first, fcfs[i])
					}
				}
				e, w, f := cluster.Mean(emu), cluster.Mean(want), cluster.Mean(first)
				t.Logf("priority %d: %d jobs, mean response %.4f s, the ideal priority queue's %.4f s (%+.4f s), first come first served's %.4f s",
					p, len(emu), e, w, e-w, f)
				require.Less(t, math.Abs(e-w), interval.Seconds(), "priority %d: within a heartbeat interval of the ideal queue", p)
				require.Greater(t, math.Abs(e-f), 10*interval.Seconds(), "priority %d: first come, first served is far off", p)
			}
		})
	}
}

// idealPriority is the response of each job (in arrival order) in one
// non-preemptive server that, when free, takes the waiting job of the
// least class, the earliest among equals.
func idealPriority(arrive, work []float64, class []int) []float64 {
	resp := make([]float64, len(arrive))
	var waiting []int
	now, next := 0.0, 0
	for next < len(arrive) || len(waiting) > 0 {
		if len(waiting) == 0 {
			now = max(now, arrive[next])
		}
		for next < len(arrive) && arrive[next] <= now {
			waiting = append(waiting, next)
			next++
		}
		k := 0 // waiting is in arrival order: the first of the least class
		for j, w := range waiting {
			if class[w] < class[waiting[k]] {
				k = j
			}
		}
		i := waiting[k]
		waiting = slices.Delete(waiting, k, k+1)
		now += work[i]
		resp[i] = now - arrive[i]
	}
	return resp
}
