package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

const mib = 1 << 20

// smallCluster is one rack of two nodes with two map and one reduce slot
// each, 100 MB/s disks and 1 Gb/s NICs, 1 MiB blocks and no control
// latency, so times come out round.
func smallCluster() Config {
	cfg := DefaultConfig()
	cfg.Racks, cfg.NodesPerRack = 1, 2
	cfg.MapSlots, cfg.ReduceSlots = 2, 1
	cfg.BlockSize = mib
	cfg.Replication = 2
	cfg.ControlLatency = 0
	cfg.StallAfter = time.Hour
	return cfg
}

func run(t *testing.T, cfg Config) *Report {
	t.Helper()
	c, err := Build(cfg)
	require.NoError(t, err)
	rep, err := c.Run()
	require.NoError(t, err)
	return rep
}

func TestMapWavesTakeTaskTimePlusAHeartbeatEach(t *testing.T) {
	// 8 maps of 60 s of CPU each (1 MiB at 60 s/MiB; the 10 ms read
	// overlaps) on 4 slots: 2 waves, so the job takes 120 s plus at most
	// one heartbeat interval (3 s) per wave before its slots are offered.
	cfg := smallCluster()
	cfg.Workload = [][]workload.JobSpec{{{
		Name: "cpu", InputBytes: 8 * mib, MapCPU: workload.PerMiB(60 * time.Second),
	}}}
	rep := run(t, cfg)
	require.Len(t, rep.Results.Jobs, 1)
	job := rep.Results.Jobs[0]
	assert.Equal(t, JobSucceeded, job.Status)
	rt := job.Finish - job.Submit
	assert.GreaterOrEqual(t, rt, 120*time.Second)
	assert.LessOrEqual(t, rt, 120*time.Second+2*cfg.Heartbeat)
	assert.Len(t, rep.Results.Attempts, 8)
	for _, a := range rep.Results.Attempts {
		assert.Equal(t, sched.Succeeded, a.Outcome)
		assert.Equal(t, 60*time.Second, a.End-a.Start, "%v", a.Attempt)
	}
	assert.Equal(t, EndDone, rep.Result.Reason)
}
