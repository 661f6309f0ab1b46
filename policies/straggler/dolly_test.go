package straggler

import (
	"testing"
	"time"

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

func TestFitClonesTheTasksTheBudgetHasRoomFor(t *testing.T) {
	// The budget case under pure FCFS: 100 map slots, β 5%
	// (5 slots), c = 2 charging c·n, 2 slots a task.
	b := Budget{Beta: 0.05, Tau: 0.8, Charge: ChargeAll}
	for _, tc := range []struct {
		name                string
		n, c, used, charged int
		want                int
	}{
		// The 3-task job admission control refuses: 2 of its tasks
		// (4 slots) fit, the third (6) would not.
		{"3 tasks, empty budget", 3, 2, 0, 0, 2},
		{"2 tasks fit whole", 2, 2, 0, 0, 2},
		// After those 4, 1 slot is left: not one task's 2.
		{"budget full", 2, 2, 4, 4, 0},
		// A 100-task job, first come: it takes the whole budget.
		{"large job first", 100, 2, 0, 0, 2},
		// c = 3 (3 slots a task): one task of 3 fits in 5.
		{"3 copies", 10, 3, 0, 0, 1},
		// τ: (U + c·k)/C ≤ 0.8 leaves k = 1 at U = 77 (79), not 2 (81).
		{"τ binds", 2, 2, 77, 0, 1},
		{"τ full", 2, 2, 79, 0, 0},
		// Past β·C already (a node lost shrank C): none.
		{"over budget", 2, 2, 0, 6, 0},
		{"one copy is no clone", 3, 1, 0, 0, 0},
		{"no task", 0, 2, 0, 0, 0},
		{"no slot", 3, 2, 0, 0, 0},
	} {
		capacity := 100
		if tc.name == "no slot" {
			capacity = 0
		}
		got := b.Fit(tc.n, tc.c, capacity, tc.used, tc.charged)
		assert.Equal(t, tc.want, got, tc.name)
		// Admission control admits exactly the phases that fit whole.
		assert.Equal(t, tc.n >= 1 && got == tc.n, b.Admit(tc.n, tc.c, capacity, tc.used, tc.charged), tc.name)
	}
	// Charging the extra copies only, a task costs 1: 5 of 100 fit.
	assert.Equal(t, 5, Budget{Beta: 0.05, Tau: 0.8, Charge: ChargeExtra}.Fit(100, 2, 100, 0, 0))
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

func TestBindingPerAccessMode(t *testing.T) {
	// Three reduce clones per reduce (slots 0–2) reading one map's copies.
	cc := NewBinding(3)
	assert.Equal(t, []int{0, 1, 2}, cc.Finished(AccessCC), "CC: the first copy binds every clone")
	assert.True(t, cc.Closed)
	assert.Empty(t, cc.Finished(AccessCC))

	cac := NewBinding(3)
	for k := range 3 {
		assert.False(t, cac.Closed, "copy %d: a slot is still unbound", k)
		assert.Equal(t, []int{k}, cac.Finished(AccessCAC), "CAC: the k-th copy binds one clone per reduce")
	}
	assert.True(t, cac.Closed)
	assert.Equal(t, []int{0, 1, 2}, cac.Bound)
	assert.Equal(t, []int{1, 1, 1}, cac.Readers, "one reader a copy")

	// Delay: two copies bind exclusively, ω binds the third clone to the
	// least-read copy, the earlier on a tie.
	d := NewBinding(3)
	assert.Equal(t, []int{0}, d.Finished(AccessDelay))
	assert.Equal(t, []int{1}, d.Finished(AccessDelay))
	assert.Equal(t, []int{2}, d.Expire())
	assert.Equal(t, []int{0, 1, 0}, d.Bound)
	assert.Equal(t, []int{2, 1}, d.Readers)
	assert.True(t, d.Closed)
	assert.Empty(t, d.Expire())

	// Before any copy finished, ω has nothing to bind.
	none := NewBinding(2)
	assert.Empty(t, none.Expire())
	assert.False(t, none.Closed)

	// The reduce phase got fewer clones than the maps: the binding closes
	// once those are bound.
	need := NewBinding(3)
	need.Finished(AccessDelay)
	need.Finished(AccessDelay)
	need.Need(2)
	assert.True(t, need.Closed)
	assert.Equal(t, []int{0, 1}, need.Bound)
	assert.True(t, NewBinding(0).Closed, "no reduce reads the map")
}

func TestBindingDropsALostCopy(t *testing.T) {
	// Three slots, CAC: copies 0, 1, 2 bind slots 0, 1, 2. Copy 1's node
	// is lost: slot 1 is bound again to the least-read copy left, copy 0
	// (the earlier on a tie), and copy 1 is read no more.
	b := NewBinding(3)
	for range 3 {
		b.Finished(AccessCAC)
	}
	slots, ok := b.Drop(1)
	assert.True(t, ok)
	assert.Equal(t, []int{1}, slots)
	assert.Equal(t, []int{0, 0, 2}, b.Bound)
	assert.Equal(t, []int{2, 0, 1}, b.Readers)
	// Copy 0 goes too: its slots go to copy 2, the last copy left; a
	// copy dropped twice changes nothing.
	slots, ok = b.Drop(0)
	assert.True(t, ok)
	assert.Equal(t, []int{0, 1}, slots)
	assert.Equal(t, []int{2, 2, 2}, b.Bound)
	slots, ok = b.Drop(0)
	assert.True(t, ok)
	assert.Empty(t, slots)
	// The last copy lost: the map must be made again.
	_, ok = b.Drop(2)
	assert.False(t, ok)

	// Delay: copy 1 is lost before ω, its slot bound again to copy 0;
	// ω binds the unbound slot to copy 0 too, never to the lost copy,
	// which has no reader left.
	d := NewBinding(3)
	d.Finished(AccessDelay)
	d.Finished(AccessDelay)
	slots, ok = d.Drop(1)
	assert.True(t, ok)
	assert.Equal(t, []int{1}, slots)
	assert.Equal(t, []int{0, 0, -1}, d.Bound)
	assert.Equal(t, []int{2}, d.Expire())
	assert.Equal(t, []int{0, 0, 0}, d.Bound)
}

func TestSearchOmegaWaitsForTheSecondCopy(t *testing.T) {
	// Second copies come 3 s after the first; reads take 10 s alone. For
	// ω < 3 both clones share the first copy from ω: A ends its read at
	// ω + 2(10 − ω) = 20 − ω, B at 20; for ω ≥ 3 B reads the second copy
	// alone and A ends at 10. Computes alternate 5 s and 50 s, so each
	// pair has one straggler: ω ≥ 3 gives min(15, 63) and min(60, 18), a
	// mean of 16.5 s, against ≥ 23.5 s below; the least such ω is 3 s.
	var samples []OmegaSample
	for i := range 10 {
		c := 5 * time.Second
		if i%2 == 1 {
			c = 50 * time.Second
		}
		samples = append(samples, OmegaSample{Gap: 3 * time.Second, Read: 10 * time.Second, Compute: c})
	}
	assert.Equal(t, 3*time.Second, SearchOmega(samples, time.Second))

	// No second copy ever comes: waiting the whole read lets A read alone
	// (10 s) and B after it, rather than both at half rate (20 s).
	for i := range samples {
		samples[i].Gap = -1
	}
	assert.Equal(t, 10*time.Second, SearchOmega(samples, time.Second))

	// Nothing measured: the default.
	assert.Equal(t, time.Second, SearchOmega(nil, time.Second))
}

// BenchmarkSearchOmega is one bin's ω search over an hour's samples: 64
// from each of 20 cloned jobs.
func BenchmarkSearchOmega(b *testing.B) {
	samples := make([]OmegaSample, 20*64)
	for i := range samples {
		samples[i] = OmegaSample{
			Gap: time.Duration(i%7) * time.Second, Read: time.Duration(2+i%5) * time.Second,
			Compute: time.Duration(5+(i%11)*(i%3)) * time.Second,
		}
	}
	for range b.N {
		if SearchOmega(samples, time.Second) < 0 {
			b.Fatal("negative ω")
		}
	}
}
