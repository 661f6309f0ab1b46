package cluster_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/cockroachdb/datadriven"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
	"clusteremu/scenarios"
)

// The scripts' output: fixed-format tables, one line per record in the
// records' own order (jobs by ID, attempts by attempt, events by
// delivery), with emulated times and actor names.

// stamp writes an emulated instant or span in seconds to the millisecond;
// a negative one (a job that never launched) is "-".
func stamp(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

func nodeName(n sched.NodeID) string { return fmt.Sprintf("node-%d", n) }

func printEnd(rep *cluster.Report, err error) string {
	reason, at, dead := ending(rep)
	out := fmt.Sprintf("ended %s at %s", reason, stamp(at))
	if dead > 0 {
		out += fmt.Sprintf(" (%d dead letters)", dead)
	}
	if err != nil {
		out += "\nerror: " + err.Error()
	}
	return out
}

// printJobs prints the jobs; maps-done is when a job's last successful
// map ended.
func printJobs(rep *cluster.Report) string {
	mapsDone := map[sched.JobID]time.Duration{}
	for _, a := range attemptsOf(rep) {
		if a.Attempt.Kind == sched.Map && a.Outcome == sched.Succeeded {
			mapsDone[a.Attempt.Job] = max(mapsDone[a.Attempt.Job], a.End)
		}
	}
	tb := newTable("job", "name", "pool?", "submit", "start", "maps-done", "finish", "response", "outcome",
		"maps", "reduces", "input", "size?", "slowdown?", "evictions?", "reason?")
	for _, j := range jobsOf(rep) {
		response, evicted, done, size, slowdown := "", "", "", "", ""
		if outcomeOf(&j) == "succeeded" {
			response = stamp(j.Finish - j.Submit)
		}
		if d, ok := mapsDone[j.ID]; ok {
			done = stamp(d)
		}
		if j.Evictions > 0 {
			evicted = fmt.Sprintf("%d (%s)", j.Evictions, count(j.EvictedMaps, "map"))
		}
		if j.TotalSize() > 0 {
			size = strconv.FormatFloat(j.TotalSize(), 'f', 3, 64) + " slot-s"
		}
		if sd := j.Slowdown(); sd > 0 {
			slowdown = strconv.FormatFloat(sd, 'f', 3, 64)
		}
		tb.add(strconv.Itoa(int(j.ID)), j.Name, j.Pool, stamp(j.Submit), stamp(j.Start), done,
			stamp(j.Finish), response, outcomeOf(&j), strconv.Itoa(j.Maps), strconv.Itoa(j.Reduces),
			scenarios.Bytes(j.InputBytes).String(), size, slowdown, evicted, j.Reason)
	}
	return tb.String()
}

// attemptFilter reads the attempts command's filters.
func attemptFilter(t *testing.T, td *datadriven.TestData) func(actors.AttemptRecord) bool {
	args := scanArgs(t, td, "job", "kind", "node", "outcome")
	valid := map[string][]string{"kind": {"map", "reduce"}, "outcome": {"succeeded", "failed", "killed"}}
	for key, values := range valid {
		if v, ok := args[key]; ok && !slices.Contains(values, v) {
			td.Fatalf(t, "attempts: %s=%s: want one of %s", key, v, strings.Join(values, ", "))
		}
	}
	return func(a actors.AttemptRecord) bool {
		for key, want := range args {
			var got string
			switch key {
			case "job":
				got = strconv.Itoa(int(a.Attempt.Job))
			case "kind":
				got = a.Attempt.Kind.String()
			case "node":
				got = strconv.Itoa(int(a.Node))
			case "outcome":
				got = a.Outcome.String()
			}
			if got != want {
				return false
			}
		}
		return true
	}
}

func printAttempts(rep *cluster.Report, keep func(actors.AttemptRecord) bool) string {
	tb := newTable("attempt", "node", "slot", "locality", "start", "end", "held", "local", "remote", "outcome", "reason?")
	for _, a := range attemptsOf(rep) {
		if !keep(a) {
			continue
		}
		locality, held := "", ""
		if a.Attempt.Kind == sched.Map {
			locality = a.Locality.String()
		}
		if a.Start >= 0 {
			held = stamp(a.End - a.Start)
		}
		tb.add(a.Attempt.String(), nodeName(a.Node), strconv.Itoa(a.Slot), locality, stamp(a.Start), stamp(a.End), held,
			scenarios.Bytes(a.LocalBytes).String(), scenarios.Bytes(a.RemoteBytes).String(), a.Outcome.String(), a.Reason)
	}
	return tb.String()
}

func printFlows(f cluster.FlowTotals) string {
	tb := newTable("flows", "count", "bytes")
	tb.add("completed", strconv.Itoa(f.Completed), scenarios.Bytes(f.Bytes).String())
	tb.add("aborted", strconv.Itoa(f.Aborted),
		fmt.Sprintf("%s of %s", scenarios.Bytes(f.AbortedBytes), scenarios.Bytes(f.AbortedDue)))
	if f.CutOff > 0 {
		tb.add("cut off", strconv.Itoa(f.CutOff),
			fmt.Sprintf("%s of %s", scenarios.Bytes(f.CutOffBytes), scenarios.Bytes(f.CutOffDue)))
	}
	tb.add("delivered", "", scenarios.Bytes(f.Delivered).String())
	return tb.String()
}

func printFaults(faults []actors.FaultEvent) string {
	tb := newTable("at", "fault", "on", "what")
	for _, f := range faults {
		tb.add(fmt.Sprintf("%.3fs", f.At.Seconds()), string(f.Kind), f.Target, f.What)
	}
	return tb.String()
}

func printNotes(notes []actors.Note) string {
	tb := newTable("at", "node", "what")
	for _, n := range notes {
		tb.add(fmt.Sprintf("%.3fs", n.At.Seconds()), fmt.Sprintf("node-%d", n.Node), n.What)
	}
	return tb.String()
}

// printSummary prints the metrics the command names, in its order; a
// metric the run has no value for (a response time when no job
// succeeded) is "absent".
func printSummary(t *testing.T, td *datadriven.TestData, s cluster.Summary) string {
	if len(td.CmdArgs) == 0 {
		td.Fatalf(t, "summary: name the metrics to print")
	}
	var b strings.Builder
	for _, arg := range td.CmdArgs {
		if len(arg.Vals) > 0 || !cluster.ValidMetric(arg.Key) {
			td.Fatalf(t, "summary: %s: not a metric name", arg)
		}
		v, ok := s[arg.Key]
		switch {
		case !ok:
			fmt.Fprintf(&b, "%s absent\n", arg.Key)
		case v == math.Trunc(v) && math.Abs(v) < 1e15:
			fmt.Fprintf(&b, "%s = %d\n", arg.Key, int64(v))
		default:
			fmt.Fprintf(&b, "%s = %.6g\n", arg.Key, v)
		}
	}
	return b.String()
}

// eventFilter reads the events command's filters: an actor matches the
// sender or the receiver by its name or its name's last element (job-1
// for coordinator/job-1); a type matches with or without its package;
// from and to bound the emulated time, both included.
func eventFilter(t *testing.T, td *datadriven.TestData) func(cluster.Event) bool {
	args := scanArgs(t, td, "actor", "type", "from", "to")
	from, to := time.Duration(0), time.Duration(math.MaxInt64)
	if _, ok := args["from"]; ok {
		from = durationArg(t, td, args, "from")
	}
	if _, ok := args["to"]; ok {
		to = durationArg(t, td, args, "to")
	}
	is := func(name, want string) bool { return name == want || strings.HasSuffix(name, "/"+want) }
	return func(e cluster.Event) bool {
		if a, ok := args["actor"]; ok && !is(e.Sender, a) && !is(e.Receiver, a) {
			return false
		}
		ty, ok := args["type"]
		return e.At >= from && e.At <= to && (!ok || e.Type == ty || strings.HasSuffix(e.Type, "."+ty))
	}
}

func printEvents(rep *cluster.Report, keep func(cluster.Event) bool) string {
	tb := newTable("at", "from", "to", "message")
	for _, e := range eventsOf(rep) {
		if keep(e) {
			tb.add(stamp(e.At), e.Sender, e.Receiver, e.Type)
		}
	}
	return tb.String()
}

// table lays rows out in aligned columns under a header. A column whose
// header ends in "?" is left out when no row has a value in it; an empty
// cell of a column shown is "-".
type table struct {
	header []string
	rows   [][]string
}

func newTable(header ...string) *table { return &table{header: header} }

func (tb *table) add(cells ...string) { tb.rows = append(tb.rows, cells) }

func (tb *table) String() string {
	var shown []int
	for c, h := range tb.header {
		if !strings.HasSuffix(h, "?") || tb.used(c) {
			shown = append(shown, c)
		}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	line := func(cells []string) {
		out := make([]string, len(shown))
		for i, c := range shown {
			out[i] = cmp.Or(cells[c], "-")
		}
		fmt.Fprintln(w, strings.Join(out, "\t"))
	}
	header := make([]string, len(tb.header))
	for c, h := range tb.header {
		header[c] = strings.TrimSuffix(h, "?")
	}
	line(header)
	for _, row := range tb.rows {
		line(row)
	}
	_ = w.Flush()
	return b.String()
}

func (tb *table) used(c int) bool {
	for _, row := range tb.rows {
		if row[c] != "" {
			return true
		}
	}
	return false
}
