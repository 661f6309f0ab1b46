package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// What "capacity" refuses, each at its file:line:col with the key:
// capacities not adding up to 100, a maximum below its capacity, a pool
// naming no queue, and jobs without a pool when no queue is "default".
func TestCapacityBadInput(t *testing.T) {
	_, err := Load("c.toml", []byte(`[scheduler]
name = "capacity"
queues = [{name = "prod", capacity = 70, max_capacity = 100}, {name = "adhoc", capacity = 20, max_capacity = 10}]

[[workload.jobs]]
job = [{name = "a", maps = 1, pool = "prod"}, {name = "b", maps = 1, pool = "nightly"}, {name = "c", maps = 1}]
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`c.toml:3:1: scheduler.queues = [70, 20]: capacities must add up to 100 (they add up to 90)`,
		`c.toml:3:1: scheduler.queues: no queue is named "default", which the jobs of workload.jobs[0].job[2] join: they name no pool`,
		`c.toml:3:42: scheduler.queues[1].max_capacity = 10: must be at least the queue's capacity, 20`,
		`c.toml:6:31: workload.jobs[0].job[1].pool = "nightly": names no queue of scheduler.queues`,
	}, strings.Split(err.Error(), "\n"))
}

// The queues a scenario lists replace the default one, and the resolved
// scenario loads the same queues again.
func TestCapacityQueuesFromTOML(t *testing.T) {
	sc, err := Load("c.toml", []byte(`[scheduler]
name = "capacity"
queues = [{name = "prod", capacity = 70}, {name = "default", capacity = 30, max_capacity = 50}]

[[workload.synthetic]]
jobs = 2
interarrival = "1s"
pool = "prod"
`), ".")
	require.NoError(t, err)
	p := sc.Config.Scheduler.Params.(*sched.CapacityParams)
	require.Len(t, p.Queues, 2)
	assert.Equal(t, "prod", p.Queues[0].Name)
	assert.Nil(t, p.Queues[0].MaxCapacity)
	assert.Equal(t, 50.0, *p.Queues[1].MaxCapacity)

	text, err := sc.Resolved()
	require.NoError(t, err)
	again, err := Load("r.toml", text, ".")
	require.NoError(t, err, "%s", text)
	assert.Equal(t, p, again.Config.Scheduler.Params)
}
