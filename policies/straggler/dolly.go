package straggler

import "math"

// Dolly's budgeted cloning (Ananthanarayanan's thesis, §4.3, Pseudocode 6;
// the notes' §3): a small job's tasks all start at once, so speculation
// acts too late for them; Dolly launches c copies of every task of a
// phase up front, enough that the job straggles with probability at most
// ε, within a budget of the cluster's slots. These are the pure parts:
// how many copies, whether a job is admitted, and what a job's straggling
// probability is under each way its clones read intermediate data. The
// coordinator keeps the budget's state and calls them.

// Probability bounds p is clamped to: a cluster that measured no
// straggler still clones (log 0 has no answer), and one where most tasks
// straggle clones no more than half its tasks would warrant.
const (
	minStraggleP = 0.001
	maxStraggleP = 0.5
)

// Copies is c = ⌈log(1 − (1 − ε)^(1/n)) / log p⌉, at least 1: the copies
// of each of a phase's n tasks (the task itself counted) that keep the
// phase from straggling with probability above ε, a task straggling with
// probability p (clamped to [0.001, 0.5]). The quotient is rounded up
// only past a margin of 1e-9, so a whole answer computed a hair above its
// value (n = 1 and p = ε is exactly 1) is not taken for the next.
func Copies(n int, p, eps float64) int {
	if n < 1 {
		return 1
	}
	p = min(max(p, minStraggleP), maxStraggleP)
	q := math.Log(-math.Expm1(math.Log1p(-eps)/float64(n))) / math.Log(p)
	return max(1, int(math.Ceil(q-1e-9)))
}

// JobStraggles is the probability that a phase of n tasks, each cloned c
// times (c copies in all), straggles: every copy of some task does,
// 1 − (1 − p^c)^n (task-level cloning, §4.3.2).
func JobStraggles(n, c int, p float64) float64 {
	return 1 - math.Pow(1-math.Pow(p, float64(c)), float64(n))
}

// psi is Ψ(n, c, d), the probability that each of n upstream clone groups
// of c copies has at least d copies that do not straggle (eq. 4.3); Ψ is
// 0 for d > c.
func psi(n, c, d int, p float64) float64 {
	if d > c {
		return 0
	}
	sum := 0.0
	for i := 0; i <= c-d; i++ {
		sum += binomial(c, i) * math.Pow(p, float64(i)) * math.Pow(1-p, float64(c-i))
	}
	return math.Pow(sum, float64(n))
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// StragglesCAC is the probability that a two-phase job of n upstream and
// n downstream tasks, c copies each, straggles under contention-avoidance
// cloning, each finished upstream copy read by one downstream copy per
// group (eq. 4.4 with the notes' erratum: the probability that the
// fewest non-straggling copies of any upstream group is exactly d is
// Ψ(d) − Ψ(d + 1), not the thesis's Ψ(d) − Ψ(d − 1), which is negative).
func StragglesCAC(n, c int, p float64) float64 {
	ok := 0.0
	for d := 1; d <= c; d++ {
		ok += (psi(n, c, d, p) - psi(n, c, d+1, p)) * math.Pow(1-math.Pow(p, float64(d)), float64(n))
	}
	return 1 - ok
}

// StragglesCC is the probability that the same job straggles under
// contention cloning, every downstream copy reading the first upstream
// copy to finish (eq. 4.5).
func StragglesCC(n, c int, p float64) float64 {
	return 1 - psi(n, c, 1, p)*math.Pow(1-math.Pow(p, float64(c)), float64(n))
}

// Charge is what a cloned phase costs the budget.
type Charge string

// The charges: Pseudocode 6's c·n, the originals with their copies, or
// only the (c − 1)·n extra copies.
const (
	ChargeAll   Charge = "all"
	ChargeExtra Charge = "extra"
)

// Budget is Dolly's admission control over a kind of slots: the budget
// β of the capacity, the utilisation ceiling τ, and what a phase costs.
type Budget struct {
	Beta, Tau float64
	Charge    Charge
}

// Cost is what a phase of n tasks cloned c times charges the budget.
func (b Budget) Cost(n, c int) int {
	if b.Charge == ChargeExtra {
		return (c - 1) * n
	}
	return c * n
}

// Admit reports whether a phase of n tasks may be cloned c times, given
// the capacity in slots, the slots in use and the budget already charged
// (B_U: charged copies not yet ended): if B_U + cost ≤ β·C and
// (U + c·n)/C ≤ τ (the notes' erratum 5: the thesis compares U + c·n, in
// slots, with τ, a fraction). A phase that would not fit is run without
// clones, which favours small jobs.
func (b Budget) Admit(n, c, capacity, used, charged int) bool {
	if n < 1 || c < 2 || capacity < 1 {
		return false
	}
	return float64(charged+b.Cost(n, c)) <= b.Beta*float64(capacity) &&
		float64(used+c*n)/float64(capacity) <= b.Tau
}
