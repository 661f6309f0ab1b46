package explore

import (
	"sync"

	"clusteremu/cluster"
)

// Runs is a set of runs going on at once, so that one interrupt reaches
// them all and no run starts after it. Its methods may be called from any
// goroutine; the zero value is not ready, NewRuns makes one.
type Runs struct {
	mu      sync.Mutex
	running map[*cluster.Cluster]bool
	stop    bool
	done    chan struct{} // closed at the interrupt
}

// NewRuns returns an empty set of runs, not interrupted.
func NewRuns() *Runs {
	return &Runs{running: map[*cluster.Cluster]bool{}, done: make(chan struct{})}
}

// Run runs c as one of the set. Once the set is interrupted c still runs,
// stopping at its first step, so its actors are released.
func (s *Runs) Run(c *cluster.Cluster) (*cluster.Report, error) {
	s.add(c)
	defer s.remove(c)
	return c.Run()
}

// add registers a run about to start; once interrupted it interrupts c
// first.
func (s *Runs) add(c *cluster.Cluster) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop {
		c.Interrupt()
		return
	}
	s.running[c] = true
}

func (s *Runs) remove(c *cluster.Cluster) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.running, c)
}

// Interrupt stops every run going on and every one to come.
func (s *Runs) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stop {
		close(s.done)
	}
	s.stop = true
	for c := range s.running {
		c.Interrupt()
	}
}

// Stopped reports whether the set was interrupted.
func (s *Runs) Stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop
}

// Done returns a channel closed when the set is interrupted: how work
// that is not a run here (a sweep over worker processes) hears of it.
func (s *Runs) Done() <-chan struct{} { return s.done }
