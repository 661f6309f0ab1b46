package netmodel

import "math/bits"

// indexedHeap is a 4-ary min-heap (half the depth of a binary one, and
// a node's children share a cache line) over small integer items (link ids or
// flow slots) whose key can be changed in place. Entries are ordered by
// (key, item), a total order, so the sequence of pops does not depend on
// the order of the operations that built the heap; pos[item] is the
// item's index in es plus one, or 0 when the item is absent, so set,
// remove and contains cost O(log n), O(log n) and O(1) without allocating
// once pos has grown to the item range. An entry is 16 bytes, so four
// siblings span one or two cache lines.
//
// The solver stores a link's level as math.Float64bits of a non-negative
// float64, whose unsigned order equals the numeric order, and a flow's
// completion instant as a non-negative int64; one key type serves both.
type indexedHeap struct {
	es  []heapEntry
	pos []int32
}

const arity = 4

type heapEntry struct {
	key  uint64
	item int32
}

func (a heapEntry) before(b heapEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.item < b.item
}

// grow makes room for items in [0, n).
func (h *indexedHeap) grow(n int) {
	for len(h.pos) < n {
		h.pos = append(h.pos, 0)
	}
}

func (h *indexedHeap) len() int { return len(h.es) }

func (h *indexedHeap) contains(item int32) bool { return h.pos[item] != 0 }

// key returns a present item's key.
func (h *indexedHeap) key(item int32) uint64 { return h.es[h.pos[item]-1].key }

// min returns the first entry; the heap must not be empty.
func (h *indexedHeap) min() heapEntry { return h.es[0] }

// set inserts item or changes its key in place.
func (h *indexedHeap) set(item int32, key uint64) {
	e := heapEntry{key: key, item: item}
	if p := h.pos[item]; p != 0 {
		i := int(p - 1)
		old := h.es[i]
		h.es[i] = e
		if e.before(old) {
			h.up(i)
		} else {
			h.down(i)
		}
		return
	}
	h.es = append(h.es, e)
	h.pos[item] = int32(len(h.es))
	h.up(len(h.es) - 1)
}

// push appends an absent item without restoring the heap order; call
// heapify before any other operation.
func (h *indexedHeap) push(item int32, key uint64) {
	h.es = append(h.es, heapEntry{key: key, item: item})
	h.pos[item] = int32(len(h.es))
}

// heapify restores the heap order after pushes, in O(n).
func (h *indexedHeap) heapify() {
	for i := (len(h.es) - 2) / arity; i >= 0; i-- {
		h.down(i)
	}
}

// remove deletes item if it is present.
func (h *indexedHeap) remove(item int32) {
	p := h.pos[item]
	if p == 0 {
		return
	}
	i := int(p - 1)
	h.pos[item] = 0
	last := len(h.es) - 1
	if i == last {
		h.es = h.es[:last]
		return
	}
	moved := h.es[last]
	h.es = h.es[:last]
	h.es[i] = moved
	h.pos[moved.item] = int32(i + 1)
	h.up(i)
	h.down(int(h.pos[moved.item] - 1))
}

// clear removes every entry.
func (h *indexedHeap) clear() {
	for _, e := range h.es {
		h.pos[e.item] = 0
	}
	h.es = h.es[:0]
}

// pop removes and returns the first entry; the heap must not be empty.
func (h *indexedHeap) pop() heapEntry {
	e := h.es[0]
	h.pos[e.item] = 0
	last := len(h.es) - 1
	moved := h.es[last]
	h.es = h.es[:last]
	if last > 0 {
		h.es[0] = moved
		h.down(0) // the root has no parent: sift down only
	}
	return e
}

func (h *indexedHeap) up(i int) {
	e := h.es[i]
	for i > 0 {
		parent := (i - 1) / arity
		if !e.before(h.es[parent]) {
			break
		}
		h.put(i, h.es[parent])
		i = parent
	}
	h.put(i, e)
}

func (h *indexedHeap) down(i int) {
	es := h.es
	e := es[i]
	n := len(es)
	for {
		first := arity*i + 1
		if first >= n {
			break
		}
		var child int
		if last := first + arity; last <= n {
			child = first + minOf4(es[first:last:last])
		} else {
			child = first
			for c := first + 1; c < n; c++ {
				if es[c].before(es[child]) {
					child = c
				}
			}
		}
		if !es[child].before(e) {
			break
		}
		h.put(i, es[child])
		i = child
	}
	h.put(i, e)
}

// minOf4 returns the index of the first of four sibling entries in heap
// order. It selects with arithmetic instead of branches: the comparisons
// of a sift-down are unpredictable, and mispredicted branches were most
// of its cost.
func minOf4(c []heapEntry) int {
	_ = c[3]
	a := lessBit(&c[1], &c[0])
	b := 2 + lessBit(&c[3], &c[2])
	return int(a + (b-a)&-lessBit(&c[b], &c[a]))
}

// lessBit is 1 when a is before b and 0 otherwise, computed without a
// branch: it is the borrow out of the 128-bit subtraction of (b.key,
// b.item) from (a.key, a.item). Items are not negative.
func lessBit(a, b *heapEntry) uint64 {
	_, borrow := bits.Sub64(uint64(a.item), uint64(b.item), 0)
	_, borrow = bits.Sub64(a.key, b.key, borrow)
	return borrow
}

// put stores e at index i and records its position.
func (h *indexedHeap) put(i int, e heapEntry) {
	h.es[i] = e
	h.pos[e.item] = int32(i + 1)
}
