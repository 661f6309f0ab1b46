package cluster_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// toy is Hu et al.'s Fig. 1 on one node of 10 map slots (the script
// testdata/scripts/lasmq_toy.txt shows it run): maps of 100 s; A = 40 at
// 0, B = 40 at 100 s, C = 10 at 200 s; 100 ms out-of-band heartbeats and
// no control latency.
const toy = `[run]
slowdown = false

[cluster]
racks = 1
nodes_per_rack = 1
map_slots = 10
reduce_slots = 1

[hdfs]
replication = 1

[heartbeat]
interval = "100ms"
control_latency = "0s"
out_of_band = true

[scheduler]
%s

[[workload.jobs]]
job = [
  { name = "A", maps = 40, map_time = "100s" },
  { name = "B", submit = "100s", maps = 40, map_time = "100s" },
  { name = "C", submit = "200s", maps = 10, map_time = "100s" },
]
`

// The toy's responses hold within a heartbeat (100 ms) whatever order
// the deliveries of one instant take: 20 schedule seeds.
func TestToyOfFigure1UnderScheduleSeeds(t *testing.T) {
	tests := []struct {
		scheduler string
		want      [3]float64
	}{
		{`name = "las"`, [3]float64{900, 800, 100}},
		{"name = \"lasmq\"\nqueues = 2\nfirst_threshold = \"1000s\"\nstrict = true\norder = \"fifo\"", [3]float64{600, 800, 100}},
	}
	for _, tt := range tests {
		sc, err := scenarios.Load("toy.toml", []byte(fmt.Sprintf(toy, tt.scheduler)), ".")
		require.NoError(t, err)
		for seed := 1; seed <= 20; seed++ {
			cfg := sc.Config
			cfg.Run.ScheduleSeed = uint64(seed)
			c, err := cluster.Build(cfg)
			require.NoError(t, err)
			rep, err := c.Run()
			require.NoError(t, err)
			require.Len(t, rep.Records.Jobs, 3)
			for i, j := range rep.Records.Jobs {
				want := time.Duration(tt.want[i] * float64(time.Second))
				assert.InDelta(t, want, j.Finish-j.Submit, float64(100*time.Millisecond),
					"%s, schedule seed %d, job %s", tt.scheduler, seed, j.Name)
			}
		}
	}
}
