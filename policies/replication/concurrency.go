package replication

import "time"

// Concurrency keeps each file's c_f: the most jobs with running maps on
// it at once within the learning window, exactly, from the launches and
// ends of maps (jobs, not tasks: one job's many maps on a file ask for
// one replica, not one each). Each launch and end costs O(1) amortised;
// a file's history is a monotone queue of the changes that can still be
// the window's maximum.
type Concurrency struct {
	window  time.Duration
	files   map[string]*fileLoad
	running map[jobFile]int // running maps per job and file
}

type jobFile struct {
	job  int64
	file string
}

// fileLoad is a file's jobs now and the changes that may yet be the
// window's maximum: values strictly decreasing, each with the instant it
// stopped holding (-1 while it holds).
type fileLoad struct {
	now     int
	changes []change
}

type change struct {
	at, until time.Duration
	jobs      int
}

// NewConcurrency tracks concurrency over a learning window T_L (> 0).
func NewConcurrency(window time.Duration) *Concurrency {
	return &Concurrency{window: window, files: make(map[string]*fileLoad), running: make(map[jobFile]int)}
}

// Launch records a map of job starting on file at now.
func (c *Concurrency) Launch(now time.Duration, file string, job int64) {
	k := jobFile{job, file}
	c.running[k]++
	if c.running[k] == 1 {
		c.step(now, file, +1)
	}
}

// End records a map of job on file ending (finished, failed or killed) at
// now. An end without a launch is ignored.
func (c *Concurrency) End(now time.Duration, file string, job int64) {
	k := jobFile{job, file}
	n, ok := c.running[k]
	if !ok {
		return
	}
	if n > 1 {
		c.running[k] = n - 1
		return
	}
	delete(c.running, k)
	c.step(now, file, -1)
}

// EndJob records every map of job on file still counted as ended at
// now: the job is over, whatever reports of its maps are still to come.
func (c *Concurrency) EndJob(now time.Duration, file string, job int64) {
	k := jobFile{job, file}
	if _, ok := c.running[k]; ok {
		delete(c.running, k)
		c.step(now, file, -1)
	}
}

func (c *Concurrency) step(now time.Duration, file string, d int) {
	f := c.files[file]
	if f == nil {
		f = &fileLoad{}
		c.files[file] = f
	}
	f.now += d
	if n := len(f.changes); n > 0 && f.changes[n-1].until < 0 {
		f.changes[n-1].until = now
	}
	for n := len(f.changes); n > 0 && f.changes[n-1].jobs <= f.now; n-- {
		f.changes = f.changes[:n-1]
	}
	f.changes = append(f.changes, change{at: now, until: -1, jobs: f.now})
}

// Max returns c_f at now: the most jobs that had maps running on file at
// once within (now − window, now].
func (c *Concurrency) Max(now time.Duration, file string) int {
	f := c.files[file]
	if f == nil {
		return 0
	}
	c.expire(now, f)
	if len(f.changes) == 0 {
		return 0
	}
	return f.changes[0].jobs
}

func (c *Concurrency) expire(now time.Duration, f *fileLoad) {
	from := now - c.window
	i := 0
	for i < len(f.changes) && f.changes[i].until >= 0 && f.changes[i].until <= from {
		i++
	}
	f.changes = f.changes[i:]
}

// Running returns the jobs with maps running on file now.
func (c *Concurrency) Running(file string) int {
	if f := c.files[file]; f != nil {
		return f.now
	}
	return 0
}

// Prune forgets the files idle for a whole window, so a long run keeps
// only the files read lately.
func (c *Concurrency) Prune(now time.Duration) {
	for name, f := range c.files {
		c.expire(now, f)
		if f.now == 0 && (len(f.changes) == 0 || f.changes[0].jobs == 0) {
			delete(c.files, name)
		}
	}
}
