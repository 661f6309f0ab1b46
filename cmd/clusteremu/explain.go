package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/scenarios"
	"clusteremu/units"
	"clusteremu/workload"
)

// outputsFormat numbers the layout of what run --out writes; explain
// reads only its own.
const outputsFormat = 1

// explainCommand tells the story of a task or a job from a run's output
// directory: the offers its job was looked at for and why, where and when
// it launched, its attempts and their phases, and what bounded its flows.
func explainCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explain", stdout, stderr)
	task := fs.String("task", "", "the task to explain, as j1-map3 or 1/map3")
	job := fs.Int64("job", 0, "the job to explain")
	at := fs.String("at", "", "an emulated instant (842s, 14m2s): the busiest links then and what ran")
	dirs, err := fs.parse(args)
	if err != nil {
		return exitCode(err)
	}
	asked := 0
	for _, set := range []bool{*task != "", *job != 0, *at != ""} {
		if set {
			asked++
		}
	}
	if len(dirs) != 1 || asked != 1 {
		fmt.Fprintln(stderr, "clusteremu explain: give one run directory (written by run --out) and one of --task, --job or --at")
		return exitUsage
	}
	run, err := loadRun(dirs[0])
	if err == nil {
		switch {
		case *task != "":
			err = run.explainTask(stdout, *task)
		case *job != 0:
			err = run.explainJob(stdout, sched.JobID(*job))
		default:
			err = run.explainAt(stdout, *at)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu explain:", err)
		return exitUsage
	}
	return exitOK
}

// runDir is what explain reads of a run's output directory.
type runDir struct {
	dir    string
	cfg    cluster.Config
	jobs   map[sched.JobID]map[string]string
	tasks  []map[string]string
	offers []offerLine
	links  []map[string]string
	flows  []map[string]string // nil without run --trace-flows
	phases map[string][]phaseLine
}

type phaseLine struct {
	name       string
	start, dur float64 // emulated seconds
}

// loadRun reads a run directory, naming the first file it lacks.
func loadRun(dir string) (*runDir, error) {
	r := &runDir{dir: dir, jobs: map[sched.JobID]map[string]string{}, phases: map[string][]phaseLine{}}
	need := func(name string) (string, error) {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%s: no %s: explain reads a directory clusteremu run --out wrote", dir, name)
		}
		return path, nil
	}
	var runInfo struct {
		Format int `json:"format"`
	}
	if err := readJSONFile(need, "run.json", &runInfo); err != nil {
		return nil, err
	}
	if runInfo.Format != outputsFormat {
		return nil, fmt.Errorf("%s: written by another version of clusteremu (outputs format %d; this one reads %d): run it again", dir, runInfo.Format, outputsFormat)
	}
	path, err := need("scenario.toml")
	if err != nil {
		return nil, err
	}
	sc, err := scenarios.LoadFile(path)
	if err != nil {
		return nil, err
	}
	r.cfg = sc.Config
	for _, f := range []struct {
		name string
		into *[]map[string]string
	}{{"tasks.csv", &r.tasks}, {"links.csv", &r.links}} {
		if path, err = need(f.name); err != nil {
			return nil, err
		}
		if *f.into, err = readRows(path); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(r.tasks, compareTaskRows) // tasks.csv has them as they ended
	if path, err = need("jobs.csv"); err != nil {
		return nil, err
	}
	jobs, err := readRows(path)
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		id, _ := strconv.ParseInt(j["job"], 10, 64)
		r.jobs[sched.JobID(id)] = j
	}
	if flows := filepath.Join(dir, "flows.csv"); fileExists(flows) {
		if r.flows, err = readRows(flows); err != nil {
			return nil, err
		}
	}
	if path, err = need("offers.jsonl"); err != nil {
		return nil, err
	}
	if r.offers, err = readOffers(path); err != nil {
		return nil, err
	}
	return r, r.readPhases(need)
}

// compareTaskRows orders tasks.csv's rows by attempt: job, kind, task and
// try.
func compareTaskRows(a, b map[string]string) int {
	num := func(row map[string]string, col string) int64 {
		n, _ := strconv.ParseInt(row[col], 10, 64)
		return n
	}
	return cmp.Or(cmp.Compare(num(a, "job"), num(b, "job")), cmp.Compare(a["kind"], b["kind"]),
		cmp.Compare(num(a, "task"), num(b, "task")), cmp.Compare(num(a, "try"), num(b, "try")))
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

func readJSONFile(need func(string) (string, error), name string, v any) error {
	path, err := need(name)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readRows reads a CSV file as rows keyed by its header.
func readRows(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	rows := make([]map[string]string, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		row := make(map[string]string, len(rec))
		for i, v := range rec {
			row[recs[0][i]] = v
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func readOffers(path string) ([]offerLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []offerLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		var o offerLine
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, o)
	}
	return out, sc.Err()
}

// readPhases takes each attempt's phases from trace.json: the phase
// slices on the attempt's track inside its slice.
func (r *runDir) readPhases(need func(string) (string, error)) error {
	var doc struct {
		TraceEvents []struct {
			Name string   `json:"name"`
			Cat  string   `json:"cat"`
			Ph   string   `json:"ph"`
			Ts   float64  `json:"ts"`
			Dur  *float64 `json:"dur"`
			Pid  int      `json:"pid"`
			Tid  int      `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := readJSONFile(need, "trace.json", &doc); err != nil {
		return err
	}
	type track struct{ pid, tid int }
	type span struct {
		name       string
		start, end float64
	}
	attempts, phases := map[track][]span{}, map[track][]span{}
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" || e.Dur == nil {
			continue
		}
		s, k := span{e.Name, e.Ts / 1e6, (e.Ts + *e.Dur) / 1e6}, track{e.Pid, e.Tid}
		if e.Cat == "phase" {
			phases[k] = append(phases[k], s)
		} else {
			attempts[k] = append(attempts[k], s)
		}
	}
	for k, as := range attempts {
		for _, a := range as {
			name, _, _ := strings.Cut(a.name, " ")
			for _, p := range phases[k] {
				if p.start >= a.start-1e-9 && p.end <= a.end+1e-9 {
					r.phases[name] = append(r.phases[name], phaseLine{p.name, p.start, p.end - p.start})
				}
			}
			slices.SortFunc(r.phases[name], func(x, y phaseLine) int { return cmp.Compare(x.start, y.start) })
		}
	}
	return nil
}

var taskPattern = regexp.MustCompile(`^j?(\d+)[-/](map|reduce)(\d+)$`)

// explainTask prints the story of one task.
func (r *runDir) explainTask(w io.Writer, name string) error {
	m := taskPattern.FindStringSubmatch(name)
	if m == nil {
		return fmt.Errorf("--task %s: want a task as j1-map3 or 1/map3", name)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	job, ok := r.jobs[sched.JobID(id)]
	if !ok {
		return fmt.Errorf("--task %s: job %d is not in %s", name, id, filepath.Join(r.dir, "jobs.csv"))
	}
	task := fmt.Sprintf("j%s-%s%s", m[1], m[2], m[3])
	var attempts []map[string]string
	for _, t := range r.tasks {
		if strings.HasPrefix(t["attempt"], task+".") {
			attempts = append(attempts, t)
		}
	}
	if len(attempts) == 0 {
		return fmt.Errorf("--task %s: job %d (%q) has %s maps and %s reduces, and no attempt of %s ran", name, id,
			job["name"], job["maps"], job["reduces"], task)
	}
	fmt.Fprintf(w, "task      %s of job %d %q (%s maps, %s reduces), submitted at %ss\n", task, id, job["name"], job["maps"], job["reduces"], job["submit"])
	for _, a := range attempts {
		r.explainAttempt(w, a, m[2])
	}
	return nil
}

// explainAttempt prints the offers before an attempt's launch, the
// launch, its phases and its flows.
func (r *runDir) explainAttempt(w io.Writer, a map[string]string, kind string) {
	name := a["attempt"]
	jobID, _ := strconv.ParseInt(a["job"], 10, 64)
	start := parseSecs(a["start"])
	from := parseSecs(r.jobs[sched.JobID(jobID)]["submit"])
	for _, t := range r.tasks { // a re-run waited from its previous attempt's end
		if strings.HasPrefix(t["attempt"], strings.TrimRight(name, "0123456789")) && t["attempt"] != name && parseSecs(t["end"]) <= start {
			from = max(from, parseSecs(t["end"]))
		}
	}
	fmt.Fprintf(w, "\nattempt   %s on node %s %s slot %s, %ss → %ss, %s", name, a["node"], kind, a["slot"], a["start"], a["end"], a["outcome"])
	if a["reason"] != "" {
		fmt.Fprintf(w, " (%s)", a["reason"])
	}
	fmt.Fprintf(w, "; read %s B locally, %s B over the network\n", a["local_bytes"], a["remote_bytes"])
	var lost []offerLine
	var launch *offerLine
	for i, o := range r.offers {
		if o.Kind != kind || o.At < from-1e-9 || o.At > start+1e-9 {
			continue
		}
		if o.Launched == name {
			launch = &r.offers[i]
			continue
		}
		if slices.ContainsFunc(o.Considered, func(c jobLine) bool { return c.Job == jobID }) {
			lost = append(lost, o)
		}
	}
	fmt.Fprintf(w, "offers    %d other %s slots its job was looked at for from %.3fs until it launched:\n", len(lost), kind, from)
	const shown = 12
	if len(lost) > shown {
		fmt.Fprintf(w, "          (the first %d not shown)\n", len(lost)-shown)
		lost = lost[len(lost)-shown:]
	}
	for _, o := range lost {
		fmt.Fprintf(w, "  %9.3fs node %d slot %d: %s", o.At, o.Node, o.Slot, reasonsFor(o, jobID))
		if o.Launched != "" {
			fmt.Fprintf(w, "; went to %s (%s)", o.Launched, localityWords(o.Locality))
		}
		fmt.Fprintln(w)
	}
	if launch != nil {
		fmt.Fprintf(w, "launched  at %.3fs on node %d slot %d, %s: %s\n", launch.At, launch.Node, launch.Slot, localityWords(launch.Locality), reasonsFor(*launch, jobID))
		if launch.Waited > 0 {
			fmt.Fprintf(w, "          on the node's heartbeat that reached the coordinator at %.3fs, %.3fs in its queue and service\n", launch.At-launch.Waited, launch.Waited)
		}
	}
	for _, p := range r.phases[name] {
		fmt.Fprintf(w, "phase     %-8s %.3fs → %.3fs  %.3fs\n", p.name, p.start, p.start+p.dur, p.dur)
	}
	r.explainFlows(w, name)
}

// localityWords says a locality level as a sentence does.
func localityWords(l string) string {
	if l == "remote" {
		return "remote"
	}
	return l + "-local"
}

// reasonsFor joins what the policy said of a job in an offer.
func reasonsFor(o offerLine, job int64) string {
	var rs []string
	for _, c := range o.Considered {
		if c.Job == job {
			rs = append(rs, c.Reason)
		}
	}
	return strings.Join(rs, "; ")
}

// explainFlows prints, for each flow of the attempt, what bounded it: its
// own bound (one core), or the busiest link of its path while it ran.
func (r *runDir) explainFlows(w io.Writer, attempt string) {
	if r.flows == nil {
		fmt.Fprintln(w, "flows     not recorded: run with --trace-flows to see what bounded them")
		return
	}
	net, err := netmodel.NewNetwork(netmodel.DefaultConfig())
	if err != nil {
		return
	}
	topo, err := netmodel.BuildTopology(net, cluster.TopologySpec(r.cfg))
	if err != nil {
		fmt.Fprintln(w, "flows     the run's topology does not build:", err)
		return
	}
	names := topo.Refs()
	for _, f := range r.flows {
		if f["owner"] != attempt {
			continue
		}
		start, end := parseSecs(f["start"]), parseSecs(f["end"])
		bytes, _ := strconv.ParseFloat(f["delivered"], 64)
		rate := 0.0
		if end > start {
			rate = bytes / (end - start)
		}
		fmt.Fprintf(w, "flow      %s node %s → node %s, %s B, %.3fs → %.3fs, %.1f MB/s: %s\n", f["transfer"], f["src"], f["dst"],
			f["delivered"], start, end, rate/1e6, r.bound(f, net, topo, names, rate, start, end))
	}
}

// bound names what bounded a flow.
func (r *runDir) bound(f map[string]string, net *netmodel.Network, topo *netmodel.Topology, names map[netmodel.LinkID]netmodel.LinkRef,
	rate, start, end float64) string {
	if maxRate, _ := strconv.ParseFloat(f["max_rate"], 64); maxRate > 0 && rate >= 0.99*maxRate {
		return fmt.Sprintf("its own bound, one core's compute (%.1f MB/s)", maxRate/1e6)
	}
	src, _ := strconv.Atoi(f["src"])
	dst, _ := strconv.Atoi(f["dst"])
	t := transferNamed(f["transfer"])
	var links []string
	if t != actors.Compute {
		path, err := flowPath(topo, t, sched.NodeID(src), sched.NodeID(dst))
		if err != nil {
			return "no path: " + err.Error()
		}
		for _, l := range path {
			if c, _ := net.Capacity(l); c > 0 && rate >= 0.99*c {
				return fmt.Sprintf("%s alone, at its %.1f MB/s", names[l], c/1e6)
			}
			links = append(links, names[l].String())
		}
	}
	if cpb, _ := strconv.ParseFloat(f["cpu_per_byte"], 64); cpb > 0 || t == actors.Compute {
		links = append(links, netmodel.LinkRef{Kind: netmodel.HostCPU, Host: netmodel.HostID(dst)}.String())
	}
	best, busiest := "", -1.0
	for _, l := range links {
		if u := r.busy(l, start, end); u > busiest {
			best, busiest = l, u
		}
	}
	if best == "" {
		return "no link on its path carried anything sampled"
	}
	return fmt.Sprintf("its busiest link was %s, %.0f%% busy while it ran", best, 100*busiest)
}

// busy is a link's mean utilisation over [start, end], from links.csv's
// windows weighted by their overlap.
func (r *runDir) busy(link string, start, end float64) float64 {
	sum := 0.0
	for _, row := range r.links {
		if row["link"] != link {
			continue
		}
		from, to := parseSecs(row["from"]), parseSecs(row["to"])
		overlap := min(to, end) - max(from, start)
		if overlap <= 0 {
			continue
		}
		u, _ := strconv.ParseFloat(row["utilisation"], 64)
		sum += u * overlap
	}
	if end <= start {
		return 0
	}
	return sum / (end - start) // windows without a row carried nothing
}

// flowPath is the links a flow of transfer t from src to dst crosses, as
// the fabric builds them.
func flowPath(topo *netmodel.Topology, t actors.Transfer, src, dst sched.NodeID) ([]netmodel.LinkID, error) {
	if t == actors.RackFetch {
		return actors.RackFetchPath(nil, topo, src, dst)
	}
	return topo.Path(netmodel.HostID(src), netmodel.HostID(dst), t.Path(src, dst))
}

func transferNamed(s string) actors.Transfer {
	for t := actors.DiskRead; t <= actors.RackFetch; t++ {
		if t.String() == s {
			return t
		}
	}
	return actors.DiskRead
}

func parseSecs(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// explainJob prints a job's line and each of its tasks' launch, and
// points at explain --task for the slowest.
func (r *runDir) explainJob(w io.Writer, id sched.JobID) error {
	job, ok := r.jobs[id]
	if !ok {
		return fmt.Errorf("--job %d: not in %s (%d jobs)", id, filepath.Join(r.dir, "jobs.csv"), len(r.jobs))
	}
	launch := "first launch " + job["start"] + "s"
	if job["start"] == "" {
		launch = "never launched"
	}
	fmt.Fprintf(w, "job       %d %q: submitted at %ss, %s, ended %ss (%s), %s maps, %s reduces\n",
		id, job["name"], job["submit"], launch, job["finish"], job["status"], job["maps"], job["reduces"])
	if job["reason"] != "" {
		fmt.Fprintf(w, "reason    %s\n", job["reason"])
	}
	if at, ok := job["admitted"]; ok && at != "" && at != job["submit"] {
		what := "admitted"
		if c := &r.cfg.Cluster; c.Containers > 0 && c.AMContainers > 0 {
			what = "its AM had a container"
		}
		fmt.Fprintf(w, "admitted  %s at %ss, %.6fs after its submission\n", what, at, parseSecs(at)-parseSecs(job["submit"]))
	}
	r.explainWaits(w, id, job)
	prefix := fmt.Sprintf("j%d-", id)
	var slowest map[string]string
	held := func(t map[string]string) float64 { return parseSecs(t["end"]) - parseSecs(t["start"]) }
	for _, t := range r.tasks {
		if !strings.HasPrefix(t["attempt"], prefix) {
			continue
		}
		fmt.Fprintf(w, "  %-16s node %-4s %8ss → %8ss  %8.3fs  %-6s %s\n", t["attempt"], t["node"], t["start"], t["end"], held(t), t["locality"], t["outcome"])
		if slowest == nil || held(t) > held(slowest) {
			slowest = t
		}
	}
	if slowest == nil {
		return errors.New("no attempt of the job ran")
	}
	task, _, _ := strings.Cut(slowest["attempt"], ".")
	fmt.Fprintf(w, "slowest   %s (%.3fs): clusteremu explain %s --task %s\n", slowest["attempt"], held(slowest), r.dir, task)
	return nil
}

// explainWaits prints what a workflow's job waited for: each job it
// names, how and when that ended, and the parts of its output the job
// read; then how long after the last of them it was submitted.
func (r *runDir) explainWaits(w io.Writer, id sched.JobID, job map[string]string) {
	first := sched.JobID(1)
	for _, jobs := range r.cfg.Workload {
		if id >= first+sched.JobID(len(jobs)) {
			first += sched.JobID(len(jobs))
			continue
		}
		spec := jobs[id-first]
		last := 0.0
		for _, name := range spec.After {
			k := slices.IndexFunc(jobs, func(j workload.JobSpec) bool { return j.Name == name })
			if k < 0 {
				continue
			}
			pid := first + sched.JobID(k)
			up := r.jobs[pid]
			fmt.Fprintf(w, "waited    for job %d %q: ended %ss (%s)", pid, name, up["finish"], up["status"])
			var parts int
			var bytes int64
			for _, f := range spec.InputFiles {
				if jobs[k].Output != "" && strings.HasPrefix(f.File, jobs[k].Output+"/") {
					parts, bytes = parts+1, bytes+f.Bytes
				}
			}
			if parts > 0 {
				fmt.Fprintf(w, "; reads its output: %d parts, %d bytes", parts, bytes)
			}
			fmt.Fprintln(w)
			last = max(last, parseSecs(up["finish"]))
		}
		if len(spec.After) > 0 && job["status"] != "" && !strings.HasPrefix(job["reason"], "waits for job") {
			fmt.Fprintf(w, "          submitted %.6fs after the last of them ended\n", parseSecs(job["submit"])-last)
		}
		return
	}
}

// explainAt prints the busiest links in the sampled window holding an
// instant, and the attempts running then.
func (r *runDir) explainAt(w io.Writer, at string) error {
	d, err := units.ParseDuration(at)
	if err != nil {
		return fmt.Errorf("--at %s: want an emulated instant such as 842s or 14m2s", at)
	}
	t := d.Std().Seconds()
	type use struct {
		link string
		u    float64
	}
	var busiest []use
	from, to := 0.0, 0.0
	for _, row := range r.links {
		f, e := parseSecs(row["from"]), parseSecs(row["to"])
		if t < f || t >= e {
			continue
		}
		u, _ := strconv.ParseFloat(row["utilisation"], 64)
		busiest, from, to = append(busiest, use{row["link"], u}), f, e
	}
	running := map[string]int{}
	for _, a := range r.tasks {
		if a["start"] != "" && parseSecs(a["start"]) <= t && t < parseSecs(a["end"]) {
			running[a["kind"]]++
		}
	}
	fmt.Fprintf(w, "at        %.3fs: %d maps and %d reduces running\n", t, running["map"], running["reduce"])
	if len(busiest) == 0 {
		fmt.Fprintln(w, "links     none carried anything in the window holding that instant")
		return nil
	}
	slices.SortStableFunc(busiest, func(a, b use) int { return cmp.Compare(b.u, a.u) })
	fmt.Fprintf(w, "links     the busiest from %.3fs to %.3fs:\n", from, to)
	for _, b := range busiest[:min(len(busiest), 10)] {
		fmt.Fprintf(w, "  %-24s %5.1f%%\n", b.link, 100*b.u)
	}
	return nil
}
