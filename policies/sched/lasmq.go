package sched

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"clusteremu/units"
)

// LASMQ is Hu et al.'s LAS_MQ: a multi-level feedback queue of jobs by the
// service they have attained, which needs no job sizes. Every job enters
// queue 1; a job whose service reaches its queue's threshold moves down,
// never up, to the first queue whose threshold exceeds its service (queue
// k has none). Thresholds grow geometrically: α_1 = first_threshold,
// α_{i+1} = step × α_i, in slot-seconds.
//
// Service is Eq. 6: the slot time the job's attempts held, running ones
// to now, a reduce weighing reduce_weight containers. With stage
// awareness, once a stage's progress (View.Progress) is at least
// min_progress its service counts as service / progress, the stage's
// projected whole, so a job that will be large leaves the high queues
// early.
//
// Per slot kind, at each heartbeat, the slots of the kind are split over
// the queues that have jobs with tasks of the kind: by weight (queue i of
// k weighs weight_base^(k−i)), or with strict, the higher queues first.
// Each queue's share goes to its jobs in order (fewest remaining weighted
// tasks of the current stage, then submission; or submission alone with
// order = "fifo") up to each job's tasks of the kind, pending and
// running; what no queue could use is split evenly over every job with
// tasks of the kind. A free slot goes to the first job, in queue order,
// below its target with a task for the node, and when none is, to the
// first with a task (no slot idles while a job could use it). Nothing is
// killed: a job above its target keeps its running attempts.
//
// A heartbeat's plan costs O(jobs log jobs); each slot offered after it
// O(jobs) at worst.
type LASMQ struct {
	p          LASMQParams
	thresholds []float64 // α_1 … α_{k−1}, slot-seconds
	weights    []float64 // by queue
	book       serviceBook
	jobs       map[JobID]*lqJob
	queues     [][]*lqJob
	plan       lqPlan
}

// LASMQParams are "lasmq"'s parameters:
//
//	queues = 10               # k
//	first_threshold = "100s"  # α_1, slot-seconds
//	step = 10                 # α_{i+1} = step × α_i
//	weight_base = 10          # queue i of k weighs weight_base^(k−i)
//	strict = false            # higher queues first, instead of weights
//	order = "remaining"       # or "fifo": within a queue
//	stage_aware = true        # a stage's service / its progress
//	min_progress = 0.1        # … once the progress is at least this
//	reduce_weight = 2         # a reduce holds this many containers
type LASMQParams struct {
	Queues         int            `toml:"queues"`
	FirstThreshold units.Duration `toml:"first_threshold"`
	Step           float64        `toml:"step"`
	WeightBase     float64        `toml:"weight_base"`
	Strict         bool           `toml:"strict"`
	Order          string         `toml:"order"`
	StageAware     bool           `toml:"stage_aware"`
	MinProgress    float64        `toml:"min_progress"`
	ReduceWeight   float64        `toml:"reduce_weight"`
}

// The orders within a queue.
const (
	OrderRemaining = "remaining"
	OrderFIFO      = "fifo"
)

// DefaultLASMQParams returns the testbed's settings (§5.1): 10 queues,
// α_1 = 100 s, step 10, weights 10^(k−i), the remaining-tasks order and
// stage awareness from 10%; a reduce is 2 containers.
func DefaultLASMQParams() *LASMQParams {
	return &LASMQParams{
		Queues: 10, FirstThreshold: units.Duration(100 * time.Second), Step: 10, WeightBase: 10,
		Order: OrderRemaining, StageAware: true, MinProgress: 0.1, ReduceWeight: 2,
	}
}

// Validate implements Params.
func (p *LASMQParams) Validate() error {
	var c paramChecks
	c.check(p.Queues < 1 || p.Queues > MaxQueues, "queues", p.Queues, fmt.Sprintf("must be a whole number in [1, %d]", MaxQueues))
	c.check(p.FirstThreshold <= 0, "first_threshold", p.FirstThreshold, `must be a duration > 0 (slot-seconds of service) like "100s"`)
	c.check(!(p.Step > 1) || math.IsInf(p.Step, 0), "step", p.Step, "must be a finite number > 1")
	c.check(!(p.WeightBase >= 1) || math.IsInf(p.WeightBase, 0), "weight_base", p.WeightBase, "must be a finite number ≥ 1")
	c.check(p.Order != OrderRemaining && p.Order != OrderFIFO, "order", p.Order, fmt.Sprintf("must be %q or %q", OrderRemaining, OrderFIFO))
	c.check(!(p.MinProgress > 0 && p.MinProgress <= 1), "min_progress", p.MinProgress, "must be a number in (0, 1]")
	c.check(!(p.ReduceWeight > 0) || math.IsInf(p.ReduceWeight, 0), "reduce_weight", p.ReduceWeight, "must be a finite number > 0")
	return c.err()
}

func init() {
	Register("lasmq", DefaultLASMQParams, func(p *LASMQParams) (Policy, error) { return NewLASMQ(*p), nil })
}

// lqJob is a job's place in the queues, and what the last plan read of
// it: its remaining weighted tasks of the current stage and its tasks of
// each kind, pending and running.
type lqJob struct {
	job       Job
	queue     int
	remaining float64
	demand    [3]float64 // by kind, and the containers it asks for of both (containers)
}

// lqPlan is one heartbeat's order and targets: the jobs in queue order,
// and by kind each job's target of slots.
type lqPlan struct {
	at     time.Duration
	valid  bool
	order  []*lqJob
	target [3]map[JobID]float64 // by kind, and of the containers (containers)
	// pooled: target[containers] is this plan's, made at the plan's
	// first container offer.
	pooled bool
	// used marks the queues with jobs of the kind targets splits over,
	// kept from call to call.
	used []bool
}

// NewLASMQ returns an empty LAS_MQ policy; p must be valid.
func NewLASMQ(p LASMQParams) *LASMQ {
	l := &LASMQ{
		p: p, book: newServiceBook(), jobs: map[JobID]*lqJob{}, queues: make([][]*lqJob, p.Queues),
		thresholds: make([]float64, p.Queues-1), weights: make([]float64, p.Queues),
	}
	alpha := p.FirstThreshold.Std().Seconds()
	for i := range l.thresholds {
		l.thresholds[i] = alpha
		alpha *= p.Step
	}
	for i := range l.weights {
		l.weights[i] = math.Pow(p.WeightBase, float64(p.Queues-1-i))
	}
	for k := range l.plan.target {
		l.plan.target[k] = map[JobID]float64{}
	}
	return l
}

// Name implements Policy.
func (*LASMQ) Name() string { return "lasmq" }

// NeedsProgress implements NeedsProgress: stage awareness reads it.
func (l *LASMQ) NeedsProgress() bool { return l.p.StageAware }

// Submitted appends the job to queue 1.
func (l *LASMQ) Submitted(_ time.Duration, job Job) {
	j := &lqJob{job: job}
	l.jobs[job.ID] = j
	l.book.add(job.ID)
	l.queues[0] = append(l.queues[0], j)
	l.plan.valid = false
}

// Ended takes the job out of its queue.
func (l *LASMQ) Ended(_ time.Duration, id JobID) {
	j := l.jobs[id]
	if j == nil {
		return
	}
	delete(l.jobs, id)
	l.book.remove(id)
	q := l.queues[j.queue]
	if i := slices.Index(q, j); i >= 0 {
		l.queues[j.queue] = slices.Delete(q, i, i+1)
	}
	l.plan.valid = false
}

// Launched implements Policy.
func (l *LASMQ) Launched(now time.Duration, la Launch) { l.book.launched(now, la.Attempt) }

// Finished implements Policy.
func (l *LASMQ) Finished(_ time.Duration, f Finish) {
	l.book.finished(f)
	l.plan.valid = false
}

// Heartbeat implements Policy: the next offer plans afresh.
func (l *LASMQ) Heartbeat(time.Duration, NodeID) { l.plan.valid = false }

// Service is the job's service at now as LAS_MQ demotes by: its maps' and
// its reduces' slot-seconds (a reduce weighing reduce_weight), each stage
// projected to its end by its progress when stage-aware and the progress
// is at least min_progress.
func (l *LASMQ) Service(now time.Duration, v View, id JobID) float64 {
	total := 0.0
	for _, kind := range []TaskKind{Map, Reduce} {
		s := l.book.of(now, id, kind).Seconds()
		if kind == Reduce {
			s *= l.p.ReduceWeight
		}
		if p := v.Progress(id, kind); l.p.StageAware && p >= l.p.MinProgress && p > 0 {
			s /= p
		}
		total += s
	}
	return total
}

// queueFor is the first queue at or below from whose threshold exceeds
// the service; the last has none.
func (l *LASMQ) queueFor(from int, service float64) int {
	q := from
	for q < len(l.thresholds) && service >= l.thresholds[q] {
		q++
	}
	return q
}

// replan demotes the jobs whose service has reached their queue's
// threshold, orders every queue and sets each job's targets.
func (l *LASMQ) replan(now time.Duration, v View) {
	l.plan.at, l.plan.valid = now, true
	for q := range l.queues {
		// A demoted job joins the tail of a lower queue, met again there.
		kept := l.queues[q][:0]
		for _, j := range l.queues[q] {
			if to := l.queueFor(q, l.Service(now, v, j.job.ID)); to > q {
				j.queue = to
				l.queues[to] = append(l.queues[to], j)
			} else {
				kept = append(kept, j)
			}
		}
		clear(l.queues[q][len(kept):])
		l.queues[q] = kept
	}
	l.plan.order = l.plan.order[:0]
	size := reduceSize(v)
	for q := range l.queues {
		for _, j := range l.queues[q] {
			st, _ := v.Job(j.job.ID)
			j.remaining = l.remaining(st)
			j.demand = [3]float64{float64(st.Pending(Map) + st.Attempts(Map)), float64(st.Pending(Reduce) + st.Attempts(Reduce)),
				float64(kindPending(st, containers, size) + kindAttempts(st, containers, size))}
		}
		slices.SortFunc(l.queues[q], l.compare)
		l.plan.order = append(l.plan.order, l.queues[q]...)
	}
	l.plan.pooled = false
	for _, kind := range []TaskKind{Map, Reduce} {
		l.targets(v, kind)
	}
}

// compare orders two jobs of a queue: fewest remaining weighted tasks of
// their current stage (order = "remaining"), then submission.
func (l *LASMQ) compare(a, b *lqJob) int {
	if l.p.Order == OrderRemaining {
		if c := cmp.Compare(a.remaining, b.remaining); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(a.job.Submit, b.job.Submit), cmp.Compare(a.job.ID, b.job.ID))
}

// remaining is the job's unfinished tasks of its current stage, running
// ones included: its maps until they have all finished, then its reduces
// at reduce_weight each (the paper counts no later stage).
func (l *LASMQ) remaining(st JobStatus) float64 {
	if maps := st.Maps - st.FinishedMaps; maps > 0 {
		return float64(maps)
	}
	return float64(st.Reduces-st.FinishedReduces) * l.p.ReduceWeight
}

// targets splits the kind's slots over the jobs with tasks of the kind
// (pending or running): each non-empty queue's share (by weight, or with
// strict what the queues above left) to its jobs in order up to their
// tasks, the rest evenly.
func (l *LASMQ) targets(v View, kind TaskKind) {
	target := l.plan.target[kind]
	clear(target)
	weight, users := 0.0, 0
	l.plan.used = slices.Grow(l.plan.used[:0], len(l.queues))[:len(l.queues)]
	used := l.plan.used
	clear(used)
	for q, queue := range l.queues {
		for _, j := range queue {
			if j.demand[kind] > 0 {
				used[q] = true
				users++
			}
		}
		if used[q] {
			weight += l.weights[q]
		}
	}
	if users == 0 {
		return
	}
	total := float64(kindSlots(v, kind))
	left, spare := total, 0.0
	for q, queue := range l.queues {
		if !used[q] {
			continue // a queue without jobs of the kind has no share
		}
		share := left
		if !l.p.Strict {
			share = total * l.weights[q] / weight
		}
		for _, j := range queue {
			if d := j.demand[kind]; d > 0 {
				x := min(share, d)
				target[j.job.ID] = x
				share -= x
			}
		}
		if l.p.Strict {
			left = share
		} else {
			spare += share
		}
	}
	if l.p.Strict {
		spare = left
	}
	for id := range target {
		target[id] += spare / float64(users)
	}
}

// Assign gives the slot to the first job in queue order below its target
// with a task for the node, or failing that to the first with a task.
func (l *LASMQ) Assign(now time.Duration, v View, s Slot) (Assignment, bool) {
	if !l.plan.valid || l.plan.at != now {
		l.replan(now, v)
	}
	var spare *lqJob
	for _, j := range l.plan.order {
		id := j.job.ID
		if _, ok := v.BestLocality(id, s.Kind, s.Node); !ok {
			continue
		}
		st, _ := v.Job(id)
		if float64(st.Attempts(s.Kind)) < l.plan.target[s.Kind][id] {
			l.note(now, v, s, j, "below")
			return Assignment{Job: id, Kind: s.Kind, MaxLocality: OffRack}, true
		}
		if spare == nil {
			spare = j
		}
	}
	if spare == nil {
		return Assignment{}, false
	}
	l.note(now, v, s, spare, "at or above")
	return Assignment{Job: spare.job.ID, Kind: s.Kind, MaxLocality: OffRack}, true
}

// AssignContainer implements ContainerAware: Assign over the containers,
// a job's targets and what it holds counted in containers of both kinds,
// and within the job a reduce before a map.
func (l *LASMQ) AssignContainer(now time.Duration, v View, s Slot) (Assignment, bool) {
	if !l.plan.valid || l.plan.at != now {
		l.replan(now, v)
	}
	if !l.plan.pooled {
		l.targets(v, containers)
		l.plan.pooled = true
	}
	size := reduceSize(v)
	var spare *lqJob
	spareKind := Map
	for _, j := range l.plan.order {
		id := j.job.ID
		kind, ok := containerKind(v, id, s.Node)
		if !ok {
			continue
		}
		st, _ := v.Job(id)
		if float64(kindAttempts(st, containers, size)) < l.plan.target[containers][id] {
			s.Kind = containers
			l.note(now, v, s, j, "below")
			return Assignment{Job: id, Kind: kind, MaxLocality: OffRack}, true
		}
		if spare == nil {
			spare, spareKind = j, kind
		}
	}
	if spare == nil {
		return Assignment{}, false
	}
	s.Kind = containers
	l.note(now, v, s, spare, "at or above")
	return Assignment{Job: spare.job.ID, Kind: spareKind, MaxLocality: OffRack}, true
}

// note explains the job's assignment.
func (l *LASMQ) note(now time.Duration, v View, s Slot, j *lqJob, where string) {
	if s.Why == nil {
		return
	}
	what := s.Kind.String() + " slots"
	if s.Kind == containers {
		what = "containers"
	}
	s.Why.Note(j.job.ID, "lasmq: queue %d of %d, service %.1f slot-s, %s its target %.2f %s; takes the slot",
		j.queue+1, len(l.queues), l.Service(now, v, j.job.ID), where, l.plan.target[s.Kind][j.job.ID], what)
}

// Tick implements Policy; LAS_MQ never kills.
func (*LASMQ) Tick(time.Duration, View) []Preemption { return nil }
