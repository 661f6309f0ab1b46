package straggler

import (
	"cmp"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// book is what every policy keeps of its job: each task's running
// attempts with their latest reports, what each phase (the job's maps or
// its reduces) has finished, the copies it asked for and the restarts
// under way. Policies embed it and decide from it.
type book struct {
	setup  Setup
	phases [2]phase
	// queued are the copies asked for and not yet launched, with when;
	// restarting the restarted tasks whose new attempt has not launched,
	// with when.
	queued     map[Task]time.Duration
	restarting map[Task]time.Duration
	// lagSum and lagN measure schedLag, request to launch.
	lagSum time.Duration
	lagN   int
	// profiling: keep each attempt's wrap-up reports and each phase's
	// wrap-up profiles (Mantri's).
	profiling bool
}

// phase is one kind of task of the job.
type phase struct {
	tasks   []taskState
	live    []int32 // tasks with a running attempt, in the order they got one
	started int     // tasks that ever launched
	// Of the attempts that finished a task: their durations, their
	// seconds per input byte (Mantri's processRate, Δtime/Δdata) with
	// their sum, and their seconds per input byte from reading their
	// input to their end (t_wrapup), each sorted. processRate is measured
	// between reports, from the first that showed input read to the end,
	// its read extrapolated to the whole input: a duration over the input
	// would charge a task's fixed costs (its launch, its first heartbeat)
	// to every byte, and skewed phases' small tasks would make every
	// large one look slow.
	durations, perByte, wrapups []float64
	perByteSum                  float64
	// profiles are the wrap-ups of the phase's latest finished tasks,
	// profileTasks at most, oldest first (only with book.profiling).
	profiles []profile
	// done counts its finished tasks; allDone is when the last one
	// finished, −1 before: a reduce's input exists in full from the
	// maps' allDone on.
	done    int
	allDone time.Duration
}

// profile is a finished task's wrap-up: at each score j/profileSteps it
// reached after the report that said it had read all its input, the
// seconds per input byte it had left then; −1 at the scores before. A
// score need not pace a wrap-up evenly: a Hadoop reduce's last third is
// its compute, then its write, a half each, whatever either takes. Per
// byte, as t_wrapup.
type profile [profileSteps + 1]float64

const (
	// profileSteps is how finely a profile divides scores.
	profileSteps = 48
	// profileTasks is how many finished tasks' profiles a phase keeps.
	profileTasks = 32
)

// taskState is one task.
type taskState struct {
	bytes    int64
	attempts []*attemptState // running
	started  bool
	done     bool
	// kills counts the policy's kills of the task: its restarts, and
	// the copies pruning stopped (Mantri's γ bounds both).
	kills int
}

// histLen is how many progress samples an attempt's rate is averaged
// over: its last three report intervals.
const histLen = 4

// attemptState is a running attempt and its recent progress.
type attemptState struct {
	attempt sched.Attempt
	start   time.Duration
	copy    bool
	score   float64
	read    float64       // the share of its input read
	at      time.Duration // of the latest report; the launch before one
	reports int
	// hist holds the latest samples of its current stage, oldest first:
	// while it reads, of its input read, from its launch's (0 at start)
	// until histLen reports push that out; once it has read it all, of
	// its score, from the report that said so.
	hist [histLen]sample
	n    int
	// readAt is the first report of all its input read, −1 before;
	// firstRead the first report of some read, {0, −1} before.
	readAt    time.Duration
	firstRead sample
	// wrap are its scores from readAt on (only with book.profiling).
	wrap []sample
	// killed: the policy asked for its kill, which is on its way.
	killed bool
}

type sample struct {
	score float64
	at    time.Duration
}

func newBook(s Setup) book {
	b := book{setup: s, queued: map[Task]time.Duration{}, restarting: map[Task]time.Duration{}}
	for k := range b.phases {
		b.phases[k].tasks = make([]taskState, s.Tasks[k])
		b.phases[k].allDone = -1
	}
	return b
}

// task returns a task's state, or nil when the job has no such task.
func (b *book) task(k sched.TaskKind, i int32) *taskState {
	if int(k) >= len(b.phases) || i < 0 || int(i) >= len(b.phases[k].tasks) {
		return nil
	}
	return &b.phases[k].tasks[i]
}

// Launched books an attempt's launch; a copy asked for or a task
// restarted gives a sample of the lag from request to launch.
func (b *book) Launched(now time.Duration, l Launch) {
	k := Task{l.Attempt.Kind, l.Attempt.Task}
	t := b.task(k.Kind, k.Task)
	if t == nil {
		return
	}
	p := &b.phases[k.Kind]
	if !t.started {
		t.started = true
		p.started++
	}
	if len(t.attempts) == 0 {
		p.live = append(p.live, k.Task)
	}
	t.bytes = l.Bytes
	a := &attemptState{attempt: l.Attempt, start: now, copy: l.Copy, at: now, readAt: -1, firstRead: sample{0, -1}}
	a.hist[0], a.n = sample{0, now}, 1
	t.attempts = append(t.attempts, a)
	var asked time.Duration
	var queued bool
	switch at, restarting := b.restarting[k]; {
	case restarting:
		// The restart's attempt: its job manager kills the others now.
		asked, queued = at, true
		delete(b.restarting, k)
		for _, o := range t.attempts[:len(t.attempts)-1] {
			o.killed = true
		}
	case l.Copy:
		asked, queued = b.queued[k]
		delete(b.queued, k)
	}
	if queued {
		b.lagSum += now - asked
		b.lagN++
	}
}

// Progressed books a report of a running attempt.
func (b *book) Progressed(_ time.Duration, r Report) {
	a := b.attempt(r.Attempt)
	if a == nil || r.At < a.at {
		return
	}
	a.score, a.read, a.at = r.Score, r.Read, r.At
	a.reports++
	if r.Read > 0 && r.Read < 1 && a.firstRead.at < 0 {
		a.firstRead = sample{r.Read, r.At}
	}
	if r.Read >= 1 && a.readAt < 0 {
		a.readAt, a.n = r.At, 0 // its wrap-up begins: a new history
	}
	if a.n == histLen {
		copy(a.hist[:], a.hist[1:])
		a.n--
	}
	v := r.Read
	if a.readAt >= 0 {
		v = r.Score
	}
	a.hist[a.n] = sample{v, r.At}
	a.n++
	if b.profiling && a.readAt >= 0 {
		a.wrap = append(a.wrap, sample{r.Score, r.At})
	}
}

func (b *book) attempt(at sched.Attempt) *attemptState {
	t := b.task(at.Kind, at.Task)
	if t == nil {
		return nil
	}
	for _, a := range t.attempts {
		if a.attempt == at {
			return a
		}
	}
	return nil
}

// Ended books an attempt's end; the first to succeed finishes its task
// and gives its phase a sample of each estimate.
func (b *book) Ended(now time.Duration, e End) {
	t := b.task(e.Attempt.Kind, e.Attempt.Task)
	if t == nil {
		return
	}
	i := slices.IndexFunc(t.attempts, func(a *attemptState) bool { return a.attempt == e.Attempt })
	if i < 0 {
		return
	}
	a := t.attempts[i]
	t.attempts = slices.Delete(t.attempts, i, i+1)
	p := &b.phases[e.Attempt.Kind]
	if len(t.attempts) == 0 {
		p.live = slices.DeleteFunc(p.live, func(x int32) bool { return x == e.Attempt.Task })
	}
	if e.Outcome != sched.Succeeded || t.done {
		return
	}
	t.done = true
	if p.done++; p.done == len(p.tasks) {
		p.allDone = now
	}
	d := (now - a.start).Seconds()
	p.durations = insertSorted(p.durations, d)
	bytes := float64(max(t.bytes, 1))
	readEnd, wrapup := now, 0.0
	if a.readAt >= 0 {
		readEnd, wrapup = a.readAt, (now - a.readAt).Seconds()
		p.wrapups = insertSorted(p.wrapups, wrapup/bytes)
		if len(a.wrap) > 0 {
			if len(p.profiles) == profileTasks {
				p.profiles = slices.Delete(p.profiles, 0, 1)
			}
			p.profiles = append(p.profiles, newProfile(append(a.wrap, sample{1, now}), bytes))
		}
	}
	if read, ok := b.readTime(e.Attempt.Kind, a, readEnd); ok {
		perByte := (read + wrapup) / bytes
		p.perByte = insertSorted(p.perByte, perByte)
		p.perByteSum += perByte
	}
}

// readTime is how long a new attempt of a finished attempt's task would
// take to read its whole input, in seconds, as far as the attempt shows:
// its read from its first report of some read to readEnd, the report of
// all of it, extrapolated to the whole input; false when no report fell
// within its read. An attempt that no report showed past its read (a
// map whose read runs with its compute to its last half second of
// write, which a report every 10 s seldom falls in) read until its end,
// readEnd: it is still a sample of processRate, and a phase of such maps
// would otherwise have none, and Mantri no t_new to judge its
// stragglers by. A reduce launched before its job's maps had all finished
// read their outputs as they came, its read held by the maps, not by
// its own pace: a copy launched now would find them all. Its read is
// then what it still took once the last map had finished (to its report
// of all read, so within a report period), not extrapolated: its last
// share may be a sliver, and a report period over a sliver would make
// every reduce look hopeless to copy.
func (b *book) readTime(kind sched.TaskKind, a *attemptState, readEnd time.Duration) (float64, bool) {
	if maps := b.phases[sched.Map].allDone; kind == sched.Reduce && a.start < maps {
		return max(readEnd-maps, 0).Seconds(), true
	}
	f := a.firstRead
	if f.at < 0 || readEnd <= f.at {
		return 0, false
	}
	return (readEnd - f.at).Seconds() / (1 - f.score), true
}

// newProfile is the profile of a finished task of the given input from
// its scores, from the report that said it had read all its input to its
// end.
func newProfile(scores []sample, bytes float64) profile {
	var pr profile
	end := scores[len(scores)-1].at
	for j := range pr {
		g := float64(j) / profileSteps
		if g < scores[0].score {
			pr[j] = -1
			continue
		}
		i := slices.IndexFunc(scores, func(s sample) bool { return s.score >= g })
		at := scores[i].at
		if i > 0 && scores[i].score > scores[i-1].score {
			prev := scores[i-1]
			at = prev.at + time.Duration((g-prev.score)/(scores[i].score-prev.score)*float64(scores[i].at-prev.at))
		}
		pr[j] = (end - at).Seconds() / bytes
	}
	return pr
}

// left is the seconds per byte the profile's task had left at score s,
// between the grid's scores either side; false before both.
func (pr *profile) left(s float64) (float64, bool) {
	s = min(max(s, 0), 1)
	j := min(int(s*profileSteps), profileSteps-1)
	if pr[j] < 0 {
		return 0, false
	}
	f := s*profileSteps - float64(j)
	return pr[j] + f*(pr[j+1]-pr[j]), true
}

// wrapLeft is the median, over the phase's profiles that reached score
// from, of the seconds per byte their tasks took from there to score to
// (to ≥ from), or to their end when to is 1; out holds them. false when
// none reached from.
func (p *phase) wrapLeft(from, to float64, out []float64) (float64, []float64, bool) {
	out = out[:0]
	for i := range p.profiles {
		l0, ok := p.profiles[i].left(from)
		if !ok {
			continue
		}
		l1 := 0.0
		if to < 1 {
			l1, _ = p.profiles[i].left(to)
		}
		out = append(out, l0-l1)
	}
	if len(out) == 0 {
		return 0, out, false
	}
	slices.Sort(out)
	return median(out), out, true
}

func insertSorted(xs []float64, x float64) []float64 {
	i, _ := slices.BinarySearch(xs, x)
	return slices.Insert(xs, i, x)
}

// lag is schedLag: the mean measured delay from a request (a copy, a
// restart) to its launch, or the setup's until one is measured.
func (b *book) lag() time.Duration {
	if b.lagN == 0 {
		return b.setup.Lag
	}
	return b.lagSum / time.Duration(b.lagN)
}

// allStarted reports whether every task of the kind has launched and
// none waits to run again.
func (b *book) allStarted(k sched.TaskKind, v View) bool {
	p := &b.phases[k]
	return p.started == len(p.tasks) && v.Waiting(k) == 0
}

// copyable reports whether a task runs, has not finished and waits for
// no restart: a copy of it may launch.
func (b *book) copyable(k Task, t *taskState) bool {
	_, restarting := b.restarting[k]
	return len(t.attempts) > 0 && !t.done && !restarting
}

// sync makes the copies queued exactly want (tasks in the order to
// queue them): it withdraws the others, in task order, then asks for the
// new ones.
func (b *book) sync(now time.Duration, want []Task, reason string) []Action {
	var out []Action
	for _, k := range sortedTasks(b.queued) {
		if !slices.Contains(want, k) {
			delete(b.queued, k)
			out = append(out, Action{Kind: Withdraw, Task: k, Reason: "no longer wanted"})
		}
	}
	for _, k := range want {
		if _, ok := b.queued[k]; !ok {
			b.queued[k] = now
			out = append(out, Action{Kind: Duplicate, Task: k, Reason: reason})
		}
	}
	return out
}

// restart books a restart of a task and returns its action. The task
// restarts elsewhere: its job manager queues a copy, which no node
// running the task takes, and kills the attempts it replaces once the
// copy launches, so until then they run on.
func (b *book) restart(now time.Duration, k Task, reason string) Action {
	b.restarting[k] = now
	b.task(k.Kind, k.Task).kills++
	return Action{Kind: Restart, Task: k, Reason: reason}
}

func sortedTasks(m map[Task]time.Duration) []Task {
	keys := make([]Task, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Task) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Task, b.Task)) })
	return keys
}

// alive appends to out the task's running attempts the policy has not
// killed.
func (t *taskState) alive(out []*attemptState) []*attemptState {
	for _, a := range t.attempts {
		if !a.killed {
			out = append(out, a)
		}
	}
	return out
}

// elapsed is how long an attempt has run.
func (a *attemptState) elapsed(now time.Duration) time.Duration { return now - a.start }

// rate is the attempt's progress rate in its current stage, input read
// or score per second: averaged over its latest samples of the stage
// (Mantri's moving average), which an onset part-way shows sooner than
// the rate since launch; 0 before two samples or any progress.
func (a *attemptState) rate() float64 { return a.rateFrom(0) }

// rateFrom is rate over the latest samples from hist[i] on.
func (a *attemptState) rateFrom(i int) float64 {
	if a.n-i < 2 {
		return 0
	}
	first, last := a.hist[i], a.hist[a.n-1]
	if last.at <= first.at {
		return 0
	}
	return (last.score - first.score) / (last.at - first.at).Seconds()
}

// readRate is an attempt's rate of input read, a share per second, over
// its latest samples (rate); false when its read cannot be judged yet. A
// reduce reads its maps' outputs as they come: while any of its job's
// maps runs, its read is held by theirs, not by its own pace, and a copy
// would wait for the same maps. Its rate then counts only its samples
// from the maps' end on, and is unknown until it has two.
func (b *book) readRate(a *attemptState) (float64, bool) {
	if a.attempt.Kind != sched.Reduce {
		return a.rate(), true
	}
	maps := b.phases[sched.Map].allDone
	if maps < 0 {
		return 0, false
	}
	i := 0
	for i < a.n && a.hist[i].at < maps {
		i++
	}
	if a.n-i < 2 {
		return 0, false
	}
	return a.rateFrom(i), true
}

// sinceLaunch is LATE's and Hadoop's rate: score over the time since
// launch, at the latest report.
func (a *attemptState) sinceLaunch() float64 {
	if a.at <= a.start {
		return 0
	}
	return a.score / (a.at - a.start).Seconds()
}
