package actors

import (
	"container/heap"

	"clusteremu/policies/sched"
)

// outputLog holds the map outputs announced to a node's reduce attempts
// of one job and not yet fetched by all of them: one copy of each output
// for the node's reducers of the job (a job's announcements come to each
// of its reducers alike), where each reducer used to keep its own. It
// lives in the node actor, as its reducers do, so it is never shared
// across actors.
//
// Outputs are kept per source node in announcement order, each with a
// sequence number and a bit per reducer that has it queued; a reducer's
// fetchQueue reads the log through its bit. An output is dropped from the
// front of its node's list once no reducer has it queued, so the log
// holds what the slowest of the node's reducers has yet to fetch. A log
// takes up to logReaders reducers; a node runs a job's further reducers
// on another log.
type outputLog struct {
	seq     uint32
	readers uint8 // the reducers' bits in use
	index   map[sched.NodeID]int32
	nodes   []sched.NodeID
	hosts   []*hostLog // by index; nil while a node has nothing logged
}

// logReaders is the number of reducers one outputLog serves.
const logReaders = 8

// hostLog is one source node's logged outputs, oldest first, and for
// each its reducers' bits.
type hostLog struct {
	out  []loggedOutput
	mask []uint8
}

// loggedOutput is one announced output: its map, the map's whole output
// bytes (each reducer takes its partition) and its announcement's
// sequence number in the log.
type loggedOutput struct {
	bytes int64
	seq   uint32
	m     int32
}

// matchWindow bounds how far back a reducer looks in a node's list for
// the output another reducer logged from the same announcement. Reducers
// that hear the same news in the same order find it last; any other
// output is logged anew, which costs memory but never changes an order.
const matchWindow = 4

// host returns the log's index of src, adding it.
func (l *outputLog) host(src sched.NodeID) int32 {
	if h, ok := l.index[src]; ok {
		return h
	}
	if l.index == nil {
		l.index = make(map[sched.NodeID]int32)
	}
	h := int32(len(l.hosts))
	l.index[src] = h
	l.nodes = append(l.nodes, src)
	l.hosts = append(l.hosts, nil)
	return h
}

// join takes a reducer's bit; false when the log has none free.
func (l *outputLog) join() (uint8, bool) {
	for i := range logReaders {
		if b := uint8(1) << i; l.readers&b == 0 {
			l.readers |= b
			return b, true
		}
	}
	return 0, false
}

// append logs an output. The list grows by a quarter rather than
// doubling as append would: a log keeps a list per source node, each
// short, and doubling's slack would cost about what sharing saves.
func (hl *hostLog) append(o loggedOutput) {
	if n := len(hl.out); n == cap(hl.out) {
		c := n + n/4 + 2
		hl.out = append(make([]loggedOutput, 0, c), hl.out...)
		hl.mask = append(make([]uint8, 0, c), hl.mask...)
	}
	hl.out = append(hl.out, o)
	hl.mask = append(hl.mask, 0)
}

// trim drops the outputs at the front of node h's list that no reducer
// has queued, and the list when none is left.
func (l *outputLog) trim(h int32) {
	hl := l.hosts[h]
	k := 0
	for k < len(hl.mask) && hl.mask[k] == 0 {
		k++
	}
	switch {
	case k == len(hl.out):
		l.hosts[h] = nil
	case k > 0:
		hl.out, hl.mask = hl.out[k:], hl.mask[k:]
	}
}

// fetchQueue is a reduce attempt's announced map outputs not yet fetched,
// read from its node's outputLog for the job. Outputs are served oldest
// first: a fetch takes the oldest announced output and, when fetches go
// per host, every other queued output on its node.
//
// The order is exactly that of one queue in announcement order. The
// reducer's outputs have rising sequence numbers in the log: an output
// is either one another reducer logged after the latest this one queued,
// or logged anew. Per source node the queue counts its outputs there;
// the nodes are ordered by their oldest output in a heap whose stale
// entries (a node emptied, or its oldest output taken by remove) are
// dropped when they reach the top. A queued output costs the reducer a
// bit, and its node's reducers of the job share its 17 bytes; a node the
// log knows costs each reducer 4 bytes.
type fetchQueue struct {
	log   *outputLog
	bit   uint8
	last  uint32  // the sequence number of the latest output queued
	count []int32 // outputs queued, by the log's host index
	order hostOrder
	n     int
}

// newFetchQueue reads log through bit.
func newFetchQueue(log *outputLog, bit uint8) fetchQueue {
	return fetchQueue{log: log, bit: bit}
}

// len is the number of outputs queued.
func (q *fetchQueue) len() int { return q.n }

// push queues map m's output on node src, of bytes in all (before the
// reducer's partition).
func (q *fetchQueue) push(m int32, src sched.NodeID, bytes int64) {
	h := q.log.host(src)
	hl := q.log.hosts[h]
	if hl == nil {
		hl = &hostLog{}
		q.log.hosts[h] = hl
	}
	i, ok := q.match(hl, m, bytes)
	if !ok {
		q.log.seq++
		i = len(hl.out)
		hl.append(loggedOutput{bytes: bytes, seq: q.log.seq, m: m})
	}
	hl.mask[i] |= q.bit
	q.last = hl.out[i].seq
	for int(h) >= len(q.count) {
		q.count = append(q.count, 0)
	}
	if q.count[h] == 0 {
		heap.Push(&q.order, hostHead{seq: q.last, host: h})
	}
	q.count[h]++
	q.n++
}

// match finds the same output logged after the latest this reducer
// queued, among the last matchWindow of the node's list; the oldest such
// keeps the most of the log to match later.
func (q *fetchQueue) match(hl *hostLog, m int32, bytes int64) (at int, ok bool) {
	for i, k := len(hl.out)-1, 0; i >= 0 && k < matchWindow && hl.out[i].seq > q.last; i, k = i-1, k+1 {
		if o := hl.out[i]; o.m == m && o.bytes == bytes {
			at, ok = i, true
		}
	}
	return at, ok
}

// next is the place of the reducer's first output in hl at or after
// from; there must be one.
func (q *fetchQueue) next(hl *hostLog, from int) int {
	for i := from; ; i++ {
		if hl.mask[i]&q.bit != 0 {
			return i
		}
	}
}

// remove drops map m's queued output, wherever it is; false when it is
// not queued. It is rare (a node's outputs lost) and scans the queue.
func (q *fetchQueue) remove(m int32) bool {
	for h, c := range q.count {
		if c == 0 {
			continue
		}
		hl := q.log.hosts[h]
		head := q.next(hl, 0)
		for i := head; i < len(hl.out); i++ {
			if hl.out[i].m != m || hl.mask[i]&q.bit == 0 {
				continue
			}
			hl.mask[i] &^= q.bit
			q.count[h]--
			q.n--
			if i == head && q.count[h] > 0 {
				heap.Push(&q.order, hostHead{seq: hl.out[q.next(hl, i+1)].seq, host: int32(h)})
			}
			q.log.trim(int32(h))
			return true
		}
	}
	return false
}

// fetchItem is one map output a fetch carries: its map, the map's whole
// output bytes and the reducer's partition of them.
type fetchItem struct {
	m     int32
	whole int64
	bytes int64
}

// pop takes the oldest output and, when perHost, every other output on
// its node; it returns their source and the outputs, their whole bytes
// set (the caller partitions them). The queue must not be empty.
func (q *fetchQueue) pop(perHost bool, items []fetchItem) (sched.NodeID, []fetchItem) {
	h, i := q.top()
	hl := q.log.hosts[h]
	take := int32(1)
	if perHost {
		take = q.count[h]
	}
	for taken := int32(0); taken < take; i++ {
		if hl.mask[i]&q.bit == 0 {
			continue
		}
		hl.mask[i] &^= q.bit
		items = append(items, fetchItem{m: hl.out[i].m, whole: hl.out[i].bytes})
		taken++
	}
	q.count[h] -= take
	q.n -= int(take)
	heap.Pop(&q.order)
	if q.count[h] > 0 {
		heap.Push(&q.order, hostHead{seq: hl.out[q.next(hl, i)].seq, host: h})
	}
	q.log.trim(h)
	return q.log.nodes[h], items
}

// top returns the log's index of the node holding the oldest output and
// that output's place in the node's list, dropping stale heap entries on
// the way.
func (q *fetchQueue) top() (int32, int) {
	for {
		t := q.order[0]
		if q.count[t.host] > 0 {
			hl := q.log.hosts[t.host]
			if i := q.next(hl, 0); hl.out[i].seq == t.seq {
				return t.host, i
			}
		}
		heap.Pop(&q.order)
	}
}

// leave gives up the reducer's queued outputs and its bit in the log.
func (q *fetchQueue) leave() {
	if q.log == nil {
		return
	}
	for h, c := range q.count {
		if c == 0 {
			continue
		}
		hl := q.log.hosts[h]
		for i := range hl.mask {
			hl.mask[i] &^= q.bit
		}
		q.log.trim(int32(h))
	}
	q.log.readers &^= q.bit
	*q = fetchQueue{}
}

// hostHead is a node's place in the order: the sequence number of the
// reducer's oldest output there when the entry was made, and the node's
// index in the log.
type hostHead struct {
	seq  uint32
	host int32
}

// hostOrder is a min-heap of hostHead by sequence number.
type hostOrder []hostHead

func (h hostOrder) Len() int           { return len(h) }
func (h hostOrder) Less(i, j int) bool { return h[i].seq < h[j].seq }
func (h hostOrder) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hostOrder) Push(x any)        { *h = append(*h, x.(hostHead)) }
func (h *hostOrder) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
