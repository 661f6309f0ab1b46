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
//	window = 0               # 0: every run reads input_file
//	[workload.recurring.job] # the keys of [[workload.jobs.job]], without submit
//	input_bytes = "20GiB"
//	input_file = "logs"      # default: the job's name
//
// Run n is submitted at start + n × every and named "<name>-<n>"; the
// job's name defaults to "r<stream>", stream 0 the first recurring one.
//
// window = K > 0 makes the log a series of time-range files, one more
// each period, and each run a summary over the latest K of them (the
// thesis's hourly jobs over a sliding window of a log's hours or days,
// a large job reading several files): run n reads "<input_file>.<n>" …
// "<input_file>.<n+K−1>", each ⌊input_bytes / K⌋, so a run shares K−1
// files with the one before it. Off by default.
type RecurringStream struct {
	Every  Duration `toml:"every"`
	Count  int      `toml:"count"`
	Start  Duration `toml:"start"`
	Window int      `toml:"window,omitzero"`
	Job    JobEntry `toml:"job"`
}

// MaxWindow bounds window: the files one run reads.
const MaxWindow = 10_000

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
	if s.Window < 0 || s.Window > MaxWindow {
		errs = append(errs, Invalid("window", s.Window, "must be 0 (one file) … %d: the time-range files a run reads", MaxWindow))
	} else if s.Window > 0 && int64(s.Job.InputBytes) < int64(s.Window) {
		errs = append(errs, Invalid("window", s.Window, "each of the window's files needs a byte of job.input_bytes (%d)", int64(s.Job.InputBytes)))
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
		if s.Window > 0 {
			jobs[n].InputFile, jobs[n].InputFiles = "", window(spec.InputFile, n, s.Window, spec.InputBytes)
			jobs[n].InputBytes = int64(s.Window) * jobs[n].InputFiles[0].Bytes
		}
	}
	return jobs, nil
}

// window is run n's files of a log read k files at a time.
func window(log string, n, k int, bytes int64) []workload.FilePart {
	files := make([]workload.FilePart, k)
	for i := range files {
		files[i] = workload.FilePart{File: fmt.Sprintf("%s.%d", log, n+i), Bytes: bytes / int64(k)}
	}
	return files
}
