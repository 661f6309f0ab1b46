package scenarios

import (
	"errors"
	"fmt"
	"time"

	"clusteremu/workload"
)

// RecurringStream is a job that runs again every period over the same
// file, [[workload.recurring]]: the thesis's production jobs making hourly
// summaries over logs that span weeks, which read the same large files
// again and again.
//
//	[[workload.recurring]]
//	every = "1h"             # > 0
//	count = 24               # runs, ≥ 1
//	start = "0s"             # the first run's submission
//	[workload.recurring.job] # the keys of [[workload.jobs.job]], without submit
//	input_bytes = "20GiB"
//	input_file = "logs"      # default: the job's name
//
// Run n is submitted at start + n × every and named "<name>-<n>"; the
// job's name defaults to "r<stream>", stream 0 the first recurring one.
type RecurringStream struct {
	Every Duration `toml:"every"`
	Count int      `toml:"count"`
	Start Duration `toml:"start"`
	Job   JobEntry `toml:"job"`
}

var _ Stream = (*RecurringStream)(nil)

// Validate checks the stream.
func (s *RecurringStream) Validate() error {
	_, err := s.spec("r")
	return err
}

func (s *RecurringStream) spec(name string) (workload.JobSpec, error) {
	var errs []error
	if s.Every <= 0 {
		errs = append(errs, Invalid("every", s.Every, "must be > 0: the period between runs"))
	}
	if s.Count < 1 || s.Count > 1_000_000 {
		errs = append(errs, Invalid("count", s.Count, "must be 1 … 1000000"))
	}
	if s.Job.Submit != 0 {
		errs = append(errs, Invalid("job.submit", s.Job.Submit, "a recurring job is submitted every period from start; set start"))
	}
	spec, err := s.Job.Spec(0)
	if err != nil {
		errs = append(errs, Prefix("job", err))
	}
	if s.Job.Name == "" {
		spec.Name = name
	}
	if spec.InputFile == "" {
		spec.InputFile = spec.Name
	}
	return spec, errors.Join(errs...)
}

// Generate returns the runs in submission order; env.Name is the default
// job name.
func (s *RecurringStream) Generate(env Env) ([]workload.JobSpec, error) {
	spec, err := s.spec(env.Name)
	if err != nil {
		return nil, err
	}
	jobs := make([]workload.JobSpec, s.Count)
	for n := range jobs {
		jobs[n] = spec
		jobs[n].Name = fmt.Sprintf("%s-%d", spec.Name, n)
		jobs[n].Submit = s.Start.Std() + time.Duration(n)*s.Every.Std()
	}
	return jobs, nil
}
