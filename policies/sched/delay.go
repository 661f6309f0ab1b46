package sched

import (
	"time"

	"clusteremu/units"
)

// Waits are delay scheduling's two waits: a job without a node-local task
// for the offered node is skipped until it has waited T1, may then launch
// rack-local, and anywhere after T1 + T2.
//
// Delay scheduling is an option of both "fair" and "fifo" rather than a
// wrapper policy: when the head job is skipped the slot must be offered to
// the next job in the policy's own order, which a wrapper around Assign
// (one answer per slot) cannot see. Both take the parameters delay, t1 and
// t2; "fair" enables it by default (the paper's scheduler), "fifo" does
// not (Hadoop's), so the paper's "FIFO with and without delay scheduling"
// (Table 3) is fifo with delay = false and true.
type Waits struct {
	Enabled bool
	T1, T2  time.Duration
}

// defaultWait is T1 and T2 unless a scenario sets them: the paper's 15 s.
const defaultWait = 15 * time.Second

// DelayParams are delay scheduling's parameters, a part of both "fifo"'s
// and "fair"'s: delay turns it on, t1 and t2 are the waits.
type DelayParams struct {
	Delay bool           `toml:"delay"`
	T1    units.Duration `toml:"t1"`
	T2    units.Duration `toml:"t2"`
}

// Waits returns the parameters as Waits.
func (p *DelayParams) Waits() Waits {
	return Waits{Enabled: p.Delay, T1: p.T1.Std(), T2: p.T2.Std()}
}

func (p *DelayParams) check(c *paramChecks) {
	c.duration("t1", p.T1)
	c.duration("t2", p.T2)
}

// delayState is Algorithm 1 of Zaharia et al. 2009: per job a locality
// level (node-local only, rack-local allowed, anywhere), the wait
// accrued while skipped, and whether it was skipped since the last
// heartbeat. As the paper's pseudocode says, a skipped job's wait grows by
// the time between heartbeats (from any node), and only over gaps that
// follow a heartbeat in which it was examined and skipped.
type delayState struct {
	jobs    map[JobID]*delayJob
	last    time.Duration // the previous heartbeat
	skipped []*delayJob   // the jobs skipped since it, each once
}

type delayJob struct {
	waits   Waits
	level   Locality
	wait    time.Duration
	skipped bool
}

func newDelayState() *delayState {
	return &delayState{jobs: map[JobID]*delayJob{}}
}

// add starts a job at the node-local level with the waits w.
func (d *delayState) add(job Job, w Waits) {
	d.jobs[job.ID] = &delayJob{waits: w, level: NodeLocal}
}

// delayLevel is the level a locality counts as: a memory-local task (its
// block in the node's cache) is as local as delay scheduling waits for,
// so PACMan's memory locality adds no level of its own.
func delayLevel(l Locality) Locality { return max(l, NodeLocal) }

func (d *delayState) remove(id JobID) { delete(d.jobs, id) }

// heartbeat adds the time since the previous heartbeat to every job
// skipped since then: a list of them, not a scan of every job, since a
// cluster heartbeats far more often than jobs are skipped.
func (d *delayState) heartbeat(now time.Duration) {
	gap := now - d.last
	d.last = now
	for _, j := range d.skipped {
		j.wait += gap // a job removed since is no longer read
		j.skipped = false
	}
	clear(d.skipped)
	d.skipped = d.skipped[:0]
}

// offer answers a slot offer for one job: reduce slots at any locality,
// map slots through allow. A job with no pending task of the kind for the
// node (View.BestLocality reports none) is not examined, so it is not
// marked skipped.
func (d *delayState) offer(id JobID, v View, s Slot) (Assignment, bool) {
	if s.Kind == Reduce {
		_, ok := v.BestLocality(id, Reduce, s.Node)
		if ok {
			s.Why.Note(id, "takes the slot for a reduce")
		}
		return Assignment{Job: id, Kind: Reduce, MaxLocality: OffRack}, ok
	}
	loc, ok := d.allow(id, v, s)
	return Assignment{Job: id, Kind: Map, MaxLocality: loc}, ok
}

// allow decides whether the job may launch a map on the node and at what
// locality at worst; a job that may not is marked skipped.
func (d *delayState) allow(id JobID, v View, s Slot) (Locality, bool) {
	j := d.jobs[id]
	best, ok := v.BestLocality(id, Map, s.Node)
	if !ok {
		return 0, false
	}
	if j == nil || !j.waits.Enabled {
		s.Why.Note(id, "takes the slot for a map (%s at best), no delay scheduling", best.words())
		return OffRack, true
	}
	w := j.waits
	switch {
	case best <= NodeLocal:
		s.Why.Note(id, "takes the slot for a %s map", best.words())
		j.level, j.wait = NodeLocal, 0
		return NodeLocal, true
	case best == RackLocal && (j.level >= RackLocal || j.wait >= w.T1):
		s.Why.Note(id, "takes the slot for a rack-local map (level %v, waited %v, t1 %v)", j.level, j.wait, w.T1)
		j.level, j.wait = RackLocal, 0
		return RackLocal, true
	case j.level == OffRack || (j.level == RackLocal && j.wait >= w.T2) || (j.level == NodeLocal && j.wait >= w.T1+w.T2):
		s.Why.Note(id, "takes the slot for a %s map (level %v, waited %v, t1 %v, t2 %v)", best.words(), j.level, j.wait, w.T1, w.T2)
		j.level, j.wait = OffRack, 0
		return OffRack, true
	}
	s.Why.Note(id, "skipped by delay scheduling: its best map here is %s, and it has waited %v at level %v (t1 %v, t2 %v)",
		best.words(), j.wait, j.level, w.T1, w.T2)
	if !j.skipped {
		j.skipped = true
		d.skipped = append(d.skipped, j)
	}
	return 0, false
}

// forfeits reports whether allow would let a job at the node-local level
// launch a less local map on the slot's node now, having waited long
// enough: where Dryad-style eviction (fair_evict.go) may hold it instead.
// It changes nothing.
func (d *delayState) forfeits(id JobID, v View, s Slot) bool {
	j := d.jobs[id]
	if j == nil || !j.waits.Enabled || j.level != NodeLocal {
		return false
	}
	best, ok := v.BestLocality(id, Map, s.Node)
	if !ok || best <= NodeLocal {
		return false
	}
	w := j.waits
	return best == RackLocal && j.wait >= w.T1 || j.wait >= w.T1+w.T2
}

// launched lowers a job's level when it launched a more local task than
// its level required: a job unlucky early on does not keep launching
// non-local tasks.
func (d *delayState) launched(id JobID, l Locality) {
	if j := d.jobs[id]; j != nil && delayLevel(l) < j.level {
		j.level, j.wait = delayLevel(l), 0
	}
}

// wants reports whether a job has a pending task the slot's node may run,
// for explanations: a job that has none is passed over without a look.
func wants(v View, id JobID, s Slot) bool {
	_, ok := v.BestLocality(id, s.Kind, s.Node)
	return ok
}
