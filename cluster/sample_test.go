package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/workload"
)

// A run watched every 5 emulated seconds is the same run, delivery for
// delivery, and its samples count the jobs and their job managers coming
// and going: once every job has ended only the fixed actors are left,
// and the records keep no job's last update.
func TestWatchedSizesLeaveTheRunAlone(t *testing.T) {
	cfg := smallCluster()
	var jobs []workload.JobSpec
	for i := range 8 {
		jobs = append(jobs, workload.JobSpec{
			Submit: time.Duration(i) * 5 * time.Second, InputBytes: 40 * mib, Reduces: 2, ShuffleBytes: 20 * mib,
			MapCPU: workload.PerMiB(100 * time.Millisecond), ReduceCPU: workload.PerMiB(20 * time.Millisecond),
		})
	}
	cfg.Workload = [][]workload.JobSpec{jobs}
	cfg.Run.Events = true
	plain := run(t, cfg)

	c, err := Build(cfg)
	require.NoError(t, err)
	var samples []Sample
	c.WatchSizes(5*time.Second, func(s Sample) time.Duration {
		samples = append(samples, s)
		return s.At + 5*time.Second
	})
	watched, err := c.Run()
	require.NoError(t, err)
	assert.Equal(t, plain.End.Events, watched.End.Events)
	assert.Empty(t, c.rec.updated, "an ended job's last update is dropped")

	require.NotEmpty(t, samples)
	busiest := samples[0]
	for i, s := range samples {
		assert.Equal(t, time.Duration(i+1)*5*time.Second, s.At)
		assert.Less(t, s.At, watched.End.At, "no sample past the run's last event")
		if s.Jobs > busiest.Jobs {
			busiest = s
		}
	}
	last := samples[len(samples)-1]
	assert.Positive(t, busiest.Jobs)
	assert.Positive(t, busiest.Attempts)
	assert.Equal(t, busiest.Actors-busiest.Jobs, last.Actors-last.Jobs, "one job manager a running job, the other actors fixed")
	assert.Less(t, last.Actors, busiest.Actors)
}
