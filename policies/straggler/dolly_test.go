package straggler

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCopiesAsTheNotesTable(t *testing.T) {
	// §3.2's table at ε = 0.05. At n = 1 the quotient is log p / log p,
	// exactly 1 when p = ε, which rounding must not push to 2.
	for _, tc := range []struct {
		p    float64
		n    int
		want int
	}{
		{0.05, 1, 1}, {0.05, 10, 2}, {0.05, 50, 3}, {0.05, 500, 4},
		{0.02, 5, 2}, {0.02, 500, 3},
		{0.10, 1, 2}, {0.10, 10, 3}, {0.10, 100, 4},
		{0.20, 5, 3}, {0.20, 10, 4}, {0.20, 500, 6},
	} {
		assert.Equal(t, tc.want, Copies(tc.n, tc.p, 0.05), "p %g, n %d", tc.p, tc.n)
	}
	// p is clamped: none measured still clones, and a cluster of
	// stragglers clones as for p = 0.5.
	assert.Equal(t, 1, Copies(10, 0, 0.05))
	assert.Equal(t, Copies(10, 0.5, 0.05), Copies(10, 0.9, 0.05))
	assert.Equal(t, 1, Copies(0, 0.1, 0.05), "a phase without tasks")
}

func TestCopiesKeepTheJobWithinEpsilon(t *testing.T) {
	for _, p := range []float64{0.01, 0.05, 0.1, 0.3} {
		for _, n := range []int{1, 3, 10, 50, 200} {
			c := Copies(n, p, 0.05)
			assert.LessOrEqual(t, JobStraggles(n, c, p), 0.05+1e-12, "p %g n %d: c = %d is enough", p, n, c)
			if c > 1 {
				assert.Greater(t, JobStraggles(n, c-1, p), 0.05, "p %g n %d: c − 1 = %d is not", p, n, c-1)
			}
		}
	}
}

func TestCACAndCCAsTheNotes(t *testing.T) {
	// §3.4's values of the corrected eq. 4.4 and eq. 4.5.
	for _, tc := range []struct {
		p       float64
		n, c    int
		cac, cc float64
	}{
		{0.05, 10, 3, 0.047, 0.0025},
		{0.05, 20, 3, 0.128, 0.005},
		{0.10, 10, 3, 0.233, 0.020},
		{0.10, 20, 3, 0.486, 0.039},
		{0.10, 10, 2, 0.617, 0.182},
	} {
		assert.InDelta(t, tc.cac, StragglesCAC(tc.n, tc.c, tc.p), 0.0006, "CAC p %g n %d c %d", tc.p, tc.n, tc.c)
		assert.InDelta(t, tc.cc, StragglesCC(tc.n, tc.c, tc.p), 0.0006, "CC p %g n %d c %d", tc.p, tc.n, tc.c)
	}
	// Without clones both are the job's chance of a straggler among 2n
	// tasks; and CAC never beats CC.
	assert.InDelta(t, 1-0.9*0.9*0.9*0.9, StragglesCC(2, 1, 0.1), 1e-12)
	assert.InDelta(t, StragglesCC(2, 1, 0.1), StragglesCAC(2, 1, 0.1), 1e-12)
	for c := 1; c <= 5; c++ {
		assert.GreaterOrEqual(t, StragglesCAC(20, c, 0.1)+1e-12, StragglesCC(20, c, 0.1))
	}
}

func TestBudgetAdmitsWithinBetaAndTau(t *testing.T) {
	// 100 map slots, β 5%, c = 2, charging c·n: a 3-task job (6 slots) is
	// refused, a 2-task job (4) admitted, and a second 2-task job refused
	// until the first's copies have ended.
	b := Budget{Beta: 0.05, Tau: 0.8, Charge: ChargeAll}
	assert.False(t, b.Admit(3, 2, 100, 0, 0))
	assert.True(t, b.Admit(2, 2, 100, 0, 0))
	charged := b.Cost(2, 2)
	assert.Equal(t, 4, charged)
	assert.False(t, b.Admit(2, 2, 100, 4, charged))
	assert.True(t, b.Admit(2, 2, 100, 4, 0), "the first job's copies ended")

	// Charging the extra copies only, the 3-task job's 3 fit.
	assert.True(t, Budget{Beta: 0.05, Tau: 0.8, Charge: ChargeExtra}.Admit(3, 2, 100, 0, 0))
	// τ bounds the utilisation after cloning: (U + c·n)/C.
	assert.True(t, b.Admit(2, 2, 100, 76, 0))
	assert.False(t, b.Admit(2, 2, 100, 77, 0))
	// One copy is no clone, and a cluster without slots admits nothing.
	assert.False(t, b.Admit(2, 1, 100, 0, 0))
	assert.False(t, b.Admit(2, 2, 0, 0, 0))
}

// BenchmarkDollyAdmission is one job's admission: its copies for a phase
// of 10 tasks at p = 0.05, and the budget's answer.
func BenchmarkDollyAdmission(b *testing.B) {
	bud := Budget{Beta: 0.05, Tau: 0.8, Charge: ChargeAll}
	admitted := 0
	for i := range b.N {
		c := Copies(10, 0.05, 0.05)
		if bud.Admit(10, c, 1200, i%1000, i%60) {
			admitted++
		}
	}
	if admitted == 0 {
		b.Fatal("no job admitted")
	}
}
