package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/policies/sched"
)

// trace.json is the run as Chrome trace-event JSON, which ui.perfetto.dev
// and chrome://tracing open from a file with no network: a process per
// rack with a track per node slot, a slice per attempt named by its
// outcome with a nested slice per phase, instant events for the
// heartbeats answered with launches, and a "cluster" process with counter
// tracks for busy slots, tasks not yet started and the utilisation of the
// rack links and the busiest other links over 1 s windows. Times are
// emulated microseconds.

// traceEvent is one trace event; fields a phase does not use are left
// out.
type traceEvent struct {
	Name  string   `json:"name"`
	Cat   string   `json:"cat,omitempty"`
	Ph    string   `json:"ph"`
	Ts    float64  `json:"ts"`
	Dur   *float64 `json:"dur,omitempty"`
	Pid   int      `json:"pid"`
	Tid   int      `json:"tid"`
	Scope string   `json:"s,omitempty"`
	ID    int      `json:"id,omitempty"` // an async slice's
	CName string   `json:"cname,omitempty"`
	Args  any      `json:"args,omitempty"` // a map for metadata; the structs below for the many
}

// counterArgs is a counter sample's value.
type counterArgs struct {
	Value float64 `json:"value"`
}

// attemptArgs describe an attempt's slice.
type attemptArgs struct {
	Outcome     string       `json:"outcome"`
	Node        sched.NodeID `json:"node"`
	Locality    string       `json:"locality,omitempty"`
	LocalBytes  int64        `json:"local_bytes"`
	RemoteBytes int64        `json:"remote_bytes"`
	Reason      string       `json:"reason,omitempty"`
}

// flowArgs describe a flow's slice.
type flowArgs struct {
	Bytes     int64 `json:"bytes"`
	Delivered int64 `json:"delivered"`
	Completed bool  `json:"completed"`
}

// clusterPid is the trace process of cluster-wide counters; rack r is
// process r + 1.
const clusterPid = 0

// slotTid is the track of a node's slot: the node's map slots, then its
// reduce slots, numbered so that tracks sort by node.
func slotTid(node sched.NodeID, kind sched.TaskKind, slot int) int {
	return int(node)*2*(actors.MaxSlotsPerNode+1) + int(kind)*(actors.MaxSlotsPerNode+1) + slot + 1
}

// launchTid is a rack's track of heartbeats answered with launches and of
// what happened to its nodes (declared dead).
const launchTid = 0

// usec turns emulated time into the trace's microseconds, exact to the
// nanosecond.
func usec(d time.Duration) float64 { return float64(d) / 1e3 }

// outcomeColours are trace-viewer colour names for attempts' outcomes.
var outcomeColours = map[string]string{
	"succeeded": "good", "killed": "grey", "failed": "terrible", "lost": "bad", string(cluster.JobCutOff): "yellow",
}

// writeTrace writes the trace of a run's records.
func writeTrace(w io.Writer, cfg cluster.Config, res *cluster.Records) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	first := true
	put := func(e *traceEvent) error {
		sep := ","
		if first {
			sep, first = "", false
		}
		if _, err := bw.WriteString(sep); err != nil {
			return err
		}
		return enc.Encode(e)
	}
	if _, err := bw.WriteString(`{"displayTimeUnit":"ms","traceEvents":[` + "\n"); err != nil {
		return err
	}
	for _, e := range traceEvents(cfg, res) {
		if err := put(&e); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// traceEvents builds the events: track names first, then attempts in
// order of start, launches, counters.
func traceEvents(cfg cluster.Config, res *cluster.Records) []traceEvent {
	attempts := traceAttempts(res)
	evs := trackNames(cfg, attempts)
	for _, a := range attempts {
		evs = append(evs, attemptSlices(cfg, a)...)
	}
	evs = append(evs, launchInstants(cfg, attempts)...)
	for _, n := range res.Notes {
		evs = append(evs, traceEvent{Name: fmt.Sprintf("node %d %s", n.Node, n.What), Cat: "node", Ph: "i", Ts: usec(n.At),
			Pid: rackOf(cfg, n.Node) + 1, Tid: launchTid, Scope: "p", CName: "terrible"})
	}
	evs = append(evs, counters(res, attempts)...)
	evs = append(evs, flowSlices(cfg, res.FlowList)...)
	return append(evs, linkCounters(&res.Links)...)
}

// busiestLinks is how many links besides the racks' own get a counter
// track of their utilisation.
const busiestLinks = 8

// linkCounters are counter tracks of link utilisation, window by window
// (RunOptions.LinkSamples): every rack uplink and downlink and the core,
// then the busiest other links by mean utilisation over the run.
func linkCounters(links *cluster.LinkSeries) []traceEvent {
	if len(links.Samples) == 0 {
		return nil
	}
	var racks, others []int
	mean := make([]float64, len(links.Names))
	for l, name := range links.Names {
		for i := range links.Samples {
			mean[l] += links.Utilisation(i, l) / float64(len(links.Samples))
		}
		switch {
		case strings.HasSuffix(name, "uplink"), strings.HasSuffix(name, "downlink"), name == "core":
			racks = append(racks, l)
		case name != "" && mean[l] > 0:
			others = append(others, l)
		}
	}
	slices.SortStableFunc(others, func(a, b int) int { return cmp.Compare(mean[b], mean[a]) })
	var evs []traceEvent
	for _, l := range slices.Concat(racks, others[:min(len(others), busiestLinks)]) {
		name := links.Names[l] + " utilisation"
		last := -1.0
		for i, s := range links.Samples {
			if u := links.Utilisation(i, l); u != last { // a counter holds its value until the next
				evs = append(evs, traceEvent{Name: name, Ph: "C", Ts: usec(s.From), Pid: clusterPid, Args: counterArgs{u}})
				last = u
			}
		}
		end := links.Samples[len(links.Samples)-1].To
		evs = append(evs, traceEvent{Name: name, Ph: "C", Ts: usec(end), Pid: clusterPid, Args: counterArgs{0}})
	}
	return evs
}

// tracedAttempt is an attempt with the outcome the trace shows.
type tracedAttempt struct {
	actors.AttemptRecord
	outcome string
}

// traceAttempts returns the attempts that ran on a node, ended or cut
// off, by start (then attempt).
func traceAttempts(res *cluster.Records) []tracedAttempt {
	var out []tracedAttempt
	for _, a := range res.Attempts {
		if a.Start < 0 {
			continue // recorded by its job manager for a lost node: no slot to show
		}
		o := a.Outcome.String()
		if a.Reason == actors.ReasonNodeLost {
			o = "lost"
		}
		out = append(out, tracedAttempt{a, o})
	}
	for _, a := range res.CutOff {
		out = append(out, tracedAttempt{a, string(cluster.JobCutOff)})
	}
	slices.SortFunc(out, func(a, b tracedAttempt) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), sched.CompareAttempts(a.Attempt, b.Attempt))
	})
	return out
}

func rackOf(cfg cluster.Config, n sched.NodeID) int { return int(n) / cfg.Cluster.NodesPerRack }

// trackNames names the processes and the tracks attempts use.
func trackNames(cfg cluster.Config, attempts []tracedAttempt) []traceEvent {
	meta := func(name string, pid, tid int, args map[string]any) traceEvent {
		return traceEvent{Name: name, Ph: "M", Pid: pid, Tid: tid, Args: args}
	}
	evs := []traceEvent{meta("process_name", clusterPid, 0, map[string]any{"name": "cluster"})}
	for r := range cfg.Cluster.Racks {
		evs = append(evs,
			meta("process_name", r+1, 0, map[string]any{"name": fmt.Sprintf("rack %d", r)}),
			meta("process_sort_index", r+1, 0, map[string]any{"sort_index": r + 1}),
			meta("thread_name", r+1, launchTid, map[string]any{"name": "launches and node events"}))
	}
	type track struct {
		node sched.NodeID
		kind sched.TaskKind
		slot int
	}
	seen := map[track]bool{}
	for _, a := range attempts {
		t := track{a.Node, a.Attempt.Kind, a.Slot}
		if seen[t] {
			continue
		}
		seen[t] = true
		tid := slotTid(t.node, t.kind, t.slot)
		evs = append(evs,
			meta("thread_name", rackOf(cfg, t.node)+1, tid, map[string]any{"name": fmt.Sprintf("node %d %v slot %d", t.node, t.kind, t.slot)}),
			meta("thread_sort_index", rackOf(cfg, t.node)+1, tid, map[string]any{"sort_index": tid}))
	}
	return evs
}

// attemptSlices is an attempt's slice and its phases' slices nested in it.
func attemptSlices(cfg cluster.Config, a tracedAttempt) []traceEvent {
	pid, tid := rackOf(cfg, a.Node)+1, slotTid(a.Node, a.Attempt.Kind, a.Slot)
	name := a.Attempt.String()
	if a.outcome != "succeeded" {
		name += " (" + a.outcome + ")"
	}
	args := attemptArgs{Outcome: a.outcome, Node: a.Node, LocalBytes: a.LocalBytes, RemoteBytes: a.RemoteBytes, Reason: a.Reason}
	if a.Attempt.Kind == sched.Map {
		args.Locality = a.Locality.String()
	}
	dur := usec(a.End - a.Start)
	evs := []traceEvent{{Name: name, Cat: a.Attempt.Kind.String(), Ph: "X", Ts: usec(a.Start), Dur: &dur,
		Pid: pid, Tid: tid, CName: outcomeColours[a.outcome], Args: args}}
	for _, p := range a.Phases {
		d := usec(p.End - p.Start)
		evs = append(evs, traceEvent{Name: p.Phase.String(), Cat: "phase", Ph: "X", Ts: usec(p.Start), Dur: &d, Pid: pid, Tid: tid})
	}
	return evs
}

// launchInstants marks, on each rack's launches track, every instant a
// node began attempts: the heartbeat the coordinator answered with them.
func launchInstants(cfg cluster.Config, attempts []tracedAttempt) []traceEvent {
	type key struct {
		node sched.NodeID
		at   time.Duration
	}
	count := map[key][]string{}
	var order []key
	for _, a := range attempts {
		k := key{a.Node, a.Start}
		if _, ok := count[k]; !ok {
			order = append(order, k)
		}
		count[k] = append(count[k], a.Attempt.String())
	}
	evs := make([]traceEvent, 0, len(order))
	for _, k := range order {
		evs = append(evs, traceEvent{Name: fmt.Sprintf("node %d: %d launched", k.node, len(count[k])), Cat: "heartbeat",
			Ph: "i", Ts: usec(k.at), Pid: rackOf(cfg, k.node) + 1, Tid: launchTid, Scope: "t",
			Args: map[string]any{"attempts": count[k]}})
	}
	return evs
}

// counters are the cluster's counter tracks: busy map and reduce slots,
// from the attempts' starts and ends, and tasks not yet started, which
// count every task of a job from its submission until its first attempt
// begins (reduces waiting for slow-start included).
func counters(res *cluster.Records, attempts []tracedAttempt) []traceEvent {
	series := map[string][]levelChange{}
	firstStart := map[[3]int64]time.Duration{}
	for _, a := range attempts {
		name := "busy " + a.Attempt.Kind.String() + " slots"
		series[name] = append(series[name], levelChange{a.Start, 1}, levelChange{a.End, -1})
		k := [3]int64{int64(a.Attempt.Job), int64(a.Attempt.Kind), int64(a.Attempt.Task)}
		if s, ok := firstStart[k]; !ok || a.Start < s {
			firstStart[k] = a.Start
		}
	}
	const pending = "tasks not yet started"
	for _, j := range res.Jobs {
		series[pending] = append(series[pending], levelChange{j.Submit, j.Maps + j.Reduces})
	}
	for _, s := range firstStart {
		series[pending] = append(series[pending], levelChange{s, -1})
	}
	var evs []traceEvent
	for _, name := range slices.Sorted(maps.Keys(series)) {
		for _, l := range stepLevels(series[name]) {
			evs = append(evs, traceEvent{Name: name, Ph: "C", Ts: usec(l.at), Pid: clusterPid, Args: counterArgs{float64(l.n)}})
		}
	}
	return evs
}

// levelChange moves a counted level by delta at an instant.
type levelChange struct {
	at    time.Duration
	delta int
}

// level is a counted level from an instant on.
type level struct {
	at time.Duration
	n  int
}

// stepLevels sums changes in time order into the level after each
// instant's changes: one step per instant that changes it.
func stepLevels(changes []levelChange) []level {
	slices.SortStableFunc(changes, func(a, b levelChange) int { return cmp.Compare(a.at, b.at) })
	var out []level
	n := 0
	for i, c := range changes {
		n += c.delta
		if i+1 < len(changes) && changes[i+1].at == c.at {
			continue // one step per instant, after all its changes
		}
		out = append(out, level{c.at, n})
	}
	return out
}

// flowSlices shows each kept flow (run --trace-flows) as an async slice
// in its destination's rack, from its start to its end, with what it
// carried.
func flowSlices(cfg cluster.Config, flows []actors.FlowRecord) []traceEvent {
	evs := make([]traceEvent, 0, 2*len(flows))
	for i, f := range flows {
		name := fmt.Sprintf("%v node %d → node %d", f.Transfer, f.Src, f.Dst)
		if f.Key.Owner == actors.OwnerAttempt {
			name = f.Key.Attempt.String() + " " + name
		}
		pid := rackOf(cfg, f.Dst) + 1
		args := flowArgs{Bytes: f.Bytes, Delivered: f.Delivered, Completed: f.Completed}
		evs = append(evs,
			traceEvent{Name: name, Cat: "flow", Ph: "b", Ts: usec(f.Start), Pid: pid, Tid: launchTid, ID: i + 1, Args: args},
			traceEvent{Name: name, Cat: "flow", Ph: "e", Ts: usec(f.End), Pid: pid, Tid: launchTid, ID: i + 1})
	}
	return evs
}
