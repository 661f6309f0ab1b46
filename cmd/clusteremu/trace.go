package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
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

// traceLog gathers trace.json while the run goes. The attempts' slices
// are written to a part file as attempts end, and the flows' (run
// --trace-flows) to another; of the rest it keeps what is ordered or
// counted over the whole run, compactly: the tracks attempts used, each
// attempt's launch (40 bytes) and each task's first start. write
// assembles the file at the end: track names, the attempts' slices (in
// the order they ended, then those cut off by start), launches, node
// events, counters, flows, link counters.
type traceLog struct {
	cfg        cluster.Config
	slices     *jsonlFile
	flows      *jsonlFile // nil without --trace-flows
	nflows     int
	tracks     map[track]bool
	launches   []launch
	firstStart map[taskKey]time.Duration
}

// track is a node slot's track.
type track struct {
	node sched.NodeID
	kind sched.TaskKind
	slot int
}

// launch is an attempt's start on its node.
type launch struct {
	at      time.Duration
	node    sched.NodeID
	attempt sched.Attempt
}

// taskKey names a task.
type taskKey struct {
	job  sched.JobID
	kind sched.TaskKind
	task int32
}

// createTraceLog starts the parts of the trace to be written at path.
func createTraceLog(path string, cfg cluster.Config, flows bool) (*traceLog, error) {
	t := &traceLog{cfg: cfg, tracks: map[track]bool{}, firstStart: map[taskKey]time.Duration{}}
	var err error
	if t.slices, err = createJSONL(path); err != nil {
		return nil, err
	}
	if flows {
		if t.flows, err = createJSONL(path); err != nil {
			t.slices.abandon()
			return nil, err
		}
	}
	return t, nil
}

// abandon removes the parts.
func (t *traceLog) abandon() {
	t.slices.abandon()
	if t.flows != nil {
		t.flows.abandon()
	}
}

// putAfter writes an event that follows another in the trace.
func putAfter(j *jsonlFile, e *traceEvent) {
	j.write([]byte{','})
	j.put(e)
}

// attemptEnded traces an attempt that ran on a node.
func (t *traceLog) attemptEnded(a actors.AttemptRecord) {
	if a.Start < 0 {
		return // recorded by its job manager for a lost node: no slot to show
	}
	o := a.Outcome.String()
	if a.Reason == actors.ReasonNodeLost {
		o = "lost"
	}
	t.traced(tracedAttempt{a, o})
}

// cutOff traces the attempts the run cut off, by start.
func (t *traceLog) cutOff(cut []actors.AttemptRecord) {
	cut = slices.Clone(cut)
	slices.SortStableFunc(cut, func(a, b actors.AttemptRecord) int { return cmp.Compare(a.Start, b.Start) })
	for _, a := range cut {
		t.traced(tracedAttempt{a, string(cluster.JobCutOff)})
	}
}

func (t *traceLog) traced(a tracedAttempt) {
	t.tracks[track{a.Node, a.Attempt.Kind, a.Slot}] = true
	t.launches = append(t.launches, launch{a.Start, a.Node, a.Attempt})
	k := taskKey{a.Attempt.Job, a.Attempt.Kind, a.Attempt.Task}
	if s, ok := t.firstStart[k]; !ok || a.Start < s {
		t.firstStart[k] = a.Start
	}
	for _, e := range attemptSlices(t.cfg, a) {
		putAfter(t.slices, &e)
	}
}

// flowEnded traces a flow as an async slice in its destination's rack,
// from its start to its end, with what it carried.
func (t *traceLog) flowEnded(f actors.FlowRecord) {
	t.nflows++
	name := fmt.Sprintf("%v node %d → node %d", f.Transfer, f.Src, f.Dst)
	if f.Key.Owner == actors.OwnerAttempt {
		name = f.Key.Attempt.String() + " " + name
	}
	pid := rackOf(t.cfg, f.Dst) + 1
	args := flowArgs{Bytes: f.Bytes, Delivered: f.Delivered, Completed: f.Completed}
	putAfter(t.flows, &traceEvent{Name: name, Cat: "flow", Ph: "b", Ts: usec(f.Start), Pid: pid, Tid: launchTid, ID: t.nflows, Args: args})
	putAfter(t.flows, &traceEvent{Name: name, Cat: "flow", Ph: "e", Ts: usec(f.End), Pid: pid, Tid: launchTid, ID: t.nflows})
}

// write writes the trace: what the parts hold and what the run's records,
// its busy slots and its links give at the end. links.csv is read back
// from linksPath for the busiest links.
func (t *traceLog) write(w io.Writer, res *cluster.Records, slots *slotLog, links *linkLog, linksPath string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	put := func(e *traceEvent) error {
		if err := bw.WriteByte(','); err != nil {
			return err
		}
		return enc.Encode(e)
	}
	if _, err := bw.WriteString(`{"displayTimeUnit":"ms","traceEvents":[` + "\n"); err != nil {
		return err
	}
	if err := enc.Encode(meta("process_name", clusterPid, 0, map[string]any{"name": "cluster"})); err != nil {
		return err // the first event, which the others follow after a comma
	}
	for _, step := range []func() error{
		func() error { return t.trackNames(put) },
		func() error { return t.slices.copyTo(bw) },
		func() error { return t.launchInstants(put) },
		func() error { return t.nodeEvents(res.Notes, put) },
		func() error { return t.faultEvents(res.Faults, put) },
		func() error { return t.counters(res, slots, put) },
		func() error { return t.flowsTo(bw) },
		func() error { return linkCounters(links, linksPath, put) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// nodeEvents marks what happened to nodes on their racks' tracks.
func (t *traceLog) nodeEvents(notes []actors.Note, put func(*traceEvent) error) error {
	for _, n := range notes {
		err := put(&traceEvent{Name: fmt.Sprintf("node %d %s", n.Node, n.What), Cat: "node", Ph: "i", Ts: usec(n.At),
			Pid: rackOf(t.cfg, n.Node) + 1, Tid: launchTid, Scope: "p", CName: "terrible"})
		if err != nil {
			return err
		}
	}
	return nil
}

// faultEvents marks the scenario's faults as they took effect and ended:
// on the rack of the node or rack they hit, for the whole rack, and on the
// cluster's process for a link or the coordinator.
func (t *traceLog) faultEvents(faults []actors.FaultEvent, put func(*traceEvent) error) error {
	for _, f := range faults {
		e := &traceEvent{Name: fmt.Sprintf("%s %s: %s", f.Kind, f.Target, f.What), Cat: "fault", Ph: "i", Ts: usec(f.At),
			Pid: clusterPid, Scope: "g", CName: "terrible"}
		if f.End {
			e.CName = "good"
		}
		if f.Node >= 0 {
			e.Pid, e.Tid, e.Scope = rackOf(t.cfg, f.Node)+1, launchTid, "p"
		}
		if err := put(e); err != nil {
			return err
		}
	}
	return nil
}

// flowsTo copies the flows' slices, if the run traced flows.
func (t *traceLog) flowsTo(w io.Writer) error {
	if t.flows == nil {
		return nil
	}
	return t.flows.copyTo(w)
}

// busiestLinks is how many links besides the racks' own get a counter
// track of their utilisation.
const busiestLinks = 8

// linkCounters are counter tracks of link utilisation, window by window
// (RunOptions.LinkSamples): every rack uplink and downlink and the core,
// then the busiest other links by their utilisation over the run.
func linkCounters(links *linkLog, linksPath string, put func(*traceEvent) error) error {
	if len(links.windows) == 0 {
		return nil
	}
	others := links.busiest(busiestLinks)
	series, err := links.series(linksPath, others)
	if err != nil {
		return err
	}
	end := links.windows[len(links.windows)-1].to
	track := func(l int, use func(w int) float64) error {
		name := links.names[l] + " utilisation"
		last := -1.0
		for w, win := range links.windows {
			if u := use(w); u != last { // a counter holds its value until the next
				if err := put(&traceEvent{Name: name, Ph: "C", Ts: usec(win.from), Pid: clusterPid, Args: counterArgs{u}}); err != nil {
					return err
				}
				last = u
			}
		}
		return put(&traceEvent{Name: name, Ph: "C", Ts: usec(end), Pid: clusterPid, Args: counterArgs{0}})
	}
	for k, l := range links.racks {
		if err := track(l, func(w int) float64 { return links.rackUse(k, w) }); err != nil {
			return err
		}
	}
	for k, l := range others {
		if err := track(l, func(w int) float64 { return links.use(series[k][w], l, links.windows[w]) }); err != nil {
			return err
		}
	}
	return nil
}

// tracedAttempt is an attempt with the outcome the trace shows.
type tracedAttempt struct {
	actors.AttemptRecord
	outcome string
}

func rackOf(cfg cluster.Config, n sched.NodeID) int { return int(n) / cfg.Cluster.NodesPerRack }

// meta is a metadata event.
func meta(name string, pid, tid int, args map[string]any) *traceEvent {
	return &traceEvent{Name: name, Ph: "M", Pid: pid, Tid: tid, Args: args}
}

// trackNames names the racks' processes and the tracks attempts used, by
// node, kind and slot.
func (t *traceLog) trackNames(put func(*traceEvent) error) error {
	for r := range t.cfg.Cluster.Racks {
		for _, e := range []*traceEvent{
			meta("process_name", r+1, 0, map[string]any{"name": fmt.Sprintf("rack %d", r)}),
			meta("process_sort_index", r+1, 0, map[string]any{"sort_index": r + 1}),
			meta("thread_name", r+1, launchTid, map[string]any{"name": "launches and node events"}),
		} {
			if err := put(e); err != nil {
				return err
			}
		}
	}
	tracks := slices.SortedFunc(maps.Keys(t.tracks), func(a, b track) int {
		return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.kind, b.kind), cmp.Compare(a.slot, b.slot))
	})
	for _, k := range tracks {
		pid, tid := rackOf(t.cfg, k.node)+1, slotTid(k.node, k.kind, k.slot)
		err := errors.Join(
			put(meta("thread_name", pid, tid, map[string]any{"name": fmt.Sprintf("node %d %v slot %d", k.node, k.kind, k.slot)})),
			put(meta("thread_sort_index", pid, tid, map[string]any{"sort_index": tid})))
		if err != nil {
			return err
		}
	}
	return nil
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
// They come by instant, then by their first attempt.
func (t *traceLog) launchInstants(put func(*traceEvent) error) error {
	slices.SortFunc(t.launches, func(a, b launch) int {
		return cmp.Or(cmp.Compare(a.at, b.at), sched.CompareAttempts(a.attempt, b.attempt))
	})
	for i := 0; i < len(t.launches); {
		// The instant's launches, grouped by node in order of their
		// first attempt.
		at := t.launches[i].at
		var nodes []sched.NodeID
		names := map[sched.NodeID][]string{}
		for ; i < len(t.launches) && t.launches[i].at == at; i++ {
			l := t.launches[i]
			if _, ok := names[l.node]; !ok {
				nodes = append(nodes, l.node)
			}
			names[l.node] = append(names[l.node], l.attempt.String())
		}
		for _, n := range nodes {
			err := put(&traceEvent{Name: fmt.Sprintf("node %d: %d launched", n, len(names[n])), Cat: "heartbeat",
				Ph: "i", Ts: usec(at), Pid: rackOf(t.cfg, n) + 1, Tid: launchTid, Scope: "t",
				Args: map[string]any{"attempts": names[n]}})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// counters are the cluster's counter tracks: busy map and reduce slots,
// from the attempts' starts and ends; tasks not yet started, which count
// every task of a job from its submission until its first attempt begins
// (reduces waiting for slow-start included); and with [replication] the
// replicas Scarlett added and has not removed.
func (t *traceLog) counters(res *cluster.Records, slots *slotLog, put func(*traceEvent) error) error {
	const pending = "tasks not yet started"
	var waiting []levelChange
	for _, j := range res.Jobs {
		waiting = append(waiting, levelChange{j.Submit, j.Maps + j.Reduces})
	}
	for _, s := range t.firstStart {
		waiting = append(waiting, levelChange{s, -1})
	}
	type track struct {
		name    string
		changes []levelChange
	}
	tracks := []track{
		{"busy " + sched.Map.String() + " slots", slots.busy[sched.Map]},
		{"busy " + sched.Reduce.String() + " slots", slots.busy[sched.Reduce]},
		{pending, waiting},
	}
	if res.Replication != nil {
		tracks = append(tracks, track{"replicas added by Scarlett", replicaSteps(res.Replication.Changes)})
	}
	for _, c := range tracks {
		for _, l := range stepLevels(c.changes) {
			if err := put(&traceEvent{Name: c.name, Ph: "C", Ts: usec(l.at), Pid: clusterPid, Args: counterArgs{float64(l.n)}}); err != nil {
				return err
			}
		}
	}
	for _, q := range res.CoordinatorQueue {
		if err := put(&traceEvent{Name: coordinatorQueueTrack, Ph: "C", Ts: usec(q.From), Pid: clusterPid, Args: counterArgs{float64(q.Most)}}); err != nil {
			return err
		}
	}
	return nil
}

// coordinatorQueueTrack is the counter track of a coordinator with a
// service time: the most messages waiting for or in its service in each
// second (cluster.QueueWindow) in which it changed.
const coordinatorQueueTrack = "coordinator queue (most in a second)"

// slotLog is the busy slots over a run, gathered as attempts end: +1 at
// each attempt's start and −1 at its end, by kind, 16 bytes a change. An
// attempt lost before it launched held no slot.
type slotLog struct {
	busy [2][]levelChange
	maps []mapLaunch // in the order the attempts ended
}

// mapLaunch is when a map attempt launched, and whether it read its
// input on its own node.
type mapLaunch struct {
	at    time.Duration
	local bool
}

func (s *slotLog) add(a actors.AttemptRecord) {
	if a.Start >= 0 {
		k := a.Attempt.Kind
		s.busy[k] = append(s.busy[k], levelChange{a.Start, 1}, levelChange{a.End, -1})
		if k == sched.Map {
			s.maps = append(s.maps, mapLaunch{a.Start, a.Locality == sched.NodeLocal})
		}
	}
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
