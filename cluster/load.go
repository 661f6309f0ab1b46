package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"clusteremu/internal/parallel"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// LoadStream draws the arrivals of a workload stream when the run is
// built, so that they offer the cluster a load ρ, as Ghit & Epema's
// workloads do: the stream's jobs in a random order (their paper draws
// the 1121 jobs without repetition: a permutation), submitted as a
// Poisson process of rate λ = ρ × slots / mean size. A job's size is the
// slot-seconds it holds alone, found by a sizing pass: each job runs alone
// on the empty cluster under FIFO, submitted at 0, with seeds 0, whatever
// the run's policy and seeds, so every policy and every seed of a
// scenario sees jobs of the same sizes and, for one seed, the same
// arrivals. The pass runs when the run is built (Build), not when the
// scenario is validated, and each solo run is made once per process
// (soloCache).
type LoadStream struct {
	// Key names the stream in errors ("workload.swim[0]").
	Key string
	// Stream is the stream's index in Config.Workload.
	Stream int
	// Load is ρ, > 0.
	Load float64
	// Slots is the slots the load is of; 0 is every map and reduce slot.
	Slots int
}

// sizingSeed seeds the sizing pass's solo runs, whatever the run's seeds.
const sizingSeed = 0

func (c *Config) validateLoads() []error {
	var errs []error
	for _, l := range c.Loads {
		switch {
		case l.Stream < 0 || l.Stream >= len(c.Workload):
			errs = append(errs, fmt.Errorf("%s: load stream %d: no such workload stream", l.Key, l.Stream))
		case !(l.Load > 0) || math.IsInf(l.Load, 0):
			errs = append(errs, &FieldError{Key: l.Key + ".load", Value: l.Load, Msg: "must be a finite number > 0"})
		case l.Slots < 0:
			errs = append(errs, &FieldError{Key: l.Key + ".slots", Value: l.Slots, Msg: "must be ≥ 0 (0: the map + reduce slots)"})
		}
	}
	return errs
}

// drawArrivals returns the configuration with every load stream's
// arrivals drawn, and the wall time the sizing pass took.
func (c Config) drawArrivals() (Config, time.Duration, error) {
	if len(c.Loads) == 0 {
		return c, 0, nil
	}
	start := time.Now()
	c.Workload = append([][]workload.JobSpec(nil), c.Workload...)
	for _, l := range c.Loads {
		jobs, err := c.loadArrivals(l)
		if err != nil {
			return c, time.Since(start), err
		}
		c.Workload[l.Stream] = jobs
	}
	c.Loads = nil
	return c, time.Since(start), nil
}

// loadArrivals draws one stream's order and arrivals.
func (c *Config) loadArrivals(l LoadStream) ([]workload.JobSpec, error) {
	jobs := c.Workload[l.Stream]
	if len(jobs) == 0 {
		return nil, nil
	}
	sizes, err := c.sizeJobs(l.Stream)
	if err != nil {
		return nil, fmt.Errorf("%s: sizing its jobs: %w", l.Key, err)
	}
	total := 0.0
	for _, s := range sizes {
		total += s.Held[0] + float64(c.reduceWeight())*s.Held[1]
	}
	slots := l.Slots
	if slots == 0 {
		slots = c.Cluster.Attempts(&c.Tasks)
	}
	if !(total > 0) {
		return nil, &FieldError{Key: l.Key + ".load", Value: l.Load, Msg: fmt.Sprintf(
			"the stream's %d jobs hold no slot time alone (size 0), so no arrival rate offers a load", len(jobs))}
	}
	rate := l.Load * float64(slots) / (total / float64(len(jobs)))               // jobs per second
	order := rand.New(rand.NewPCG(c.Run.Seed, 0x6f72646572<<8|uint64(l.Stream))) // "order"
	gaps := rand.New(rand.NewPCG(c.Run.Seed, 0x67617073<<8|uint64(l.Stream)))    // "gaps"
	out := make([]workload.JobSpec, len(jobs))
	at := 0.0
	for i, j := range order.Perm(len(jobs)) {
		at += gaps.ExpFloat64() / rate
		out[i] = jobs[j]
		out[i].Submit = time.Duration(math.Round(at * 1e9))
	}
	return out, nil
}

// reduceWeight is what a reduce's slot-second weighs against the
// cluster's attempts at once (Attempts): the containers it takes with
// containers, else 1.
func (c *Config) reduceWeight() int {
	if c.Cluster.Containers > 0 {
		return c.Cluster.ReduceSize()
	}
	return 1
}

// sizeJobs runs each job of the stream alone from 0 under FIFO and
// returns what it held, in the stream's order.
func (c *Config) sizeJobs(stream int) ([]Solo, error) {
	first := max(1, c.firstJob)
	for _, s := range c.Workload[:stream] {
		first += sched.JobID(len(s))
	}
	solo := *c
	solo.Scheduler = SchedulerConfig{Name: "fifo", Tick: c.Scheduler.Tick}
	solo.Run.Seed, solo.Run.ScheduleSeed = sizingSeed, sizingSeed
	jobs := c.Workload[stream]
	sizes := make([]Solo, len(jobs))
	errs := make([]error, len(jobs))
	parallel.For(len(jobs), 0, func(i int) {
		j := jobs[i]
		j.Submit, j.Work = 0, 0
		sizes[i], errs[i] = soloRun(solo, j, first+sched.JobID(i))
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("job %d (%s): %w", i+1, jobs[i].Name, err)
		}
	}
	return sizes, nil
}

// withWork returns the configuration with every stream's jobs' Work set
// to the slot time each holds alone (the sizing pass), for a policy told
// job sizes (sched.NeedsWork). Closed-loop workers' jobs get none.
func (c Config) withWork() (Config, error) {
	c.Workload = append([][]workload.JobSpec(nil), c.Workload...)
	for s := range c.Workload {
		sizes, err := c.sizeJobs(s)
		if err != nil {
			return c, fmt.Errorf("sizing stream %d's jobs for %s: %w", s, c.Scheduler.Name, err)
		}
		jobs := append([]workload.JobSpec(nil), c.Workload[s]...)
		for i := range jobs {
			jobs[i].Work = time.Duration(math.Round(sizes[i].Size() * 1e9))
		}
		c.Workload[s] = jobs
	}
	return c, nil
}
