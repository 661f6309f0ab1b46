package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/qos"
	"clusteremu/workload"
)

// QoSWorkload is a [[workload.qos]] stream as each of its clients draws
// it from its own random stream: a Poisson number of jobs of mean Jobs,
// each of a Poisson number (at least 1) of tasks of mean Tasks, each
// task's time drawn from TaskDist around TaskTime; one task is posted
// each Period, the jobs in turn, from a random instant of the first
// period.
type QoSWorkload struct {
	Jobs, Tasks float64
	TaskTime    time.Duration
	TaskDist    string
	Period      time.Duration
}

// The task-time distributions of a QoS stream.
const (
	TaskConstant    = workload.TaskConstant    // every task TaskTime
	TaskUniform     = workload.TaskUniform     // uniform on [0, 2 × TaskTime]
	TaskExponential = workload.TaskExponential // exponential of mean TaskTime
)

// QoSClientConfig is one QoS client's setting.
type QoSClientConfig struct {
	Classes  []qos.Class // highest first
	Recovery qos.Recovery
	Workload QoSWorkload
	// Nodes are where its tasks go, one drawn at random for each.
	Nodes []*actor.PID
	// Coordinator is told WorkloadSubmitted when the client's last job is
	// over: every task run, or a task dropped.
	Coordinator *actor.PID
}

// QoSClient is one client of Álvarez-Tabío et al.'s QoS scheme (notes
// §2.5.2): its class is drawn uniformly from the classes; each period it
// posts its next task to its token bucket (qos.Client), which forwards it
// to a random node at its class, one class lower (degraded), or, in the
// last class, drops it and fails its job. As in the paper's client loop
// (notes §2.5.2), a failed job's later tasks are still posted, one a
// period, and those that conform still run and feed α. Each TaskServed
// feeds α. A job succeeds when its last task has been served; its time
// runs from its first task's post.
type QoSClient struct {
	cfg    QoSClientConfig
	deps   Deps
	self   *actor.PID
	client *qos.Client
	class  string
	jobs   []qosJob
	job    int   // the job posting next
	task   int32 // its next task
	posted bool  // a task was posted before this period
	done   bool  // WorkloadSubmitted sent
}

// qosJob is one of a client's jobs.
type qosJob struct {
	tasks       int32
	start       time.Duration
	outstanding int
	failed      bool
}

// qosPostDue posts the client's next task.
type qosPostDue struct{}

// NewQoSClient returns a QoS client actor's state.
func NewQoSClient(cfg QoSClientConfig, deps Deps) *QoSClient {
	return &QoSClient{cfg: cfg, deps: deps}
}

// Receive implements actor.Actor.
func (c *QoSClient) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		c.handleStarted(ctx)
	case *qosPostDue:
		c.handlePostDue(ctx)
	case *TaskServed:
		c.handleServed(ctx, msg)
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		c.deps.Fail(fmt.Errorf("qos client: unhandled message %T", msg))
	}
}

// handleStarted draws the client's class and jobs and arms its first post.
func (c *QoSClient) handleStarted(ctx actor.Context) {
	c.self = ctx.Self()
	r, w := c.deps.Rand, c.cfg.Workload
	class := r.IntN(len(c.cfg.Classes))
	c.class = c.cfg.Classes[class].Name
	c.client = qos.NewClient(c.cfg.Classes, class, qos.Tokens(w.TaskTime), c.cfg.Recovery, c.deps.Clock.Now())
	c.jobs = make([]qosJob, poisson(r.ExpFloat64, w.Jobs))
	for i := range c.jobs {
		c.jobs[i].tasks = int32(max(1, poisson(r.ExpFloat64, w.Tasks)))
	}
	if c.maybeDone(ctx) {
		return
	}
	c.deps.Clock.After(time.Duration(r.Float64()*float64(w.Period)), c.self, &qosPostDue{})
}

// poisson draws a Poisson count of the mean: the arrivals of a unit-rate
// Poisson process within it. The cost is O(mean).
func poisson(exp func() float64, mean float64) int {
	n := 0
	for t := exp(); t <= mean; t += exp() {
		n++
	}
	return n
}

// handlePostDue ends the period before (the recovery's silent periods)
// and posts the next task.
func (c *QoSClient) handlePostDue(ctx actor.Context) {
	now := c.deps.Clock.Now()
	if c.posted {
		c.client.Silence()
	}
	c.posted = true
	j := &c.jobs[c.job]
	if c.task == 0 {
		j.start = now
	}
	v := c.client.Post(now)
	c.count("tasks.posted")
	switch {
	case v.Dropped:
		c.count("tasks.nonconformant")
		c.count("tasks.dropped")
		if !j.failed {
			j.failed = true
			c.deps.Metrics.QoSJobEnded(QoSJobRecord{Class: c.class, Client: c.self.Id, Job: int32(c.job), Tasks: j.tasks, Start: j.start, End: now, Failed: true})
		}
		c.task++
	case v.Degraded():
		c.count("tasks.nonconformant")
		c.count("tasks.degraded")
	}
	if !v.Dropped {
		c.forward(ctx, v.Class)
	}
	if c.task == j.tasks {
		c.job, c.task = c.job+1, 0
	}
	if c.job < len(c.jobs) {
		c.deps.Clock.After(c.cfg.Workload.Period, c.self, &qosPostDue{})
		return
	}
	c.maybeDone(ctx)
}

// forward sends the job's next task to a random node at the class.
func (c *QoSClient) forward(ctx actor.Context, class int) {
	r, w := c.deps.Rand, c.cfg.Workload
	d := workload.DrawTaskTime(r, w.TaskDist, w.TaskTime)
	node := c.cfg.Nodes[r.IntN(len(c.cfg.Nodes))]
	ctx.Send(node, &ForwardTask{Client: c.self, Job: int32(c.job), Task: c.task, Class: class, Time: d})
	c.jobs[c.job].outstanding++
	c.task++
}

// handleServed feeds α and ends the task's job when it was its last.
func (c *QoSClient) handleServed(ctx actor.Context, msg *TaskServed) {
	c.client.Served(msg.Mu)
	j := &c.jobs[msg.Job]
	j.outstanding--
	c.deps.progressed()
	posted := int(msg.Job) < c.job
	if j.outstanding == 0 && posted && !j.failed {
		c.deps.Metrics.QoSJobEnded(QoSJobRecord{Class: c.class, Client: c.self.Id, Job: msg.Job, Tasks: j.tasks, Start: j.start, End: c.deps.Clock.Now()})
	}
	c.maybeDone(ctx)
}

// maybeDone tells the coordinator the client is done once every job is
// over, and reports whether it is.
func (c *QoSClient) maybeDone(ctx actor.Context) bool {
	if c.done || c.job < len(c.jobs) {
		return c.done
	}
	for i := range c.jobs {
		if c.jobs[i].outstanding > 0 {
			return false
		}
	}
	c.done = true
	ctx.Send(c.cfg.Coordinator, &WorkloadSubmitted{Jobs: len(c.jobs)})
	return true
}

// count adds one to the client's class's counter.
func (c *QoSClient) count(what string) {
	c.deps.Metrics.Count(QoSMetrics+c.class+"."+what, 1)
}

// QoSMetrics prefixes the metrics of each QoS class:
// classes.<class>.tasks.posted, .nonconformant, .degraded and .dropped
// count the class's clients' tasks (a dropped task is non-conformant too,
// as the paper's "ratio of job dropping" counts them), and the cluster
// adds the jobs' (classes.<class>.jobs.*).
const QoSMetrics = "classes."

// QoSJobRecord is one QoS job that ended: served to its last task, or
// failed when one was dropped (End is then the drop).
type QoSJobRecord struct {
	Class      string
	Client     string
	Job        int32
	Tasks      int32
	Start, End time.Duration
	Failed     bool
}
