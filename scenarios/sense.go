package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"clusteremu/cluster"
	"clusteremu/policies/sched"
)

// senseChecks refuses what the decoder accepts but cannot mean what the
// writer meant: the two keys of one setting written together. doc is the
// file as written.
func (f *File) senseChecks(doc *Document, name string) ErrorList {
	var errs ErrorList
	_, _, uplink := doc.Position("cluster.rack_uplink")
	line, col, over := doc.Position("cluster.oversubscription")
	if uplink && over && f.Cluster.RackUplink > 0 && f.Cluster.Oversubscription > 0 {
		errs = append(errs, &Error{File: name, Line: line, Col: col, Key: "cluster.oversubscription",
			Value: fmt.Sprint(f.Cluster.Oversubscription),
			Msg:   fmt.Sprintf("sets the rack uplink, which cluster.rack_uplink = %q sets too: give one of them", f.Cluster.RackUplink)})
	}
	for i, e := range f.Fault {
		if e.Rate != 0 || len(e.Window) > 0 || e.Kind == KindMessage {
			continue // a random stream draws its targets; a rule has a window
		}
		key := fmt.Sprintf("fault[%d]", i)
		need := map[string]string{"crash": "node", "slowdown": "node", "partition": "rack", "link": "link"}[e.Kind]
		line, col, _ := doc.Position(key + ".kind")
		if _, _, ok := doc.Position(key + "." + need); need != "" && !ok {
			errs = append(errs, &Error{File: name, Line: line, Col: col, Key: key + "." + need,
				Msg: fmt.Sprintf("missing: a %s fault names its %s (or draws one: rate and window)", e.Kind, need)})
		}
		if _, _, ok := doc.Position(key + ".at"); !ok {
			errs = append(errs, &Error{File: name, Line: line, Col: col, Key: key + ".at",
				Msg: "missing: when the fault happens (at), or a random stream's rate and window"})
		}
	}
	return errs
}

// endCheck refuses a run nothing would end if it stopped making progress.
func (f *File) endCheck() error {
	if f.Run.Until == 0 && f.Run.StallAfter == 0 {
		return Invalid("run.stall_after", f.Run.StallAfter,
			"with no run.until, nothing would end a run that stops making progress: keep the watchdog (default %v) or set run.until", DefaultStallAfter)
	}
	return nil
}

// workloadCheck refuses a scenario with nothing to do, checked like the
// jobs against the cluster once nothing else is wrong: it runs no job and
// ends at once. An idle cluster runs for run.until.
func (f *File) workloadCheck(name string) ErrorList {
	w := f.Workload
	if len(w.Synthetic)+len(w.SWIM)+len(w.Jobs)+len(w.Closed)+len(w.Recurring)+len(w.QoS) > 0 || f.Run.Until > 0 {
		return nil
	}
	return ErrorList{{File: name, Line: 1, Col: 1, Key: "workload",
		Msg: "no workload: add a [[workload.synthetic]], [[workload.swim]], [[workload.jobs]], [[workload.recurring]] or [[workload.closed]] stream (clusteremu config prints the default scenario's), or set run.until to run an idle cluster that long"}}
}

// poolChecks refuses expectations of the scenario's own run on pools no
// job of the workload is in: they could only fail after the run.
func poolChecks(expect []Expectation, cfg cluster.Config) []error {
	pools := map[string]bool{}
	for _, stream := range append(slices.Clone(cfg.Workload), cfg.Closed...) {
		for _, j := range stream {
			if j.Pool != "" {
				pools[j.Pool] = true
			}
		}
	}
	var errs []error
	for i, e := range expect {
		rest, ok := strings.CutPrefix(e.Metric, cluster.PoolMetrics)
		if !ok || !cluster.ValidMetric(e.Metric) || !e.Plain() {
			continue // a run with other settings may have other pools
		}
		if pool := rest[:strings.LastIndex(rest, ".jobs.")]; !pools[pool] {
			errs = append(errs, Invalid(fmt.Sprintf("expect[%d].metric", i), e.Metric,
				"no job of the workload is in pool %q (pools: %s)", pool, orNone(slices.Sorted(maps.Keys(pools)))))
		}
	}
	return errs
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// queueChecks refuses, under a policy whose jobs join queues by their pool
// (sched.Queued), a pool that names no queue, at its key; jobs that name
// no pool join the default queue, and when there is none the error is at
// the scheduler's queues, naming the first stream of such jobs.
func (f *File) queueChecks(c cluster.Config) []error {
	q, ok := c.Scheduler.Params.(sched.Queued)
	if !ok {
		return nil
	}
	var errs []error
	unpooled := ""
	pool := func(key, name string) {
		switch {
		case name == "" && !q.HasQueue("") && unpooled == "":
			unpooled = key
		case name != "" && !q.HasQueue(name):
			errs = append(errs, Invalid(key+".pool", name, "names no queue of scheduler.queues"))
		}
	}
	w := f.Workload
	for i := range w.Synthetic {
		pool(fmt.Sprintf("workload.synthetic[%d]", i), w.Synthetic[i].Pool)
	}
	for i := range w.SWIM {
		pool(fmt.Sprintf("workload.swim[%d]", i), w.SWIM[i].Pool)
	}
	for i := range w.Jobs {
		for k := range w.Jobs[i].Jobs {
			pool(fmt.Sprintf("workload.jobs[%d].job[%d]", i, k), w.Jobs[i].Jobs[k].Pool)
		}
	}
	for i := range w.Closed {
		pool(fmt.Sprintf("workload.closed[%d].job", i), w.Closed[i].Job.Pool)
	}
	for i := range w.Recurring {
		pool(fmt.Sprintf("workload.recurring[%d]", i), "")
	}
	if unpooled != "" {
		errs = append(errs, Invalid("scheduler.queues", nil,
			"no queue is named %q, which the jobs of %s join: they name no pool", sched.DefaultQueue, unpooled))
	}
	return errs
}
