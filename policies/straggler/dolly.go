package straggler

import (
	"math"
	"slices"
	"sort"
	"time"
)

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
// clones, which favours small jobs: admission control.
func (b Budget) Admit(n, c, capacity, used, charged int) bool {
	return n >= 1 && b.Fit(n, c, capacity, used, charged) == n
}

// Fit is how many of a phase's n tasks may be cloned c times within the
// budget and τ, as Admit checks them with k tasks for n: the most k ≤ n
// with B_U + cost(k) ≤ β·C and (U + c·k)/C ≤ τ, 0 when not one fits.
// Pure first-come-first-served admission (the thesis's "pure-FCFS",
// neither admission control nor preemption) clones that many of a
// phase's tasks and leaves the rest uncloned, so a large job that comes
// first takes what the budget has left and a small one after it gets
// none. The complexity is O(log n).
func (b Budget) Fit(n, c, capacity, used, charged int) int {
	if n < 1 || c < 2 || capacity < 1 {
		return 0
	}
	fits := func(k int) bool {
		return float64(charged+b.Cost(k, c)) <= b.Beta*float64(capacity) &&
			float64(used+c*k)/float64(capacity) <= b.Tau
	}
	// fits holds up to some k and fails past it: the first k that fails,
	// less one.
	return max(sort.Search(n+1, func(k int) bool { return !fits(k) })-1, 0)
}

// Access is how a phase's reduce clones read the copies of a cloned map's
// output (§4.3.3, the notes' §3.4).
type Access string

// The access modes: contention cloning binds every reduce clone to the
// first copy to finish; contention-avoidance cloning binds the k-th
// finished copy to the k-th clone of each reduce; delay assignment binds
// exclusively as CAC does, then ω after the first copy binds the clones
// still unbound to the least-read copy.
const (
	AccessCC    Access = "cc"
	AccessCAC   Access = "cac"
	AccessDelay Access = "delay"
)

// Binding is one cloned map's finished copies as its reduces' clones
// read them. Every reduce task has the same slots, one per clone (slot 0
// for the original), and slot s of every reduce reads the same copy, so
// a copy is read by one clone of each reduce, as many readers as an
// uncloned map has: Bound[s] is the copy slot s reads (in finish order, -1
// while unbound), Readers[k] how many slots read copy k. Closed is set
// once every slot is bound: the map's unfinished copies are no longer
// needed. A binding changes only when a copy is lost with its node
// (Drop): the reduce clones reading it forget it before reading another,
// so no clone reads two copies of a map.
type Binding struct {
	Bound   []int
	Readers []int
	Closed  bool
	// Gone marks the copies lost with their node (Drop), by copy; nil
	// while none is.
	Gone []bool
}

// NewBinding is a map's binding before any copy finished, for slots
// reduce clones; none when the map has no reduce to read it (closed).
func NewBinding(slots int) Binding {
	b := Binding{Bound: make([]int, max(slots, 0)), Closed: slots <= 0}
	for i := range b.Bound {
		b.Bound[i] = -1
	}
	return b
}

// Finished books the next copy to finish, copy len(Readers), and returns
// the slots it binds: under CC the first copy binds them all; under CAC
// and delay each copy binds the lowest slot still unbound, exclusively.
// A copy finishing after the binding closed binds nothing.
func (b *Binding) Finished(mode Access) []int {
	k := len(b.Readers)
	b.Readers = append(b.Readers, 0)
	if b.Closed {
		return nil
	}
	var slots []int
	for s, c := range b.Bound {
		if c < 0 {
			b.bind(s, k)
			slots = append(slots, s)
			if mode != AccessCC {
				break
			}
		}
	}
	b.maybeClose()
	return slots
}

func (b *Binding) bind(slot, copy int) {
	b.Bound[slot] = copy
	b.Readers[copy]++
}

func (b *Binding) maybeClose() {
	b.Closed = !slices.Contains(b.Bound, -1)
}

// Expire binds every unbound slot to the least-read finished copy (the
// earliest on a tie) and closes the binding: delay assignment's ω has
// passed, or no copy is left running to finish. It returns the slots
// bound; none before any copy finished.
func (b *Binding) Expire() []int {
	if b.Closed || len(b.Readers) == 0 {
		return nil
	}
	least := b.leastRead()
	if least < 0 {
		return nil
	}
	var slots []int
	for s, c := range b.Bound {
		if c < 0 {
			b.bind(s, least)
			slots = append(slots, s)
			least = b.leastRead()
		}
	}
	b.Closed = true
	return slots
}

// leastRead is the finished copy not gone with the fewest readers, the
// earliest on a tie; -1 when there is none.
func (b *Binding) leastRead() int {
	least := -1
	for k, r := range b.Readers {
		if !b.Lost(k) && (least < 0 || r < b.Readers[least]) {
			least = k
		}
	}
	return least
}

// Lost reports whether copy k was lost with its node (Drop).
func (b *Binding) Lost(k int) bool { return k < len(b.Gone) && b.Gone[k] }

// Drop books finished copy k lost with its node: it is read no more, and
// the slots bound to it are bound again, each to the least-read copy
// left, which a reduce clone that was reading copy k reads instead, its
// lost copy forgotten. It returns those slots, and false when no
// finished copy is left (the map must be made again).
func (b *Binding) Drop(k int) ([]int, bool) {
	if k < 0 || k >= len(b.Readers) || b.Lost(k) {
		return nil, b.leastRead() >= 0
	}
	b.Gone = append(b.Gone, make([]bool, len(b.Readers)-len(b.Gone))...)
	b.Gone[k] = true
	b.Readers[k] = 0
	if b.leastRead() < 0 {
		return nil, false
	}
	var slots []int
	for s, c := range b.Bound {
		if c == k {
			b.bind(s, b.leastRead())
			slots = append(slots, s)
		}
	}
	return slots, true
}

// Need lowers the slots to n, the reduce phase's clones once its
// admission is known (a reduce phase gets at most its maps' copies), and
// closes the binding if those are all bound.
func (b *Binding) Need(n int) {
	if n < 0 || n >= len(b.Bound) {
		return
	}
	for _, c := range b.Bound[n:] {
		if c >= 0 {
			b.Readers[c]--
		}
	}
	b.Bound = b.Bound[:n]
	b.maybeClose()
}

// OmegaSample is what a cloned job measured for delay assignment's ω:
// Gap, how long after a map's first copy its second finished (negative
// when none did before it was killed), paired with a reduce's Read, the
// time to read its input alone, and Compute, its time after reading.
type OmegaSample struct {
	Gap, Read, Compute time.Duration
}

// Omega grid: the notes' search, 0 to 20 s by 0.5 s.
const (
	OmegaStep = 500 * time.Millisecond
	OmegaMax  = 20 * time.Second
)

// contendedShare is α, the share of a copy's read rate each of two
// clones reading it at once gets: they split its disk and NIC.
const contendedShare = 0.5

// SearchOmega is delay assignment's ω for a bin of jobs: the grid value
// (0 to 20 s by 0.5 s) that minimises the mean time for a reduce's two
// clones' first to finish (§4.3.3's Step 3, the notes' Monte Carlo over
// the bin's samples). Clone A reads the first copy alone and computes for
// sample i's Compute; clone B reads the second copy alone if it comes
// within ω (after its gap), else reads the first copy from ω, sharing it
// at α = ½ while both read (the notes' T_C), and computes for the next
// sample's Compute, so a straggling compute of one clone is covered by
// the other. Ties go to the smaller ω. With no sample it returns def.
// The complexity is O(41 × samples).
func SearchOmega(samples []OmegaSample, def time.Duration) time.Duration {
	if len(samples) == 0 {
		return def
	}
	best, bestCost := time.Duration(0), math.Inf(1)
	for w := time.Duration(0); w <= OmegaMax; w += OmegaStep {
		cost := 0.0
		for i, s := range samples {
			cost += groupTime(s, samples[(i+1)%len(samples)].Compute, w)
		}
		if cost < bestCost-1e-9 {
			best, bestCost = w, cost
		}
	}
	return best
}

// groupTime is the seconds until the first of two clones ends, for
// sample s, clone B's compute b and wait w.
func groupTime(s OmegaSample, b, w time.Duration) float64 {
	read, wait := s.Read.Seconds(), w.Seconds()
	a := read
	var bRead float64
	switch {
	case s.Gap >= 0 && s.Gap <= w:
		bRead = s.Gap.Seconds() + read
	case read <= wait:
		bRead = wait + read // A has read all: B reads alone after it
	default:
		shared := (read - wait) / contendedShare
		a = wait + shared
		bRead = 2*wait + shared
	}
	return min(a+s.Compute.Seconds(), bRead+b.Seconds())
}
