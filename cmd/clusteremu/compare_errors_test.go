package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
)

// TestJobErrors compares two runs' jobs by ID: relative errors over the
// jobs both finished, the largest absolute one, and the jobs only one
// finished.
func TestJobErrors(t *testing.T) {
	job := func(id sched.JobID, submit, finish time.Duration, ok bool) cluster.JobResult {
		out := cluster.JobFailed
		if ok {
			out = cluster.JobSucceeded
		}
		return cluster.JobResult{JobRecord: actors.JobRecord{ID: id, Submit: submit, Finish: finish}, Outcome: out}
	}
	s := time.Second
	exact := []cluster.JobResult{
		job(1, 0, 10*s, true), job(2, 0, 20*s, true), job(3, 5*s, 15*s, true), job(4, 0, 4*s, true), job(5, 0, s, false),
	}
	approx := []cluster.JobResult{
		job(1, 0, 10*s, true),   // 0
		job(2, 0, 30*s, true),   // +10 s: 0.5
		job(3, 5*s, 13*s, true), // −2 s: 0.2
		job(4, 0, 4*s, false),   // failed here
		job(5, 0, 2*s, true),    // succeeded here only
	}
	e := jobErrors(exact, approx)
	assert.Equal(t, 3, e.jobs)
	assert.Equal(t, 0.2, e.p50)
	assert.Equal(t, 0.5, e.p99) // the nearest rank of the 99th of three is the third
	assert.Equal(t, 0.5, e.max)
	assert.Equal(t, 10*s, e.maxAbs)
	assert.Equal(t, 1, e.earlier)
	assert.Equal(t, 1, e.later)
	assert.Equal(t, 1, e.onlyFirst)
	assert.Equal(t, 1, e.onlyOther)
	assert.Zero(t, jobErrors(exact, exact).max)
}
