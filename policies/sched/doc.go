// Package sched is the task-scheduling policy interface of clusteremu and
// its policies. It imports nothing from clusteremu but the leaf package
// units.
//
// A Policy is owned by the coordinator actor, which feeds it events and asks
// it for decisions; the policy never sees an actor, a clock or a goroutine.
// Every call carries the emulated time, so a policy that keeps state (delay
// scheduling's wait, attained service, time below share) advances it from
// those arguments alone and replays exactly.
//
// The interface was drawn from the five papers the emulator implements, not
// from FIFO alone:
//
//   - Slot offers on heartbeats, one free slot at a time (Assign): Hadoop's
//     FIFO and Fair schedulers, delay scheduling (Zaharia et al.) and FBQ,
//     TAGS, SITA and COMP (Ghit & Epema) all pick a job when a slot frees.
//     Asking per slot, with the view updated after each launch, lets the
//     coordinator fill one or all of a node's free slots per heartbeat
//     (Hadoop's assign-multiple) without the policy knowing which.
//   - Heartbeat: delay scheduling counts a skipped job's wait in the time
//     between heartbeats, so the policy must see each heartbeat begin.
//   - Job and task events: fair shares change with demand; FBQ, TAGS and
//     LAS_MQ (Hu et al.) demote jobs by attained service, which is summed
//     from launches and ends; COMP ranks a new job against the last
//     completed ones; Fair preemption kills the most recently launched
//     attempts, which it learns from Launched.
//   - Not every change to the jobs comes as an event: a task queued again
//     after a failure, reduces released at slow start. A policy that keeps
//     what it made of the jobs from offer to offer (FAIR's shares and slot
//     order) checks them against the view, which counts its changes
//     (Versioned), so it looks at the jobs again only when they changed.
//   - Tick: Fair preemption's T_min/T_fair timeouts and LAS_MQ's
//     re-ordering run on a timer, not on a slot offer.
//   - Assignment carries a maximum locality rather than a task, so the
//     coordinator keeps the per-job pending-task indices (pending maps by
//     node and by rack) and the policy only asks "is there a node-local
//     task for this node" through View. An Assignment may instead name a
//     running task to copy (Mantri's and LATE's speculative copies,
//     Dolly's clones); the first attempt to succeed ends the task.
//   - Slots are named: the attempt runs in the slot the policy was offered
//     (Slot.Index, Launch.Slot), so TAGS and SITA can partition a node's
//     slots between queues.
//   - Finished carries when the attempt really ended, not when the
//     heartbeat reporting it arrived, so attained service (FBQ, LAS_MQ)
//     summed from Launched and Finished counts no heartbeat wait.
//   - Preemption kills (the Fair scheduler). FBQ and TAGS pause a job
//     without losing work by not assigning it slots; its running tasks
//     finish, which needs nothing of the interface.
//
// The interface:
//
//	type Policy interface {
//		Name() string
//		Submitted(now time.Duration, job Job)
//		Ended(now time.Duration, job JobID)
//		Launched(now time.Duration, l Launch)
//		Finished(now time.Duration, f Finish)
//		Heartbeat(now time.Duration, node NodeID)
//		Assign(now time.Duration, v View, s Slot) (Assignment, bool)
//		Tick(now time.Duration, v View) []Preemption
//	}
//
// Calls arrive in emulated-time order. For one heartbeat the coordinator
// calls Heartbeat, then Assign for each free slot it offers, lowest index
// first (a slot left idle does not end the offers); after each assignment
// it launches the task, updates the view and calls Launched before the
// next Assign.
//
// # Parameters
//
// A policy's parameters are a struct of its own with toml tags and a
// Validate method (Params). Register names the policy with its defaults
// and its constructor; a scenario decodes [scheduler], less name and
// tick, over NewParams(name) with its strict decoder, so an unknown or
// mistyped key is reported at its line like any other, and New runs
// Validate, whose *ParamError values name the key and what is allowed:
//
//	type Params struct {
//		SlowStart float64 `toml:"slow_start"`
//	}
//
//	func (p *Params) Validate() error {
//		if !(p.SlowStart >= 0 && p.SlowStart <= 1) {
//			return &sched.ParamError{Key: "slow_start", Value: p.SlowStart, Msg: "must be a number in [0, 1]"}
//		}
//		return nil
//	}
//
//	func init() {
//		sched.Register("race-fifo", func() *Params { return &Params{SlowStart: 0.05} }, New)
//	}
//
// With slow_start = 2.0 in the file, the scenario reports
// "race.toml:30:1: scheduler.slow_start = 2: must be a number in [0, 1]".
//
// A policy that needs the cluster's shape when it is built registers
// with RegisterShaped: TAGS and SITA split every node's slots between
// their queues, so a 100-node cluster of 6 map and 2 reduce slots under
// partitions = [30, 70] gives queue 1 the 180 map slots ranked first
// index-major (slot 0 of every node, slot 1 of nodes 0–79) and 60 reduce
// slots, and such a policy says which partition a slot is in
// (Partitioned), so a run can report each partition's utilisation.
package sched
