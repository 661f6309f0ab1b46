package actors

import (
	"container/heap"

	"clusteremu/policies/sched"
)

// fetchQueue is a reduce attempt's announced map outputs not yet fetched,
// kept per source node. Outputs are served oldest first: a fetch takes
// the oldest announced output and, when fetches go per host, every other
// queued output on its node. Keeping them per node makes a per-host fetch
// cost the outputs it takes rather than a scan of everything queued (a
// reducer of a 56,000-map job queues tens of thousands of outputs), and
// an output costs 16 bytes rather than a MapOutput's 24.
//
// The order is exactly that of one queue in announcement order: each
// output has a sequence number, each node's outputs are in sequence
// order, and the nodes are ordered by their oldest output in a heap whose
// stale entries (a node emptied, or its oldest output taken by forget)
// are dropped when they reach the top.
type fetchQueue struct {
	hosts map[sched.NodeID]*hostOutputs
	order hostOrder
	seq   uint32
	n     int
}

// hostOutputs are one node's queued outputs, oldest first.
type hostOutputs struct {
	outs []queuedOutput
}

type queuedOutput struct {
	seq   uint32
	m     int32
	bytes int64
}

// len is the number of outputs queued.
func (q *fetchQueue) len() int { return q.n }

// push queues an output on node src.
func (q *fetchQueue) push(m int32, src sched.NodeID, bytes int64) {
	if q.hosts == nil {
		q.hosts = make(map[sched.NodeID]*hostOutputs)
	}
	h := q.hosts[src]
	if h == nil {
		h = &hostOutputs{}
		q.hosts[src] = h
	}
	q.seq++
	if len(h.outs) == 0 {
		heap.Push(&q.order, hostHead{seq: q.seq, node: src})
	}
	h.outs = append(h.outs, queuedOutput{seq: q.seq, m: m, bytes: bytes})
	q.n++
}

// remove drops map m's queued output, wherever it is; false when it is
// not queued. It is rare (a node's outputs lost) and scans the queue.
func (q *fetchQueue) remove(m int32) bool {
	for src, h := range q.hosts {
		for i, o := range h.outs {
			if o.m != m {
				continue
			}
			h.outs = append(h.outs[:i], h.outs[i+1:]...)
			q.n--
			switch {
			case len(h.outs) == 0:
				delete(q.hosts, src)
			case i == 0:
				heap.Push(&q.order, hostHead{seq: h.outs[0].seq, node: src})
			}
			return true
		}
	}
	return false
}

// fetchItem is one map output a fetch carries.
type fetchItem struct {
	m     int32
	bytes int64
}

// pop takes the oldest output and, when perHost, every other output on
// its node; it returns their source, the outputs and their bytes. The
// queue must not be empty.
func (q *fetchQueue) pop(perHost bool, items []fetchItem) (sched.NodeID, []fetchItem, int64) {
	src, h := q.head()
	take := 1
	if perHost {
		take = len(h.outs)
	}
	var bytes int64
	for _, o := range h.outs[:take] {
		items = append(items, fetchItem{o.m, o.bytes})
		bytes += o.bytes
	}
	q.n -= take
	heap.Pop(&q.order)
	if h.outs = h.outs[take:]; len(h.outs) == 0 {
		delete(q.hosts, src)
	} else {
		heap.Push(&q.order, hostHead{seq: h.outs[0].seq, node: src})
	}
	return src, items, bytes
}

// head returns the node holding the oldest output, dropping stale heap
// entries on the way.
func (q *fetchQueue) head() (sched.NodeID, *hostOutputs) {
	for {
		top := q.order[0]
		if h := q.hosts[top.node]; h != nil && h.outs[0].seq == top.seq {
			return top.node, h
		}
		heap.Pop(&q.order)
	}
}

// hostHead is a node's place in the order: the sequence number of its
// oldest output when the entry was made.
type hostHead struct {
	seq  uint32
	node sched.NodeID
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
