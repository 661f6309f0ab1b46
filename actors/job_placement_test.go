package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// A job manager's plan: 3 racks of one node holding 3 bytes of map
// output each, rack 0's uplink at half rate. As measured at the start,
// shares (½, ¼, ¼) keep the shuffle to 3 s (placement's test of the
// same racks), so 6 reduces go 3, 2, 1 (the tie of ½ to the lower rack).
// Under the equal estimate every link is alike: 2, 2, 2. Hybrid keeps
// the start estimate while its 3 s is a short phase.
func TestReducePlacementPlanByEstimate(t *testing.T) {
	outs := []mapOutput{{0, 0, 1, 0, nil}, {1, 0, 2, 0, nil}, {2, 1, 3, 0, nil}, {3, 2, 3, 0, nil}}
	links := &RackLinksMeasured{Up: []float64{0.5, 1, 1}, Down: []float64{1, 1, 1}}
	reduces := []int32{0, 1, 2, 3, 4, 5}
	for _, tc := range []struct {
		estimate string
		short    time.Duration
		want     []sched.RackID
	}{
		{EstimateStart, 0, []sched.RackID{0, 0, 0, 1, 1, 2}},
		{EstimateEqual, time.Hour, []sched.RackID{0, 0, 1, 1, 2, 2}},
		{EstimateHyb, 3 * time.Second, []sched.RackID{0, 0, 0, 1, 1, 2}},
		{EstimateHyb, 3*time.Second - 1, []sched.RackID{0, 0, 1, 1, 2, 2}},
	} {
		short := units.Duration(tc.short)
		cfg := ReducePlacementConfig{Name: PlaceMantri, LinkEstimate: tc.estimate, ShortPhase: &short}
		p := &reducePlacement{cfg: cfg, rackOf: []sched.RackID{0, 1, 2}, racks: 3}
		racks, err := p.plan(reduces, outs, links, 0)
		require.NoError(t, err)
		assert.Equal(t, tc.want, racks, "%s, short phase %v", tc.estimate, tc.short)
	}
}

func TestReducePlacementConfigValidate(t *testing.T) {
	var errs Checks
	var cfg ReducePlacementConfig
	cfg.Validate(&errs)
	assert.Empty(t, errs, "the defaults")
	assert.Equal(t, EstimateHyb, cfg.Estimate())
	assert.Equal(t, time.Minute, cfg.Short())
	assert.Equal(t, 10*time.Second, cfg.Wait())
	assert.True(t, cfg.IsZero(), "no placement named is left out of the hash")
	cfg.Name = PlaceAny
	assert.False(t, cfg.IsZero(), "any, named, is compared with mantri")
	negative := units.Duration(-1)
	cfg.Name, cfg.RackWait = "rack", &negative
	cfg.Validate(&errs)
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Error(), "tasks.reduce_placement = rack")
	assert.Contains(t, errs[1].Error(), "tasks.rack_wait")
}
