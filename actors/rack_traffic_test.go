package actors

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/netmodel"
	"clusteremu/units"
)

// A link's share of a period is uniform in [0, 2·load]: over 20,000
// draws of 10 links its mean is the load within 1% and its quarters hold
// a quarter each within 2%; the same seed, link and period draw the same
// share, another seed another.
func TestRackTrafficSharesAreUniformUpToTwiceTheLoad(t *testing.T) {
	c := RackTrafficConfig{Load: 0.3, Period: units.Duration(time.Minute)}
	var sum float64
	quarters := make([]int, 4)
	n := 0
	for l := range netmodel.LinkID(10) {
		for p := range int64(2000) {
			s := c.Share(7, l, p)
			require.True(t, s >= 0 && s < 0.6, "share %v of link %d, period %d", s, l, p)
			sum += s
			quarters[int(s/0.15)]++
			n++
		}
	}
	assert.InDelta(t, 0.3, sum/float64(n), 0.003)
	for q, k := range quarters {
		assert.InDelta(t, 0.25, float64(k)/float64(n), 0.02, "quarter %d", q)
	}
	assert.Equal(t, c.Share(7, 3, 5), c.Share(7, 3, 5))
	assert.NotEqual(t, c.Share(7, 3, 5), c.Share(8, 3, 5))
}

// [rack_traffic] refuses a mean load over half a link (a period could
// draw more than all of it) and a period under the least.
func TestRackTrafficValidate(t *testing.T) {
	var errs Checks
	c := RackTrafficConfig{Load: 0.6, Period: 0}
	c.Validate(&errs)
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], "rack_traffic.load")
	assert.ErrorContains(t, errs[1], "rack_traffic.period")
	errs = nil
	d := DefaultRackTraffic()
	d.Validate(&errs)
	assert.Empty(t, errs)
}
