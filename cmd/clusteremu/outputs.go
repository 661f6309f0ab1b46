package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
	"clusteremu/scenarios"
)

// Exit codes, the same for every command.
const (
	exitOK     = 0 // the run and its expectations passed
	exitFailed = 1 // a run failed, a job broke an invariant or an expectation failed
	exitUsage  = 2 // bad flags, a bad scenario or an output that cannot be written
)

// outFiles are the files a run writes into --out; a reused directory is
// cleared of them first, so nothing there is left from an earlier run.
var outFiles = []string{"summary.json", "run.json", "jobs.csv", "tasks.csv", "trace.json", "report.html", "offers.jsonl", "links.csv", "flows.csv", "scenario.toml",
	"events.jsonl", "choices.jsonl", "decisions.jsonl"}

// outputs is a run's output directory: checked, created and cleared of an
// earlier run's files before the run, so a bad --out costs no run; each
// file is written to a temporary name and renamed into place, so a file
// is whole or absent. The event and choice logs stream to disk during the
// run.
type outputs struct {
	dir             string
	events, choices *jsonlFile
}

// openOutputs prepares dir for a run's files; events opens the logs.
func openOutputs(dir string, events bool) (*outputs, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	for _, name := range outFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--out %s: clearing an earlier run's %s: %w", dir, name, err)
		}
	}
	o := &outputs{dir: dir}
	if events {
		var err error
		if o.events, err = createJSONL(filepath.Join(dir, "events.jsonl")); err != nil {
			return nil, err
		}
		if o.choices, err = createJSONL(filepath.Join(dir, "choices.jsonl")); err != nil {
			o.events.abandon()
			return nil, err
		}
	}
	return o, nil
}

// prepareDir makes sure dir is a directory this process can write.
func prepareDir(dir string) error {
	if dir == "" {
		return errors.New("--out: give a directory")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("--out %s: exists and is not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return probeWritable(dir)
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".clusteremu-probe-*")
	if err != nil {
		return fmt.Errorf("--out: cannot write into %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// checkOutFile makes sure a file can be written at path.
func checkOutFile(path string) error {
	if path == "" {
		return errors.New("--out: give a file")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--out %s: is a directory", path)
	}
	return probeWritable(filepath.Dir(path))
}

// linkWindow is the window over which links.csv and trace.json average
// each link's utilisation: the run keeps every link's bytes per window, 8
// bytes per link and window (the FB-2009 first hour's 3,040 links: 88 MB;
// the files keep the busy ones only).
const linkWindow = time.Second

// record streams the run's deliveries and choices into the logs and has
// the fabric sample its links for the trace.
func (o *outputs) record(opts *cluster.RunOptions) {
	opts.LinkSamples, opts.Explain = linkWindow, true
	if o.events != nil {
		opts.OnEvent = func(e cluster.Event) { o.events.put(&e) }
		opts.OnChoice = func(c cluster.Choice) { o.choices.put(&c) }
	}
}

// abandon removes the logs of a run that did not start.
func (o *outputs) abandon() {
	if o.events != nil {
		o.events.abandon()
		o.choices.abandon()
	}
}

// write writes a run's files. summary.json, jobs.csv and tasks.csv hold
// emulated results only, so the same scenario and seeds give the same
// bytes; run.json holds what varies from run to run; scenario.toml the
// scenario as it ran. A run that ended with an error says why in
// summary.json.
func (o *outputs) write(sc *scenarios.Scenario, cfg cluster.Config, rep *cluster.Report, wall time.Duration, runErr error) error {
	var errs []error
	if o.events != nil {
		errs = append(errs, o.events.finish(), o.choices.finish(),
			writeDecisions(o.path("decisions.jsonl"), sc, cfg, rep.End.Decisions))
	}
	summary := map[string]any{
		"scenario":      sc.Name,
		"config_sha256": configHash(cfg),
		"seed":          cfg.Run.Seed,
		"schedule_seed": cfg.Run.ScheduleSeed,
		"clock":         clockName(cfg),
		"end_reason":    string(rep.End.Reason),
		"metrics":       rep.Summary,
	}
	if runErr != nil {
		summary["error"] = runErr.Error()
	}
	host, _ := os.Hostname()
	run := map[string]any{
		"format":       outputsFormat,
		"wall_seconds": wall.Seconds(), "speed": rep.End.At.Seconds() / wall.Seconds(),
		"reference_wall_seconds": rep.ReferenceWall.Seconds(),
		"messages":               rep.End.Steps, "dead_letters": rep.End.DeadLetters,
		"host": host, "go": runtime.Version(), "goos": runtime.GOOS, "goarch": runtime.GOARCH,
	}
	resolved, err := sc.Resolved()
	errs = append(errs, err,
		writeJSON(o.path("summary.json"), summary),
		writeJSON(o.path("run.json"), run),
		writeCSV(o.path("jobs.csv"), jobRows(rep.Records)),
		writeCSV(o.path("tasks.csv"), taskRows(rep.Records)),
		writeAtomic(o.path("trace.json"), func(w io.Writer) error { return writeTrace(w, cfg, rep.Records) }),
		writeAtomic(o.path("report.html"), func(w io.Writer) error {
			return writeReport(w, sc.Name, []reportRun{{Name: shortName(sc.Name), Cfg: cfg, Rep: rep}})
		}),
		writeAtomic(o.path("offers.jsonl"), func(w io.Writer) error { return writeOffers(w, rep.Records.Offers) }),
		writeAtomic(o.path("links.csv"), func(w io.Writer) error { return writeLinks(w, &rep.Records.Links) }),
		writeAtomic(o.path("scenario.toml"), func(w io.Writer) error { _, err := w.Write(resolved); return err }))
	if len(rep.Records.FlowList) > 0 {
		errs = append(errs, writeCSV(o.path("flows.csv"), flowRows(rep.Records.FlowList)))
	}
	return errors.Join(errs...)
}

func (o *outputs) path(name string) string { return filepath.Join(o.dir, name) }

// configHash identifies the resolved configuration, generated workload
// included.
func configHash(cfg cluster.Config) string {
	data, err := json.Marshal(cfg)
	if err != nil {
		panic(fmt.Sprintf("clusteremu: hashing the configuration: %v", err))
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// writeAtomic writes a file under a temporary name in its directory and
// renames it into place, so the file is whole or absent.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	return settle(f, path, err)
}

// settle closes a temporary file and renames it to path, or removes it
// when writing it failed.
func settle(f *os.File, path string, err error) error {
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	return writeAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

func writeCSV(path string, rows [][]string) error {
	return writeAtomic(path, func(w io.Writer) error { return csv.NewWriter(w).WriteAll(rows) })
}

// jsonlFile is a JSON-lines file written item by item during a run under
// a temporary name; finish renames it into place. The first error is kept
// and later items are dropped.
type jsonlFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	enc  *json.Encoder
	err  error
}

func createJSONL(path string) (*jsonlFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	return &jsonlFile{path: path, f: f, w: w, enc: json.NewEncoder(w)}, nil
}

func (j *jsonlFile) put(v any) {
	if j.err == nil {
		j.err = j.enc.Encode(v)
	}
}

func (j *jsonlFile) finish() error {
	err := j.err
	if err == nil {
		err = j.w.Flush()
	}
	return settle(j.f, j.path, err)
}

func (j *jsonlFile) abandon() {
	j.f.Close()
	os.Remove(j.f.Name())
}

// secs prints emulated times in seconds with a fixed format.
func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 6, 64) }

func jobRows(res *cluster.Records) [][]string {
	rows := [][]string{{"job", "name", "pool", "status", "reason", "submit", "start", "finish", "response",
		"reference", "slowdown", "maps", "reduces", "input_bytes", "shuffle_bytes", "output_bytes", "evictions", "evicted_maps"}}
	for _, j := range res.Jobs {
		start := ""
		if j.Start >= 0 {
			start = secs(j.Start)
		}
		ref, slowdown := "", ""
		if sd := j.Slowdown(); sd > 0 {
			ref, slowdown = secs(j.Reference), strconv.FormatFloat(sd, 'f', 4, 64)
		}
		rows = append(rows, []string{fmt.Sprint(j.ID), j.Name, j.Pool, string(j.Outcome), j.Reason,
			secs(j.Submit), start, secs(j.Finish), secs(j.Finish - j.Submit), ref, slowdown,
			fmt.Sprint(j.Maps), fmt.Sprint(j.Reduces), fmt.Sprint(j.InputBytes), fmt.Sprint(j.ShuffleBytes), fmt.Sprint(j.OutputBytes),
			fmt.Sprint(j.Evictions), fmt.Sprint(j.EvictedMaps)})
	}
	return rows
}

func taskRows(res *cluster.Records) [][]string {
	rows := [][]string{{"attempt", "job", "kind", "task", "try", "node", "slot", "locality", "start", "end",
		"local_bytes", "remote_bytes", "outcome", "reason"}}
	// A run with stragglers or speculation says when each attempt a
	// restart killed would have ended (AttemptRecord.Projected), which
	// its restart's success is judged by.
	projected := res.Phases != nil
	if projected {
		rows[0] = append(rows[0], "projected_end")
	}
	all := slices.Concat(res.Attempts, res.CutOff)
	slices.SortStableFunc(all, func(a, b actors.AttemptRecord) int { return sched.CompareAttempts(a.Attempt, b.Attempt) })
	cutOff := make(map[sched.Attempt]bool, len(res.CutOff))
	for _, a := range res.CutOff {
		cutOff[a.Attempt] = true
	}
	for _, a := range all {
		start := ""
		if a.Start >= 0 {
			start = secs(a.Start)
		}
		// A reduce is placed without regard to its input, which comes
		// from every map: local_bytes and remote_bytes say from where.
		locality := "-"
		if a.Attempt.Kind == sched.Map {
			locality = a.Locality.String()
		}
		outcome, reason := a.Outcome.String(), a.Reason
		if cutOff[a.Attempt] {
			outcome, reason = string(cluster.JobCutOff), "running when the run ended"
		}
		at := a.Attempt
		row := []string{at.String(), fmt.Sprint(at.Job), at.Kind.String(), fmt.Sprint(at.Task), fmt.Sprint(at.Attempt),
			fmt.Sprint(a.Node), fmt.Sprint(a.Slot), locality, start, secs(a.End),
			fmt.Sprint(a.LocalBytes), fmt.Sprint(a.RemoteBytes), outcome, reason}
		if projected {
			end := ""
			if a.Projected > 0 {
				end = secs(a.Projected)
			}
			row = append(row, end)
		}
		rows = append(rows, row)
	}
	return rows
}

// clockName says how the run kept time.
func clockName(cfg cluster.Config) string {
	switch {
	case cfg.Run.Clock == cluster.Scaled:
		return fmt.Sprintf("scaled ×%g", cfg.Run.Speedup)
	case cfg.Run.Clock == cluster.Wall:
		return "wall"
	case cfg.Run.Concurrent():
		return "virtual, concurrent"
	}
	return "virtual, deterministic"
}

// writeLinks writes links.csv: what each link carried in each sampled
// window, the links that carried nothing left out. It is the largest of
// the files (a row per busy link and second), so it is written field by
// field rather than through encoding/csv; no field needs quoting.
func writeLinks(w io.Writer, links *cluster.LinkSeries) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("from,to,link,capacity,carried,utilisation\n")
	var buf []byte
	for i, s := range links.Samples {
		for l, b := range s.Carried {
			if b == 0 {
				continue
			}
			buf = strconv.AppendFloat(buf[:0], s.From.Seconds(), 'f', 6, 64)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, s.To.Seconds(), 'f', 6, 64)
			buf = append(append(append(buf, ','), links.Names[l]...), ',')
			buf = strconv.AppendFloat(buf, links.Capacity[l], 'g', -1, 64)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, b, 10)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, links.Utilisation(i, l), 'f', 6, 64)
			if _, err := bw.Write(append(buf, '\n')); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// flowRows is flows.csv (run --trace-flows): every flow, in the order it
// ended.
func flowRows(flows []actors.FlowRecord) [][]string {
	rows := [][]string{{"owner", "part", "src", "dst", "transfer", "bytes", "delivered", "start", "end", "completed",
		"max_rate", "cpu_per_byte"}}
	for _, f := range flows {
		owner := fmt.Sprintf("%d/%d", f.Key.Owner, f.Key.ID)
		if f.Key.Owner == actors.OwnerAttempt {
			owner = f.Key.Attempt.String()
		}
		rows = append(rows, []string{owner, fmt.Sprint(f.Key.Part), fmt.Sprint(f.Src), fmt.Sprint(f.Dst), f.Transfer.String(),
			fmt.Sprint(f.Bytes), fmt.Sprint(f.Delivered), secs(f.Start), secs(f.End), strconv.FormatBool(f.Completed),
			strconv.FormatFloat(f.MaxRate, 'g', -1, 64), strconv.FormatFloat(f.CPUPerByte, 'g', -1, 64)})
	}
	return rows
}
