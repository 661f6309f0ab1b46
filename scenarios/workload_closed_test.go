package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const closedDoc = `
[[workload.closed]]
workers = 3
jobs = 2
start = "5s"
think = "1s"
[workload.closed.job]
name = "scan"
input_file = "hot"
input_bytes = "2GiB"
`

func TestClosedStreamGivesOneListPerWorker(t *testing.T) {
	sc, err := Load("closed.toml", []byte(closedDoc), "")
	require.NoError(t, err)
	require.Len(t, sc.Config.Closed, 3)
	assert.Empty(t, sc.Config.Workload)
	for w, jobs := range sc.Config.Closed {
		require.Len(t, jobs, 2)
		assert.Equal(t, 5*time.Second, jobs[0].Submit, "the first job at start")
		assert.Equal(t, time.Second, jobs[1].Submit, "later jobs after the think time")
		for i, j := range jobs {
			assert.Equal(t, "hot", j.InputFile)
			assert.Equal(t, int64(2<<30), j.InputBytes)
			assert.Equal(t, "scan-w"+string(rune('0'+w))+"-"+string(rune('0'+i)), j.Name)
		}
	}
}

func TestClosedStreamErrorsHavePositions(t *testing.T) {
	doc := strings.Replace(closedDoc, "workers = 3", "workers = 0", 1)
	_, err := Load("closed.toml", []byte(doc+"submit = \"3s\"\n"), "")
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "closed.toml:3:1: workload.closed[0].workers = 0: must be ≥ 1")
	assert.Contains(t, msg, "workload.closed[0].job.submit")
}

func TestClosedStreamStaggerSpreadsTheFirstSubmissions(t *testing.T) {
	doc := strings.Replace(closedDoc, `start = "5s"`, "start = \"5s\"\nstagger = \"30s\"", 1)
	sc, err := Load("closed.toml", []byte(doc), "")
	require.NoError(t, err)
	require.Len(t, sc.Config.Closed, 3)
	for w, jobs := range sc.Config.Closed {
		assert.Equal(t, 5*time.Second+time.Duration(w)*10*time.Second, jobs[0].Submit, "worker %d starts its share of the stagger late", w)
		assert.Equal(t, time.Second, jobs[1].Submit, "the stagger moves only the first job")
	}

	doc = strings.Replace(closedDoc, `start = "5s"`, "start = \"5s\"\nstagger = \"-1s\"", 1)
	_, err = Load("closed.toml", []byte(doc), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "closed.toml:6:1: workload.closed[0].stagger = \"-1s\": must be ≥ 0")
}
