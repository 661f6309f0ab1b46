package scenarios

import (
	"errors"
	"fmt"
	"time"

	"clusteremu/workload"
)

// ClosedStream is a closed-loop workload, [[workload.closed]]: workers
// that each submit a job, wait for it to end, think, and submit the next
// (Zaharia et al. §6.2.4: "each worker repeatedly submitted a job and
// waited for it to finish"). The load follows the cluster's speed instead
// of an arrival rate, so the number of jobs in the system stays at the
// number of workers.
//
//	[[workload.closed]]
//	workers = 10           # ≥ 1
//	jobs = 20              # per worker, ≥ 1
//	start = "0s"           # the first worker's first submission
//	stagger = "0s"         # the workers' first submissions spread evenly over this span
//	think = "0s"           # between a job's end and the worker's next job
//	[workload.closed.job]  # the job each worker repeats (the keys of [[workload.jobs.job]], without submit)
//	input_bytes = "2GiB"
//
// Worker w of n first submits at start + w × stagger / n. Workers that
// all start at once repeat identical jobs in lockstep, contending for the
// same slots at the same instants for the whole run, where real ones drift
// apart with task-time variance; a stagger of about one job's length
// spreads them as they would be.
//
// Jobs are named "<job name>-w<worker>-<n>". With input_file = "" every
// job reads a file of its own; a named input_file is shared by all (a
// hotspot).
type ClosedStream struct {
	Workers int      `toml:"workers"`
	Jobs    int      `toml:"jobs"`
	Start   Duration `toml:"start"`
	Stagger Duration `toml:"stagger"`
	Think   Duration `toml:"think"`
	Job     JobEntry `toml:"job"`
}

// workerJobs returns each worker's job list: the first job's Submit is the
// worker's start, each later one's the think time (cluster.Config.Closed).
func (s *ClosedStream) workerJobs() ([][]workload.JobSpec, error) {
	var errs []error
	if s.Workers < 1 {
		errs = append(errs, Invalid("workers", s.Workers, "must be ≥ 1"))
	}
	if s.Jobs < 1 {
		errs = append(errs, Invalid("jobs", s.Jobs, "must be ≥ 1"))
	}
	if s.Job.Submit != 0 {
		errs = append(errs, Invalid("job.submit", s.Job.Submit, "a closed worker submits when its last job ends; set start or think"))
	}
	spec, err := s.Job.Spec(0)
	if err != nil {
		errs = append(errs, Prefix("job", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	name := s.Job.Name
	if name == "" {
		name = "closed"
	}
	workers := make([][]workload.JobSpec, s.Workers)
	for w := range workers {
		jobs := make([]workload.JobSpec, s.Jobs)
		for i := range jobs {
			jobs[i] = spec
			jobs[i].Name = fmt.Sprintf("%s-w%d-%d", name, w, i)
			jobs[i].Submit = s.Think.Std()
		}
		jobs[0].Submit = s.Start.Std() + s.Stagger.Std()*time.Duration(w)/time.Duration(s.Workers)
		workers[w] = jobs
	}
	return workers, nil
}
