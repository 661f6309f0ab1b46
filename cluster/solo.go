package cluster

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"clusteremu/internal/parallel"
	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// A job's slowdown is its response time divided by its reference runtime:
// its response time when it runs alone on an empty copy of the cluster
// (Ghit & Epema's "runtime in an empty system"; Hu et al.'s solo runs). A
// job that meets no contention has slowdown 1, so the reference includes
// the wait for the first heartbeat and the slow-start gap, which the
// paper's first-task-to-last-task runtime leaves out.
//
// Each reference is a deterministic virtual-time run of the same
// configuration holding that job only. The job is submitted at its
// original instant modulo the heartbeat interval: heartbeat phases repeat
// every interval, so the job meets the heartbeats at the same offsets as
// in the real run without the solo run emulating the hours before it.
// The job keeps its ID, so its input blocks land where they did in the
// real run and each attempt draws its replica choices from the same
// stream (actors' blockMap). Its tasks may still land on other nodes: in
// the real run they take whichever slots other jobs left, which now and
// then sit better than the ones a lone job gets, so a slowdown can come
// out a little below 1.
//
// The reference run also measures the job's size, Ghit & Epema's "sum of
// its task runtimes": the slot time its attempts held alone, by kind. With
// [run] reference_scheduler the references run under that policy (with
// its defaults) instead of the run's own, so a job scheduled in a
// partition (TAGS, SITA) is measured on the whole cluster.

// Solo is what a job alone measured: its response time and the
// slot-seconds its attempts held, by sched.TaskKind (killed and failed
// attempts too).
type Solo struct {
	Runtime time.Duration
	Held    [2]float64
}

// Size is the slot-seconds the job held alone, maps and reduces.
func (s Solo) Size() float64 { return s.Held[0] + s.Held[1] }

// ReferenceRuntimes returns each job's response time alone on an empty
// copy of the configured cluster, indexed as Config.Jobs (job ID − 1), with
// every job submitted at its Submit (a closed worker's job at its think
// time). A job that does not succeed alone gets 0. Jobs with equal specs
// reading one shared file share one run; up to workers runs go at once
// (0: one per CPU).
func ReferenceRuntimes(cfg Config, workers int) ([]time.Duration, error) {
	jobs := cfg.Jobs()
	subs := make([]soloJob, len(jobs))
	for i, j := range jobs {
		subs[i] = soloJob{index: i, at: j.Submit}
	}
	refs, err := referenceRuns(cfg, subs, workers)
	out := make([]time.Duration, len(refs))
	for i, r := range refs {
		out[i] = r.Runtime
	}
	return out, err
}

// soloJob is a job to run alone: its index in Config.Jobs and the
// instant it was submitted.
type soloJob struct {
	index int
	at    time.Duration
}

// referenceRuns measures the listed jobs, each under the reference
// scheduler.
func referenceRuns(cfg Config, subs []soloJob, workers int) ([]Solo, error) {
	if name := cfg.Run.ReferenceScheduler; name != "" && name != cfg.Scheduler.Name {
		cfg.Scheduler = SchedulerConfig{Name: name, Tick: cfg.Scheduler.Tick}
	}
	jobs := cfg.Jobs()
	refs := make([]Solo, len(jobs))
	// Jobs of one shape reading one shared file share a run. A job
	// with a private input is its own shape: its file is named by its
	// ID, and so placed.
	byShape := map[soloShape][]int{}
	var shapes []soloShape
	var specs []workload.JobSpec
	for _, sub := range subs {
		i, spec := sub.index, jobs[sub.index]
		spec.Submit = sub.at
		spec = soloSpec(spec, cfg.Heartbeat.Interval.Std())
		shape := newSoloShape(spec, sched.JobID(i+1))
		if _, ok := byShape[shape]; !ok {
			shapes, specs = append(shapes, shape), append(specs, spec)
		}
		byShape[shape] = append(byShape[shape], i)
	}
	results := make([]Solo, len(shapes))
	errs := make([]error, len(shapes))
	parallel.For(len(shapes), workers, func(i int) {
		results[i], errs[i] = soloRun(cfg, specs[i], sched.JobID(byShape[shapes[i]][0]+1))
	})
	for i, shape := range shapes {
		if errs[i] != nil {
			return nil, fmt.Errorf("reference run of job %d (%s): %w", byShape[shape][0]+1, jobs[byShape[shape][0]].Name, errs[i])
		}
		for _, j := range byShape[shape] {
			refs[j] = results[i]
		}
	}
	return refs, nil
}

// soloShape is what makes two jobs' reference runs the same: the spec
// spelt out (its input files are a slice, no map key), and the job's ID
// when its input is its own.
type soloShape struct {
	spec string
	id   sched.JobID // 0 when the input is shared
}

func newSoloShape(spec workload.JobSpec, id sched.JobID) soloShape {
	if spec.InputFile != "" || len(spec.InputFiles) > 0 {
		id = 0
	}
	return soloShape{spec: fmt.Sprintf("%#v", spec), id: id}
}

// soloSpec is the job as its reference run submits it: unnamed, so equal
// shapes share a run, at the same heartbeat offset. A workflow's job reads
// its input alone as any job's: stored where HDFS would place it.
func soloSpec(j workload.JobSpec, heartbeat time.Duration) workload.JobSpec {
	j.Name = ""
	// Alone it waits for no job, none reads its output, and what it reads
	// is stored as any input is.
	j.After, j.Output, j.ReadsOutput = nil, "", false
	if heartbeat > 0 {
		j.Submit %= heartbeat
	}
	return j
}

// soloRun runs one job alone and returns its response time and the slot
// time it held; a zero Solo when it failed. Runs of the same configuration
// and job are made once per process (soloCache).
func soloRun(cfg Config, job workload.JobSpec, id sched.JobID) (Solo, error) {
	cfg.Workload, cfg.Closed, cfg.Loads, cfg.QoS, cfg.firstJob = [][]workload.JobSpec{{job}}, nil, nil, nil, id
	// Alone, no file is read by two jobs at once: Scarlett would raise no
	// factor, and its epochs would only keep the run going.
	cfg.Replication = nil
	if cfg.Cache != nil { // an empty copy of the cluster: its caches too
		c := *cfg.Cache
		c.Preload = nil
		cfg.Cache = &c
	}
	// A deterministic virtual run with the same seeds and stall limit, and
	// the cluster's chaos, but none of the run's own decisions: they name
	// instants and actors of the shared run.
	cfg.Run = RunOptions{Seed: cfg.Run.Seed, ScheduleSeed: cfg.Run.ScheduleSeed, StallAfter: cfg.Run.StallAfter}
	run := func() (Solo, error) {
		c, err := Build(cfg)
		if err != nil {
			return Solo{}, err
		}
		rep, err := c.Run()
		if err != nil {
			return Solo{}, err
		}
		if j := rep.Records.Jobs[0]; j.Outcome == JobSucceeded {
			return Solo{Runtime: j.Finish - j.Submit, Held: rep.Records.Tally.Busy}, nil
		}
		return Solo{}, nil
	}
	if key, ok := soloKey(&cfg); ok {
		return soloCache.do(key, run)
	}
	return run()
}

// soloCache holds the solo runs made in this process by what decides
// them: the reference runs of variants that share a workload and a
// reference scheduler (clusteremu reproduce and compare), and the sizing
// passes of load streams, are made once. A solo run is a pure function of
// its key, so the cache changes no figure.
var soloCache = &soloMemo{runs: map[[sha256.Size]byte]*soloEntry{}}

// soloMemo is a memo of solo runs by soloKey, safe for concurrent use: a
// run asked for while another caller makes it is waited for, not made
// twice.
type soloMemo struct {
	mu   sync.Mutex
	runs map[[sha256.Size]byte]*soloEntry
}

// soloEntry is one solo run, made or being made; done closes when it is.
type soloEntry struct {
	done chan struct{}
	solo Solo
	err  error
}

// do returns the run under key, making it with run unless it was made or
// is being made. A run that failed is forgotten, to be tried again.
func (m *soloMemo) do(key [sha256.Size]byte, run func() (Solo, error)) (Solo, error) {
	m.mu.Lock()
	if e, ok := m.runs[key]; ok {
		m.mu.Unlock()
		<-e.done
		return e.solo, e.err
	}
	e := &soloEntry{done: make(chan struct{})}
	m.runs[key] = e
	m.mu.Unlock()
	e.solo, e.err = run()
	if e.err != nil {
		m.mu.Lock()
		delete(m.runs, key)
		m.mu.Unlock()
	}
	close(e.done)
	return e.solo, e.err
}

// soloKey is what decides a solo run of cfg, hashed; a run with faults or
// message rules, whose entries carry no stable form, is not cached. The
// scheduler's parameters are keyed as the policy is built from them: nil
// Params are its defaults (sched.New), so a reference run under a
// reference_scheduler (Params dropped) and one under the run's own policy
// of that name at its defaults are one run.
func soloKey(cfg *Config) ([sha256.Size]byte, bool) {
	if len(cfg.Faults) > 0 || len(cfg.Rules) > 0 {
		return [sha256.Size]byte{}, false
	}
	params := cfg.Scheduler.Params
	if params == nil {
		defaults, err := sched.NewParams(cfg.Scheduler.Name)
		if err != nil {
			return [sha256.Size]byte{}, false
		}
		params = defaults
	}
	data, err := json.Marshal(struct {
		Run       RunOptions
		Chaos     Chaos
		Cluster   any
		HDFS      any
		Heartbeat any
		Tasks     any
		Scheduler string
		Tick      any
		Params    any
		Cache     any
		Straggle  any
		Speculate any
		Blacklist any
		Job       workload.JobSpec
		ID        sched.JobID
	}{cfg.Run, cfg.Chaos, cfg.Cluster, cfg.HDFS, cfg.Heartbeat, cfg.Tasks, cfg.Scheduler.Name, cfg.Scheduler.Tick,
		params, cfg.Cache, cfg.Stragglers, cfg.Speculation, cfg.Blacklist, cfg.Workload[0][0], cfg.firstJob})
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(data), true
}
