package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/workload"
)

func TestConcurrentVirtualClusterFinishesTheSameJobs(t *testing.T) {
	// The same two jobs on protoactor's dispatcher: the interleaving is not
	// reproducible, but every job and every attempt still succeeds, and
	// the maps' emulated durations are those of the deterministic run.
	cfg := smallCluster()
	cfg.Workload = [][]workload.JobSpec{{
		{Name: "a", InputBytes: 4 * mib, MapCPU: workload.PerMiB(30 * time.Second)},
		{Name: "b", InputBytes: 2 * mib, MapCPU: workload.PerMiB(30 * time.Second)},
	}}
	det := run(t, cfg)
	cfg.Run.Deterministic = new(false)
	con := run(t, cfg)
	assert.Equal(t, EndDone, con.End.Reason)
	require.Len(t, con.Records.Jobs, len(det.Records.Jobs))
	require.Len(t, con.Records.Attempts, len(det.Records.Attempts))
	names := func(rep *Report) map[string]JobOutcome {
		m := map[string]JobOutcome{}
		for _, j := range rep.Records.Jobs {
			m[j.Name] = j.Outcome
		}
		return m
	}
	assert.Equal(t, names(det), names(con))
	for _, a := range con.Records.Attempts {
		assert.Equal(t, 30*time.Second, a.End-a.Start, "%v", a.Attempt)
	}
}

// fanOut relays each note it receives to every recorder, twice.
type fanOut struct{ to []*actor.PID }

func (f *fanOut) Receive(ctx actor.Context) {
	if n, ok := ctx.Message().(*note); ok {
		for _, pid := range f.to {
			ctx.Send(pid, &note{n.text + " relayed"})
			ctx.Send(pid, &note{n.text + " relayed again"})
		}
	}
}

// fanOutProgram runs four recorders fed by timers and by a relay at the
// same instants, and returns what each recorded, sorted.
func fanOutProgram(t *testing.T, opts RunOptions) [][]string {
	t.Helper()
	r := NewRuntime(opts)
	logs := make([][]string, 4)
	var pids []*actor.PID
	for i := range logs {
		pids = append(pids, spawnRecorder(t, r, fmt.Sprintf("r%d", i), &logs[i]))
	}
	relay, err := r.Spawn("relay", func() actor.Actor { return &fanOut{to: pids} })
	require.NoError(t, err)
	for s := 1; s <= 3; s++ {
		at := time.Duration(s) * time.Second
		r.Clock().At(at, relay, &note{fmt.Sprintf("t%d", s)})
		for i, pid := range pids {
			r.Clock().At(at, pid, &note{fmt.Sprintf("t%d direct %d", s, i)})
		}
	}
	res := r.Run()
	require.NoError(t, res.Err)
	assert.Equal(t, EndIdle, res.Reason)
	assert.Equal(t, 3*time.Second, res.At)
	for _, l := range logs {
		slices.Sort(l)
	}
	return logs
}

func TestConcurrentVirtualRecordsTheSameSetAsDeterministic(t *testing.T) {
	det := fanOutProgram(t, RunOptions{ScheduleSeed: 1})
	require.Len(t, det[0], 9)
	assert.Equal(t, det, fanOutProgram(t, RunOptions{Deterministic: new(false)}))
}
