// Package cluster is clusteremu's runtime and builder: the Runtime on
// protoactor (deterministic virtual time, or live on protoactor's own
// dispatchers under a virtual, scaled or wall clock), Build, which turns a
// Config into running actors, the run's Records and invariants, and its
// Summary.
//
// A deterministic run delivers every message on the goroutine that calls
// Run. Each actor's mailbox is the executor's: posting a message only
// queues it and marks the mailbox ready; each step delivers one message
// from a ready mailbox drawn with the schedule seed (or named by a replayed
// choice log). When no mailbox is ready the virtual clock jumps to the
// earliest timer and posts every timer due then, in the order they were
// set. A run is therefore a pure function of its configuration, its
// workload seed and its schedule seed:
//
//	cfg := cluster.DefaultConfig()
//	cfg.Workload = [][]workload.JobSpec{jobs}
//	c, err := cluster.Build(cfg)
//	rep, err := c.Run() // rep.Records: jobs and attempts; rep.Summary: headline metrics
//
// A long run need not hold what grows with its length: with a hook set
// (RunOptions.OnAttemptEnded, OnLinks, OnOffer, OnFlowEnded, OnProgress)
// each record goes to the hook as the run makes it, in the run's order,
// and the run keeps none of them; it keeps the running attempts, to check
// each ends once:
//
//	cfg.Run.OnAttemptEnded = func(a actors.AttemptRecord) { rows.Write(row(a)) }
//	rep, err := c.Run() // rep.Records.Attempts empty, rep.Records.Tally counts them
//
// It imports actors, netmodel, policies and workload; it must not import
// scenarios or cmd (scenarios decode into Config).
package cluster
