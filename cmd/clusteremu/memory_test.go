package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/scenarios"
)

// A scenario whose floor of memory exceeds the machine's is refused before
// the run, with the job that needs it and the knobs that shrink it.
func TestAScenarioTooBigForTheMachineIsRefusedUpFront(t *testing.T) {
	sc, err := scenarios.Load("big.toml", []byte(`
[cluster]
racks = 2
nodes_per_rack = 10

[[workload.jobs]]
job = [
  { name = "small", input_bytes = "1GiB", reduces = 2 },
  { name = "huge", input_bytes = "10TiB", reduces = 400 },
]
`), ".")
	require.NoError(t, err)
	needs := sc.Config.Needs()
	assert.Equal(t, 1, needs.Largest, "the huge job")
	// 81,920 maps and 400 reduces pending, 40 reduces running over every
	// map's state, and 20 idle nodes.
	assert.Equal(t, int64((81920+400)*212+40*81920*1+20*2900), needs.Memory)

	assert.NoError(t, checkMemory(sc, 1<<30))
	err = checkMemory(sc, 8<<20)
	require.Error(t, err)
	assert.Equal(t, `big.toml: the run needs at least 19.8 MiB of memory, more than this machine's 8.0 MiB: job 2 "huge" alone has 81920 maps `+
		`and 400 reduces (with 20 nodes): raise hdfs.block_size (fewer maps), a SWIM stream's bytes_per_reduce or max_reduces (fewer reduces), `+
		`or lower its size_scale`, err.Error())
}

func TestValidatePrintsTheMemoryFloor(t *testing.T) {
	var out, errs bytes.Buffer
	require.Equal(t, exitOK, run([]string{"validate", "../../scenarios/examples/concurrent.toml"}, &out, &errs), errs.String())
	assert.Regexp(t, `shuffle fetches, at least [0-9.]+ MiB of memory\n$`, out.String())
}
