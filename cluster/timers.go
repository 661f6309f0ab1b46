package cluster

import (
	"container/heap"
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

// timerHeap orders timers by (deadline, seq).
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
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
}

func newTimers() *timers {
	return &timers{byID: make(map[actors.TimerID]*timer)}
}

func (ts *timers) add(at, period time.Duration, to *actor.PID, msg any) actors.TimerID {
	ts.nextID++
	ts.seq++
	t := &timer{id: ts.nextID, at: at, seq: ts.seq, period: period, to: to, msg: msg}
	heap.Push(&ts.heap, t)
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
		heap.Remove(&ts.heap, t.index)
	}
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
		t := heap.Pop(&ts.heap).(*timer)
		if t.period > 0 {
			ts.seq++
			t.at += t.period
			t.seq = ts.seq
			heap.Push(&ts.heap, t)
		} else {
			delete(ts.byID, t.id)
		}
		fire(t)
	}
}

// pending lists the pending timers by receiver and message type, for a
// stall report.
func (ts *timers) pending() map[string]int {
	out := make(map[string]int)
	for _, t := range ts.heap {
		out[t.to.Id+" "+typeName(t.msg)]++
	}
	return out
}

func (ts *timers) clear() {
	ts.heap = nil
	ts.byID = make(map[actors.TimerID]*timer)
}
