package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// A straggler with m = 2 and onset f = 0.3: alone on its core, a map of
// 100 s of CPU runs at full speed for its first 30 s of compute, then at
// (1 − 0.3)/(2 − 0.3) = 0.7/1.7 of it, so its other 70 s of work take
// 70 × 1.7/0.7 = 170 s and it ends at 200 s, m × nominal, exactly. The
// overlapped map's streamed read follows its compute: the read is the
// flow split at the onset, its first piece (30% of the block) ending at
// 30 s. A sequential map reads first (10 ms for its 10⁶ bytes at 100
// MB/s), then computes, and only its compute slows. The block is 10⁶
// bytes at 100 µs of CPU a byte, so 30% of it is whole bytes and the
// pieces end on whole seconds.
func TestAStragglersOnsetSetsItsSpeed(t *testing.T) {
	for _, model := range []workload.TaskModel{workload.Overlapped, workload.Sequential} {
		cfg := cpuCluster(1, 1, 1)
		cfg.Workload[0][0].InputBytes = 1e6
		cfg.Workload[0][0].MapCPU = workload.CPUCost(100.0 / 1e6)
		cfg.Workload[0][0].Model = model
		cfg.Run.KeepFlows = true
		cfg.straggle = func(sched.Attempt) actors.Straggle { return actors.Straggle{Factor: 2, Onset: 0.3} }
		rep := run(t, cfg)
		held := mapsHeld(t, rep)[0]
		read := time.Duration(0)
		if model == workload.Sequential {
			read = 10 * time.Millisecond
		}
		assert.Equal(t, 200*time.Second+read, held[1]-held[0], "model %v", model)
		var pieces []time.Duration
		for _, f := range rep.Records.FlowList {
			if f.Key.Part == 0 {
				pieces = append(pieces, f.End-held[0])
			}
		}
		if model == workload.Overlapped {
			assert.Equal(t, []time.Duration{30 * time.Second, 200 * time.Second}, pieces, "the read's two pieces end")
		} else {
			assert.Equal(t, []time.Duration{read}, pieces, "the read is not split")
		}
	}
}

// Without [stragglers] nothing is drawn: a run with probability 0 is the
// run without the table, attempt for attempt.
func TestStragglersOffChangeNothing(t *testing.T) {
	cfg := cpuCluster(2, 2, 4)
	base := mapsHeld(t, run(t, cfg))
	cfg.Stragglers.Probability = 0
	cfg.Stragglers.Onset = actors.Onset{At: 0.5}
	assert.Equal(t, base, mapsHeld(t, run(t, cfg)))
}
