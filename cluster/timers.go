package cluster

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/actors"
)

// timer is one pending delivery. seq orders timers of equal deadline by
// the order they were set (a periodic timer takes a new seq each period).
type timer struct {
	id     actors.TimerID
	at     time.Duration
	seq    uint64
	period time.Duration // 0: one-shot
	to     *actor.PID
	msg    any
	index  int // position in the heap, -1 once popped or cancelled
}

// timerHeap is a binary min-heap of timers by (deadline, seq), written out
// rather than through container/heap: the clock's heap operations are a
// large share of a run, and the typed comparisons inline.
type timerHeap []*timer

func (h timerHeap) less(i, j int) bool {
	a, b := h[i], h[j]
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h timerHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

// down sifts the timer at i0 down within the first n and reports whether
// it moved.
func (h timerHeap) down(i0, n int) bool {
	i := i0
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if j2 := j + 1; j2 < n && h.less(j2, j) {
			j = j2
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}

func (h *timerHeap) push(t *timer) {
	t.index = len(*h)
	*h = append(*h, t)
	h.up(t.index)
}

// remove takes the timer at i out of the heap.
func (h *timerHeap) remove(i int) *timer {
	n := len(*h) - 1
	if n != i {
		h.swap(i, n)
		if !h.down(i, n) {
			h.up(i)
		}
	}
	t := (*h)[n]
	(*h)[n] = nil
	*h = (*h)[:n]
	t.index = -1
	return t
}

// timers is the clock's set of pending timers. Cancel removes a timer from
// the heap at once (O(log n)), so cancelled timers cost nothing later.
type timers struct {
	heap   timerHeap
	byID   map[actors.TimerID]*timer
	nextID actors.TimerID
	seq    uint64
	// free are ended one-shot timers kept for reuse: a run sets millions
	// (the fabric's next completion, every delay), and each was a
	// fresh allocation.
	free []*timer
}

func newTimers() *timers {
	return &timers{byID: make(map[actors.TimerID]*timer)}
}

func (ts *timers) add(at, period time.Duration, to *actor.PID, msg any) actors.TimerID {
	ts.nextID++
	ts.seq++
	var t *timer
	if n := len(ts.free); n > 0 {
		t, ts.free = ts.free[n-1], ts.free[:n-1]
	} else {
		t = new(timer)
	}
	*t = timer{id: ts.nextID, at: at, seq: ts.seq, period: period, to: to, msg: msg}
	ts.heap.push(t)
	ts.byID[t.id] = t
	return t.id
}

func (ts *timers) cancel(id actors.TimerID) bool {
	t, ok := ts.byID[id]
	if !ok {
		return false
	}
	delete(ts.byID, id)
	if t.index >= 0 {
		ts.heap.remove(t.index)
	}
	ts.recycle(t)
	return true
}

// next returns the earliest deadline.
func (ts *timers) next() (time.Duration, bool) {
	if len(ts.heap) == 0 {
		return 0, false
	}
	return ts.heap[0].at, true
}

// popDue removes every timer due at or before at, in (deadline, seq)
// order, re-arming periodic ones for their next absolute deadline, and
// calls fire for each.
func (ts *timers) popDue(at time.Duration, fire func(*timer)) {
	for len(ts.heap) > 0 && ts.heap[0].at <= at {
		t := ts.heap[0]
		if t.period > 0 {
			// Re-armed in place: its deadline only grows, so it sinks.
			ts.seq++
			t.at += t.period
			t.seq = ts.seq
			ts.heap.down(0, len(ts.heap))
			fire(t)
			continue
		}
		ts.heap.remove(0)
		delete(ts.byID, t.id)
		fire(t)
		ts.recycle(t)
	}
}

// maxFree bounds the ended timers kept for reuse: a big shuffle has
// hundreds of thousands pending at once, and the free list would keep
// them all for the rest of the run.
const maxFree = 1 << 12

// recycle keeps an ended one-shot timer for the next add, up to maxFree;
// fire must not keep it.
func (ts *timers) recycle(t *timer) {
	*t = timer{index: -1}
	if len(ts.free) < maxFree {
		ts.free = append(ts.free, t)
	}
}

// progressing reports whether a pending timer's message is work moving
// forward (actors.Progressing). The cost is O(timers); the watchdog asks
// only when no progress was reported for its whole limit.
func (ts *timers) progressing() bool {
	for _, t := range ts.heap {
		if _, ok := t.msg.(actors.Progressing); ok {
			return true
		}
	}
	return false
}

// pending counts the pending timers by message type, for a stall report.
func (ts *timers) pending() map[string]int {
	out := make(map[string]int)
	for _, t := range ts.heap {
		out[typeName(t.msg)]++
	}
	return out
}

func (ts *timers) clear() {
	ts.heap = nil
	ts.byID = make(map[actors.TimerID]*timer)
}
