// Package actors holds one file per actor role of the emulated cluster and
// the messages they exchange, in messages.go. The package imports netmodel,
// policies and workload; it must not import cluster, scenarios or cmd.
//
// The roles and what they say to each other ("via RackSwitch": inside a
// Relay, which the node's rack switch delivers after the hop's latency):
//
//	Client      --SubmitJob, WorkloadSubmitted-->                   Coordinator
//	Coordinator --JobEnded-->                                       Client (closed-loop)
//	Node        --RegisterNode, Heartbeat (via RackSwitch)-->       Coordinator
//	Coordinator --LaunchTask, KillTask, DropJobData (via RackSwitch)--> Node
//	Coordinator --TaskLaunched, NodeLost, FailJob, EvictOutputs-->  JobManager
//	JobManager  --RequeueTasks, MapsFinished, JobProgressed, JobEnded--> Coordinator
//	JobManager  --QueueCopy, WithdrawCopy, AttemptMeasured-->       Coordinator
//	Node        --TaskFinished (via RackSwitch)-->                  JobManager
//	JobManager  --MapOutputs, MapEvents, KillTask (via RackSwitch)--> Node
//	Coordinator --NodeLost-->                                       Fabric
//	Node        --StartFlow, CancelFlow-->                          Fabric
//	Fabric      --FlowDone, FlowFailed-->                           Node
//	QoSClient   --ForwardTask-->                                    Node
//	Node        --TaskServed (via RackSwitch)-->                    QoSClient
//	QoSClient   --WorkloadSubmitted (once its jobs are over)-->     Coordinator
//	any         --Relay-->                                          RackSwitch
//
// A job's life: the client submits it at its arrival time; the coordinator
// stores its input as blocks with rack-aware replicas and spawns its job
// manager, which asks for its maps (and its reduces once slow-start is
// met). Each heartbeat offers the node's free slots to the scheduling
// policy one at a time; the coordinator launches the best-placed pending
// task of the job the policy picks, or a copy of a running task, in the
// slot it offered. The node reads the map's block (locally or from the
// replica the coordinator chose), computes and spills; the job manager
// tells the running reduces where outputs are (as each map ends, or a node
// at a time every tasks.map_events_every); reduces fetch, compute and
// write through a replication pipeline. The first attempt of a task to
// succeed finishes it and the job manager kills the others. The job
// manager reports the job's end; the coordinator ends the run when every
// stream has submitted its last job and every job has ended.
//
// Actors only translate. The coordinator's decisions are a plain state
// machine, coordState: events in (a heartbeat, a job submitted, a tick),
// effects out as data (launch, kill, tell a job manager, end the run),
// tested without an actor system; a job manager's are jobState's. The
// handlers turn messages into calls on such state, the policy and the
// netmodel, and their results into messages. Emulated time comes from the
// Clock in Deps, never from the wall clock; randomness from the actor's
// seeded stream.
//
// A job manager may speculate (job_speculation.go): it feeds its job's
// attempts to a policy of policies/straggler and carries out what it
// decides, copies the coordinator launches ahead of the job's pending
// tasks (coordinator_speculation.go) and kills; nodes straggle as
// [stragglers] draws per attempt (stragglers.go).
//
// The scenario's [cluster], [hdfs], [heartbeat] and [tasks] tables decode
// straight into ClusterConfig, HDFSConfig, HeartbeatConfig and TasksConfig
// (config.go), [stragglers] and [blacklist] into StragglersConfig and
// BlacklistConfig, each with its checks; the coordinator and every node get
// them whole, so a new key is a field, its check and the code that reads
// it.
package actors
