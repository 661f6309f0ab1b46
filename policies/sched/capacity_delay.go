package sched

import (
	"cmp"
	"slices"
)

// With node_locality_delay, Capacity places maps as YARN's Capacity
// Scheduler does (LeafQueue and its container allocator): the queues
// below their maximum are tried least used / capacity first, and in a
// queue its jobs in order; each job with a task for the node counts a
// scheduling opportunity at the task's kind, then takes the container
//
//   - node-local (or memory-local) at once;
//   - rack-local once it has passed up more opportunities than
//     node_locality_delay (at most the live nodes);
//   - anywhere once it has passed up more than its pending tasks × its
//     locality wait factor, min(locations / nodes, 1), the locations
//     being the nodes and racks its map requests name (sched.RequestView;
//     a reduce names none, and goes anywhere at once);
//
// or passes it up, for the next job. A node- or rack-local container
// sets its count back to 0; one taken anywhere does not, so the job's
// next off-rack container comes at once.

// missedKey is a job's tasks of a kind, whose scheduling opportunities
// are counted apart, as YARN counts them by request priority.
type missedKey struct {
	job  JobID
	kind TaskKind
}

// assignDelayed is assign with node_locality_delay; used is each queue's
// slots or containers held.
func (c *Capacity) assignDelayed(v View, s Slot, either bool, used []int) (Assignment, bool) {
	if c.missed == nil {
		c.missed = map[missedKey]int{}
	}
	slots := float64(v.Slots(s.Kind))
	var queues []int
	for q, queue := range c.queues {
		if float64(used[q]) < queue.max()/100*slots-1e-9 {
			queues = append(queues, q)
		}
	}
	slices.SortStableFunc(queues, func(a, b int) int {
		return cmp.Compare(ratio(float64(used[a]), c.queues[a].Capacity/100*slots), ratio(float64(used[b]), c.queues[b].Capacity/100*slots))
	})
	for _, q := range queues {
		for _, j := range c.order {
			if c.queueOf(j) != q {
				continue
			}
			kind, ok := s.Kind, false
			if either {
				kind, ok = containerKind(v, j.ID, s.Node)
			}
			var loc Locality
			if !either || ok {
				loc, ok = v.BestLocality(j.ID, kind, s.Node)
			}
			if !ok {
				continue
			}
			key := missedKey{j.ID, kind}
			c.missed[key]++
			bound, ok := c.allowed(v, j.ID, kind, loc, c.missed[key])
			if !ok {
				continue
			}
			if s.Why != nil {
				s.Why.Note(j.ID, "capacity: queue %q, its first job that may take a %v container here after %d scheduling opportunities (node_locality_delay %d)",
					c.queues[q].Name, bound, c.missed[key], c.delay)
			}
			if bound != OffRack {
				delete(c.missed, key)
			}
			return Assignment{Job: j.ID, Kind: kind, MaxLocality: bound}, true
		}
	}
	return Assignment{}, false
}

// allowed says at which locality a job whose best task for the node is at
// loc may take a container after missed scheduling opportunities, and
// whether it may at all.
func (c *Capacity) allowed(v View, id JobID, kind TaskKind, loc Locality, missed int) (Locality, bool) {
	nodes, locations := 0, 0
	if rv, ok := v.(RequestView); ok {
		nodes = rv.Nodes()
		if kind == Map {
			locations = rv.Locations(id)
		}
	}
	switch {
	case loc <= NodeLocal:
		return NodeLocal, true
	case loc == RackLocal && missed > min(c.delay, max(nodes, 1)):
		return RackLocal, true
	}
	st, _ := v.Job(id)
	factor := 1.0
	if nodes > 0 {
		factor = min(float64(locations)/float64(nodes), 1)
	}
	if float64(st.Pending(kind))*factor < float64(missed) {
		return OffRack, true
	}
	return 0, false
}
