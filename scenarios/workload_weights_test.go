package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobWeights loads a scenario and returns its jobs' weights in the order
// the run submits them.
func jobWeights(t *testing.T, text string) []float64 {
	t.Helper()
	sc, err := Load("w.toml", []byte(text), ".")
	require.NoError(t, err)
	var out []float64
	for _, j := range sc.Config.Jobs() {
		out = append(out, j.Weight)
	}
	return out
}

// A stream's weights give every job one of the listed weights, drawn
// from the workload seed: the same seed the same weights, another seed
// others, and both values of [1, 5] among 200 jobs. Without the key every
// job keeps weight 0 (= 1), as before. A listed job's own weight wins.
func TestStreamWeightsAreDrawnFromTheList(t *testing.T) {
	const stream = "[[workload.synthetic]]\njobs = 200\ninterarrival = \"10s\"\n"
	seeded := func(seed int) string { return fmt.Sprintf("[run]\nseed = %d\n%sweights = [1, 5]\n", seed, stream) }
	got := jobWeights(t, seeded(1))
	require.Len(t, got, 200)
	count := map[float64]int{}
	for _, w := range got {
		count[w]++
	}
	assert.Len(t, count, 2, "weights %v", count)
	assert.Greater(t, count[1], 70, "weight 1 of 200 uniform draws")
	assert.Greater(t, count[5], 70, "weight 5 of 200 uniform draws")
	assert.Equal(t, got, jobWeights(t, seeded(1)))
	assert.NotEqual(t, got, jobWeights(t, seeded(2)))
	for _, w := range jobWeights(t, stream) {
		assert.Zero(t, w)
	}

	listed := jobWeights(t, `[[workload.jobs]]
weights = [2]
job = [{name = "a", maps = 1, weight = 7}, {name = "b", maps = 1, submit = "1s"}]
`)
	assert.Equal(t, []float64{7, 2}, listed)
}

// Weights that are not finite numbers in (0, 1000], or an empty list, are
// refused at their key, in every stream that takes them.
func TestStreamWeightsBadInput(t *testing.T) {
	_, err := Load("w.toml", []byte(`[[workload.synthetic]]
jobs = 2
interarrival = "1s"
weights = [1, 0]
[[workload.swim]]
trace = "t.tsv"
weights = []
[[workload.jobs]]
weights = [nan, 1001]
job = [{maps = 1}]
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`w.toml:4:1: workload.synthetic[0].weights[1] = 0: must be a finite number in (0, 1000]: a job's share weight in its pool`,
		`w.toml:7:1: workload.swim[0].weights = []: must list at least one weight (leave the key out for weight 1)`,
		`w.toml:9:1: workload.jobs[0].weights[0] = NaN: must be a finite number in (0, 1000]: a job's share weight in its pool`,
		`w.toml:9:1: workload.jobs[0].weights[1] = 1001: must be a finite number in (0, 1000]: a job's share weight in its pool`,
	}, strings.Split(err.Error(), "\n"))
}

// A stream's priority is every one of its jobs' (2, normal, without the
// key), and only its own: a second stream keeps its default.
func TestStreamPriorityGoesToEachOfItsJobs(t *testing.T) {
	sc, err := Load("p.toml", []byte(`[[workload.synthetic]]
jobs = 50
interarrival = "10s"
pool = "urgent"
priority = 0
[[workload.synthetic]]
jobs = 50
interarrival = "10s"
pool = "normal"
`), ".")
	require.NoError(t, err)
	count := map[string]map[int]int{}
	for _, j := range sc.Config.Jobs() {
		if count[j.Pool] == nil {
			count[j.Pool] = map[int]int{}
		}
		count[j.Pool][j.Priority]++
	}
	assert.Equal(t, map[string]map[int]int{"urgent": {0: 50}, "normal": {2: 50}}, count)
}

// A priority outside 0 … 4 is refused at its key, in each stream that
// takes one.
func TestStreamPriorityBadInput(t *testing.T) {
	_, err := Load("p.toml", []byte(`[[workload.synthetic]]
jobs = 2
interarrival = "1s"
priority = 5
[[workload.swim]]
trace = "t.tsv"
priority = -1
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`p.toml:4:1: workload.synthetic[0].priority = 5: must be 0 (very high) to 4 (very low); 2 is normal`,
		`p.toml:7:1: workload.swim[0].priority = -1: must be 0 (very high) to 4 (very low); 2 is normal`,
	}, strings.Split(err.Error(), "\n"))
}
