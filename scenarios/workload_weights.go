package scenarios

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"clusteremu/workload"
)

// JobWeights is a stream's weights key: each job's share weight within
// its pool (what the fair policy splits a pool's slots by), drawn
// uniformly from the list for every job of the stream in submission
// order, from the workload seed and the stream's key, so the same seed
// gives the same weights and other streams' draws do not move them. Hu
// et al.'s Fair gives each job a random integer priority from 1 to 5:
// weights = [1, 2, 3, 4, 5]. A listed job's own weight, when it sets one,
// wins over the draw. Without the key (the default) nothing is drawn and
// every job weighs 1.
type JobWeights struct {
	Weights []float64 `toml:"weights"`
}

// maxJobWeight is the largest weight a stream may list, as a fair pool's.
const maxJobWeight = 1e3

// check reports every listed weight that is not a finite number in
// (0, 1000].
func (w JobWeights) check(c *checks) {
	if w.Weights != nil && len(w.Weights) == 0 {
		c.add(true, Invalid("weights", w.Weights, "must list at least one weight (leave the key out for weight 1)"))
	}
	for i, x := range w.Weights {
		c.add(!(x > 0 && x <= maxJobWeight), Invalid(fmt.Sprintf("weights[%d]", i), x, "must be a finite number in (0, 1000]: a job's share weight in its pool"))
	}
}

// draw gives each job without a weight of its own one drawn from the
// list, from a generator of the workload seed and the stream's key.
func (w JobWeights) draw(jobs []workload.JobSpec, seed uint64, key string) {
	if len(w.Weights) == 0 {
		return
	}
	h := fnv.New64a()
	h.Write([]byte("weights " + key))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	for i := range jobs {
		x := w.Weights[rng.IntN(len(w.Weights))]
		if jobs[i].Weight == 0 {
			jobs[i].Weight = x
		}
	}
}

// weighted is a stream that takes the weights key.
type weighted interface {
	jobWeights() JobWeights
}

func (w JobWeights) jobWeights() JobWeights { return w }

// JobPriority is a stream's priority key: the Hadoop priority of each of
// its jobs, 0 (very high) to 4 (very low), 2 (normal) when absent. FIFO
// serves jobs by priority, then by submission (Hadoop's default
// scheduler), so two streams of different priorities under it are the
// non-preemptive priority queue of queueing theory; FAIR multiplies a
// job's weight by the priority's factor (sched.Priority.ShareFactor);
// the other policies do not read it.
type JobPriority struct {
	Priority *int `toml:"priority"`
}

// check reports a priority outside 0 … 4.
func (p JobPriority) check(c *checks) {
	if p.Priority != nil {
		c.add(!workload.ValidPriority(*p.Priority), Invalid("priority", *p.Priority, workload.PriorityRange))
	}
}

// give sets every job's priority to the stream's, when it gives one.
func (p JobPriority) give(jobs []workload.JobSpec) {
	if p.Priority == nil {
		return
	}
	for i := range jobs {
		jobs[i].Priority = *p.Priority
	}
}

// prioritised is a stream that takes the priority key.
type prioritised interface {
	jobPriority() JobPriority
}

func (p JobPriority) jobPriority() JobPriority { return p }
