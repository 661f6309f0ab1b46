package sched

import "time"

// serviceBook sums the service each job has attained, Hu et al.'s Eq. 6:
// the slot time its attempts held, by kind, from launch to their real end
// (Finish.At), killed and failed attempts included, and the running
// attempts' time up to now. LAS, SRPT and LAS_MQ share it.
type serviceBook struct {
	jobs map[JobID]*attained
	runs map[Attempt]time.Duration // running attempts' launch instants
}

// attained is one job's service by TaskKind.
type attained struct {
	// ended is the slot time of its attempts that have ended.
	ended [2]time.Duration
	// running counts its running attempts; started sums their launch
	// instants, so their time so far at now is running × now − started.
	running [2]int
	started [2]time.Duration
}

func newServiceBook() serviceBook {
	return serviceBook{jobs: map[JobID]*attained{}, runs: map[Attempt]time.Duration{}}
}

// add starts a job's account at no service.
func (b *serviceBook) add(id JobID) { b.jobs[id] = &attained{} }

// remove forgets a job; its attempts' later ends are ignored.
func (b *serviceBook) remove(id JobID) { delete(b.jobs, id) }

// launched starts an attempt's slot time at now.
func (b *serviceBook) launched(now time.Duration, a Attempt) {
	j := b.jobs[a.Job]
	if j == nil {
		return
	}
	b.runs[a] = now
	j.running[a.Kind]++
	j.started[a.Kind] += now
}

// finished books an attempt's slot time, launch to its real end.
func (b *serviceBook) finished(f Finish) {
	start, ok := b.runs[f.Attempt]
	if !ok {
		return
	}
	delete(b.runs, f.Attempt)
	j := b.jobs[f.Attempt.Job]
	if j == nil {
		return
	}
	k := f.Attempt.Kind
	j.running[k]--
	j.started[k] -= start
	j.ended[k] += max(f.At-start, 0)
}

// of is the job's service of the kind at now; 0 for a job not booked.
func (b *serviceBook) of(now time.Duration, id JobID, kind TaskKind) time.Duration {
	j := b.jobs[id]
	if j == nil {
		return 0
	}
	return j.ended[kind] + time.Duration(j.running[kind])*now - j.started[kind]
}

// total is the job's service of both kinds at now.
func (b *serviceBook) total(now time.Duration, id JobID) time.Duration {
	return b.of(now, id, Map) + b.of(now, id, Reduce)
}
