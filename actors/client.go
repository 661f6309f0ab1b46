package actors

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// Client submits a workload stream's jobs at their arrival times. It keeps
// one timer at a time, for the next arrival, so a long trace costs no more
// timers than a short one.
//
// A closed-loop client is one worker of a closed workload (Zaharia et
// al.'s "each worker repeatedly submitted a job and waited for it to
// finish"): it submits its first job at that job's Submit and each later
// job Submit (the think time) after the one before it ended.
type Client struct {
	jobs        []workload.JobSpec // sorted by Submit, unless closed or a workflow
	firstID     sched.JobID
	coordinator *actor.PID
	deps        Deps
	next        int
	closed      bool
	flow        *workflow // nil unless a workflow
}

// submitDue fires at the next arrival.
type submitDue struct{}

// NewClient returns a client actor's state. Its jobs must be sorted by
// submission time; they get the IDs firstID, firstID+1, ... in that order.
func NewClient(jobs []workload.JobSpec, firstID sched.JobID, coordinator *actor.PID, deps Deps) *Client {
	return &Client{jobs: jobs, firstID: firstID, coordinator: coordinator, deps: deps}
}

// NewClosedClient returns a closed-loop client's state: job i+1 is
// submitted jobs[i+1].Submit after job i ended.
func NewClosedClient(jobs []workload.JobSpec, firstID sched.JobID, coordinator *actor.PID, deps Deps) *Client {
	return &Client{jobs: jobs, firstID: firstID, coordinator: coordinator, deps: deps, closed: true}
}

// Receive implements actor.Actor.
func (c *Client) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		if c.flow != nil {
			c.flow.start(ctx, c)
			return
		}
		c.schedule(ctx)
	case *submitDue:
		c.submitDue(ctx)
	case *submitStep:
		c.flow.submit(ctx, c, msg.job, "")
	case *JobEnded:
		if c.flow != nil {
			c.flow.ended(ctx, c, msg)
			return
		}
		if c.closed && c.next < len(c.jobs) {
			c.deps.Clock.After(c.jobs[c.next].Submit, ctx.Self(), &submitDue{})
		}
	case *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		c.deps.Fail(fmt.Errorf("client: unhandled message %T", msg))
	}
}

// submitDue submits every job due now, then waits for the next.
func (c *Client) submitDue(ctx actor.Context) {
	if c.closed {
		ctx.Send(c.coordinator, &SubmitJob{ID: c.firstID + sched.JobID(c.next), Spec: c.jobs[c.next], Client: ctx.Self(), At: c.deps.Clock.Now()})
		c.next++
		if c.next == len(c.jobs) {
			ctx.Send(c.coordinator, &WorkloadSubmitted{Jobs: len(c.jobs)})
		}
		return
	}
	now := c.deps.Clock.Now()
	for c.next < len(c.jobs) && c.jobs[c.next].Submit <= now {
		ctx.Send(c.coordinator, &SubmitJob{ID: c.firstID + sched.JobID(c.next), Spec: c.jobs[c.next], At: now})
		c.next++
	}
	c.schedule(ctx)
}

func (c *Client) schedule(ctx actor.Context) {
	if c.closed {
		if len(c.jobs) == 0 {
			ctx.Send(c.coordinator, &WorkloadSubmitted{})
		} else {
			c.deps.Clock.At(c.jobs[0].Submit, ctx.Self(), &submitDue{})
		}
		return
	}
	if c.next == len(c.jobs) {
		ctx.Send(c.coordinator, &WorkloadSubmitted{Jobs: len(c.jobs)})
		return
	}
	c.deps.Clock.At(max(c.jobs[c.next].Submit, c.deps.Clock.Now()), ctx.Self(), &submitDue{})
}
