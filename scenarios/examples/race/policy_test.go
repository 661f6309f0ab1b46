package race

import (
	"iter"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"clusteremu/policies/sched"
	"clusteremu/scenarios"
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
func (v *view) Slots(sched.TaskKind) int                     { return 10 }
func (v *view) Progress(sched.JobID, sched.TaskKind) float64 { return 0 }

func TestTheHeartbeatThatBeatsTaskFinished(t *testing.T) {
	job := sched.Job{ID: 1, Maps: 20, Reduces: 2, Weight: 1}
	// The heartbeat reporting the first map has been booked (one of 20
	// maps is slow-start 0.05), but the job manager has not yet heard the
	// node's TaskFinished, so no reduce is pending.
	v := &view{st: sched.JobStatus{Job: job, RunningMaps: 19, MapAttempts: 19, FinishedMaps: 1}}
	slot := sched.Slot{Node: 3, Kind: sched.Reduce}

	for _, fixed := range []bool{false, true} {
		p, err := New(&Params{SlowStart: 0.05, Fixed: fixed})
		require.NoError(t, err)
		p.Submitted(0, job)
		_, ok := p.Assign(0, v, slot)
		assert.Equal(t, !fixed, ok, "fixed = %v: a reduce assigned before its release", fixed)
	}

	// Once the job manager has released the reduces both agree.
	v.st.PendingReduces = 2
	for _, fixed := range []bool{false, true} {
		p, _ := New(&Params{SlowStart: 0.05, Fixed: fixed})
		p.Submitted(0, job)
		a, ok := p.Assign(0, v, slot)
		assert.True(t, ok)
		assert.Equal(t, sched.Assignment{Job: 1, Kind: sched.Reduce, MaxLocality: sched.OffRack}, a)
	}
}

func TestParametersAreChecked(t *testing.T) {
	// The scenario decodes [scheduler] into Params as it does any table:
	// unknown keys and wrong types at their line, out-of-range values
	// from Validate, all with the file's other errors.
	text, err := os.ReadFile("race.toml")
	require.NoError(t, err)
	for _, tt := range []struct{ from, to, want string }{
		{"fixed = false", "fixd = true", "race.toml:31:1: scheduler.fixd: unknown key; allowed: slow_start, fixed"},
		{"slow_start = 0.05\nfixed", "slow_start = 2.0\nfixed", "race.toml:30:1: scheduler.slow_start = 2: must be a number in [0, 1]"},
		{"fixed = false", `fixed = "yes"`, `race.toml:31:1: scheduler.fixed = "yes": want true or false, got a string`},
	} {
		bad := strings.NewReplacer(tt.from, tt.to, "map_slots = 2", "map_slots = -1").Replace(string(text))
		_, err := scenarios.Load("race.toml", []byte(bad), ".")
		require.Error(t, err, tt.to)
		assert.Equal(t, []string{"race.toml:17:1: cluster.map_slots = -1: must be 0 … 1024", tt.want}, strings.Split(err.Error(), "\n"), tt.to)
	}
	_, err = sched.New(Name, &Params{SlowStart: -0.5}, sched.Shape{})
	assert.EqualError(t, err, "scheduler.slow_start = -0.5: must be a number in [0, 1]")
}
