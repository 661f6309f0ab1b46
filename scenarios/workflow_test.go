package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/cluster"
	"clusteremu/workload"
)

// workflowOf is a [[workload.jobs]] stream of the job lines.
func workflowOf(jobs ...string) string {
	return "[hdfs]\nblock_size = \"64MiB\"\n\n[[workload.jobs]]\njob = [\n  " + strings.Join(jobs, ",\n  ") + ",\n]\n"
}

// A job that reads others' output reads their parts, each a reduce's even
// share (or a map's, for a map-only job), and waits for them; the jobs
// keep the file's order.
func TestReadsMakeTheOutputPartsTheInput(t *testing.T) {
	sc, err := Load("s.toml", []byte(workflowOf(
		`{ name = "b", reads = ["a", "m"], after = ["c"], reduces = 1, shuffle_bytes = "1MiB" }`,
		`{ name = "a", submit = "1m", input_bytes = "1GiB", reduces = 3, shuffle_bytes = "1GiB", output_bytes = "100MiB" }`,
		`{ name = "m", input_bytes = "128MiB", output_bytes = "10MiB" }`,
		`{ name = "c", input_bytes = "64MiB" }`,
	)), ".")
	require.NoError(t, err)
	jobs := sc.Config.Workload[0]
	require.Len(t, jobs, 4)
	b, a, m := jobs[0], jobs[1], jobs[2]
	assert.Equal(t, "b", b.Name, "a workflow keeps the file's order")
	assert.Equal(t, []string{"c", "a", "m"}, b.After)
	assert.Equal(t, "j0/a", a.Output)
	assert.Equal(t, "j0/m", m.Output)
	assert.Empty(t, jobs[3].Output, "no job reads c's output")
	third := int64(100<<20) / 3
	assert.Equal(t, []workload.FilePart{
		{File: "j0/a/part-r-00000", Bytes: third}, {File: "j0/a/part-r-00001", Bytes: third}, {File: "j0/a/part-r-00002", Bytes: third + 1},
		{File: "j0/m/part-m-00000", Bytes: 5 << 20}, {File: "j0/m/part-m-00001", Bytes: 5 << 20},
	}, b.InputFiles)
	assert.Equal(t, int64(110<<20), b.InputBytes)
	assert.True(t, b.ReadsOutput)
	assert.False(t, a.ReadsOutput)
	assert.Equal(t, 5, b.MapCount(64<<20))
}

// What a workflow gets wrong is refused at the key that makes it so.
func TestWorkflowNonsenseIsRefused(t *testing.T) {
	a := `{ name = "a", input_bytes = "1GiB", reduces = 2, shuffle_bytes = "1GiB", output_bytes = "1GiB" }`
	for _, tc := range []struct{ name, text, want string }{
		{"an unknown name", workflowOf(a, `{ name = "b", after = ["x"], input_bytes = "1MiB" }`),
			`job[1].after = ["x"]: names no job of the stream: "x"`},
		{"itself", workflowOf(a, `{ name = "b", reads = ["b"] }`), `job[1].reads = ["b"]: names the job itself`},
		{"twice", workflowOf(a, `{ name = "b", after = ["a"], reads = ["a"] }`), `job[1].reads = ["a"]: names "a" twice`},
		{"an input beside reads", workflowOf(a, `{ name = "b", reads = ["a"], input_bytes = "1GiB" }`),
			`job[1].reads = ["a"]: reads its input from those jobs' output: give no input_file, input_bytes, maps or input_cov`},
		{"a cycle", workflowOf(`{ name = "a", after = ["c"], input_bytes = "1MiB" }`, `{ name = "b", after = ["a"], input_bytes = "1MiB" }`,
			`{ name = "c", after = ["b"], input_bytes = "1MiB" }`),
			`job[0].after = ["c"]: the jobs wait for one another in a cycle: "a" → "c" → "b" → "a"`},
		{"no output to read", workflowOf(`{ name = "a", input_bytes = "1GiB" }`, `{ name = "b", reads = ["a"] }`),
			`job[0].output_bytes = 0: a job read by another must write output`},
		{"skewed parts", workflowOf(`{ name = "a", input_bytes = "1GiB", reduces = 2, output_bytes = "1GiB", partition_cov = 1.0 }`,
			`{ name = "b", reads = ["a"] }`),
			`job[0].partition_cov = 1: a job read by another writes even parts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("s.toml", []byte(tc.text), ".")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "workload.jobs[0]."+tc.want)
		})
	}
}

// every and count repeat the list: each run's jobs named for it, waiting
// for and reading their own run's, its first jobs a period later.
func TestRunsRepeatAWorkflow(t *testing.T) {
	sc, err := Load("s.toml", []byte(`[[workload.jobs]]
every = "24h"
count = 3
job = [
  { name = "a", submit = "1h", input_bytes = "256MiB", reduces = 2, shuffle_bytes = "1MiB", output_bytes = "2MiB" },
  { name = "b", reads = ["a"], submit = "10s" },
]
`), ".")
	require.NoError(t, err)
	jobs := sc.Config.Workload[0]
	require.Len(t, jobs, 6)
	for n := range 3 {
		a, b := jobs[2*n], jobs[2*n+1]
		assert.Equal(t, fmt.Sprintf("a-%d", n), a.Name)
		assert.Equal(t, time.Hour+time.Duration(n)*24*time.Hour, a.Submit)
		assert.Equal(t, fmt.Sprintf("j0/a-%d", n), a.Output)
		assert.Equal(t, []string{a.Name}, b.After)
		assert.Equal(t, 10*time.Second, b.Submit, "a delay after a")
		assert.Equal(t, fmt.Sprintf("j0/a-%d/part-r-00001", n), b.InputFiles[1].File)
	}
	assert.Equal(t, [][]int{{0, 1}, {2, 3}, {4, 5}}, cluster.Workflows(jobs))

	one := "job = [{ name = \"x\", input_bytes = \"1MiB\" }]\n"
	for _, tc := range []struct{ text, want string }{
		{"count = 3\n" + one, `workload.jobs[0].every = "0s": must be > 0 with count = 3: the period between runs`},
		{"every = \"1h\"\n" + one, `workload.jobs[0].every = "1h": repeats the list count times: set count > 1`},
		{"every = \"1h\"\ncount = 2\njob = [{ name = \"x\", input_bytes = \"1MiB\" }, { name = \"x-1\", input_bytes = \"1MiB\" }]\n",
			`workload.jobs[0].job[0].name = "x": run 1's copy would be named "x-1", which names job[1] of the list`},
	} {
		_, err := Load("s.toml", []byte("[[workload.jobs]]\n"+tc.text), ".")
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// output_replication is a job's output's replicas, at most the nodes.
func TestOutputReplication(t *testing.T) {
	sc, err := Load("s.toml", []byte(workflowOf(`{ name = "a", input_bytes = "1MiB", output_bytes = "1MiB", output_replication = 1 }`)), ".")
	require.NoError(t, err)
	assert.Equal(t, 1, sc.Config.Workload[0][0].OutputReplication)
	_, err = Load("s.toml", []byte("[cluster]\nracks = 1\nnodes_per_rack = 3\n[hdfs]\nreplication = 2\n"+
		"[[workload.jobs]]\njob = [{ name = \"a\", input_bytes = \"1MiB\", output_replication = 5 }]\n"), ".")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "workload.jobs[0].job[0].output_replication = 5: more replicas than the cluster's 3 nodes")
}
