package actors

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// A workflow is a stream whose jobs wait for one another
// (workload.JobSpec.After), as Oozie runs a DAG of MapReduce jobs, or Hive
// and Pig the chain a query compiles to. Its client submits each job
// with no job to wait for at its Submit, and each other job Submit after
// the last it waits for succeeded, told by the coordinator as a closed
// worker is. When a job it waits for fails, the job is submitted at once
// to fail with the reason (workload.JobSpec.Upstream), so every job of
// the workflow ends, and its own dependants fail in turn.

// workflow is a workflow client's bookkeeping.
type workflow struct {
	waits     []int   // the jobs each job still waits for
	children  [][]int // the jobs waiting for each job
	submitted []bool
	count     int // jobs submitted
	// upstream is why each job failed at once: the first job it waits
	// for, at any remove, that failed of itself, and that job's reason.
	upstream []string
}

// submitStep fires when a workflow's job is due.
type submitStep struct{ job int }

// NewWorkflowClient returns a workflow client's state: job i gets the ID
// firstID+i. Every name in a job's After must name a job of the list,
// with no cycle (the scenario checks it).
func NewWorkflowClient(jobs []workload.JobSpec, firstID sched.JobID, coordinator *actor.PID, deps Deps) *Client {
	index := make(map[string]int, len(jobs))
	for i := range jobs {
		index[jobs[i].Name] = i
	}
	f := &workflow{waits: make([]int, len(jobs)), children: make([][]int, len(jobs)), submitted: make([]bool, len(jobs)),
		upstream: make([]string, len(jobs))}
	for i := range jobs {
		for _, name := range jobs[i].After {
			p := index[name]
			f.children[p] = append(f.children[p], i)
			f.waits[i]++
		}
	}
	return &Client{jobs: jobs, firstID: firstID, coordinator: coordinator, deps: deps, flow: f}
}

// start schedules the jobs that wait for none at their Submit.
func (f *workflow) start(ctx actor.Context, c *Client) {
	if len(c.jobs) == 0 {
		ctx.Send(c.coordinator, &WorkloadSubmitted{})
		return
	}
	for i := range c.jobs {
		if f.waits[i] == 0 {
			c.deps.Clock.At(c.jobs[i].Submit, ctx.Self(), &submitStep{i})
		}
	}
}

// submit submits job i, failed for upstream when set.
func (f *workflow) submit(ctx actor.Context, c *Client, i int, upstream string) {
	if f.submitted[i] {
		return
	}
	f.submitted[i] = true
	spec := c.jobs[i]
	spec.Upstream, f.upstream[i] = upstream, upstream
	ctx.Send(c.coordinator, &SubmitJob{ID: c.firstID + sched.JobID(i), Spec: spec, Client: ctx.Self(), At: c.deps.Clock.Now()})
	if f.count++; f.count == len(c.jobs) {
		ctx.Send(c.coordinator, &WorkloadSubmitted{Jobs: len(c.jobs)})
	}
}

// ended schedules the jobs that waited for the job last, or fails those
// that waited for it when it failed.
func (f *workflow) ended(ctx actor.Context, c *Client, msg *JobEnded) {
	i := int(msg.Job - c.firstID)
	if i < 0 || i >= len(c.jobs) {
		c.deps.Fail(fmt.Errorf("client: JobEnded for job %d, not one of its %d from %d", msg.Job, len(c.jobs), c.firstID))
		return
	}
	why := f.upstream[i]
	if why == "" {
		why = fmt.Sprintf("waits for job %q, which failed: %s", c.jobs[i].Name, msg.Reason)
	}
	for _, k := range f.children[i] {
		switch f.waits[k]--; {
		case !msg.Succeeded:
			f.submit(ctx, c, k, why)
		case f.waits[k] == 0 && !f.submitted[k]:
			c.deps.Clock.After(c.jobs[k].Submit, ctx.Self(), &submitStep{k})
		}
	}
}
