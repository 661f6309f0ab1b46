package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"clusteremu/actors"
	"clusteremu/policies/sched"
)

func TestSummaryCountsEachPoolApart(t *testing.T) {
	job := func(pool string, submit, finish time.Duration, status JobOutcome) JobResult {
		return JobResult{JobRecord: actors.JobRecord{Pool: pool, Submit: submit, Finish: finish, Maps: 16}, Outcome: status}
	}
	res := &Records{Jobs: []JobResult{
		job("scan", 0, 10*time.Second, JobSucceeded),
		job("scan", 0, 30*time.Second, JobSucceeded),
		job("compute", 5*time.Second, 65*time.Second, JobSucceeded),
		job("compute", 5*time.Second, 0, JobCutOff),
		job("", 0, 20*time.Second, JobSucceeded),
	}}
	s := Summarize(res, [2]int{4, 2}, time.Minute)

	assert.Equal(t, 4.0, s["jobs.succeeded"], "every job counts once overall")
	assert.Equal(t, 2.0, s["pools.scan.jobs.succeeded"])
	assert.Equal(t, 20.0, s["pools.scan.jobs.response_time.mean"])
	assert.Equal(t, 1.0, s["pools.compute.jobs.succeeded"])
	assert.Equal(t, 1.0, s["pools.compute.jobs.cut_off"])
	assert.Equal(t, 60.0, s["pools.compute.jobs.response_time.max"])
	assert.NotContains(t, s, "pools..jobs.succeeded", "jobs without a pool are counted only overall")
	assert.Equal(t, []string{"compute", "scan"}, s.Pools())
	for _, name := range s.Names() {
		assert.True(t, ValidMetric(name), "%s is a metric an expectation may name", name)
	}
}

func TestValidMetricNamesPoolsOnlyForJobMetrics(t *testing.T) {
	assert.True(t, ValidMetric("tasks.locality.node"))
	assert.True(t, ValidMetric("pools.scan.jobs.succeeded"))
	assert.True(t, ValidMetric("pools.a.b.jobs.slowdown.p95"), "a pool's name may hold dots")
	assert.False(t, ValidMetric("pools.scan.tasks.locality.node"), "locality is not kept per pool")
	assert.False(t, ValidMetric("pools..jobs.succeeded"))
	assert.False(t, ValidMetric("pools.scan.jobs.speed"))
	assert.False(t, ValidMetric("scan.jobs.succeeded"))
}

func TestSummaryCountsTheSlotTimeLostAttemptsHeld(t *testing.T) {
	attempt := func(task int32, start, end time.Duration, outcome sched.Outcome) actors.AttemptRecord {
		return actors.AttemptRecord{Attempt: sched.Attempt{Task: task}, Start: start, End: end, Outcome: outcome}
	}
	res := &Records{Attempts: []actors.AttemptRecord{
		attempt(0, 0, 10*time.Second, sched.Killed),
		attempt(1, 5*time.Second, 8*time.Second, sched.Failed),
		attempt(2, -1, 9*time.Second, sched.Killed), // lost before it launched: held no slot
		attempt(3, 0, 20*time.Second, sched.Succeeded),
	}}
	s := Summarize(res, [2]int{4, 2}, time.Minute)
	assert.Equal(t, 2.0, s["tasks.killed"])
	assert.Equal(t, 10.0, s["tasks.killed.slot_seconds"])
	assert.Equal(t, 1.0, s["tasks.failed"])
	assert.Equal(t, 3.0, s["tasks.failed.slot_seconds"])
	assert.InDelta(t, 33.0/(4*60), s["slots.utilisation.map"], 1e-12, "lost attempts kept their slots busy too")
}
