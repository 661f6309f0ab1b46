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
	slot   uint32 // its place in timers.slab
	live   bool   // set and not yet ended or cancelled
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
//
// A timer's ID names its record's place in slab (the low 32 bits, plus
// one) and the place's generation (the high bits), which grows each time
// the place is used, so an ID of a timer that ended names no live timer:
// cancelling it finds another generation and does nothing. A run sets
// millions of timers (the fabric's next completion, every delay), and a
// map from ID to record cost some 7% of a large run's CPU in its inserts.
type timers struct {
	heap timerHeap
	slab []*timer // the records by place; nil where one was let go
	gens []uint32 // the uses of each place
	open []uint32 // places whose record was let go, for the next new one
	seq  uint64
	// free are ended one-shot timers kept for reuse, up to maxFree.
	free []*timer
}

func newTimers() *timers { return &timers{} }

func (ts *timers) add(at, period time.Duration, to *actor.PID, msg any) actors.TimerID {
	ts.seq++
	var t *timer
	if n := len(ts.free); n > 0 {
		t, ts.free = ts.free[n-1], ts.free[:n-1]
	} else {
		t = &timer{slot: ts.place()}
		ts.slab[t.slot] = t
	}
	ts.gens[t.slot]++
	id := actors.TimerID(uint64(ts.gens[t.slot])<<32 | uint64(t.slot+1))
	*t = timer{id: id, slot: t.slot, live: true, at: at, seq: ts.seq, period: period, to: to, msg: msg}
	ts.heap.push(t)
	return t.id
}

// place returns a place in slab for a new record.
func (ts *timers) place() uint32 {
	if k := len(ts.open); k > 0 {
		p := ts.open[k-1]
		ts.open = ts.open[:k-1]
		return p
	}
	ts.slab = append(ts.slab, nil)
	ts.gens = append(ts.gens, 0)
	return uint32(len(ts.slab) - 1)
}

// lookup returns the live timer an ID names.
func (ts *timers) lookup(id actors.TimerID) *timer {
	slot := int64(uint32(id)) - 1
	if slot < 0 || slot >= int64(len(ts.slab)) {
		return nil
	}
	if t := ts.slab[slot]; t != nil && t.id == id && t.live {
		return t
	}
	return nil
}

func (ts *timers) cancel(id actors.TimerID) bool {
	t := ts.lookup(id)
	if t == nil {
		return false
	}
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
		t.live = false // ended: a cancel from fire finds nothing
		fire(t)
		ts.recycle(t)
	}
}

// maxFree bounds the ended timers kept for reuse: a big shuffle has
// hundreds of thousands pending at once, and the free list would keep
// them all for the rest of the run.
const maxFree = 1 << 12

// recycle keeps an ended one-shot timer for the next add, up to maxFree,
// and lets the others go, their places open for new records; fire must
// not keep it.
func (ts *timers) recycle(t *timer) {
	*t = timer{id: t.id, slot: t.slot, index: -1}
	if len(ts.free) < maxFree {
		ts.free = append(ts.free, t)
		return
	}
	ts.slab[t.slot] = nil
	ts.open = append(ts.open, t.slot)
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
	for _, t := range ts.heap {
		t.live = false
	}
	ts.heap = nil
}
