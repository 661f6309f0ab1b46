package cluster

import (
	"fmt"
	"slices"

	"clusteremu/actors"
	"clusteremu/policies/qos"
	"clusteremu/units"
	"clusteremu/workload"
)

// QoSConfig is Álvarez-Tabío et al.'s QoS classes and their clients
// ([qos] and the [[workload.qos]] streams): each client holds a token
// bucket of its class and posts tasks to random nodes, whose class queues
// take free map slots by weighted round robin (actors/qos_client.go,
// actors/node_qos.go).
type QoSConfig struct {
	// Classes are the classes, highest first (qos.DefaultClasses unless
	// a scenario says).
	Classes []qos.Class
	// BasicRecovery is what the clients do about α when dropped tasks
	// bring no feedback.
	BasicRecovery qos.Recovery
	Streams       []QoSStream
}

// QoSStream is one [[workload.qos]]: Clients clients, each drawing its
// class uniformly and its jobs as actors.QoSWorkload says.
type QoSStream struct {
	Clients int
	actors.QoSWorkload
}

// MaxQoSClients is the most QoS clients a run takes, one actor each.
const MaxQoSClients = 100_000

// clients is the number of QoS clients of every stream.
func (q *QoSConfig) clients() int {
	if q == nil {
		return 0
	}
	n := 0
	for _, s := range q.Streams {
		n += s.Clients
	}
	return n
}

// weights are the classes' WRR weights, highest first; nil without
// clients.
func (q *QoSConfig) weights() []int {
	if q.clients() == 0 {
		return nil
	}
	w := make([]int, len(q.Classes))
	for i, c := range q.Classes {
		w[i] = c.Weight
	}
	return w
}

// validate checks the classes and streams, and that the run has what QoS
// clients need: map slots, and no faults (a crashed node would lose
// tasks their clients wait for).
func (q *QoSConfig) validate(c *Config, check func(bool, string, any, string)) {
	if q == nil {
		return
	}
	for _, err := range qos.ValidateClasses(q.Classes) {
		fe := err.(*qos.FieldError)
		check(true, "qos."+fe.Key, fe.Value, fe.Msg)
	}
	check(!q.BasicRecovery.Valid(), "qos.basic_recovery", q.BasicRecovery, `must be "none" or "decay"`)
	for i, s := range q.Streams {
		key := fmt.Sprintf("workload.qos[%d].", i)
		check(s.Clients < 1 || s.Clients > MaxQoSClients, key+"clients", s.Clients, fmt.Sprintf("must be a whole number in [1, %d]", MaxQoSClients))
		check(!(s.Jobs >= 0 && s.Jobs <= 1e4), key+"jobs", s.Jobs, "must be a number in [0, 10000]: the mean of a client's Poisson number of jobs")
		check(!(s.Tasks >= 0 && s.Tasks <= 1e4), key+"tasks", s.Tasks, "must be a number in [0, 10000]: the mean of a job's Poisson number of tasks (at least 1)")
		check(s.TaskTime <= 0, key+"task_time", units.Duration(s.TaskTime), `must be a duration > 0 like "50ms"`)
		check(!slices.Contains(workload.TaskDists, s.TaskDist),
			key+"task_dist", s.TaskDist, `must be "constant", "uniform" or "exponential"`)
		check(s.Period < actors.MinPeriod.Std(), key+"period", units.Duration(s.Period), fmt.Sprintf("must be a duration of at least %v: a client posts a task each period", actors.MinPeriod))
	}
	if len(q.Streams) > 0 {
		check(c.Cluster.MapSlots < 1, "cluster.map_slots", c.Cluster.MapSlots, "must be ≥ 1: QoS tasks run in map slots on every node")
		c.Cluster.CheckClasses(check, "map_slots", func(hw *actors.ClusterConfig) bool { return hw.MapSlots < 1 },
			func(hw *actors.ClusterConfig) any { return hw.MapSlots }, "must be ≥ 1: QoS tasks run in map slots on every node")
		check(len(c.Faults) > 0, "workload.qos", nil, "QoS clients do not run beside [[fault]] entries yet: a lost node's queued tasks would keep their clients waiting")
		check(c.Cluster.Containers > 0, "workload.qos", nil, "QoS clients do not run beside cluster.containers yet: their tasks hold map slots, and a container is no map slot")
	}
}
