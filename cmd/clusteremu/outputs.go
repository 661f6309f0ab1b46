package main

import (
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
	"clusteremu/internal/atomicfile"
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
var outFiles = []string{"summary.json", "run.json", "jobs.csv", "tasks.csv", "trace.json", "report.html", "offers.jsonl", "links.csv", "flows.csv", "replicas.csv", "scenario.toml",
	"events.jsonl", "choices.jsonl", "decisions.jsonl"}

// outputs is a run's output directory: checked, created and cleared of an
// earlier run's files before the run, so a bad --out costs no run; each
// file is written to a temporary name and renamed into place, so a file
// is whole or absent. What grows with the run's length streams to disk
// while it goes, through the run's hooks: tasks.csv, offers.jsonl,
// links.csv, flows.csv, the attempts' part of trace.json, and the event
// and choice logs. Of those the outputs keep only the compact summaries
// the trace and the report need at the end (traceLog, slotLog, linkLog).
type outputs struct {
	dir             string
	cfg             cluster.Config
	projected       bool // tasks.csv has projected_end (cfg.MeasuresStragglers, asked once)
	events, choices *jsonlFile
	tasks           *csvFile
	offers          *jsonlFile
	flows           *csvFile // with --trace-flows
	links           *linkLog
	trace           *traceLog
	slots           slotLog
	started         []*streamFile // for abandon
}

// openOutputs prepares dir for the files of a run of cfg; events opens
// the logs, flows flows.csv and the trace's flows.
func openOutputs(dir string, cfg cluster.Config, events, flows bool) (*outputs, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	for _, name := range outFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--out %s: clearing an earlier run's %s: %w", dir, name, err)
		}
	}
	o := &outputs{dir: dir, cfg: cfg, projected: cfg.MeasuresStragglers()}
	if err := o.create(events, flows); err != nil {
		o.abandon()
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	return o, nil
}

// create starts the files written while the run goes.
func (o *outputs) create(events, flows bool) error {
	jsonl := func(name string) (*jsonlFile, error) {
		j, err := createJSONL(o.path(name))
		if err == nil {
			o.started = append(o.started, j.streamFile)
		}
		return j, err
	}
	table := func(name string, header []string) (*csvFile, error) {
		c, err := createCSV(o.path(name), header)
		if err == nil {
			o.started = append(o.started, c.streamFile)
		}
		return c, err
	}
	var err error
	if events {
		if o.events, err = jsonl("events.jsonl"); err != nil {
			return err
		}
		if o.choices, err = jsonl("choices.jsonl"); err != nil {
			return err
		}
	}
	if o.tasks, err = table("tasks.csv", taskHeaderOf(o.cfg)); err != nil {
		return err
	}
	if o.offers, err = jsonl("offers.jsonl"); err != nil {
		return err
	}
	if flows {
		if o.flows, err = table("flows.csv", flowHeader); err != nil {
			return err
		}
	}
	if o.links, err = createLinkLog(o.path("links.csv")); err != nil {
		return err
	}
	o.started = append(o.started, o.links.file)
	if o.trace, err = createTraceLog(o.path("trace.json"), o.cfg, flows); err != nil {
		return err
	}
	o.started = append(o.started, o.trace.slices.streamFile)
	if flows {
		o.started = append(o.started, o.trace.flows.streamFile)
	}
	return nil
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

// record has the run sample its links and explain its offers, and hands
// its records to the files as they are made.
func (o *outputs) record(opts *cluster.RunOptions) {
	opts.LinkSamples, opts.Explain = linkWindow, true
	if o.events != nil {
		opts.OnEvent = func(e cluster.Event) { o.events.put(&e) }
		opts.OnChoice = func(c cluster.Choice) { o.choices.put(&c) }
	}
	opts.OnAttemptEnded = o.attemptEnded
	opts.OnOffer = func(r actors.OfferRecord) { o.offers.put(offerLineOf(r)) }
	opts.OnLinks = o.links.sampled
	if o.flows != nil {
		opts.OnFlowEnded = o.flowEnded
	}
}

// begin takes the links' names once the cluster is built, before it runs.
func (o *outputs) begin(links cluster.LinkSeries) { o.links.name(links) }

func (o *outputs) attemptEnded(a actors.AttemptRecord) {
	o.tasks.put(taskRow(a, false, o.projected))
	o.trace.attemptEnded(a)
	o.slots.add(a)
}

func (o *outputs) flowEnded(f actors.FlowRecord) {
	o.flows.put(flowRow(f))
	o.trace.flowEnded(f)
}

// abandon removes the files of a run that did not start.
func (o *outputs) abandon() {
	for _, f := range o.started {
		f.abandon()
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
		writeCSV(o.path("jobs.csv"), jobRows(rep.Records)))
	if repl := rep.Records.Replication; repl != nil {
		errs = append(errs, writeCSV(o.path("replicas.csv"), replicaRows(repl.Changes)))
	}
	errs = append(errs, o.finish(rep.Records)...)
	errs = append(errs,
		writeAtomic(o.path("report.html"), func(w io.Writer) error {
			return writeReport(w, sc.Name, []reportRun{{Name: shortName(sc.Name), Cfg: cfg, Rep: rep, Slots: &o.slots, Links: o.links}})
		}),
		writeAtomic(o.path("scenario.toml"), func(w io.Writer) error { _, err := w.Write(resolved); return err }))
	return errors.Join(errs...)
}

// finish adds the attempts the run cut off, in attempt order, and puts
// the streamed files into place, then assembles the trace from its parts
// and links.csv.
func (o *outputs) finish(res *cluster.Records) []error {
	for _, a := range res.CutOff {
		o.tasks.put(taskRow(a, true, o.projected))
		o.slots.add(a)
	}
	o.trace.cutOff(res.CutOff)
	errs := []error{o.tasks.finish(), o.offers.finish(), o.links.file.finish()}
	if o.flows != nil && o.trace.nflows == 0 {
		o.flows.abandon() // no flow: no file, as without a hook
	} else if o.flows != nil {
		errs = append(errs, o.flows.finish())
	}
	errs = append(errs, writeAtomic(o.path("trace.json"), func(w io.Writer) error {
		return o.trace.write(w, res, &o.slots, o.links, o.path("links.csv"))
	}))
	o.trace.abandon() // its parts
	return errs
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
	return atomicfile.Write(path, write)
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

// replicaRows are replicas.csv (runs with [replication]): every replica
// Scarlett added (its copy landed) or removed, in the order it was.
func replicaRows(changes []actors.ReplicaChange) [][]string {
	rows := [][]string{{"at", "file", "block", "node", "bytes", "change"}}
	for _, c := range changes {
		change := "removed"
		if c.Added {
			change = "added"
		}
		rows = append(rows, []string{secs(c.At), c.File, strconv.Itoa(c.Block), strconv.Itoa(int(c.Node)),
			strconv.FormatInt(c.Bytes, 10), change})
	}
	return rows
}

// secs prints emulated times in seconds with a fixed format.
func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 6, 64) }

func jobRows(res *cluster.Records) [][]string {
	rows := [][]string{{"job", "name", "pool", "status", "reason", "submit", "start", "finish", "response",
		"reference", "slowdown", "size", "maps", "reduces", "input_bytes", "shuffle_bytes", "output_bytes", "evictions", "evicted_maps"}}
	if res.Admission {
		// The jobs' admission under [scheduler] max_running.
		rows[0] = slices.Insert(rows[0], 6, "admitted")
	}
	for _, j := range res.Jobs {
		start := ""
		if j.Start >= 0 {
			start = secs(j.Start)
		}
		ref, slowdown, size := "", "", ""
		if sd := j.Slowdown(); sd > 0 {
			ref, slowdown = secs(j.Reference), strconv.FormatFloat(sd, 'f', 4, 64)
		}
		if j.TotalSize() > 0 {
			// The slot-seconds its attempts held alone (Ghit & Epema's
			// size), to the millisecond as the times are.
			size = strconv.FormatFloat(j.TotalSize(), 'f', 3, 64)
		}
		rows = append(rows, []string{fmt.Sprint(j.ID), j.Name, j.Pool, string(j.Outcome), j.Reason,
			secs(j.Submit), start, secs(j.Finish), secs(j.Finish - j.Submit), ref, slowdown, size,
			fmt.Sprint(j.Maps), fmt.Sprint(j.Reduces), fmt.Sprint(j.InputBytes), fmt.Sprint(j.ShuffleBytes), fmt.Sprint(j.OutputBytes),
			fmt.Sprint(j.Evictions), fmt.Sprint(j.EvictedMaps)})
		if res.Admission {
			admitted := ""
			if j.Admitted >= 0 {
				admitted = secs(j.Admitted)
			}
			last := len(rows) - 1
			rows[last] = slices.Insert(rows[last], 6, admitted)
		}
	}
	return rows
}

// tasks.csv is a row per attempt: those that ended, in the order they
// ended, then those the run cut off, in attempt order. A run with
// stragglers or speculation adds projected_end: when each attempt a
// restart killed would have ended (AttemptRecord.Projected), which its
// restart's success is judged by.
var taskHeader = []string{"attempt", "job", "kind", "task", "try", "node", "slot", "locality", "start", "end",
	"local_bytes", "remote_bytes", "outcome", "reason"}

// taskHeaderOf is tasks.csv's header for a run of cfg.
func taskHeaderOf(cfg cluster.Config) []string {
	if cfg.MeasuresStragglers() {
		return append(slices.Clone(taskHeader), "projected_end")
	}
	return taskHeader
}

// taskRow is an attempt's row in tasks.csv; cutOff marks one still
// running when the run ended, projected adds projected_end.
func taskRow(a actors.AttemptRecord, cutOff, projected bool) []string {
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
	if cutOff {
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
	return row
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

// flows.csv (run --trace-flows) is every flow, in the order it ended.
var flowHeader = []string{"owner", "part", "src", "dst", "transfer", "bytes", "delivered", "start", "end", "completed",
	"max_rate", "cpu_per_byte"}

// flowRow is a flow's row in flows.csv.
func flowRow(f actors.FlowRecord) []string {
	owner := fmt.Sprintf("%d/%d", f.Key.Owner, f.Key.ID)
	if f.Key.Owner == actors.OwnerAttempt {
		owner = f.Key.Attempt.String()
	}
	return []string{owner, fmt.Sprint(f.Key.Part), fmt.Sprint(f.Src), fmt.Sprint(f.Dst), f.Transfer.String(),
		fmt.Sprint(f.Bytes), fmt.Sprint(f.Delivered), secs(f.Start), secs(f.End), strconv.FormatBool(f.Completed),
		strconv.FormatFloat(f.MaxRate, 'g', -1, 64), strconv.FormatFloat(f.CPUPerByte, 'g', -1, 64)}
}
