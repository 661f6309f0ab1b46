package cluster

import (
	"time"

	"clusteremu/actors"
)

// QueueWindow is the window over which the coordinator's queue is kept:
// its most waiting or in service in each (Records.CoordinatorQueue).
const QueueWindow = time.Second

// QueueSpan is the coordinator's queue over a stretch of the run: the
// most messages waiting for or in its service at once from From to To.
type QueueSpan struct {
	From, To time.Duration
	Most     int
}

// queueTally keeps the coordinator's queue window by window, 24 bytes a
// window in which it changed, so that a day's millions of messages cost a
// day's seconds.
type queueTally struct {
	n     int           // waiting or in service now
	win   time.Duration // the window being kept; −1 before the first
	most  int           // its most so far
	spans []QueueSpan
}

func newQueueTally() *queueTally { return &queueTally{win: -1} }

// change moves the queue by delta at at.
func (q *queueTally) change(at time.Duration, delta int) {
	if w := at.Truncate(QueueWindow); w != q.win {
		q.close(w)
		q.win, q.most = w, q.n
	}
	q.n += delta
	q.most = max(q.most, q.n)
}

// close ends the window kept, and the stretch after it until next, over
// which the queue held still.
func (q *queueTally) close(next time.Duration) {
	if q.win < 0 {
		if next > 0 {
			q.spans = append(q.spans, QueueSpan{0, next, 0})
		}
		return
	}
	end := q.win + QueueWindow
	q.spans = append(q.spans, QueueSpan{q.win, end, q.most})
	if next > end {
		q.spans = append(q.spans, QueueSpan{end, next, q.n})
	}
}

// until returns the spans to end.
func (q *queueTally) until(end time.Duration) []QueueSpan {
	spans := q.spans
	if q.win >= 0 {
		last := min(q.win+QueueWindow, max(end, q.win))
		spans = append(spans, QueueSpan{q.win, last, q.most})
		if end > last {
			spans = append(spans, QueueSpan{last, end, q.n})
		}
	}
	return spans
}

// CoordinatorQueued implements actors.Recorder.
func (r *recorder) CoordinatorQueued(at time.Duration, delta int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queue != nil {
		r.queue.change(at, delta)
	}
}

var _ actors.Recorder = (*recorder)(nil)
