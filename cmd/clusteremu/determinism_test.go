package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
)

// mapOrderName is a policy with a planted nondeterminism: it offers a
// slot to the jobs in the order of a Go map, which differs from one
// range to the next.
const mapOrderName = "test-map-order"

type noParams struct{}

func (*noParams) Validate() error { return nil }

type mapOrder struct {
	*sched.FIFO
	jobs map[sched.JobID]bool
}

func init() {
	sched.Register(mapOrderName, func() *noParams { return &noParams{} }, func(*noParams) (sched.Policy, error) {
		return &mapOrder{FIFO: sched.NewFIFO(), jobs: map[sched.JobID]bool{}}, nil
	})
}

func (*mapOrder) Name() string { return mapOrderName }

func (p *mapOrder) Submitted(now time.Duration, job sched.Job) {
	p.FIFO.Submitted(now, job)
	p.jobs[job.ID] = true
}

func (p *mapOrder) Ended(now time.Duration, id sched.JobID) {
	p.FIFO.Ended(now, id)
	delete(p.jobs, id)
}

func (p *mapOrder) Assign(_ time.Duration, v sched.View, s sched.Slot) (sched.Assignment, bool) {
	for id := range p.jobs { // BUG: a Go map's order reaches the decision
		if _, ok := v.BestLocality(id, s.Kind, s.Node); ok {
			return sched.Assignment{Job: id, Kind: s.Kind, MaxLocality: sched.OffRack}, true
		}
	}
	return sched.Assignment{}, false
}

func TestCheckDeterminismAgreesOnTheDefaultScenario(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--check-determinism"}, &out, &errs)
	require.Equal(t, 0, code, out.String()+errs.String())
	m := regexp.MustCompile(`^deterministic: two runs agree on all (\d+) deliveries and on every metric \((\d+)\), ending done at 7m33`).
		FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	deliveries, _ := strconv.Atoi(m[1])
	assert.Greater(t, deliveries, 40000, "every delivery of the 200-job run is compared")
}

func TestCheckDeterminismFindsAMapOrderReachingADecision(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--check-determinism", "--set", "scheduler.name=" + mapOrderName}, &out, &errs)
	require.Equal(t, exitFailed, code, out.String()+errs.String())
	m := regexp.MustCompile(`(?m)^not deterministic: the two runs part at step (\d+)\n  first run:  step (\d+) at .*\n  second run: step (\d+) at `).
		FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	assert.Equal(t, m[1], m[2], "the report names the step where the runs part")
	assert.Equal(t, m[1], m[3])
	assert.Contains(t, out.String(), "the deliveries before it, the same in both:")
}

func TestCheckDeterminismNeedsDeterministicTime(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--check-determinism", "--set", "run.deterministic=false"}, &out, &errs)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs.String(), "needs deterministic virtual time")
}
