package cluster

import (
	"cmp"
	"slices"
	"time"

	"clusteremu/policies/sched"
)

// LiveStatus is a running cluster's state as a live view shows it: what
// the records hold so far, read under their lock, so reading it changes
// nothing the run does.
type LiveStatus struct {
	Now                  time.Duration
	Submitted, Ended     int
	Succeeded, Failed    int
	Running              [2]int         // attempts running, by sched.TaskKind
	Slots                [2]int         // the cluster's slots, by kind
	Attempts             map[string]int // attempts ended, by outcome
	Links                []LinkUse      // the last sampled window's busiest links
	LinksFrom, LinksTo   time.Duration  // that window
	FlowBytes, Completed int64          // bytes carried by completed flows, and their count
}

// LinkUse is a link's utilisation over a window.
type LinkUse struct {
	Name        string
	Utilisation float64
}

// liveLinks is how many of the busiest links LiveStatus lists.
const liveLinks = 10

// Live returns the running cluster's state. It may be called from any
// goroutine, during or after the run.
func (c *Cluster) Live() LiveStatus {
	s := c.rec.live()
	s.Now = c.rt.Now()
	s.Slots = c.cfg.Slots()
	return s
}

func (r *recorder) live() LiveStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := LiveStatus{Submitted: len(r.submitted), Ended: len(r.jobs), Attempts: map[string]int{},
		FlowBytes: r.flows.Bytes, Completed: int64(r.flows.Completed)}
	for _, j := range r.jobs {
		if j.Succeeded {
			s.Succeeded++
		} else {
			s.Failed++
		}
	}
	for a := range r.running {
		s.Running[a.Kind]++
	}
	for o, n := range r.tally.Outcomes {
		if n > 0 {
			s.Attempts[sched.Outcome(o).String()] = n
		}
	}
	if w := r.lastSample; w.To > 0 {
		s.LinksFrom, s.LinksTo = w.From, w.To
		for l := range w.Carried {
			if u := r.links.Use(w, l); u > 0 {
				s.Links = append(s.Links, LinkUse{r.links.Names[l], u})
			}
		}
		slices.SortStableFunc(s.Links, func(a, b LinkUse) int { return cmp.Compare(b.Utilisation, a.Utilisation) })
		s.Links = s.Links[:min(len(s.Links), liveLinks)]
	}
	return s
}

// busy is the running attempts of a kind over its slots.
func (s *LiveStatus) busy(kind sched.TaskKind) float64 {
	if s.Slots[kind] == 0 {
		return 0
	}
	return float64(s.Running[kind]) / float64(s.Slots[kind])
}

// Busy returns the share of map and reduce slots running attempts.
func (s *LiveStatus) Busy() (maps, reduces float64) { return s.busy(sched.Map), s.busy(sched.Reduce) }
