package sched

import (
	"fmt"
	"math"
	"slices"
	"time"

	"clusteremu/units"
)

// The size-based multi-queue policies of Ghit & Epema 2015 (FBQ, TAGS,
// SITA, COMP) share one core, multiQueue: K queues, each served in FIFO
// order; a job's service, the slot time its attempts held; demotion of a
// job whose service reaches its queue's limit (FBQ, TAGS) or a queue
// chosen on arrival from a predicted size (SITA, COMP); and optionally a
// partition of the cluster's slots per queue (TAGS, SITA).
//
// Preemption is work-conserving, as the paper's is: a job in a lower queue
// gets no slot while a job of a higher queue (or, partitioned, of the
// slot's own queue) has a runnable task of the slot's kind, and its running
// attempts finish. Assign passes it over; nothing is killed.

// MultiQueueParams are the parameters of "fbq", "tags", "sita" and "comp":
//
//	queues = 2                # K
//	limits = ["12000s"]       # L_1 … L_{K−1}, slot-seconds of service
//	partitions = [50, 50]     # tags, sita: percent of each slot kind per queue
//	count_running = false     # fbq, tags: running attempts' time counts too
//	limits_per_queue = false  # limits are increments, not cumulative
//
// For FBQ and TAGS a limit is the service after which a job leaves its
// queue for the tail of the next; for SITA it is a cutoff on the predicted
// size (a job predicted at L_k or more goes past queue k). COMP has no
// limits: it ranks a job among the last K − 1 finished jobs.
type MultiQueueParams struct {
	Queues         int              `toml:"queues"`
	Limits         []units.Duration `toml:"limits"`
	Partitions     []float64        `toml:"partitions"`
	CountRunning   bool             `toml:"count_running"`
	LimitsPerQueue bool             `toml:"limits_per_queue"`
	// policy is the policy the parameters are for, which decides the
	// keys that apply.
	policy string
}

// The paper's optima (§VI-A): K = 2 for all four; FBQ L_1 = 12,000 s;
// TAGS C_1 = 50%, L_1 = 14,000 s; SITA C_1 = 30%, L_1 = 18,000 s.

// DefaultFBQParams returns "fbq"'s defaults: K = 2, L_1 = 12,000 s.
func DefaultFBQParams() *MultiQueueParams {
	return &MultiQueueParams{policy: "fbq", Queues: 2, Limits: seconds(12000)}
}

// DefaultTAGSParams returns "tags"'s defaults: K = 2, L_1 = 14,000 s,
// partitions 50% and 50%.
func DefaultTAGSParams() *MultiQueueParams {
	return &MultiQueueParams{policy: "tags", Queues: 2, Limits: seconds(14000), Partitions: []float64{50, 50}}
}

// DefaultSITAParams returns "sita"'s defaults: K = 2, L_1 = 18,000 s,
// partitions 30% and 70%.
func DefaultSITAParams() *MultiQueueParams {
	return &MultiQueueParams{policy: "sita", Queues: 2, Limits: seconds(18000), Partitions: []float64{30, 70}}
}

// DefaultCOMPParams returns "comp"'s defaults: K = 2.
func DefaultCOMPParams() *MultiQueueParams {
	return &MultiQueueParams{policy: "comp", Queues: 2}
}

func seconds(s ...float64) []units.Duration {
	out := make([]units.Duration, len(s))
	for i, x := range s {
		out[i] = units.Duration(time.Duration(x * float64(time.Second)))
	}
	return out
}

// MaxQueues is the most queues a multi-queue policy takes.
const MaxQueues = 64

// feedback reports whether the policy demotes by service (FBQ, TAGS).
func (p *MultiQueueParams) feedback() bool { return p.policy == "fbq" || p.policy == "tags" }

// partitioned reports whether the policy splits the slots (TAGS, SITA).
func (p *MultiQueueParams) partitioned() bool { return p.policy == "tags" || p.policy == "sita" }

// Validate implements Params.
func (p *MultiQueueParams) Validate() error {
	var c paramChecks
	k := p.Queues
	c.check(k < 2 || k > MaxQueues, "queues", k, fmt.Sprintf("must be a whole number in [2, %d]: one queue is fifo", MaxQueues))
	if p.policy == "comp" {
		c.check(len(p.Limits) > 0, "limits", p.Limits,
			"comp takes no limits: it ranks a job's predicted size among the last queues − 1 finished jobs' service")
	} else {
		p.checkLimits(&c)
	}
	if p.partitioned() {
		p.checkPartitions(&c)
	} else {
		c.check(len(p.Partitions) > 0, "partitions", p.Partitions,
			p.policy+" does not partition the slots: only tags and sita take partitions")
	}
	c.check(p.CountRunning && !p.feedback(), "count_running", true,
		p.policy+" never demotes a job: count_running applies to fbq and tags")
	return c.err()
}

func (p *MultiQueueParams) checkLimits(c *paramChecks) {
	k := p.Queues
	if k >= 2 && len(p.Limits) != k-1 {
		c.check(true, "limits", p.Limits, fmt.Sprintf(
			"must list queues − 1 = %d limits (L_1 … L_%d, as slot-seconds like \"12000s\"); the last queue has none", k-1, k-1))
		return
	}
	for i, l := range p.Limits {
		key := fmt.Sprintf("limits[%d]", i)
		c.check(l <= 0, key, l, "must be a duration > 0 (slot-seconds of service)")
		if i > 0 && !p.LimitsPerQueue && l > 0 && l <= p.Limits[i-1] {
			c.check(true, key, l, fmt.Sprintf(
				"must be above limits[%d] = %v: limits are cumulative (limits_per_queue = true reads them as each queue's increment)", i-1, p.Limits[i-1]))
		}
	}
}

func (p *MultiQueueParams) checkPartitions(c *paramChecks) {
	if k := p.Queues; k >= 2 && len(p.Partitions) != k {
		c.check(true, "partitions", p.Partitions, fmt.Sprintf("must list a percentage of the slots for each of the %d queues", k))
		return
	}
	sum := 0.0
	for i, x := range p.Partitions {
		c.check(!(x >= 0 && x <= 100), fmt.Sprintf("partitions[%d]", i), x, "must be a percentage in [0, 100]")
		sum += x
	}
	c.check(!(math.Abs(sum-100) < 1e-9), "partitions", p.Partitions, fmt.Sprintf("must add up to 100 (they add up to %g)", sum))
}

// thresholds are the cumulative service thresholds L_1 … L_{K−1}.
func (p *MultiQueueParams) thresholds() []time.Duration {
	out := make([]time.Duration, len(p.Limits))
	var sum time.Duration
	for i, l := range p.Limits {
		if p.LimitsPerQueue {
			sum += l.Std()
			out[i] = sum
		} else {
			out[i] = l.Std()
		}
	}
	return out
}

// multiQueue is the core the four policies share.
type multiQueue struct {
	name         string
	k            int
	thresholds   []time.Duration // cumulative, K − 1 of them
	countRunning bool
	feedback     bool
	// parts splits the slots between the queues; nil when the policy does
	// not partition.
	parts *partitions
	// dispatch picks a new job's queue (SITA, COMP); nil puts every new
	// job in queue 0 (FBQ, TAGS).
	dispatch func(j *mqJob) int
	// ended is told of each job whose last attempt has been booked after
	// it ended, with its whole service (the fit, COMP's history).
	ended func(j *mqJob)

	queues [][]*mqJob
	jobs   map[JobID]*mqJob
	runs   map[Attempt]time.Duration // running attempts' launch instants

	// offers remembers, for the heartbeat being answered, where each
	// queue's scan for a slot kind may resume (scan).
	offers offerCursor
}

// offerCursor is where each queue's scan for a kind resumes while one
// node's heartbeat is answered. A job passed over there had no task of
// the kind the node may run; launches only take tasks away, so it still
// has none for the rest of that heartbeat, and a heartbeat's offers cost
// one pass over the queues rather than one per slot. Any change to the
// queues, another node or another instant starts the scans afresh.
type offerCursor struct {
	node  NodeID
	at    time.Duration
	valid bool
	next  [][2]int // by queue, by TaskKind
}

// active reports whether the cursor is the heartbeat of node at now's.
func (c *offerCursor) active(now time.Duration, node NodeID) bool {
	return c.valid && c.node == node && c.at == now
}

// from is where queue q's scan for kind starts at now on node.
func (c *offerCursor) from(now time.Duration, node NodeID, q int, kind TaskKind) int {
	if !c.active(now, node) {
		return 0
	}
	return c.next[q][kind]
}

// passed records that queue q's jobs before i have no task of the kind
// for the heartbeat of node at now.
func (c *offerCursor) passed(now time.Duration, node NodeID, q int, kind TaskKind, i int) {
	if c.active(now, node) {
		c.next[q][kind] = i
	}
}

// reset starts the scans afresh for the heartbeat of node at now.
func (c *offerCursor) reset(now time.Duration, node NodeID, queues int) {
	c.node, c.at, c.valid = node, now, true
	if len(c.next) != queues {
		c.next = make([][2]int, queues)
	}
	clear(c.next)
}

// mqJob is a job's place and service.
type mqJob struct {
	job   Job
	queue int
	// service is the slot time of the job's attempts that have ended,
	// killed and failed ones included, each from its launch to its real
	// end (Finish.At).
	service time.Duration
	// running counts its running attempts; started sums their launch
	// instants, so their time so far at now is running × now − started.
	running int
	started time.Duration
	// predicted is the size its queue was chosen by (SITA, COMP).
	predicted time.Duration
	over      bool // ended: waits for its running attempts' ends
}

func newMultiQueue(p *MultiQueueParams, shape Shape) *multiQueue {
	m := &multiQueue{
		name: p.policy, k: p.Queues, thresholds: p.thresholds(), countRunning: p.CountRunning, feedback: p.feedback(),
		queues: make([][]*mqJob, p.Queues), jobs: map[JobID]*mqJob{}, runs: map[Attempt]time.Duration{},
	}
	if p.partitioned() {
		m.parts = newPartitions(p.Partitions, shape)
	}
	return m
}

// Name implements Policy.
func (m *multiQueue) Name() string { return m.name }

// Submitted appends the job to the tail of its queue: the first (FBQ,
// TAGS) or the one its predicted size picks (SITA, COMP).
func (m *multiQueue) Submitted(_ time.Duration, job Job) {
	j := &mqJob{job: job}
	q := 0
	if m.dispatch != nil {
		q = m.dispatch(j)
	}
	m.jobs[job.ID] = j
	m.enter(j, m.target(q))
}

// enter appends the job to the tail of queue q.
func (m *multiQueue) enter(j *mqJob, q int) {
	j.queue = q
	m.queues[q] = append(m.queues[q], j)
	m.offers.valid = false
}

// leave takes the job out of its queue.
func (m *multiQueue) leave(j *mqJob) {
	m.offers.valid = false
	q := m.queues[j.queue]
	if i := slices.Index(q, j); i >= 0 {
		m.queues[j.queue] = slices.Delete(q, i, i+1)
	}
}

// target is the queue a job bound for q joins: q, or when q's partition
// has no slot of a kind, the next queue whose partition has slots of both
// (before it when none after does), so a job never waits in a queue
// that cannot run it. Without partitions it is q.
func (m *multiQueue) target(q int) int {
	if m.parts == nil || m.parts.usable(q) {
		return q
	}
	for r := q + 1; r < m.k; r++ {
		if m.parts.usable(r) {
			return r
		}
	}
	for r := q - 1; r >= 0; r-- {
		if m.parts.usable(r) {
			return r
		}
	}
	return q
}

// Ended takes the job out of its queue. Its attempts still running (the
// coordinator kills them, or their ends are not yet booked) add to its
// service as they end; the job is done with when the last has.
func (m *multiQueue) Ended(_ time.Duration, id JobID) {
	j := m.jobs[id]
	if j == nil {
		return
	}
	m.leave(j)
	j.over = true
	m.maybeForget(j)
}

// maybeForget forgets an ended job once none of its attempts runs.
func (m *multiQueue) maybeForget(j *mqJob) {
	if !j.over || j.running > 0 {
		return
	}
	delete(m.jobs, j.job.ID)
	if m.ended != nil {
		m.ended(j)
	}
}

// Launched implements Policy: the attempt's slot time starts.
func (m *multiQueue) Launched(now time.Duration, l Launch) {
	j := m.jobs[l.Attempt.Job]
	if j == nil {
		return
	}
	m.runs[l.Attempt] = now
	j.running++
	j.started += now
}

// Finished adds the attempt's slot time, launch to its real end, to its
// job's service, whatever its outcome, and demotes the job (FBQ, TAGS)
// when its service reaches its queue's limit.
func (m *multiQueue) Finished(now time.Duration, f Finish) {
	start, ok := m.runs[f.Attempt]
	if !ok {
		return
	}
	delete(m.runs, f.Attempt)
	j := m.jobs[f.Attempt.Job]
	j.running--
	j.started -= start
	j.service += max(f.At-start, 0)
	if j.over {
		m.maybeForget(j)
		return
	}
	m.maybeDemote(now, j)
}

// serviceAt is the job's service at now: its ended attempts', and with
// count_running its running attempts' time so far.
func (m *multiQueue) serviceAt(now time.Duration, j *mqJob) time.Duration {
	if !m.countRunning {
		return j.service
	}
	return j.service + time.Duration(j.running)*now - j.started
}

// maybeDemote moves a job whose service has reached its queue's limit to
// the tail of the first queue whose limit it is below (the last has
// none). It reports whether the job moved.
func (m *multiQueue) maybeDemote(now time.Duration, j *mqJob) bool {
	if !m.feedback {
		return false
	}
	service := m.serviceAt(now, j)
	q := j.queue
	for q < m.k-1 && service >= m.thresholds[q] {
		q++
	}
	if q = m.target(q); q <= j.queue {
		return false
	}
	m.leave(j)
	m.enter(j, q)
	return true
}

// Heartbeat implements Policy. With count_running a job's service grows
// while its attempts run, so each heartbeat demotes the jobs whose
// service has reached their limit.
func (m *multiQueue) Heartbeat(now time.Duration, node NodeID) {
	if m.countRunning && m.feedback {
		for q := 0; q < m.k-1; q++ {
			// A demoted job moves behind this queue; scan a copy.
			for _, j := range slices.Clone(m.queues[q]) {
				if j.running > 0 {
					m.maybeDemote(now, j)
				}
			}
		}
	}
	m.offers.reset(now, node, m.k)
}

// Assign gives the slot to the first job, in queue order and FIFO within
// a queue, with a task of the slot's kind the node may run: among every
// queue without partitions, among the slot's partition's queue with them.
// A job in a lower queue takes a slot only when no job above has a task
// for it (the paper's multiplexing); an idle partition lends no slot.
func (m *multiQueue) Assign(now time.Duration, v View, s Slot) (Assignment, bool) {
	first, last := 0, m.k-1
	if m.parts != nil {
		first = m.parts.of(s) - 1
		last = first
	}
	for q := first; q <= last; q++ {
		queue := m.queues[q]
		start := m.offers.from(now, s.Node, q, s.Kind)
		for i := start; i < len(queue); i++ {
			j := queue[i]
			id := j.job.ID
			if _, ok := v.BestLocality(id, s.Kind, s.Node); !ok {
				continue
			}
			m.offers.passed(now, s.Node, q, s.Kind, i)
			if s.Why != nil {
				s.Why.Note(id, "%s: queue %d of %d, FIFO order %d, service %v%s; takes the slot for a %v",
					m.name, q+1, m.k, i+1, j.service.Round(time.Millisecond), m.limitNote(j), s.Kind)
			}
			return Assignment{Job: id, Kind: s.Kind, MaxLocality: OffRack}, true
		}
		m.offers.passed(now, s.Node, q, s.Kind, len(queue))
	}
	return Assignment{}, false
}

// AssignContainer implements ContainerAware for the policies that do not
// partition the slots (FBQ, COMP; TAGS and SITA are refused with
// containers): the container goes to the first job, higher queues first
// and FIFO in a queue, with a task for the node, its reduce before its
// map.
func (m *multiQueue) AssignContainer(_ time.Duration, v View, s Slot) (Assignment, bool) {
	for q := range m.queues {
		for i, j := range m.queues[q] {
			id := j.job.ID
			kind, ok := containerKind(v, id, s.Node)
			if !ok {
				continue
			}
			if s.Why != nil {
				s.Why.Note(id, "%s: queue %d of %d, FIFO order %d, service %v%s; takes the container for a %v",
					m.name, q+1, m.k, i+1, j.service.Round(time.Millisecond), m.limitNote(j), kind)
			}
			return Assignment{Job: id, Kind: kind, MaxLocality: OffRack}, true
		}
	}
	return Assignment{}, false
}

// limitNote says what decided the job's queue, for explanations.
func (m *multiQueue) limitNote(j *mqJob) string {
	switch {
	case m.dispatch != nil:
		return fmt.Sprintf(", predicted size %v", j.predicted.Round(time.Second))
	case j.queue < m.k-1:
		return fmt.Sprintf(" of its limit %v", m.thresholds[j.queue])
	}
	return ""
}

// Tick implements Policy; the multi-queue policies never kill.
func (*multiQueue) Tick(time.Duration, View) []Preemption { return nil }

// partitions assigns every slot of the cluster to a queue: queue k gets
// round(C_k × slots) of each kind (the last the rest), ranked index-major,
// slot 0 of every node, then slot 1, and so on, so every partition spans
// the nodes and sees their data alike.
type partitions struct {
	nodes int
	// bounds[kind][k] is the first rank past queue k's slots.
	bounds [2][]int
	// ranks[kind][node][index] is a slot's rank where nodes' slots
	// differ (Shape.NodeSlots); nil where every node has the same, and a
	// slot's rank is index × nodes + node.
	ranks [2][][]int32
}

// slotRanks ranks the slots of nodes with counts[node] slots each as the
// even shape does, index by index and node by node within an index, so
// that a queue's share of the slots is spread over the nodes.
func slotRanks(counts []int) [][]int32 {
	ranks := make([][]int32, len(counts))
	most := 0
	for n, c := range counts {
		ranks[n] = make([]int32, c)
		most = max(most, c)
	}
	rank := int32(0)
	for i := range most {
		for n, c := range counts {
			if i < c {
				ranks[n][i] = rank
				rank++
			}
		}
	}
	return ranks
}

func newPartitions(percent []float64, shape Shape) *partitions {
	p := &partitions{nodes: shape.Nodes}
	for kind := range p.bounds {
		if counts := shape.NodeSlots[kind]; counts != nil {
			p.ranks[kind] = slotRanks(counts)
		}
		total := shape.Total(TaskKind(kind))
		b := make([]int, len(percent))
		at := 0
		for k, c := range percent {
			n := int(math.Round(c / 100 * float64(total)))
			if k == len(percent)-1 {
				n = total - at
			}
			at = min(at+max(n, 0), total)
			b[k] = at
		}
		p.bounds[kind] = b
	}
	return p
}

// of is the 1-based queue the slot belongs to.
func (p *partitions) of(s Slot) int {
	rank := s.Index*p.nodes + int(s.Node)
	if r := p.ranks[s.Kind]; r != nil {
		rank = int(r[s.Node][s.Index])
	}
	b := p.bounds[s.Kind]
	k, _ := slices.BinarySearch(b, rank+1)
	return min(k, len(b)-1) + 1
}

// size is queue q's (0-based) slots of the kind.
func (p *partitions) size(kind TaskKind, q int) int {
	b := p.bounds[kind]
	if q == 0 {
		return b[0]
	}
	return b[q] - b[q-1]
}

// usable reports whether queue q (0-based) has slots of every kind the
// cluster has: a job in a queue without map slots, or without reduce
// slots, might never finish.
func (p *partitions) usable(q int) bool {
	for kind := range p.bounds {
		total := p.bounds[kind][len(p.bounds[kind])-1]
		if total > 0 && p.size(TaskKind(kind), q) == 0 {
			return false
		}
	}
	return true
}
