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
	for _, kind := range []TaskKind{Map, Reduce} {
		out = append(out, f.preempt(now, kind, f.shares(v, kind))...)
	}
	return out
}

// preempt picks the attempts of the kind to kill, given the jobs' shares.
func (f *Fair) preempt(now time.Duration, kind TaskKind, js []jobShare) []Preemption {
	over := map[JobID]float64{} // running minus fair share, for jobs over it
	for _, j := range js {
		if excess := j.running - math.Ceil(j.fair); excess > 0 {
			over[j.id] = excess
		}
	}
	var out []Preemption
	for _, pool := range poolsOf(js) {
		need, reason, fromOthers := f.need(now, pool, kind)
		if need <= 0 {
			continue
		}
		victims := f.victims(kind, over, func(id JobID) bool { return !fromOthers || f.jobs[id].Pool != pool.pool })
		if len(victims) > int(need) {
			victims = victims[:int(need)]
		}
		for _, a := range victims {
			over[a.Job]--
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
		f.below[p.pool] = &[2]belowSince{{now, now}, {now, now}}
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
// its fair share.
func (f *Fair) victims(kind TaskKind, over map[JobID]float64, ok func(JobID) bool) []Attempt {
	var cands []Attempt
	for a := range f.runs {
		if a.Kind == kind && over[a.Job] > 0 && ok(a.Job) {
			cands = append(cands, a)
		}
	}
	slices.SortFunc(cands, func(a, b Attempt) int {
		return cmp.Or(cmp.Compare(f.runs[b], f.runs[a]), CompareAttempts(b, a))
	})
	left := map[JobID]float64{}
	var out []Attempt
	for _, a := range cands {
		if left[a.Job] < over[a.Job] {
			left[a.Job]++
			out = append(out, a)
		}
	}
	return out
}
