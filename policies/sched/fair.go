package sched

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"clusteremu/units"
)

// Pool is a FAIR pool: a minimum share of map and reduce slots, a weight
// for the slots beyond, and optionally its own delay-scheduling waits
// (IO-rate biasing: a pool of CPU-bound jobs with T1 = 0 launches them
// anywhere at once).
type Pool struct {
	Name     string
	MinShare [2]int // by TaskKind
	Weight   float64
	Waits    *Waits // nil: the policy's
}

// FairConfig configures the FAIR scheduler (Zaharia et al. 2009).
type FairConfig struct {
	Pools []Pool // jobs of pools not listed go to a pool of their own name with no minimum
	// PoolPerJob puts every job that names no pool in a pool of its own,
	// "job-<id>", instead of sharing the default pool "": jobs then share
	// slots and preempt one another as pools do (Hadoop's fair scheduler
	// with a pool per user, each user running one job).
	PoolPerJob bool
	Delay      Waits // delay scheduling's waits; Enabled false launches greedily
	// Preemption kills tasks of jobs over their share for a pool below its
	// minimum share for MinTimeout, or below Fraction × its fair share for
	// FairTimeout. The paper's fraction is 1; later Hadoop used 0.5.
	Preempt     bool
	MinTimeout  time.Duration
	FairTimeout time.Duration
	Fraction    float64
	// EvictForLocality is Dryad's contention resolution (fair_evict.go):
	// a job below its fair share that would forfeit locality gives a task
	// of a job over its share, on a node holding its input, notice, and
	// takes the node's next map slot; the task is killed if it still
	// runs EvictionNotice later.
	EvictForLocality bool
	EvictionNotice   time.Duration
}

// DefaultFairConfig is the paper's setting: delay scheduling with T1 = T2
// = 15 s, fair-share fraction 1, preemption off. The paper gives no
// preemption timeouts, only that they "let starved jobs acquire task slots
// after several minutes"; the defaults, T_min = 300 s and T_fair = 600 s,
// are the values in Hadoop 1's sample allocation file.
func DefaultFairConfig() FairConfig {
	return FairConfig{
		Delay:      Waits{Enabled: true, T1: defaultWait, T2: defaultWait},
		MinTimeout: 5 * time.Minute, FairTimeout: 10 * time.Minute, Fraction: 1, EvictionNotice: defaultNotice,
	}
}

// FairParams are "fair"'s parameters:
//
//	delay = true                 # delay scheduling
//	t1 = "15s"                   # wait before rack-local
//	t2 = "15s"                   # further wait before off-rack
//	preemption = false
//	min_share_timeout = "300s"   # T_min
//	fair_share_timeout = "600s"  # T_fair
//	fair_share_fraction = 1.0    # preempt below this fraction of the fair share
//	pool_per_job = false         # a job without a pool gets its own
//	pools = [{name = "prod", min_maps = 60, min_reduces = 20, weight = 1.0, t1 = "0s"}]
//	evict_for_locality = false   # Dryad's eviction instead of forfeiting locality
//	eviction_notice = "30s"      # the notice an evicted task gets
//
// They are FairConfig as a scenario writes it (Config).
type FairParams struct {
	DelayParams
	Preemption        bool           `toml:"preemption"`
	MinShareTimeout   units.Duration `toml:"min_share_timeout"`
	FairShareTimeout  units.Duration `toml:"fair_share_timeout"`
	FairShareFraction float64        `toml:"fair_share_fraction"`
	PoolPerJob        bool           `toml:"pool_per_job"`
	Pools             []PoolParams   `toml:"pools"`
	// EvictForLocality and EvictionNotice (nil: 30 s) turn on Dryad's
	// contention resolution (fair_evict.go); left out of the JSON when
	// unset, so a run without them hashes as before.
	EvictForLocality bool            `toml:"evict_for_locality" json:",omitempty"`
	EvictionNotice   *units.Duration `toml:"eviction_notice" json:",omitempty"`
}

// PoolParams are one pool of "fair": its name (required), its weight
// (default 1), its minimum shares of map and reduce slots (default 0) and
// its own delay-scheduling waits. A pool that leaves out t1 or t2 takes
// the policy's; one that sets either takes the policy's waits with that
// one replaced, delay on or off as the policy's.
type PoolParams struct {
	Name       string          `toml:"name"`
	Weight     *float64        `toml:"weight"` // nil: 1
	MinMaps    int             `toml:"min_maps"`
	MinReduces int             `toml:"min_reduces"`
	T1         *units.Duration `toml:"t1"` // nil: the policy's
	T2         *units.Duration `toml:"t2"` // nil: the policy's
}

// DefaultFairParams returns "fair"'s defaults, DefaultFairConfig's.
func DefaultFairParams() *FairParams {
	d := DefaultFairConfig()
	return &FairParams{
		DelayParams:     DelayParams{Delay: d.Delay.Enabled, T1: units.Duration(d.Delay.T1), T2: units.Duration(d.Delay.T2)},
		MinShareTimeout: units.Duration(d.MinTimeout), FairShareTimeout: units.Duration(d.FairTimeout),
		FairShareFraction: d.Fraction,
	}
}

// Validate implements Params.
func (p *FairParams) Validate() error {
	var c paramChecks
	p.check(&c)
	c.duration("min_share_timeout", p.MinShareTimeout)
	c.duration("fair_share_timeout", p.FairShareTimeout)
	c.number("fair_share_fraction", p.FairShareFraction, 0, 1)
	if p.EvictionNotice != nil {
		c.duration("eviction_notice", *p.EvictionNotice)
	}
	c.check(p.EvictForLocality && !p.Delay, "evict_for_locality", true,
		"needs delay scheduling (delay = true): a job evicts for a node-local slot where it would otherwise forfeit locality after t1")
	first := map[string]int{}
	for i := range p.Pools {
		key := fmt.Sprintf("pools[%d]", i)
		p.Pools[i].check(&c, key)
		name := p.Pools[i].Name
		if j, dup := first[name]; dup && name != "" {
			c.check(true, key+".name", name, fmt.Sprintf("names pools[%d] again: a pool is declared once", j))
		} else {
			first[name] = i
		}
	}
	return c.err()
}

func (p *PoolParams) check(c *paramChecks, key string) {
	c.check(p.Name == "", key+".name", nil, "missing; every pool needs a name")
	if p.Weight != nil {
		c.number(key+".weight", *p.Weight, 1e-3, 1e3)
	}
	c.count(key+".min_maps", p.MinMaps)
	c.count(key+".min_reduces", p.MinReduces)
	if p.T1 != nil {
		c.duration(key+".t1", *p.T1)
	}
	if p.T2 != nil {
		c.duration(key+".t2", *p.T2)
	}
}

// Config returns the configuration the parameters describe.
func (p *FairParams) Config() FairConfig {
	cfg := FairConfig{
		Delay: p.Waits(), PoolPerJob: p.PoolPerJob, Preempt: p.Preemption,
		MinTimeout: p.MinShareTimeout.Std(), FairTimeout: p.FairShareTimeout.Std(), Fraction: p.FairShareFraction,
		EvictForLocality: p.EvictForLocality, EvictionNotice: defaultNotice,
	}
	if p.EvictionNotice != nil {
		cfg.EvictionNotice = p.EvictionNotice.Std()
	}
	for i := range p.Pools {
		cfg.Pools = append(cfg.Pools, p.Pools[i].pool(cfg.Delay))
	}
	return cfg
}

// pool is the pool the parameters describe under the policy's waits.
func (p *PoolParams) pool(delay Waits) Pool {
	pool := Pool{Name: p.Name, Weight: 1, MinShare: [2]int{p.MinMaps, p.MinReduces}}
	if p.Weight != nil {
		pool.Weight = *p.Weight
	}
	if p.T1 != nil || p.T2 != nil {
		w := delay
		if p.T1 != nil {
			w.T1 = p.T1.Std()
		}
		if p.T2 != nil {
			w.T2 = p.T2.Std()
		}
		pool.Waits = &w
	}
	return pool
}

// Fair is the FAIR scheduler: max-min fair shares with minimum guarantees
// among pools and fair sharing among a pool's jobs, each job weighted by
// its weight times its priority's factor (Priority.ShareFactor: as in
// Hadoop's fair scheduler, a job of high priority weighs twice a normal
// one), computed separately for map and reduce slots; a free slot goes
// to the job furthest below its share, waiting for locality by delay
// scheduling; optional preemption.
// The shares and the slot order are kept from one slot offer to the next
// and checked against the view on every offer (fairRank), so an offer
// after a launch costs O(jobs) rather than O(jobs log jobs).
type Fair struct {
	cfg   FairConfig
	pools map[string]*Pool
	delay *delayState
	jobs  map[JobID]Job
	runs  map[Attempt]time.Duration // launch times of running attempts
	below map[string]*[3]belowSince // by pool name, then kind (containers too)
	rank  [3]fairRank               // the slot order by kind (containers: either), kept between offers
	evict *evictions                // nil unless the policy evicts for locality
}

// belowSince is when a pool was last at its minimum and its fair share.
type belowSince struct{ atMin, atFair time.Duration }

// NewFair returns a FAIR scheduler.
func NewFair(cfg FairConfig) *Fair {
	f := &Fair{
		cfg: cfg, pools: map[string]*Pool{}, delay: newDelayState(),
		jobs: map[JobID]Job{}, runs: map[Attempt]time.Duration{}, below: map[string]*[3]belowSince{},
	}
	for i := range cfg.Pools {
		f.pools[cfg.Pools[i].Name] = &cfg.Pools[i]
	}
	f.evict = newEvictions(cfg, f.runs)
	return f
}

// Name implements Policy.
func (*Fair) Name() string { return "fair" }

// Submitted implements Policy.
func (f *Fair) Submitted(now time.Duration, job Job) {
	job.Pool = f.poolOf(job)
	if !f.poolActive(job.Pool) {
		// A pool's time below its shares starts when it has a job again,
		// not when its last job ended.
		f.below[job.Pool] = &[3]belowSince{{now, now}, {now, now}, {now, now}}
	}
	f.jobs[job.ID] = job
	f.delay.add(job, f.waitsFor(job.Pool))
	f.jobsChanged()
}

// poolOf is the pool a job belongs to. A submitted job's own pool is
// named once, in Submitted, so shares do not format one per job per offer.
func (f *Fair) poolOf(j Job) string {
	if !f.cfg.PoolPerJob || j.Pool != "" {
		return j.Pool
	}
	if known, ok := f.jobs[j.ID]; ok {
		return known.Pool
	}
	return fmt.Sprintf("job-%d", j.ID)
}

func (f *Fair) poolActive(pool string) bool {
	for _, j := range f.jobs {
		if j.Pool == pool {
			return true
		}
	}
	return false
}

func (f *Fair) waitsFor(pool string) Waits {
	if p := f.pools[pool]; p != nil && p.Waits != nil {
		return *p.Waits
	}
	return f.cfg.Delay
}

// Ended implements Policy.
func (f *Fair) Ended(_ time.Duration, id JobID) {
	delete(f.jobs, id)
	f.delay.remove(id)
	if f.evict != nil {
		f.evict.ended(id)
	}
	f.jobsChanged()
}

// Launched implements Policy: it records the launch time for preemption
// and lets a more local launch than the job's level lower the level.
func (f *Fair) Launched(now time.Duration, l Launch) {
	f.runs[l.Attempt] = now
	if l.Attempt.Kind == Map {
		f.delay.launched(l.Attempt.Job, l.Locality)
	}
	if f.evict != nil {
		f.evict.launched(l)
	}
}

// Finished implements Policy.
func (f *Fair) Finished(_ time.Duration, e Finish) {
	delete(f.runs, e.Attempt)
	if f.evict != nil {
		f.evict.finished(e.Attempt)
	}
}

// Heartbeat implements Policy: skipped jobs wait for the time since the
// last heartbeat.
func (f *Fair) Heartbeat(now time.Duration, _ NodeID) { f.delay.heartbeat(now) }

// Assign offers the slot to the jobs in fair-share order; map slots go
// through delay scheduling.
func (f *Fair) Assign(now time.Duration, v View, s Slot) (Assignment, bool) {
	if f.evict != nil && s.Kind == Map {
		if a, ok := f.evict.takeReserved(v, s); ok {
			return a, true
		}
	}
	return f.assign(now, v, s, f.ranked(v, s.Kind))
}

// AssignContainer implements ContainerAware, as YARN's Fair Scheduler
// assigns a container: to the job furthest below its fair share of the
// containers, counting all it holds and all it asks for of both kinds
// (a pool's minimum share its maps' and its reduces' together), and
// within the job a reduce before a map, the map through delay scheduling.
func (f *Fair) AssignContainer(_ time.Duration, v View, s Slot) (Assignment, bool) {
	order := f.ranked(v, containers)
	return assignContainer(v, s, f.delay, len(order), func(i int) (JobID, string) {
		js := order[i]
		if s.Why == nil {
			return js.id, ""
		}
		return js.id, fmt.Sprintf("fair-share order %d: holding %g of its fair share %.2f of the containers", i+1, js.running, js.fair)
	})
}

// Headroom implements Headroom, as YARN's Fair Scheduler computes an
// application's (FairSharePolicy.getHeadroom): its pool's fair share of
// the containers less what the pool holds.
func (f *Fair) Headroom(v View, job JobID) (int, bool) {
	j, ok := f.jobs[job]
	if !ok {
		return 0, false
	}
	f.ranked(v, containers)
	r := &f.rank[containers]
	g, ok := r.index[f.poolOf(j)]
	if !ok || r.pools[g].lo == r.pools[g].hi {
		return 0, false
	}
	js := &r.shares[r.pools[g].lo]
	return max(0, int(math.Floor(js.poolFair-js.poolRunning+1e-9))), true
}

// assign offers the slot to the jobs in the given order.
func (f *Fair) assign(now time.Duration, v View, s Slot, order []*jobShare) (Assignment, bool) {
	for i, js := range order {
		if s.Why != nil && wants(v, js.id, s) {
			need := ""
			if js.needy {
				need = ", its pool below its minimum share"
			}
			s.Why.Note(js.id, "fair-share order %d: running %g of its fair share %.2f%s", i+1, js.running, js.fair, need)
		}
		if f.evict != nil && s.Kind == Map && f.delay.forfeits(js.id, v, s) && f.evict.holds(now, v, s, js, order) {
			continue
		}
		if a, ok := f.delay.offer(js.id, v, s); ok {
			return a, true
		}
	}
	return Assignment{}, false
}

// jobShare is a job's place in the slot order.
type jobShare struct {
	id            JobID
	submit        time.Duration
	pool          string
	fair          float64 // the job's fair share
	needy         bool    // its pool is below its minimum share
	poolRatio     float64 // pool running / pool min share, for needy pools
	running       float64 // slots held: running attempts
	poolRunning   float64
	poolFair      float64
	poolMinDemand float64 // min(min share, demand)
	moved         bool    // to be placed again in a kept order (fairRank)
}

// order sorts the jobs with the kind's tasks to run or running: jobs of
// pools below their minimum share first, by the pool's running / minimum;
// then by the job's running / fair share; then by submission.
func (f *Fair) order(v View, kind TaskKind) []JobID {
	ranked := f.ranked(v, kind)
	out := make([]JobID, len(ranked))
	for i, p := range ranked {
		out[i] = p.id
	}
	return out
}

// compareShares orders jobs as the slots go to them (order). It ends with
// the job ID, a total order, so a sort by it needs no stability and its
// result does not depend on the order it starts from.
func compareShares(a, b *jobShare) int {
	if a.needy != b.needy {
		if a.needy {
			return -1
		}
		return 1
	}
	if a.needy {
		if c := cmp.Compare(a.poolRatio, b.poolRatio); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(ratio(a.running, a.fair), ratio(b.running, b.fair)),
		cmp.Compare(a.submit, b.submit), cmp.Compare(a.id, b.id))
}

func ratio(running, share float64) float64 {
	if share <= 0 {
		return math.Inf(1)
	}
	return running / share
}

func weightOf(w float64) float64 {
	if w <= 0 {
		return 1
	}
	return w
}
