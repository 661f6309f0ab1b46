// Package actors holds one file per actor role of the emulated cluster and
// the messages they exchange, in messages.go. The package imports netmodel,
// policies and workload; it must not import cluster, scenarios or cmd.
//
// The roles and what they say to each other:
//
//	Client      --SubmitJob, WorkloadSubmitted-->                 Coordinator
//	Node        --RegisterNode, Heartbeat (via RackSwitch)-->     Coordinator
//	Coordinator --LaunchTask, KillTask (via RackSwitch)-->        Node
//	Coordinator --TaskLaunched, NodeLost, FailJob-->              JobManager
//	JobManager  --RequeueTasks, JobEnded-->                       Coordinator
//	Node        --TaskFinished (via RackSwitch)-->                JobManager
//	JobManager  --MapOutputs (via RackSwitch)-->                  Node (a reduce)
//	Node        --StartFlow, CancelFlow-->                        Fabric
//	Fabric      --FlowDone, FlowFailed-->                         Node
//
// A job's life: the client submits it at its arrival time; the coordinator
// stores its input as blocks with rack-aware replicas, spawns its job
// manager, which asks for its maps (and its reduces once slow-start is
// met). Each heartbeat offers the node's free slots to the scheduling
// policy one at a time; the coordinator launches the best-placed pending
// task of the job the policy picks. The node reads the map's block
// (locally or from the closest replica), computes and spills; the job
// manager tells the running reduces where outputs are; reduces fetch,
// compute and write through a replication pipeline. The job manager
// reports the job's end; the coordinator ends the run when every stream
// has submitted its last job and every job has ended.
//
// Actors only translate: handlers turn messages into calls on plain state
// (jobTable, blockMap, jobState, run), the policy and the netmodel, and
// their results into messages. Emulated time comes from the Clock in Deps,
// never from the wall clock; randomness from the actor's seeded stream.
package actors
