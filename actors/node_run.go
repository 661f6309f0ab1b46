package actors

import (
	"cmp"
	"math"
	"slices"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// Flow parts of an attempt: its compute, its input read, its spill, one
// per pipeline hop, and one per shuffle fetch (partFetch + the map's
// index).
const (
	partCompute  int32 = -1
	partInput    int32 = 0
	partSpill    int32 = 1
	partPipeline int32 = 2
	partFetch    int32 = 1 << 16
)

// phase is where an attempt stands.
type phase uint8

const (
	phaseInput        phase = iota // maps read their input; reduces fetch map outputs
	phaseAwaitCompute              // a reduce has copied and waits for a computing slot
	phaseCompute                   // the compute flow runs (maps: unless streamed with the read)
	phaseOutput                    // spill or pipeline writes
)

// fetch states of one map output, for a reduce attempt.
type fetchState uint8

const (
	fetchUnknown fetchState = iota // not announced, or lost with its node
	fetchQueued
	fetchRunning
	fetchRetry // its fetch failed; it is fetched again after tasks.fetch_retry
	fetchDone
)

// fetchStates is a reduce attempt's fetch state of each map, two to a
// byte: the state array of a reducer of a job of 56,000 maps is 28 kB,
// and a big job's shuffle has a thousand reducers running at once.
type fetchStates struct {
	n    int
	nibs []uint8
}

func newFetchStates(maps int) fetchStates {
	return fetchStates{n: maps, nibs: make([]uint8, (maps+1)/2)}
}

// len is the number of maps.
func (s *fetchStates) len() int { return s.n }

// get is map m's state; m must be below len.
func (s *fetchStates) get(m int32) fetchState {
	return fetchState(s.nibs[m/2] >> (4 * (m % 2)) & 0xf)
}

// set sets map m's state; m must be below len.
func (s *fetchStates) set(m int32, st fetchState) {
	shift := 4 * (m % 2)
	s.nibs[m/2] = s.nibs[m/2]&^(0xf<<shift) | uint8(st)<<shift
}

// flowInfo remembers what a live flow carries, for byte accounting. A
// straggler's compute-carrying flow runs in two pieces split at its
// onset: done are the bytes (or work) of the piece before this one, rest
// those of the piece after it.
type flowInfo struct {
	src               sched.NodeID
	bytes, done, rest int64
}

// byPart is what an attempt keeps for each of its live flows (flowInfo)
// or fetches (their outputs), sorted by part. An attempt has a handful at
// once (its read or compute, its output writes, a reducer's parallel
// fetches), and a reducer's every fetch ends with a lookup, so a short
// sorted slice serves where a map cost a hash and a cache miss or two a
// lookup; it ranges in part order, as the sums over it must.
type byPart[T any] []partEntry[T]

type partEntry[T any] struct {
	part int32
	v    T
}

func (ps byPart[T]) search(part int32) (int, bool) {
	return slices.BinarySearchFunc(ps, part, func(e partEntry[T], p int32) int { return cmp.Compare(e.part, p) })
}

// at is part's entry; nil when it has none.
func (ps byPart[T]) at(part int32) *T {
	if i, ok := ps.search(part); ok {
		return &ps[i].v
	}
	return nil
}

// put sets part's entry.
func (ps *byPart[T]) put(part int32, v T) {
	i, ok := ps.search(part)
	if ok {
		(*ps)[i].v = v
		return
	}
	*ps = slices.Insert(*ps, i, partEntry[T]{part: part, v: v})
}

// take removes part's entry and returns it; false when it has none.
func (ps *byPart[T]) take(part int32) (T, bool) {
	i, ok := ps.search(part)
	if !ok {
		var zero T
		return zero, false
	}
	v := (*ps)[i].v
	*ps = slices.Delete(*ps, i, i+1)
	return v, true
}

// run is one attempt in progress on a node.
type run struct {
	launch     *LaunchTask
	start      time.Duration
	phase      phase
	flows      byPart[flowInfo]
	phaseStart time.Duration
	phases     []PhaseSpan // the phases ended so far that took time
	speed      float64     // the attempt's own speed factor (1: nominal)
	// slow is a straggler's factor past its onset, 1 before it and for
	// an attempt that does not straggle; slowed: its onset has passed.
	slow   float64
	slowed bool
	// progressTimer is the next progress report's, when reporting.
	progressTimer TimerID
	reporting     bool
	perByte       float64 // CPU work per input byte of a streamed read; 0 when not streamed
	// last are its two latest progress reports, the latest second, n of
	// them sent; projected is when a restart's kill found it would end
	// (KillTask.Project), 0 otherwise.
	last        [2]scoreAt
	reports     int
	projected   time.Duration
	localBytes  int64
	remoteBytes int64

	// Reduces only: every map's fetch state, the announced outputs not
	// yet fetched (read from the node's log for the job), and the fetched
	// bytes, which the compute phase reads.
	state    fetchStates
	queue    fetchQueue
	fetching int
	done     int
	fetched  int64
	// batches holds the map outputs each fetch flow carries, by flow
	// part; a flow carries one unless fetches go per host.
	batches byPart[[]fetchItem]
	// moved holds the outputs announced again, at a new node, while
	// their fetch ran or waited to retry: a retry fetches from there.
	moved map[int32]MapOutput
	// wrote is the attempt that wrote each map's output as last
	// announced, for StartFlow.Outputs, and replicas its copies, tried
	// when a fetch fails (node_recompute.go); nil without
	// NodeConfig.NameOutputs.
	wrote    []int32
	replicas [][]sched.NodeID
}

func newRun(l *LaunchTask, now time.Duration) *run {
	r := &run{launch: l, start: now, phaseStart: now, speed: 1, slow: 1}
	if l.Attempt.Kind == sched.Reduce {
		r.state = newFetchStates(l.Task.Maps)
	}
	return r
}

// scoreAt is a progress score and when it was reported.
type scoreAt struct {
	score float64
	at    time.Duration
}

// reported keeps a progress report the attempt sent.
func (r *run) reported(score float64, at time.Duration) {
	r.last[0], r.last[1] = r.last[1], scoreAt{score, at}
	r.reports++
}

// maxProjection bounds a projected end past its last report: a million
// seconds, beyond any run.
const maxProjection = 1e6

// projectedEnd is when the attempt would end at the pace of its last two
// reports (since its launch, with one): how a speculation's restart is
// judged against the attempt it killed. 0 when it reported no progress.
func (r *run) projectedEnd() time.Duration {
	if r.reports == 0 {
		return 0
	}
	from, to := scoreAt{0, r.start}, r.last[1]
	if r.reports > 1 {
		from = r.last[0]
	}
	if to.score <= from.score || to.at <= from.at {
		return 0
	}
	rest := (1 - to.score) / ((to.score - from.score) / (to.at - from.at).Seconds())
	return to.at + time.Duration(min(rest, maxProjection)*float64(time.Second))
}

// onset is where a flow of total bytes or work that carries the
// attempt's compute splits at the straggler's onset, and false when it
// does not split: no straggler, the onset passed, at the flow's start
// (the attempt slows at once) or at its end.
func (r *run) onset(total int64) (int64, bool) {
	s := r.launch.Task.Straggle
	if s.Factor == 0 || r.slowed {
		return 0, false
	}
	at := int64(math.Round(s.Onset * float64(total)))
	r.slowed = true
	switch {
	case at <= 0:
		r.slow = s.Speed()
		return 0, false
	case at >= total: // a flow too short to split: the onset is its end
		return 0, false
	}
	return at, true
}

// waiting reports whether the attempt's current phase has work left.
func (r *run) waiting() bool {
	if len(r.flows) > 0 || r.phase == phaseAwaitCompute {
		return true
	}
	return r.phase == phaseInput && r.launch.Attempt.Kind == sched.Reduce && r.done < r.state.len()
}

// account adds a finished input flow's bytes to the local or remote
// count; writes are not input.
func (r *run) account(self sched.NodeID, part int32, f flowInfo) {
	if part != partInput && part < partFetch {
		return
	}
	if f.src == self {
		r.localBytes += f.bytes
	} else {
		r.remoteBytes += f.bytes
	}
}

// learn queues the reduce's part of a newly announced map output, unless
// it is already fetched or on its way. The queue keeps the map's whole
// output bytes, as its node's other reducers of the job share them.
func (r *run) learn(out MapOutput) {
	if out.Map < 0 || int(out.Map) >= r.state.len() {
		return
	}
	if r.wrote != nil {
		r.wrote[out.Map], r.replicas[out.Map] = out.Attempt, out.Replicas
	}
	if st := r.state.get(out.Map); st == fetchRunning || st == fetchRetry {
		if r.moved == nil {
			r.moved = make(map[int32]MapOutput)
		}
		r.moved[out.Map] = out
		return
	}
	if r.state.get(out.Map) != fetchUnknown {
		return
	}
	if r.share(out.Bytes) == 0 {
		r.state.set(out.Map, fetchDone)
		r.done++
		return
	}
	r.state.set(out.Map, fetchQueued)
	r.queue.push(out.Map, out.Node, out.Bytes)
}

// share is the reduce's partition of a map output of bytes.
func (r *run) share(bytes int64) int64 {
	return r.launch.Task.partition(bytes, int(r.launch.Attempt.Task))
}

// forget drops a queued output, or one waiting to retry, that was lost
// with its node; the job manager announces where it runs again. One
// being fetched goes on: its bytes may still come.
func (r *run) forget(m int32) {
	if m < 0 || int(m) >= r.state.len() {
		return
	}
	switch r.state.get(m) {
	case fetchQueued:
		r.queue.remove(m)
	case fetchRetry:
	default:
		return
	}
	r.state.set(m, fetchUnknown)
	delete(r.moved, m)
}

// nextFetch takes the next fetch off the queue: the oldest announced
// output, with, when perHost, every other queued output on its node. With
// a rack of perRack nodes (0: no rack fetches) and that node in another
// rack than self's, the fetch takes every queued output on that rack's
// nodes too, and is a rack fetch when it found some on another node. It
// returns the flow's part, source (the oldest output's node) and bytes.
func (r *run) nextFetch(perHost bool, self sched.NodeID, perRack int) (part int32, src sched.NodeID, bytes int64, rack bool) {
	src, items, rack := r.queue.popRack(perHost, self, perRack, nil)
	for i := range items {
		bytes += r.share(items[i].whole)
		r.state.set(items[i].m, fetchRunning)
	}
	part = partFetch + items[0].m
	r.batches.put(part, items)
	r.fetching++
	return part, src, bytes, rack
}

// fetchSources are the nodes a fetch reads, in its outputs' order, each
// once: a fetch's outputs come node by node.
func (r *run) fetchSources(part int32) []sched.NodeID {
	var srcs []sched.NodeID
	if b := r.batches.at(part); b != nil {
		for _, it := range *b {
			if len(srcs) == 0 || srcs[len(srcs)-1] != it.src {
				srcs = append(srcs, it.src)
			}
		}
	}
	return srcs
}

// fetchDone marks the maps of a completed fetch flow fetched.
func (r *run) fetchDone(part int32, bytes int64) {
	items, _ := r.batches.take(part)
	for _, it := range items {
		r.state.set(it.m, fetchDone)
		r.done++
		delete(r.moved, it.m)
	}
	r.fetching--
	r.fetched += bytes
}

// fetchFailed books a failed fetch: its outputs wait to be fetched again
// (retry); what the flow delivered before it failed stays counted by the
// fabric, not by the attempt. It returns the outputs.
func (r *run) fetchFailed(part int32) []fetchItem {
	items, _ := r.batches.take(part)
	for _, it := range items {
		r.state.set(it.m, fetchRetry)
	}
	r.fetching--
	return items
}

// spare queues again at once the outputs of a fetch that failed because
// node down crashed which it read from other nodes (a rack fetch's other
// sources): their fetch did not fail. It returns the outputs read from
// down, whose fetch failed; all of them when none was (the fetch's own
// node crashed).
func (r *run) spare(items []fetchItem, down sched.NodeID) []fetchItem {
	if !slices.ContainsFunc(items, func(it fetchItem) bool { return it.src == down }) {
		return items
	}
	var failed, spared []fetchItem
	for _, it := range items {
		if it.src == down {
			failed = append(failed, it)
		} else {
			spared = append(spared, it)
		}
	}
	r.retry(spared)
	return failed
}

// retry queues again the outputs of a failed fetch still waiting for it,
// from their node or from where they were announced since.
func (r *run) retry(items []fetchItem) {
	for _, it := range items {
		if r.state.get(it.m) != fetchRetry {
			continue // lost, announced elsewhere and queued, or fetched
		}
		r.state.set(it.m, fetchQueued)
		if out, ok := r.moved[it.m]; ok {
			delete(r.moved, it.m)
			r.queue.push(it.m, out.Node, out.Bytes)
			continue
		}
		r.queue.push(it.m, it.src, it.whole)
	}
}

// progress is the attempt's phase, the fraction of it done and its
// progress score (TaskProgress), given what its live flows have delivered
// (-1: the flow has ended, its FlowDone on the way).
func (r *run) progress(delivered map[int32]int64) (ProgressPhase, float64, float64) {
	done := func(part int32) float64 { // the fraction of a flow of the attempt done
		info := r.flows.at(part)
		d, asked := delivered[part]
		if info == nil || info.bytes == 0 || d < 0 {
			return 1
		}
		if info.done+info.rest > 0 { // a piece of a straggler's split flow
			if !asked {
				d = 0
			}
			return float64(info.done+d) / float64(info.done+info.bytes+info.rest)
		}
		if !asked {
			return 0
		}
		return float64(d) / float64(info.bytes)
	}
	writes := func() float64 { // the slowest output flow
		least := 1.0
		for _, f := range r.flows {
			if part := f.part; part == partSpill || part >= partPipeline && part < partFetch {
				least = min(least, done(part))
			}
		}
		return least
	}
	spec := &r.launch.Task
	if r.launch.Attempt.Kind == sched.Map {
		switch r.phase {
		case phaseInput:
			f := done(partInput)
			if spec.Model == workload.Sequential {
				return PhaseRead, f, f / 2
			}
			return PhaseRead, f, f
		case phaseCompute:
			f := done(partCompute)
			if spec.Model == workload.Sequential {
				return PhaseCompute, f, 0.5 + f/2
			}
			return PhaseCompute, f, 1
		}
		return PhaseWrite, writes(), 1
	}
	switch r.phase {
	case phaseInput:
		if r.state.len() == 0 {
			return PhaseCopy, 1, 1.0 / 3
		}
		copied := float64(r.done)
		// In part order: a float sum in another order would differ in
		// its last bits.
		for _, b := range r.batches {
			copied += done(b.part) * float64(len(b.v))
		}
		f := copied / float64(r.state.len())
		return PhaseCopy, f, f / 3
	case phaseAwaitCompute:
		return PhaseSort, 0, 1.0 / 3
	case phaseCompute:
		f := done(partCompute) / 2
		return PhaseReduce, f, 2.0/3 + f/3
	}
	f := 0.5 + writes()/2
	return PhaseReduce, f, 2.0/3 + f/3
}

// closePhase ends the current phase at now, keeping it if it took time.
func (r *run) closePhase(now time.Duration) {
	if now > r.phaseStart {
		r.phases = append(r.phases, PhaseSpan{Phase: r.recordPhase(), Start: r.phaseStart, End: now})
	}
}

// recordPhase names the current phase for the records.
func (r *run) recordPhase() ProgressPhase {
	switch {
	case r.phase == phaseCompute:
		return PhaseCompute
	case r.phase == phaseOutput:
		return PhaseWrite
	case r.phase == phaseAwaitCompute:
		return PhaseSort
	case r.launch.Attempt.Kind == sched.Reduce:
		return PhaseCopy
	}
	return PhaseRead
}
