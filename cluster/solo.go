package cluster

import (
	"fmt"
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
	return referenceRuntimes(cfg, subs, workers)
}

// soloJob is a job to run alone: its index in Config.Jobs and the
// instant it was submitted.
type soloJob struct {
	index int
	at    time.Duration
}

// referenceRuntimes measures the listed jobs.
func referenceRuntimes(cfg Config, subs []soloJob, workers int) ([]time.Duration, error) {
	jobs := cfg.Jobs()
	refs := make([]time.Duration, len(jobs))
	// Jobs of one shape reading one shared file share a run. A job
	// with a private input is its own shape: its file is named by its
	// ID, and so placed.
	byShape := map[soloShape][]int{}
	var shapes []soloShape
	for _, sub := range subs {
		i, spec := sub.index, jobs[sub.index]
		spec.Submit = sub.at
		shape := soloShape{spec: soloSpec(spec, cfg.Heartbeat.Interval.Std()), id: sched.JobID(i + 1)}
		if shape.spec.InputFile != "" {
			shape.id = 0
		}
		if _, ok := byShape[shape]; !ok {
			shapes = append(shapes, shape)
		}
		byShape[shape] = append(byShape[shape], i)
	}
	results := make([]time.Duration, len(shapes))
	errs := make([]error, len(shapes))
	parallel.For(len(shapes), workers, func(i int) {
		results[i], errs[i] = soloRun(cfg, shapes[i].spec, sched.JobID(byShape[shapes[i]][0]+1))
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

type soloShape struct {
	spec workload.JobSpec
	id   sched.JobID // 0 when the input is shared
}

// soloSpec is the job as its reference run submits it: unnamed, so equal
// shapes share a run, at the same heartbeat offset.
func soloSpec(j workload.JobSpec, heartbeat time.Duration) workload.JobSpec {
	j.Name = ""
	if heartbeat > 0 {
		j.Submit %= heartbeat
	}
	return j
}

// soloRun runs one job alone and returns its response time, 0 when it
// failed.
func soloRun(cfg Config, job workload.JobSpec, id sched.JobID) (time.Duration, error) {
	cfg.Workload, cfg.Closed, cfg.firstJob = [][]workload.JobSpec{{job}}, nil, id
	if cfg.Cache != nil { // an empty copy of the cluster: its caches too
		c := *cfg.Cache
		c.Preload = nil
		cfg.Cache = &c
	}
	// A deterministic virtual run with the same seeds and stall limit, and
	// the cluster's chaos, but none of the run's own decisions: they name
	// instants and actors of the shared run.
	cfg.Run = RunOptions{Seed: cfg.Run.Seed, ScheduleSeed: cfg.Run.ScheduleSeed, StallAfter: cfg.Run.StallAfter}
	c, err := Build(cfg)
	if err != nil {
		return 0, err
	}
	rep, err := c.Run()
	if err != nil {
		return 0, err
	}
	j := rep.Records.Jobs[0]
	if j.Outcome != JobSucceeded {
		return 0, nil
	}
	return j.Finish - j.Submit, nil
}
