package qos

// WRR is a node's weighted round robin over one FIFO queue per class
// (notes §2.5.3): a round visits the classes highest first and takes up
// to a class's weight of tasks from its queue, skipping a queue that is
// empty, so a round serves at most the sum of the weights. It keeps its
// place between calls: Next resumes the round where the last left off.
type WRR[T any] struct {
	weights []int
	queues  [][]T
	at      int // the class being served
	taken   int // tasks taken from it in this round
}

// NewWRR returns an empty WRR over classes of the weights, highest first;
// every weight must be at least 1.
func NewWRR[T any](weights []int) *WRR[T] {
	return &WRR[T]{weights: weights, queues: make([][]T, len(weights))}
}

// Push appends a task to its class's queue.
func (w *WRR[T]) Push(class int, t T) { w.queues[class] = append(w.queues[class], t) }

// Len is the tasks queued in every class.
func (w *WRR[T]) Len() int {
	n := 0
	for _, q := range w.queues {
		n += len(q)
	}
	return n
}

// Queued is the tasks queued in a class.
func (w *WRR[T]) Queued(class int) int { return len(w.queues[class]) }

// Next takes the next task in round-robin order and its class, and false
// when every queue is empty. The complexity is O(classes).
func (w *WRR[T]) Next() (T, int, bool) {
	var zero T
	if w.Len() == 0 {
		return zero, 0, false
	}
	for {
		if w.taken < w.weights[w.at] && len(w.queues[w.at]) > 0 {
			c := w.at
			t := w.queues[c][0]
			w.queues[c][0] = zero
			w.queues[c] = w.queues[c][1:]
			w.taken++
			return t, c, true
		}
		w.at, w.taken = (w.at+1)%len(w.weights), 0
	}
}

// Remove takes out of the queues every task for which drop reports true,
// keeping the others' order, and returns how many it took.
func (w *WRR[T]) Remove(drop func(T) bool) int {
	n := 0
	for c, q := range w.queues {
		kept := q[:0]
		for _, t := range q {
			if drop(t) {
				n++
				continue
			}
			kept = append(kept, t)
		}
		clear(q[len(kept):])
		w.queues[c] = kept
	}
	return n
}
