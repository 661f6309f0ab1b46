package actors

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"clusteremu/policies/sched"
	"clusteremu/units"
)

// Describer is an actor that gives an account of its state in a few
// lines, for a run stopped at a step (cluster.StepState, clusteremu run
// --stop-at-step): what a person debugging the run would look at first.
// Describe is called between two deliveries and must not change the
// actor.
type Describer interface {
	Describe() []string
}

// shownAtMost is how many items of a kind a description lists before
// saying how many more there are.
const shownAtMost = 8

// listed joins the first shownAtMost items, saying how many more there
// are.
func listed(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	out := strings.Join(items[:min(len(items), shownAtMost)], ", ")
	if more := len(items) - shownAtMost; more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// Describe implements Describer: the node's slots and what runs in them;
// nothing for an idle node (no attempt, nothing to report), of which a
// large cluster has many.
func (n *Node) Describe() []string {
	if n.down {
		return []string{"crashed"}
	}
	if len(n.runs) == 0 && len(n.ended) == 0 && n.qos == nil && len(n.replicas) == 0 {
		return nil
	}
	busy := func(kind sched.TaskKind) int { return countTrue(n.slots[kind]) }
	lines := []string{fmt.Sprintf("rack %d; map slots %d of %d busy, reduce slots %d of %d busy; heartbeat #%d sent",
		n.cfg.Rack, busy(sched.Map), len(n.slots[sched.Map]), busy(sched.Reduce), len(n.slots[sched.Reduce]), n.seq)}
	attempts := slices.SortedFunc(maps.Keys(n.runs), sched.CompareAttempts)
	for _, a := range attempts[:min(len(attempts), shownAtMost)] {
		r := n.runs[a]
		line := fmt.Sprintf("%v in slot %d: %s since %v, %d flows", a, r.launch.Slot, r.recordPhase(), r.phaseStart, len(r.flows))
		if a.Kind == sched.Reduce {
			line += fmt.Sprintf(", map outputs %d of %d fetched, %d queued, %d fetching", r.done, r.state.len(), r.queue.len(), r.fetching)
		}
		lines = append(lines, line)
	}
	if more := len(attempts) - shownAtMost; more > 0 {
		lines = append(lines, fmt.Sprintf("and %d more attempts", more))
	}
	if len(n.ended) > 0 {
		lines = append(lines, fmt.Sprintf("%d attempt ends to report at the next heartbeat", len(n.ended)))
	}
	return lines
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Describe implements Describer: the jobs the coordinator knows, its
// live nodes and free slots.
func (c *Coordinator) Describe() []string {
	if c.down {
		return []string{fmt.Sprintf("crashed; %d messages held for its restart", len(c.stash))}
	}
	s := c.core
	live, dead := 0, 0
	var free [2]int
	for i := range s.nodes {
		e := &s.nodes[i]
		switch {
		case e.dead:
			dead++
		case e.registered:
			live++
			for k := range e.busy {
				free[k] += len(e.busy[k]) - countTrue(e.busy[k])
			}
		}
	}
	lines := []string{fmt.Sprintf("%s; nodes %d live, %d dead; free slots %d map, %d reduce; %d attempts running; %d jobs waiting for admission",
		s.policy.Name(), live, dead, free[sched.Map], free[sched.Reduce], len(s.running), len(s.held))}
	var jobs []string
	for st := range s.table.statuses() {
		jobs = append(jobs, fmt.Sprintf("job %d maps %d/%d/%d reduces %d/%d/%d", st.ID,
			st.PendingMaps, st.RunningMaps, st.FinishedMaps, st.PendingReduces, st.RunningReduces, st.FinishedReduces))
	}
	slices.Sort(jobs)
	return append(lines, fmt.Sprintf("%d active jobs (tasks pending/running/finished): %s", len(jobs), listed(jobs)))
}

// Describe implements Describer: the job's tasks by state.
func (m *JobManager) Describe() []string {
	count := func(ts []task) (pending, running, done int) {
		for i := range ts {
			switch ts[i].state {
			case taskPending:
				pending++
			case taskRunning:
				running++
			case taskDone:
				done++
			}
		}
		return
	}
	st := m.state
	mp, mr, md := count(st.maps)
	rp, rr, rd := count(st.reduces)
	line := fmt.Sprintf("job %d (%s): maps %d pending, %d running, %d done of %d; reduces %d pending, %d running, %d done of %d",
		m.id, m.spec.Name, mp, mr, md, len(st.maps), rp, rr, rd, len(st.reduces))
	if !st.released && len(st.reduces) > 0 {
		line += fmt.Sprintf("; reduces released after %d maps", st.slowStart)
	}
	if st.outcome != nil {
		line += fmt.Sprintf("; ended (succeeded %v %s)", st.outcome.Succeeded, st.outcome.Reason)
	}
	return []string{line}
}

// Describe implements Describer: the flows under way, the fastest first.
func (f *Fabric) Describe() []string {
	type flowRate struct {
		key  FlowKey
		rate float64
		line string
	}
	var flows []flowRate
	for key, ff := range f.flows {
		rate, err := f.net.Rate(ff.id)
		if err != nil {
			continue
		}
		delivered, _ := f.net.Delivered(ff.id)
		flows = append(flows, flowRate{key, rate, fmt.Sprintf("%s %d→%d at %s, %d of %d B since %v",
			ff.start.Transfer, ff.start.Src, ff.start.Dst, units.Rate(rate), delivered, ff.start.Bytes, ff.at)})
	}
	slices.SortFunc(flows, func(a, b flowRate) int {
		return cmp.Or(cmp.Compare(b.rate, a.rate), compareFlowKeys(a.key, b.key))
	})
	lines := []string{fmt.Sprintf("%d flows under way, %d links down", len(flows), len(f.linksDown))}
	for _, fr := range flows[:min(len(flows), shownAtMost)] {
		lines = append(lines, fr.line)
	}
	return lines
}

// Describe implements Describer: whether the switch is up and what it
// holds.
func (s *RackSwitch) Describe() []string {
	if s.down {
		return []string{fmt.Sprintf("rack %d: down, %d control messages held", s.rack, len(s.held))}
	}
	return []string{fmt.Sprintf("rack %d: up, latency %v", s.rack, s.latency)}
}

// Describe implements Describer: the jobs submitted and still to come.
func (c *Client) Describe() []string {
	if c.next >= len(c.jobs) {
		return []string{fmt.Sprintf("all %d jobs submitted", len(c.jobs))}
	}
	return []string{fmt.Sprintf("%d of %d jobs submitted; next %q at %v", c.next, len(c.jobs), c.jobs[c.next].Name, c.jobs[c.next].Submit)}
}
