package actors

import (
	"fmt"
	"slices"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
	"clusteremu/units"
	"clusteremu/workload"
)

// Dolly's budgeted cloning (Ananthanarayanan's thesis, §4.3) as a role of
// the coordinator, over the pure functions of policies/straggler/dolly.go.
// When a job's phase is first released (its maps at the start, its
// reduces at slow-start), the coordinator works out c, the copies each of
// its n tasks needs for the phase to straggle with probability at most ε
// given p, the share of the last period's measured attempts that
// straggled (rate under half their phase's median: AttemptMeasured), and
// admits the phase if its cost fits the budget β of the kind's live slots
// and the slots in use after cloning stay within τ; under admission
// "fcfs" it clones as many of the phase's tasks as fit, the lowest
// numbered, and the rest run uncloned. An admitted task gets c − 1
// clones, launched as copies of the running original
// (never on a node running the task), ahead of the job's pending tasks;
// the first copy to succeed ends the task and the others are killed, as
// for speculative copies. A reduce phase gets at most its maps' copies.
// The budget charged for a task is released when the task has finished
// and none of its copies runs. Every clone of a map writes its own
// output, and access says which copy each reduce clone reads
// (job_clones.go): "cc", all read the first; "cac", the k-th copy to
// finish is read by each reduce's k-th clone; "delay" (the default),
// exclusively as CAC until ω after the map's first copy, then the
// clones still unbound read the least-read copy and the unfinished
// copies are killed. ω is a duration, or "auto": per job bin (Table
// 2.1), searched each p_period over what the bin's cloned jobs measured
// (ClonesMeasured, straggler.SearchOmega).

// CloningConfig is the [cloning] table.
type CloningConfig struct {
	Name           string         `toml:"name"`            // "none" or "dolly"
	Epsilon        float64        `toml:"epsilon"`         // ε: the phase's acceptable straggling probability
	Budget         float64        `toml:"budget"`          // β: the share of a kind's slots clones may take
	UtilisationCap float64        `toml:"utilisation_cap"` // τ: the slots in use after cloning, at most
	Charge         string         `toml:"charge"`          // "all" (c·n) or "extra" ((c − 1)·n)
	PPeriod        units.Duration `toml:"p_period"`        // how often p is measured again
	PInitial       float64        `toml:"p_initial"`       // p before the first period ends
	Admission      string         `toml:"admission"`       // "control" (whole phases within the budget), "preempt" or "fcfs" (as many tasks as fit)
	Access         string         `toml:"access"`          // how reduce clones read map outputs: "delay", "cac" or "cc"
	Omega          Omega          `toml:"omega"`           // delay assignment's wait: a duration or "auto"
}

// Omega is delay assignment's ω: a fixed wait, or "auto", searched per
// job bin from measured samples.
type Omega struct {
	Auto bool
	Wait units.Duration
}

// UnmarshalTOML reads "auto" or a duration.
func (o *Omega) UnmarshalTOML(v any) error {
	if s, ok := v.(string); ok && s == OmegaAuto {
		*o = Omega{Auto: true}
		return nil
	}
	var d units.Duration
	if err := d.UnmarshalTOML(v); err != nil {
		return fmt.Errorf("%w, or %q", err, OmegaAuto)
	}
	*o = Omega{Wait: d}
	return nil
}

// MarshalTOML writes ω as a scenario does.
func (o Omega) MarshalTOML() ([]byte, error) {
	if o.Auto {
		return []byte(`"auto"`), nil
	}
	return o.Wait.MarshalTOML()
}

// String is ω as a scenario writes it.
func (o Omega) String() string {
	if o.Auto {
		return OmegaAuto
	}
	return o.Wait.String()
}

// Cloning names and choices.
const (
	CloningNone  = "none"
	CloningDolly = "dolly"
	AdmitControl = "control"
	AdmitFCFS    = "fcfs"
	AdmitPreempt = "preempt"
	OmegaAuto    = "auto"
)

// OmegaInitial is ω under "auto" before a bin's first period measured
// any sample: within the 2.5 s to 5.2 s the thesis reports for its
// smallest bins.
const OmegaInitial = 3 * time.Second

// DefaultCloning is no cloning, with the thesis's parameters when named:
// ε 5%, β 5%, τ 80%, p measured every hour and 5% before the first,
// delay assignment with ω searched per bin.
func DefaultCloning() CloningConfig {
	return CloningConfig{
		Name: CloningNone, Epsilon: 0.05, Budget: 0.05, UtilisationCap: 0.8, Charge: string(straggler.ChargeAll),
		PPeriod: units.Duration(time.Hour), PInitial: 0.05, Admission: AdmitControl, Access: string(straggler.AccessDelay),
		Omega: Omega{Auto: true},
	}
}

// On reports whether the coordinator clones.
func (c CloningConfig) On() bool { return c.Name == CloningDolly }

// IsZero reports whether the table changes nothing, which the
// configuration's hash leaves out.
func (c CloningConfig) IsZero() bool { return !c.On() }

// Validate checks [cloning].
func (c *CloningConfig) Validate(errs *Checks) {
	errs.Check(c.Name != CloningNone && c.Name != CloningDolly, "cloning.name", c.Name,
		fmt.Sprintf("must be %q or %q", CloningNone, CloningDolly))
	errs.Check(!(c.Epsilon > 0 && c.Epsilon < 1), "cloning.epsilon", c.Epsilon, "must be a probability in (0, 1) (the thesis's 0.05)")
	errs.Check(!(c.Budget >= 0 && c.Budget <= 1), "cloning.budget", c.Budget, "must be a share of the slots in [0, 1] (the thesis's 0.05)")
	errs.Check(!(c.UtilisationCap > 0 && c.UtilisationCap <= 1), "cloning.utilisation_cap", c.UtilisationCap, "must be a share of the slots in (0, 1] (the thesis's 0.8)")
	errs.Check(c.Charge != string(straggler.ChargeAll) && c.Charge != string(straggler.ChargeExtra), "cloning.charge", c.Charge,
		fmt.Sprintf("must be %q (c·n, Pseudocode 6) or %q ((c − 1)·n)", straggler.ChargeAll, straggler.ChargeExtra))
	errs.Check(c.PPeriod < MinPeriod, "cloning.p_period", c.PPeriod, fmt.Sprintf("must be at least %v (the thesis's 1h)", MinPeriod))
	errs.Check(!(c.PInitial >= 0 && c.PInitial <= 1), "cloning.p_initial", c.PInitial, "must be a probability in [0, 1]")
	errs.Check(c.Admission != AdmitControl && c.Admission != AdmitFCFS && c.Admission != AdmitPreempt, "cloning.admission", c.Admission,
		fmt.Sprintf("must be %q (whole phases within the budget), %q (withdrawing the newest admitted jobs' queued clones to fit) or %q (as many of a phase's tasks as fit, first come first served)",
			AdmitControl, AdmitPreempt, AdmitFCFS))
	errs.Check(!slices.Contains([]straggler.Access{straggler.AccessDelay, straggler.AccessCAC, straggler.AccessCC}, straggler.Access(c.Access)),
		"cloning.access", c.Access, fmt.Sprintf("must be %q (delay assignment), %q (contention avoidance) or %q (contention)",
			straggler.AccessDelay, straggler.AccessCAC, straggler.AccessCC))
	errs.Check(!c.Omega.Auto && c.Omega.Wait.Std() > straggler.OmegaMax, "cloning.omega", c.Omega.String(),
		fmt.Sprintf("must be %q or a wait of at most %v", OmegaAuto, straggler.OmegaMax))
}

// cloning is the coordinator's state of it.
type cloning struct {
	cfg    CloningConfig
	budget straggler.Budget
	// p is the straggling probability admission uses: the share of the
	// last period's measured attempts that straggled.
	p                   float64
	measured, straggled int
	periodEnds          time.Duration
	released            map[sched.JobID]*[2]bool   // each job's phases released so far
	copiesOf            map[sched.JobID]*[2]int    // the copies (c) each admitted phase's tasks have
	left                map[taskRef]int            // clones not yet launched, by task
	charged             [2]int                     // B_U: the budget charged and not released, by kind
	chargeOf            map[taskRef]int            // what each cloned task holds of it
	peakShare           float64                    // B_U's peak over the kind's live slots
	peakUse             float64                    // B_U's peak over β·C
	admitted            []sched.JobID              // the jobs cloned, in admission order
	nodesOf             map[taskRef][]sched.NodeID // the nodes each cloned task's attempts run on
	// omega is ω by job bin (workload.SizeBins) under "auto", samples
	// what the bin's cloned jobs measured this period.
	omega   []time.Duration
	samples [][]straggler.OmegaSample
}

func newCloning(cfg CloningConfig) *cloning {
	return &cloning{
		cfg: cfg, budget: straggler.Budget{Beta: cfg.Budget, Tau: cfg.UtilisationCap, Charge: straggler.Charge(cfg.Charge)},
		p: cfg.PInitial, periodEnds: cfg.PPeriod.Std(),
		released: map[sched.JobID]*[2]bool{}, copiesOf: map[sched.JobID]*[2]int{},
		left: map[taskRef]int{}, chargeOf: map[taskRef]int{}, nodesOf: map[taskRef][]sched.NodeID{},
		omega:   slices.Repeat([]time.Duration{OmegaInitial}, len(workload.SizeBins)),
		samples: make([][]straggler.OmegaSample, len(workload.SizeBins)),
	}
}

// measureClones books an attempt's rate ratio, and at a period's end
// makes the period's straggler share the p admission uses.
func (s *coordState) measureClones(now time.Duration, job sched.JobID, ratio float64) {
	cl := s.clones
	cl.roll(now)
	cl.measured++
	s.countJob(job, MetricAttemptsMeasured, 1)
	if ratio < StragglerRatio {
		cl.straggled++
		s.countJob(job, MetricAttemptsStraggled, 1)
	}
}

// countJob adds n to a counter on behalf of the job.
func (s *coordState) countJob(job sched.JobID, metric string, n int64) {
	s.out.jobCounts = append(s.out.jobCounts, jobCount{job, count{metric, n}})
}

// roll ends the periods past by now: p becomes the last one's share of
// stragglers, or stays when it measured none.
func (cl *cloning) roll(now time.Duration) {
	for now >= cl.periodEnds {
		if cl.measured > 0 {
			cl.p = float64(cl.straggled) / float64(cl.measured)
		}
		cl.measured, cl.straggled = 0, 0
		for b := range cl.omega {
			cl.omega[b] = straggler.SearchOmega(cl.samples[b], cl.omega[b])
			cl.samples[b] = nil
		}
		cl.periodEnds += cl.cfg.PPeriod.Std()
	}
}

// cloneRelease considers cloning a job's phase the first time it is
// released, at the p of the last period measured.
func (s *coordState) cloneRelease(job sched.JobID, kind sched.TaskKind, tasks []int32) {
	cl := s.clones
	rel := cl.released[job]
	if rel == nil {
		rel = &[2]bool{}
		cl.released[job] = rel
	}
	if rel[kind] || len(tasks) == 0 {
		return
	}
	rel[kind] = true
	n := len(tasks)
	c := straggler.Copies(n, cl.p, cl.cfg.Epsilon)
	copies := cl.copiesOf[job]
	if kind == sched.Reduce {
		if copies == nil || copies[sched.Map] < 2 {
			return // reduces get at most their maps' copies
		}
		c = min(c, copies[sched.Map])
		// The job manager learns the reduce clones its maps' copies
		// serve, cloned or not.
		defer func() {
			if copies[sched.Reduce] < 2 {
				s.emit(&tellJob{job, &ClonesAdmitted{Job: job, Kind: kind, Copies: 1}})
			}
		}()
	}
	k := s.admitClones(job, kind, n, c)
	if k == 0 {
		return
	}
	if copies == nil {
		copies = &[2]int{}
		cl.copiesOf[job] = copies
		cl.admitted = append(cl.admitted, job)
		s.countJob(job, MetricClonedJobs, 1)
	}
	copies[kind] = c
	per := cl.budget.Cost(1, c)
	for _, t := range lowestTasks(tasks, k) {
		ref := taskRef{job, kind, t}
		cl.left[ref] = c - 1
		cl.chargeOf[ref] = per
	}
	cl.charged[kind] += per * k
	if j := s.jobs[job]; j != nil {
		s.countJob(job, fmt.Sprintf("%s%d", MetricClonesChargedBin, workload.SizeBin(j.maps)), int64(per*k))
	}
	s.checkBudget(kind, true)
	s.emit(&tellJob{job, &ClonesAdmitted{Job: job, Kind: kind, Copies: c, Tasks: k, Omega: cl.omegaFor(s.jobs[job])}})
	s.countJob(job, MetricClonedPhases, 1)
	if share := float64(cl.charged[kind]) / float64(max(1, s.liveSlots[kind])); share > cl.peakShare {
		s.out.counts = append(s.out.counts, count{MetricCloneBudgetPeak, int64(1e6*share) - int64(1e6*cl.peakShare)})
		cl.peakShare = share
	}
}

// lowestTasks is the k lowest-numbered of a phase's tasks: those a
// partly cloned phase clones (ClonesAdmitted.Tasks).
func lowestTasks(tasks []int32, k int) []int32 {
	sorted := slices.Sorted(slices.Values(tasks))
	return sorted[:min(k, len(sorted))]
}

// admitClones is how many of a phase's n tasks are cloned c times: all
// of them or none within the budget ("control"), or within it after
// withdrawing the newest admitted jobs' queued clones ("preempt"), or as
// many as the budget has room for, first come first served ("fcfs",
// straggler.Budget.Fit).
func (s *coordState) admitClones(job sched.JobID, kind sched.TaskKind, n, c int) int {
	cl := s.clones
	if c < 2 {
		return 0
	}
	if cl.cfg.Admission == AdmitFCFS {
		return cl.budget.Fit(n, c, s.liveSlots[kind], s.slotsUsed(kind), cl.charged[kind])
	}
	fits := func() bool {
		return cl.budget.Admit(n, c, s.liveSlots[kind], s.slotsUsed(kind), cl.charged[kind])
	}
	whole := func() int {
		if fits() {
			return n
		}
		return 0
	}
	if fits() || cl.cfg.Admission != AdmitPreempt ||
		float64(s.slotsUsed(kind)+c*n) > cl.budget.Tau*float64(s.liveSlots[kind]) {
		return whole() // withdrawing queued clones frees no slot in use
	}
	for i := len(cl.admitted) - 1; i >= 0 && !fits(); i-- {
		if cl.admitted[i] != job {
			s.withdrawClones(cl.admitted[i], kind)
		}
	}
	return whole()
}

// slotsUsed is U: the slots of the kind in use.
func (s *coordState) slotsUsed(kind sched.TaskKind) int {
	used := 0
	for i := range s.nodes {
		used += countTrue(s.nodes[i].busy[kind])
	}
	return used
}

// withdrawClones takes back a job's clones of the kind not yet launched
// and the budget they held (admission "preempt"), lowest task first.
func (s *coordState) withdrawClones(job sched.JobID, kind sched.TaskKind) {
	cl := s.clones
	var refs []taskRef
	for ref, left := range cl.left {
		if ref.job == job && ref.kind == kind && left > 0 {
			refs = append(refs, ref)
		}
	}
	slices.SortFunc(refs, func(a, b taskRef) int { return int(a.task) - int(b.task) })
	for _, ref := range refs {
		left := cl.left[ref]
		cl.left[ref] = 0
		cl.chargeOf[ref] -= left
		cl.charged[kind] -= left
		s.countJob(job, MetricClonesPreempted, int64(left))
	}
}

// checkBudget fails the run if B_U, the budget charged, went negative,
// or, just after an admission (admitted), passed β·C; it books
// the budget's peak use. (A node lost later shrinks C under a B_U
// admitted within it: only admissions are held to the bound.)
func (s *coordState) checkBudget(kind sched.TaskKind, admitted bool) {
	cl := s.clones
	limit := cl.cfg.Budget * float64(s.liveSlots[kind])
	charged := cl.charged[kind]
	if charged < 0 || admitted && float64(charged) > limit+1e-9 {
		s.fail("cloning: B_U = %d %v slots, outside [0, β·C = %g]", charged, kind, limit)
	}
	if admitted && limit > 0 {
		if use := float64(cl.charged[kind]) / limit; use > cl.peakUse {
			s.out.counts = append(s.out.counts, count{MetricCloneBudgetMax, int64(1e6*use) - int64(1e6*cl.peakUse)})
			cl.peakUse = use
		}
	}
}

// takeClone finds a clone of the job's for the node: of a task whose
// original runs (copyable), not on this node, within max. It takes it.
func (s *coordState) takeClone(job sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	t, loc, ok := s.bestClone(job, kind, node, max)
	if ok {
		s.clones.left[taskRef{job, kind, t}]--
	}
	return t, loc, ok
}

// bestClone is the clone takeClone would take, lowest task first.
func (s *coordState) bestClone(job sched.JobID, kind sched.TaskKind, node sched.NodeID, max sched.Locality) (int32, sched.Locality, bool) {
	cl := s.clones
	copies := cl.copiesOf[job]
	if copies == nil || copies[kind] < 2 {
		return 0, 0, false
	}
	best, bestLoc, found := int32(0), sched.OffRack, false
	for ref, left := range cl.left {
		if ref.job != job || ref.kind != kind || left <= 0 || !s.table.copyable(job, kind, ref.task) || s.taskRunsOn(ref, node) {
			continue
		}
		loc := sched.OffRack
		if kind == sched.Map {
			loc = s.table.mapLocality(job, ref.task, node)
		}
		if loc <= max && (!found || loc < bestLoc || loc == bestLoc && ref.task < best) {
			best, bestLoc, found = ref.task, loc, true
		}
	}
	return best, bestLoc, found
}

// taskRunsOn reports whether an attempt of the cloned task runs on the
// node.
func (s *coordState) taskRunsOn(ref taskRef, node sched.NodeID) bool {
	return slices.Contains(s.clones.nodesOf[ref], node)
}

// cloneLaunched books an attempt of a cloned task on its node, and
// counts it if it is a clone.
func (s *coordState) cloneLaunched(a sched.Attempt, node sched.NodeID, clone bool) {
	ref := taskRef{a.Job, a.Kind, a.Task}
	if _, cloned := s.clones.chargeOf[ref]; cloned {
		s.clones.nodesOf[ref] = append(s.clones.nodesOf[ref], node)
	}
	if clone {
		s.countJob(a.Job, MetricClonesLaunched, 1)
	}
}

// cloneTaskEnded releases a cloned task's charge once it has finished:
// its copies not yet launched never will be.
func (s *coordState) cloneTaskEnded(a sched.Attempt, node sched.NodeID) {
	cl := s.clones
	ref := taskRef{a.Job, a.Kind, a.Task}
	if nodes := cl.nodesOf[ref]; len(nodes) > 0 {
		if i := slices.Index(nodes, node); i >= 0 {
			cl.nodesOf[ref] = slices.Delete(nodes, i, i+1)
		}
	}
	if _, ok := cl.chargeOf[ref]; !ok || !s.table.taskDone(a.Job, a.Kind, a.Task) || len(cl.nodesOf[ref]) > 0 {
		return // charged while any copy runs
	}
	delete(cl.nodesOf, ref)
	cl.charged[a.Kind] -= cl.chargeOf[ref]
	delete(cl.chargeOf, ref)
	delete(cl.left, ref)
	s.checkBudget(a.Kind, false)
}

// cloneJobEnded forgets a job's clones and releases what it held.
func (s *coordState) cloneJobEnded(job sched.JobID) {
	cl := s.clones
	for ref, charge := range cl.chargeOf {
		if ref.job == job {
			cl.charged[ref.kind] -= charge
			delete(cl.chargeOf, ref)
			delete(cl.left, ref)
			delete(cl.nodesOf, ref)
		}
	}
	delete(cl.released, job)
	delete(cl.copiesOf, job)
	if i := slices.Index(cl.admitted, job); i >= 0 {
		cl.admitted = slices.Delete(cl.admitted, i, i+1)
	}
	s.checkBudget(sched.Map, false)
	s.checkBudget(sched.Reduce, false)
}

// omegaFor is the ω a job's map phase waits under delay assignment: the
// configured wait, or under "auto" its bin's.
func (cl *cloning) omegaFor(j *coordJob) time.Duration {
	if !cl.cfg.Omega.Auto {
		return cl.cfg.Omega.Wait.Std()
	}
	if j == nil {
		return OmegaInitial
	}
	return cl.omega[workload.SizeBin(j.maps)-1]
}

// maxOmegaSamples bounds the samples one job adds to its bin's period.
const maxOmegaSamples = 64

// clonesMeasured books a cloned job's samples for its bin's next ω: each
// reduce's read at its node's NIC rate and the rest of its time, paired with
// its maps' gaps between their first and second copies in turn.
func (s *coordState) clonesMeasured(now time.Duration, msg *ClonesMeasured, nicOf func(sched.NodeID) float64) {
	cl := s.clones
	cl.roll(now)
	if !cl.cfg.Omega.Auto || len(msg.Gaps) == 0 {
		return
	}
	b := workload.SizeBin(msg.Maps) - 1
	for i, r := range msg.Reduces[:min(len(msg.Reduces), maxOmegaSamples)] {
		nic := nicOf(r.Node)
		if nic <= 0 {
			continue
		}
		read := time.Duration(float64(r.Bytes) / nic * float64(time.Second))
		cl.samples[b] = append(cl.samples[b], straggler.OmegaSample{
			Gap: msg.Gaps[i%len(msg.Gaps)], Read: read, Compute: max(r.Held-read, 0),
		})
	}
}
