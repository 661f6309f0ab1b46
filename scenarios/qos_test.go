package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/qos"
)

// A [[workload.qos]] without [qos] takes the paper's classes and the
// stream's defaults; [qos] replaces the classes and the recovery.
func TestQoSFromTOML(t *testing.T) {
	sc, err := Load("q.toml", []byte("[[workload.qos]]\n"), ".")
	require.NoError(t, err)
	assert.Equal(t, &cluster.QoSConfig{Classes: qos.DefaultClasses(), BasicRecovery: qos.RecoveryNone, Streams: []cluster.QoSStream{{
		Clients: 1000, QoSWorkload: actors.QoSWorkload{Jobs: 10, Tasks: 20, TaskTime: 50 * time.Millisecond, TaskDist: "constant", Period: 600 * time.Millisecond},
	}}}, sc.Config.QoS)

	sc, err = Load("q.toml", []byte(`[qos]
classes = [{name = "gold", rate = 50, capacity = 500, weight = 2}]
basic_recovery = "decay"
[[workload.qos]]
clients = 3
task_dist = "exponential"
`), ".")
	require.NoError(t, err)
	assert.Equal(t, []qos.Class{{Name: "gold", Rate: 50, Capacity: 500, Weight: 2}}, sc.Config.QoS.Classes)
	assert.Equal(t, qos.RecoveryDecay, sc.Config.QoS.BasicRecovery)
	assert.Equal(t, 3, sc.Config.QoS.Streams[0].Clients)
	assert.Equal(t, "exponential", sc.Config.QoS.Streams[0].TaskDist)

	sc, err = Load("q.toml", []byte("[[workload.jobs]]\njob = [{maps = 1}]\n"), ".")
	require.NoError(t, err)
	assert.Nil(t, sc.Config.QoS, "no QoS without [qos] or [[workload.qos]]")
}

// Class values that are not finite numbers above 0, a recovery other
// than none or decay, stream values out of range and QoS beside faults
// are refused at their keys.
func TestQoSBadInput(t *testing.T) {
	_, err := Load("q.toml", []byte(`[qos]
classes = [{name = "gold", rate = 0, capacity = inf, weight = 1}, {name = "tin", rate = 1, capacity = 1, weight = 0}]
basic_recovery = "forgive"
[[workload.qos]]
clients = -1
jobs = -2
task_time = "0s"
task_dist = "pareto"
period = "1us"
[[fault]]
kind = "crash"
node = 0
at = "1s"
`), ".")
	require.Error(t, err)
	assert.Equal(t, []string{
		`q.toml:2:28: qos.classes[0].rate = 0: must be a finite number > 0 (tokens per second; a token is 1 ms of compute)`,
		`q.toml:2:38: qos.classes[0].capacity = +Inf: must be a finite number > 0 (tokens)`,
		`q.toml:2:54: qos.classes[1].weight = 0: must be a whole number in [1, 1048576] (tasks a WRR round)`,
		`q.toml:3:1: qos.basic_recovery = "forgive": must be "none" or "decay"`,
		`q.toml:4:12: workload.qos: QoS clients do not run beside [[fault]] entries yet: a lost node's queued tasks would keep their clients waiting`,
		`q.toml:5:1: workload.qos[0].clients = -1: must be a whole number in [1, 100000]`,
		`q.toml:6:1: workload.qos[0].jobs = -2: must be a number in [0, 10000]: the mean of a client's Poisson number of jobs`,
		`q.toml:7:1: workload.qos[0].task_time = "0s": must be a duration > 0 like "50ms"`,
		`q.toml:8:1: workload.qos[0].task_dist = "pareto": must be "constant", "uniform" or "exponential"`,
		`q.toml:9:1: workload.qos[0].period = "1µs": must be a duration of at least 1ms: a client posts a task each period`,
	}, strings.Split(err.Error(), "\n"))
}

// An override of a QoS key makes a new scenario and leaves the one it
// started from as it was: reproductions run their variants side by side.
func TestQoSWithSetLeavesTheOriginal(t *testing.T) {
	sc, err := Load("q.toml", []byte("[qos]\nclasses = [{name = \"gold\", rate = 1, capacity = 1, weight = 1}]\n[[workload.qos]]\nclients = 2\n"), ".")
	require.NoError(t, err)
	v, err := sc.WithSet("workload.qos[0].task_time=200ms", "qos.classes[0].rate=5")
	require.NoError(t, err)
	assert.Equal(t, 200*time.Millisecond, v.Config.QoS.Streams[0].TaskTime)
	assert.Equal(t, 5.0, v.Config.QoS.Classes[0].Rate)
	again, err := sc.WithSet()
	require.NoError(t, err)
	assert.Equal(t, 50*time.Millisecond, again.Config.QoS.Streams[0].TaskTime)
	assert.Equal(t, 1.0, again.Config.QoS.Classes[0].Rate)
}
