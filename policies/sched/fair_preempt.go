package sched

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Tick implements Policy: FAIR's preemption (§3.2 of the paper). A pool
// below min(minimum share, demand) for MinTimeout may take slots from other
// pools' jobs; one below Fraction × its fair share for FairTimeout from
// any job over its share. Victims are the most recently launched attempts
// of jobs running more than their fair share, and no kill brings a job
// below its fair share. A pool that preempted starts its timeouts over, so
// the slots it freed have time to reach it before it preempts again.
func (f *Fair) Tick(now time.Duration, v View) []Preemption {
	var out []Preemption
	if f.evict != nil {
		out = f.evict.expired(now)
	}
	if !f.cfg.Preempt {
		return out
	}
	if onContainers(v) {
		// A pool's share is of the containers, both kinds together, as
		// AssignContainer serves them.
		return append(out, f.preempt(now, containers, f.shares(v, containers), reduceSize(v))...)
	}
	for _, kind := range []TaskKind{Map, Reduce} {
		out = append(out, f.preempt(now, kind, f.shares(v, kind), 1)...)
	}
	return out
}

// preempt picks the attempts of the kind to kill, given the jobs' shares;
// with containers (kind containers) attempts of either kind, a reduce
// freeing size containers.
func (f *Fair) preempt(now time.Duration, kind TaskKind, js []jobShare, size int) []Preemption {
	over := map[JobID]float64{} // running minus fair share, for jobs over it
	for _, j := range js {
		if excess := j.running - math.Ceil(j.fair); excess > 0 {
			over[j.id] = excess
		}
	}
	// With containers no more is taken back than the free containers
	// leave short: a pool below its share while containers stand idle
	// waits for what its application masters hold back (the ramp-up
	// rule), which YARN's Fair Scheduler never counts in a demand.
	free := 0.0
	if kind == containers {
		free = float64(f.rank[containers].slots)
		for _, j := range js {
			free -= j.running
		}
	}
	var out []Preemption
	for _, pool := range poolsOf(js) {
		need, reason, fromOthers := f.need(now, pool, kind)
		if need -= max(free, 0); need <= 0 {
			continue
		}
		victims := f.victims(kind, size, over, func(id JobID) bool { return !fromOthers || f.jobs[id].Pool != pool.pool })
		freed := 0.0
		for i, a := range victims {
			if freed >= math.Floor(need) {
				victims = victims[:i]
				break
			}
			w := takes(a.Kind, size)
			freed += w
			over[a.Job] -= w
			out = append(out, Preemption{Attempt: a, Reason: reason})
		}
		if len(victims) > 0 {
			f.below[pool.pool][kind] = belowSince{now, now}
		}
	}
	return out
}

// poolsOf lists one jobShare per pool, in pool-name order.
func poolsOf(js []jobShare) []jobShare {
	seen := map[string]bool{}
	var out []jobShare
	for _, j := range js {
		if !seen[j.pool] {
			seen[j.pool] = true
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b jobShare) int { return cmp.Compare(a.pool, b.pool) })
	return out
}

// need updates when the pool was last at its minimum and fair share and
// returns how many slots it may take now, why, and whether only from other
// pools (the minimum-share case).
func (f *Fair) need(now time.Duration, p jobShare, kind TaskKind) (float64, string, bool) {
	if f.below[p.pool] == nil { // a job the policy was not told of
		f.below[p.pool] = &[3]belowSince{{now, now}, {now, now}, {now, now}}
	}
	b := &f.below[p.pool][kind]
	if p.poolRunning >= p.poolMinDemand {
		b.atMin = now
	}
	fairTarget := math.Floor(f.cfg.Fraction * p.poolFair)
	if p.poolRunning >= fairTarget {
		b.atFair = now
	}
	var need float64
	reason, fromOthers := "", false
	if now-b.atMin > f.cfg.MinTimeout {
		need, reason, fromOthers = p.poolMinDemand-p.poolRunning, "pool "+p.pool+" below its minimum share", true
	}
	if now-b.atFair > f.cfg.FairTimeout && fairTarget-p.poolRunning > need {
		need, reason, fromOthers = fairTarget-p.poolRunning, "pool "+p.pool+" below its fair share", false
	}
	return need, reason, fromOthers
}

// victims lists the running attempts of the kind that may be killed, most
// recently launched first, taking from each job no more than it runs over
// its fair share. With containers they are of either kind, maps first, as
// YARN's Fair Scheduler takes back an application's containers of the
// lowest priority first and the MapReduce AM asks for its maps at a lower
// priority than its reduces; a reduce counts size containers.
func (f *Fair) victims(kind TaskKind, size int, over map[JobID]float64, ok func(JobID) bool) []Attempt {
	var cands []Attempt
	for a := range f.runs {
		if (a.Kind == kind || kind == containers) && over[a.Job] > 0 && ok(a.Job) {
			cands = append(cands, a)
		}
	}
	slices.SortFunc(cands, func(a, b Attempt) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(f.runs[b], f.runs[a]), CompareAttempts(b, a))
	})
	left := map[JobID]float64{}
	var out []Attempt
	for _, a := range cands {
		if left[a.Job] < over[a.Job] {
			left[a.Job] += takes(a.Kind, size)
			out = append(out, a)
		}
	}
	return out
}

// takes is what an attempt of the kind holds: a slot, or with containers
// size containers for a reduce.
func takes(kind TaskKind, size int) float64 {
	if kind == Reduce {
		return float64(size)
	}
	return 1
}
