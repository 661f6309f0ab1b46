package actors

import (
	"iter"

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
//
// The source nodes' lists are kept by node id in pages (byNode): a list
// costs 24 bytes, where a map from node ids to lists cost about as much
// again for each node (a job's big shuffle has a log on each of hundreds
// of nodes, each with every node as a source), and a slice up to the
// highest id cost every node's 24 bytes for a job whose maps ran on a few
// of 10,000 nodes.
type outputLog struct {
	seq     uint32
	readers uint8           // the reducers' bits in use
	hosts   byNode[hostLog] // by source node id
}

// byNode is a table by node id made of pages of pageNodes entries, each
// page made when an id in it is first used.
type byNode[T any] struct {
	pages []*[pageNodes]T
}

// pageNodes is the nodes a page of byNode holds: a job's reducers touch
// the nodes its maps ran on, all of them for a wide job, a few scattered
// ones for a small job on a large cluster.
const pageNodes = 32

// at returns id's entry, making its page.
func (b *byNode[T]) at(id int32) *T {
	pg := int(id) / pageNodes
	b.pages = growTo(b.pages, pg+1)
	if b.pages[pg] == nil {
		b.pages[pg] = new([pageNodes]T)
	}
	return &b.pages[pg][int(id)%pageNodes]
}

// get returns id's entry, or nil when its page was never made.
func (b *byNode[T]) get(id int32) *T {
	pg := int(id) / pageNodes
	if pg >= len(b.pages) || b.pages[pg] == nil {
		return nil
	}
	return &b.pages[pg][int(id)%pageNodes]
}

// all yields every entry of the pages made, by id.
func (b *byNode[T]) all() iter.Seq2[int32, *T] {
	return func(yield func(int32, *T) bool) {
		for pg, page := range b.pages {
			if page == nil {
				continue
			}
			for k := range page {
				if !yield(int32(pg*pageNodes+k), &page[k]) {
					return
				}
			}
		}
	}
}

// logReaders is the number of reducers one outputLog serves: their bits
// share a word with the map's index, below it.
const logReaders = 7

// A map's index takes the word's other bits: every job has fewer maps
// than that (this fails to compile otherwise).
const _ uint = 1<<(32-logReaders) - MaxTasks

// hostLog is one source node's logged outputs, oldest first; out is nil
// while the node has nothing logged.
type hostLog struct {
	out []loggedOutput
}

// loggedOutput is one announced output: the map's whole output bytes
// (each reducer takes its partition), its announcement's sequence number
// in the log, and its map with the bits of the reducers that have it
// queued (the map above logReaders bits), 16 bytes in all.
type loggedOutput struct {
	bytes int64
	seq   uint32
	mbits uint32
}

// m is the output's map.
func (o *loggedOutput) m() int32 { return int32(o.mbits >> logReaders) }

// queued reports whether the reducer of bit has the output queued.
func (o *loggedOutput) queued(bit uint8) bool { return o.mbits&uint32(bit) != 0 }

// unqueued reports whether no reducer has the output queued.
func (o *loggedOutput) unqueued() bool { return o.mbits&(1<<logReaders-1) == 0 }

// matchWindow bounds how far back a reducer looks in a node's list for
// the output another reducer logged from the same announcement. Reducers
// that hear the same news in the same order find it last; any other
// output is logged anew, which costs memory but never changes an order.
const matchWindow = 4

// host returns src's list, making room for it.
func (l *outputLog) host(src sched.NodeID) *hostLog {
	return l.hosts.at(int32(src))
}

// growTo lengthens s to at least n, by a quarter or more at a time, as
// hostLog.append does.
func growTo[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n > cap(s) {
		s = append(make([]T, 0, max(n, len(s)+len(s)/4+8)), s...)
	}
	return s[:n]
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
		hl.out = append(make([]loggedOutput, 0, n+n/4+2), hl.out...)
	}
	hl.out = append(hl.out, o)
}

// trim drops the outputs at the front of node h's list that no reducer
// has queued, and the list when none is left.
func (l *outputLog) trim(h int32) {
	hl := l.hosts.at(h)
	k := 0
	for k < len(hl.out) && hl.out[k].unqueued() {
		k++
	}
	switch {
	case k == len(hl.out):
		hl.out = nil
	case k > 0:
		hl.out = hl.out[k:]
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
// bit, and its node's reducers of the job share its 16 bytes; a source
// node costs each reducer 4 bytes, in pages of the nodes it queued from.
type fetchQueue struct {
	log   *outputLog
	bit   uint8
	last  uint32        // the sequence number of the latest output queued
	count byNode[int32] // outputs queued, by source node id
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
	hl, h := q.log.host(src), int32(src)
	i, ok := q.match(hl, m, bytes)
	if !ok {
		q.log.seq++
		i = len(hl.out)
		hl.append(loggedOutput{bytes: bytes, seq: q.log.seq, mbits: uint32(m) << logReaders})
	}
	hl.out[i].mbits |= uint32(q.bit)
	q.last = hl.out[i].seq
	c := q.count.at(h)
	if *c == 0 {
		q.order = growTo(q.order, len(q.order)+1)[:len(q.order)] // by a quarter, not double
		q.order.push(hostHead{seq: q.last, host: h})
	}
	*c++
	q.n++
}

// match finds the same output logged after the latest this reducer
// queued, among the last matchWindow of the node's list; the oldest such
// keeps the most of the log to match later.
func (q *fetchQueue) match(hl *hostLog, m int32, bytes int64) (at int, ok bool) {
	for i, k := len(hl.out)-1, 0; i >= 0 && k < matchWindow && hl.out[i].seq > q.last; i, k = i-1, k+1 {
		if o := &hl.out[i]; o.m() == m && o.bytes == bytes {
			at, ok = i, true
		}
	}
	return at, ok
}

// next is the place of the reducer's first output in hl at or after
// from; there must be one.
func (q *fetchQueue) next(hl *hostLog, from int) int {
	for i := from; ; i++ {
		if hl.out[i].queued(q.bit) {
			return i
		}
	}
}

// remove drops map m's queued output, wherever it is; false when it is
// not queued. It is rare (a node's outputs lost) and scans the queue.
func (q *fetchQueue) remove(m int32) bool {
	for h, c := range q.count.all() {
		if *c == 0 {
			continue
		}
		hl := q.log.hosts.at(h)
		head := q.next(hl, 0)
		for i := head; i < len(hl.out); i++ {
			if hl.out[i].m() != m || !hl.out[i].queued(q.bit) {
				continue
			}
			hl.out[i].mbits &^= uint32(q.bit)
			*c--
			q.n--
			if i == head && *c > 0 {
				q.order.push(hostHead{seq: hl.out[q.next(hl, i+1)].seq, host: h})
			}
			q.log.trim(h)
			return true
		}
	}
	return false
}

// fetchItem is one map output a fetch carries: its map, the node it is
// read from and the map's whole output bytes (the reducer's partition of
// them is run.share's), 16 bytes: a rack fetch holds thousands.
type fetchItem struct {
	m     int32
	src   sched.NodeID
	whole int64
}

// pop takes the oldest output and, when perHost, every other output on
// its node; it returns their source and the outputs, their whole bytes
// set (the caller partitions them). The queue must not be empty.
func (q *fetchQueue) pop(perHost bool, items []fetchItem) (sched.NodeID, []fetchItem) {
	h, i := q.top()
	c := q.count.at(h)
	take := int32(1)
	if perHost {
		take = *c
	}
	items, i = q.take(h, i, take, items)
	q.order.pop()
	if *c > 0 {
		hl := q.log.hosts.at(h)
		q.order.push(hostHead{seq: hl.out[q.next(hl, i)].seq, host: h})
	}
	q.log.trim(h)
	return sched.NodeID(h), items
}

// take takes the first n outputs queued on node h from place i of its
// list on, appending them to items, and books them gone from the queue;
// it returns the items and the place after the last taken.
func (q *fetchQueue) take(h int32, i int, n int32, items []fetchItem) ([]fetchItem, int) {
	hl := q.log.hosts.at(h)
	for taken := int32(0); taken < n; i++ {
		if !hl.out[i].queued(q.bit) {
			continue
		}
		hl.out[i].mbits &^= uint32(q.bit)
		items = append(items, fetchItem{m: hl.out[i].m(), src: sched.NodeID(h), whole: hl.out[i].bytes})
		taken++
	}
	*q.count.at(h) -= n
	q.n -= int(n)
	return items, i
}

// popRack is pop, and then, with racks of perRack nodes (0: none) and
// the source in another rack than self's, takes every output queued on
// that rack's other nodes, node by node in id order; rack reports
// whether it found any.
func (q *fetchQueue) popRack(perHost bool, self sched.NodeID, perRack int, items []fetchItem) (src sched.NodeID, _ []fetchItem, rack bool) {
	src, items = q.pop(perHost, items)
	if perRack <= 0 || int(src)/perRack == int(self)/perRack {
		return src, items, false
	}
	first, n := int32(src)/int32(perRack)*int32(perRack), len(items)
	for h := first; h < first+int32(perRack); h++ {
		if h != int32(src) {
			items = q.takeAll(h, items)
		}
	}
	return src, items, len(items) > n
}

// takeAll takes every output queued on node h, appending them to items
// oldest first. Node h's entry in the order goes stale, dropped when it
// reaches the top, as after remove.
func (q *fetchQueue) takeAll(h int32, items []fetchItem) []fetchItem {
	c := q.count.get(h)
	if c == nil || *c == 0 {
		return items
	}
	items, _ = q.take(h, 0, *c, items)
	q.log.trim(h)
	return items
}

// top returns the id of the node holding the oldest output and that
// output's place in the node's list, dropping stale heap entries on the
// way.
func (q *fetchQueue) top() (int32, int) {
	for {
		t := q.order[0]
		if *q.count.at(t.host) > 0 {
			hl := q.log.hosts.at(t.host)
			if i := q.next(hl, 0); hl.out[i].seq == t.seq {
				return t.host, i
			}
		}
		q.order.pop()
	}
}

// leave gives up the reducer's queued outputs and its bit in the log.
func (q *fetchQueue) leave() {
	if q.log == nil {
		return
	}
	for h, c := range q.count.all() {
		if *c == 0 {
			continue
		}
		hl := q.log.hosts.at(h)
		for i := range hl.out {
			hl.out[i].mbits &^= uint32(q.bit)
		}
		q.log.trim(h)
	}
	q.log.readers &^= q.bit
	*q = fetchQueue{}
}

// hostHead is a node's place in the order: the sequence number of the
// reducer's oldest output there when the entry was made, and the node's
// id.
type hostHead struct {
	seq  uint32
	host int32
}

// hostOrder is a min-heap of hostHead by sequence number. Its push and
// pop are container/heap's Push and Pop written out for this type (the
// same comparisons and swaps, so the same order among equal entries),
// without an interface call a comparison or boxing an entry.
type hostOrder []hostHead

func (h *hostOrder) push(x hostHead) {
	*h = append(*h, x)
	o := *h
	for j := len(o) - 1; ; {
		i := (j - 1) / 2 // parent
		if i == j || o[j].seq >= o[i].seq {
			break
		}
		o[i], o[j] = o[j], o[i]
		j = i
	}
}

func (h *hostOrder) pop() hostHead {
	o := *h
	n := len(o) - 1
	o[0], o[n] = o[n], o[0]
	for i := 0; ; {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && o[j2].seq < o[j1].seq {
			j = j2
		}
		if o[j].seq >= o[i].seq {
			break
		}
		o[i], o[j] = o[j], o[i]
		i = j
	}
	*h = o[:n]
	return o[n]
}
