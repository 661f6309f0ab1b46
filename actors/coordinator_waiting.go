package actors

import (
	"fmt"
	"strings"

	"clusteremu/policies/sched"
)

// Waiting says, for a run that stopped making progress, what each active
// job waits for: no live slot of the kind it needs, intermediate space, an
// eviction hold, attempts that never end, or a policy that launches none
// of its pending tasks. Jobs come in submission order; a workload with
// jobs still to come says so. Call it only once the run has stopped.
func (c *Coordinator) Waiting() []string { return c.core.waiting() }

// maxWaiting is the most jobs a stall report describes.
const maxWaiting = 10

func (s *coordState) waiting() []string {
	var out []string
	for i, j := range s.table.order {
		if i == maxWaiting {
			out = append(out, fmt.Sprintf("and %d more jobs", len(s.table.order)-i))
			break
		}
		st := j.status
		var why []string
		for _, kind := range []sched.TaskKind{sched.Map, sched.Reduce} {
			pending := st.Pending(kind)
			switch {
			case pending == 0:
			case s.liveSlots[kind] == 0:
				why = append(why, fmt.Sprintf("%s pending, but no live node has a %v slot", tasks(pending, kind), kind))
			case s.space != nil && s.space.held[st.ID]:
				why = append(why, fmt.Sprintf("%s pending, held since its map outputs were evicted, until another job ends", tasks(pending, kind)))
			case s.space != nil && kind == sched.Map && s.space.spill(st.ID) > s.space.mostFree():
				why = append(why, fmt.Sprintf("%s pending, each spilling %d bytes, but the most intermediate space free on a node is %d bytes",
					tasks(pending, kind), s.space.spill(st.ID), s.space.mostFree()))
			default:
				why = append(why, fmt.Sprintf("%s pending, which %s launches nowhere", tasks(pending, kind), s.policy.Name()))
			}
		}
		if n := st.MapAttempts + st.ReduceAttempts; n > 0 {
			why = append(why, fmt.Sprintf("%d running attempt(s) that did not end within the stall time", n))
		}
		if len(why) == 0 {
			why = append(why, "nothing pending or running: waiting for its job manager")
		}
		out = append(out, fmt.Sprintf("job %d (%s): %s", st.ID, st.Name, strings.Join(why, "; ")))
	}
	if s.streams > 0 {
		out = append(out, fmt.Sprintf("%d workload stream(s) still to submit jobs", s.streams))
	}
	return out
}

// tasks writes a count of tasks of a kind: "1 reduce", "3 maps".
func tasks(n int, kind sched.TaskKind) string {
	if n == 1 {
		return fmt.Sprintf("1 %v", kind)
	}
	return fmt.Sprintf("%d %vs", n, kind)
}
