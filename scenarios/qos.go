package scenarios

import (
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/qos"
)

// QoSTable is [qos], Álvarez-Tabío et al.'s classes of service:
//
//	[qos]
//	classes = [
//	  {name = "premium", rate = 800, capacity = 10000, weight = 10},
//	  {name = "advanced", rate = 300, capacity = 150, weight = 3},
//	  {name = "basic", rate = 100, capacity = 125, weight = 1},
//	]
//	basic_recovery = "none"   # or "decay"
//
// Classes are listed highest first: rate in tokens per second, capacity
// in tokens (a token is 1 ms of compute), weight in tasks a WRR round.
// The defaults are the paper's, above. The classes serve the
// [[workload.qos]] streams (QoSStream).
type QoSTable struct {
	Classes       []qos.Class `toml:"classes"`
	BasicRecovery string      `toml:"basic_recovery"`
}

// QoSStream is a [[workload.qos]] stream of QoS clients:
//
//	[[workload.qos]]
//	clients = 1000        # each of a class drawn uniformly
//	jobs = 10             # Poisson mean, per client
//	tasks = 20            # Poisson mean, per job (at least 1)
//	task_time = "50ms"
//	task_dist = "constant" # "uniform" (on [0, 2 × task_time]), "exponential"
//	period = "600ms"      # a client posts a task each period
//
// An absent or zero key takes the default above, but for task_time, which
// must be above 0. At the defaults on 100
// nodes of one map slot the offered load is 1000 × 50 ms / 600 ms / 100 =
// 0.83 (the paper gives no period).
type QoSStream struct {
	Clients  int       `toml:"clients"`
	Jobs     float64   `toml:"jobs"`
	Tasks    float64   `toml:"tasks"`
	TaskTime *Duration `toml:"task_time"` // nil: the default; "0s" is refused
	TaskDist string    `toml:"task_dist"`
	Period   Duration  `toml:"period"`
}

// DefaultQoSStream is a QoS stream's defaults.
func DefaultQoSStream() QoSStream {
	return QoSStream{Clients: 1000, Jobs: 10, Tasks: 20, TaskTime: new(Duration(50 * time.Millisecond)),
		TaskDist: actors.TaskConstant, Period: Duration(600 * time.Millisecond)}
}

// qosConfig is the run's QoS configuration: nil when the file has
// neither [qos] nor a [[workload.qos]].
func (f *File) qosConfig() *cluster.QoSConfig {
	if f.QoS == nil && len(f.Workload.QoS) == 0 {
		return nil
	}
	q := &cluster.QoSConfig{Classes: qos.DefaultClasses(), BasicRecovery: qos.RecoveryNone}
	if f.QoS != nil {
		if f.QoS.Classes != nil {
			q.Classes = f.QoS.Classes
		}
		if f.QoS.BasicRecovery != "" {
			q.BasicRecovery = qos.Recovery(f.QoS.BasicRecovery)
		}
	}
	for _, s := range f.Workload.QoS {
		v := fillZero(s, DefaultQoSStream())
		q.Streams = append(q.Streams, cluster.QoSStream{Clients: v.Clients, QoSWorkload: actors.QoSWorkload{
			Jobs: v.Jobs, Tasks: v.Tasks, TaskTime: v.TaskTime.Std(), TaskDist: v.TaskDist, Period: v.Period.Std(),
		}})
	}
	return q
}
