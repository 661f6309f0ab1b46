package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"clusteremu/cluster"
)

// A savings ratio is how many times the run's saving from the third run
// is the baseline's: no cache 10 s, LIFE 4 s (6 s saved), LIFE without
// sticky 8 s (2 s saved): 3×, where the plain ratio of the responses is
// 0.5.
func TestCheckSavings(t *testing.T) {
	e := Expectation{Metric: "jobs.response_time.mean", Op: ">", Value: 2.5, Baseline: []string{"cache.sticky=false"},
		SavedFrom: []string{"cache.capacity=0B"}}
	run := cluster.Summary{"jobs.response_time.mean": 4}
	baseline := cluster.Summary{"jobs.response_time.mean": 8}
	from := cluster.Summary{"jobs.response_time.mean": 10}
	got, err := e.CheckSavings(run, baseline, from)
	assert.NoError(t, err)
	assert.InDelta(t, 3, got, 1e-12)
	ratio, _ := e.CheckRatio(run, baseline)
	assert.InDelta(t, 0.5, ratio, 1e-12)
	_, err = e.CheckSavings(run, from, from)
	assert.Error(t, err, "the baseline saved nothing: no ratio")
	e.Value = 3.5
	_, err = e.CheckSavings(run, baseline, from)
	assert.ErrorContains(t, err, "measured 3")
}
