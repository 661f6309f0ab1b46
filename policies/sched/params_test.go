package sched

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/units"
)

func TestDefaultParamsAreValid(t *testing.T) {
	assert.NoError(t, DefaultFIFOParams().Validate())
	assert.NoError(t, DefaultFairParams().Validate())
	assert.Equal(t, Waits{T1: 15 * time.Second, T2: 15 * time.Second}, DefaultFIFOParams().Waits())
	assert.Equal(t, DefaultFairConfig(), DefaultFairParams().Config())
}

// paramErrors lists the ParamErrors of a Validate, one string each.
func paramErrors(t *testing.T, err error) []string {
	t.Helper()
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var pe *ParamError
		require.True(t, errors.As(e, &pe), "%T is not a *ParamError", e)
		out = append(out, pe.Error())
	}
	return out
}

func TestValidateReportsEveryBadParameter(t *testing.T) {
	neg := units.Duration(-time.Second)
	weight := 0.0
	p := DefaultFairParams()
	p.T2, p.FairShareTimeout, p.FairShareFraction = neg, neg, 1.5
	p.Pools = []PoolParams{
		{Name: "ok", MinMaps: 2},
		{MinMaps: -1, Weight: &weight, T1: &neg},
	}
	assert.Equal(t, []string{
		`scheduler.t2 = "-1s": must be a duration ≥ 0 like "15s"`,
		`scheduler.fair_share_timeout = "-1s": must be a duration ≥ 0 like "15s"`,
		`scheduler.fair_share_fraction = 1.5: must be a number in [0, 1]`,
		`scheduler.pools[1].name: missing; every pool needs a name`,
		`scheduler.pools[1].weight = 0: must be a number in [0.001, 1000]`,
		`scheduler.pools[1].min_maps = -1: must be a whole number in [0, 2147483647]`,
		`scheduler.pools[1].t1 = "-1s": must be a duration ≥ 0 like "15s"`,
	}, paramErrors(t, p.Validate()))

	f := DefaultFIFOParams()
	f.T1 = neg
	assert.Equal(t, []string{`scheduler.t1 = "-1s": must be a duration ≥ 0 like "15s"`}, paramErrors(t, f.Validate()))
}

func TestFairParamsDescribeTheConfig(t *testing.T) {
	// A pool that sets one wait takes the policy's waits with that one
	// replaced; a pool that sets none takes the policy's; weight defaults
	// to 1.
	zero, twenty, half := units.Duration(0), units.Duration(20*time.Second), 0.5
	p := DefaultFairParams()
	p.T1, p.Preemption, p.FairShareFraction, p.PoolPerJob = units.Duration(5*time.Second), true, 0.5, true
	p.Pools = []PoolParams{
		{Name: "prod", MinMaps: 60, MinReduces: 20, T1: &zero},
		{Name: "scan", Weight: &half, T2: &twenty},
		{Name: "plain"},
	}
	cfg := p.Config()
	assert.Equal(t, Waits{Enabled: true, T1: 5 * time.Second, T2: 15 * time.Second}, cfg.Delay)
	assert.True(t, cfg.Preempt)
	assert.True(t, cfg.PoolPerJob)
	assert.Equal(t, 0.5, cfg.Fraction)
	assert.Equal(t, []Pool{
		{Name: "prod", MinShare: [2]int{60, 20}, Weight: 1, Waits: &Waits{Enabled: true, T1: 0, T2: 15 * time.Second}},
		{Name: "scan", Weight: 0.5, Waits: &Waits{Enabled: true, T1: 5 * time.Second, T2: 20 * time.Second}},
		{Name: "plain", Weight: 1},
	}, cfg.Pools)
}

func TestParamErrorWritesValuesAsTOML(t *testing.T) {
	for _, tt := range []struct {
		err  ParamError
		want string
	}{
		{ParamError{Key: "name", Value: "lottery", Msg: "must be one of fair, fifo"}, `scheduler.name = "lottery": must be one of fair, fifo`},
		{ParamError{Key: "t1", Value: units.Duration(90 * time.Second), Msg: "m"}, `scheduler.t1 = "1m30s": m`},
		{ParamError{Key: "pools[0].min_maps", Value: -1, Msg: "m"}, `scheduler.pools[0].min_maps = -1: m`},
		{ParamError{Key: "delay", Value: true, Msg: "m"}, `scheduler.delay = true: m`},
		{ParamError{Key: "pools[0].name", Msg: "missing"}, `scheduler.pools[0].name: missing`},
	} {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestNewBuildsFromParams(t *testing.T) {
	p, err := New("fifo", nil, Shape{})
	require.NoError(t, err)
	assert.Equal(t, "fifo", p.Name())
	assert.Equal(t, DefaultFIFOParams().Waits(), p.(*FIFO).waits)

	fifo := DefaultFIFOParams()
	fifo.Delay, fifo.T1 = true, units.Duration(5*time.Second)
	p, err = New("fifo", fifo, Shape{})
	require.NoError(t, err)
	assert.Equal(t, Waits{Enabled: true, T1: 5 * time.Second, T2: 15 * time.Second}, p.(*FIFO).waits)

	fair := DefaultFairParams()
	fair.Preemption, fair.Pools = true, []PoolParams{{Name: "prod", MinMaps: 60}}
	p, err = New("fair", fair, Shape{})
	require.NoError(t, err)
	assert.Equal(t, fair.Config(), p.(*Fair).cfg)
	fair.Pools[0].MinMaps = 1
	assert.Equal(t, 60, p.(*Fair).cfg.Pools[0].MinShare[Map], "the policy keeps nothing of its parameters")
}

func TestNewRejectsBadParams(t *testing.T) {
	fifo := DefaultFIFOParams()
	fifo.T1, fifo.T2 = -1, -1
	_, err := New("fifo", fifo, Shape{})
	assert.EqualError(t, err, `scheduler.t1 = "-1ns": must be a duration ≥ 0 like "15s"`+"\n"+
		`scheduler.t2 = "-1ns": must be a duration ≥ 0 like "15s"`)

	_, err = New("fifo", DefaultFairParams(), Shape{})
	assert.EqualError(t, err, `scheduler "fifo" takes parameters of type *sched.FIFOParams, not *sched.FairParams`)

	_, err = New("lottery", nil, Shape{})
	assert.EqualError(t, err, `scheduler.name = "lottery": must be one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags`)
	var pe *ParamError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, ParamError{Key: "name", Value: "lottery", Msg: "must be one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags"}, *pe)
	_, err = NewParams("lottery")
	assert.EqualError(t, err, `scheduler.name = "lottery": must be one of capacity, comp, fair, fbq, fifo, las, lasmq, sita, srpt, tags`)
}

func TestNewParamsReturnsFreshDefaults(t *testing.T) {
	for _, name := range Names() {
		a, err := NewParams(name)
		require.NoError(t, err)
		b, err := NewParams(name)
		require.NoError(t, err)
		assert.NotSame(t, a, b, name)
		assert.Equal(t, a, b, name)
	}
	a, _ := NewParams("fair")
	a.(*FairParams).T1 = 0
	a.(*FairParams).Pools = append(a.(*FairParams).Pools, PoolParams{Name: "p"})
	b, _ := NewParams("fair")
	assert.Equal(t, DefaultFairParams(), b, "changing one set of defaults changes no other")
}

func TestRegisterPanicsOnATakenName(t *testing.T) {
	assert.PanicsWithValue(t, `scheduler policy "fair" registered twice`, func() {
		Register("fair", DefaultFIFOParams, func(*FIFOParams) (Policy, error) { return NewFIFO(), nil })
	})
}
