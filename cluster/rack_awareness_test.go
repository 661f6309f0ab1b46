package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// rackBlindCluster is 4 racks of 5 nodes, one map slot each, running one
// 40-map scan of pure I/O under FIFO: most maps read remotely, many
// across racks.
func rackBlindCluster(aware bool, uplink float64) Config {
	cfg := DefaultConfig()
	cfg.Racks, cfg.NodesPerRack = 4, 5
	cfg.MapSlots, cfg.ReduceSlots = 1, 1
	cfg.BlockSize = 64 * mib
	cfg.RackUplink, cfg.Oversubscription = uplink, 0
	cfg.RackAware = aware
	cfg.StallAfter = time.Hour
	cfg.Workload = [][]workload.JobSpec{{{Name: "scan", InputBytes: 40 * 64 * mib}}}
	return cfg
}

func TestARackBlindHadoopStillCrossesTheUplinks(t *testing.T) {
	locality := func(rep *Report) (counts [3]int) {
		for _, a := range rep.Results.Attempts {
			require.Equal(t, sched.Succeeded, a.Outcome)
			counts[a.Locality]++
		}
		return counts
	}
	aware := locality(run(t, rackBlindCluster(true, 125e6)))
	assert.Positive(t, aware[sched.OffRack], "told the racks, Hadoop counts reads from other racks as off-rack")

	blind := run(t, rackBlindCluster(false, 125e6))
	counts := locality(blind)
	assert.Zero(t, counts[sched.OffRack], "not told the racks, Hadoop sees one rack")
	assert.Positive(t, counts[sched.RackLocal])

	// The reads Hadoop calls rack-local still cross the physical uplinks:
	// narrowing them slows the same job down.
	narrow := run(t, rackBlindCluster(false, 10e6))
	took := func(rep *Report) time.Duration { return rep.Results.Jobs[0].Finish - rep.Results.Jobs[0].Submit }
	assert.Greater(t, took(narrow), 2*took(blind), "10 MB/s uplinks against 125 MB/s")
}
