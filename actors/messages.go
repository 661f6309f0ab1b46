package actors

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/netmodel"
	"clusteremu/policies/sched"
	"clusteremu/units"
	"clusteremu/workload"
)

// Messages are plain data, sent as pointers and never changed after
// sending. Commands are VerbNoun, facts are past tense. Control messages
// between a node and the master (coordinator or job manager) travel through
// the node's rack switch inside a Relay, which adds the hop's latency.

// ---- Workload: client → coordinator.

// SubmitJob submits a job; IDs are assigned by the run in workload order.
type SubmitJob struct {
	ID   sched.JobID
	Spec workload.JobSpec
	// Client, when set, is told the job's JobEnded: a closed-loop stream
	// submits its next job only after the last one ended.
	Client *actor.PID
	// At is when the client submitted it: the job's submission time, also
	// when the coordinator, crashed, takes it later.
	At time.Duration
}

// WorkloadSubmitted says the client has submitted its last job.
type WorkloadSubmitted struct {
	Jobs int
}

// ---- Membership and heartbeats: node ⇄ coordinator.

// RegisterNode announces a node and its slots when it starts: its map
// slots and the reducers it runs at once (TasksConfig.Reducers), the
// slots the coordinator offers for each kind.
type RegisterNode struct {
	Node     sched.NodeID
	Rack     sched.RackID
	MapSlots int
	Reducers int
	// Containers, when > 0, is how many attempts of both kinds together
	// the node runs (ClusterConfig.Containers): its map slots and
	// reducers are each that many.
	Containers int
	PID        *actor.PID
	// Launches counts the LaunchTask messages the node has received, by
	// kind (see Heartbeat), so a node that registers again after a restart
	// or a reinit starts its count where it left it.
	Launches [2]int64
	// Restarted: the node's process started again (after a crash or a
	// reinit), with nothing running; DiskLost: without the HDFS blocks it
	// held.
	Restarted, DiskLost bool
	// Running are the attempts the node runs, when it registers again
	// because the coordinator restarted (ResyncNode).
	Running []RunningAttempt
}

// Heartbeat is a node's periodic status: the attempts that left their
// slots since the previous heartbeat, and what the coordinator's admission
// rules need. The coordinator knows which of the node's slots are busy
// (it names the slot of every launch and hears of every end here), so the
// heartbeat lists no free slots. Launches counts the LaunchTask messages
// the node has received, by kind, so the coordinator knows which of its
// launches are still on the way.
type Heartbeat struct {
	Node     sched.NodeID
	Seq      int64
	Launches [2]int64 // by sched.TaskKind
	Ended    []AttemptEnded
	// Copying counts each job's reducers on the node that have not begun
	// computing, under copy-compute splitting; nil otherwise.
	Copying map[sched.JobID]int
	// FreeCompute is the computing limit less the reducers computing or
	// waiting to compute, under copy-compute splitting (≤ 0 when a
	// reducer that finished copying now would wait).
	FreeCompute int
	// FreeSpace is the intermediate space neither stored nor reserved by
	// running maps, when the node accounts for it.
	FreeSpace int64
	// QoSHeld lists the map slots QoS tasks hold (qos_client.go), which
	// the coordinator counts busy; nil when none does.
	QoSHeld []int
	// GivesUp is when the node gives the call up
	// (heartbeat.call_timeout): the coordinator skips it if its turn comes
	// then or later. 0: the node waits.
	GivesUp time.Duration
}

// AttemptEnded reports an attempt that left its slot since the previous
// heartbeat, and when.
type AttemptEnded struct {
	Attempt sched.Attempt
	Outcome sched.Outcome
	At      time.Duration
	// What the job manager's TaskFinished says besides, which the
	// coordinator forwards when control messages may be lost
	// (HeartbeatConfig.Reliable).
	Reason      string
	OutputBytes int64
}

// HeartbeatAck answers a heartbeat when control messages may be lost
// (HeartbeatConfig.Reliable): the node may forget the attempt ends it
// reported up to Seq.
type HeartbeatAck struct {
	Seq int64
}

// HeartbeatAnswered returns a node's heartbeat call when the coordinator
// has a service time (HeartbeatConfig.ServiceTime): sent as its service
// ends, it lets the node send its next (coordinator_service.go), and the
// node may forget the attempt ends the calls up to Seq carried, unless
// control messages may be lost, when HeartbeatAck says so. Refused: the
// coordinator's host was down and served nothing, so the node keeps them
// for its next call.
type HeartbeatAnswered struct {
	Seq     int64
	Refused bool
}

// CallBroken tells a node that its heartbeat call Seq, or the call's
// answer, was lost to a message rule: the connection broke, and the node
// gives the call up at its next ping (coordinator_service.go). From the
// rack switch that dropped it, only when the heartbeat is a call.
type CallBroken struct {
	Seq int64
}

// LaunchTask starts an attempt in the named slot of its kind on the node,
// a slot the node has free: the coordinator offered it to the policy.
type LaunchTask struct {
	Attempt    sched.Attempt
	Slot       int
	JobManager *actor.PID
	Task       TaskSpec
}

// TaskSpec is what a node needs to run an attempt.
type TaskSpec struct {
	Locality sched.Locality
	// Maps: the input block's size and the replica to read it from (the
	// node itself for a node-local map).
	InputBytes int64
	Source     sched.NodeID
	// Map output to the local disk for the reduces; 0 for a map-only job.
	SpillBytes int64
	// Reduces: the job's maps, whose outputs the reduce fetches, and its
	// reduces, which split every map output between them.
	Maps    int
	Reduces int
	// Job output written through a replication pipeline, writer first.
	OutputBytes int64
	Pipeline    []sched.NodeID
	CPU         workload.CPUCost
	// Time, when positive, is the task's compute whatever its bytes
	// (JobSpec.MapTime, ReduceTime), in place of CPU.
	Time  time.Duration
	Model workload.TaskModel
	// Fail makes the attempt fail when its compute phase ends, its work
	// lost (tasks.failure_probability).
	Fail bool
	// Maps, with a cache: the input's file, its size in blocks and bytes,
	// the map that reads its block 0 (the block is the map's index less
	// FileFirst: 0 unless the job reads several files), and whether the
	// node's cache holds the block, so the map reads it from memory
	// (decided at launch).
	File       string
	FileBlocks int32
	FileBytes  int64
	FileFirst  int32
	FromMemory bool
	// Straggle is the attempt's drawn slowdown ([stragglers]); a zero
	// Factor runs it at full speed.
	Straggle Straggle
	// PartLo and PartHi are a reduce's share [PartLo, PartHi) of
	// workload.Whole of every map output when its job's partitions are
	// skewed (partition_cov); both 0: an even share.
	PartLo, PartHi uint64
}

// partition is a reduce's part of bytes of a map output (or of its job's
// output), index being the reduce's task.
func (t *TaskSpec) partition(bytes int64, index int) int64 {
	if t.PartHi == 0 {
		return workload.Share(bytes, t.Reduces, index)
	}
	return workload.ShareOf(bytes, t.PartLo, t.PartHi, workload.Whole)
}

// DropJobData deletes a job's map outputs from a node's disk: the job
// ended, or its outputs were evicted to free intermediate space.
type DropJobData struct {
	Job sched.JobID
}

// KillTask stops an attempt; the node frees its slot and cancels its flows.
// With Project, a speculation policy's restart, the node says when the
// attempt would have ended had it run on (TaskFinished.Projected).
type KillTask struct {
	Attempt sched.Attempt
	Reason  string
	Project bool
}

// TaskProgress is an attempt's progress report to its job manager:
// Hadoop's progress score (a map: the fraction of its input read, or for
// a sequential map half read, half computed; a reduce: a third each for
// copy, sort and reduce) and the phase it is in with the fraction of that
// phase done, as the node saw them at At.
type TaskProgress struct {
	Attempt  sched.Attempt
	Phase    ProgressPhase
	Fraction float64
	Score    float64
	Start    time.Duration // the attempt's launch on its node
	At       time.Duration
}

// ProgressPhase is the phase a progress report names.
type ProgressPhase uint8

// Phases of a map (read, compute, write) and of a reduce (copy, sort,
// reduce). A reduce's sort is its wait for a computing slot under
// copy-compute splitting, its reduce the compute and the output write.
const (
	PhaseRead ProgressPhase = iota
	PhaseCompute
	PhaseWrite
	PhaseCopy
	PhaseSort
	PhaseReduce
)

var progressPhaseNames = [...]string{"read", "compute", "write", "copy", "sort", "reduce"}

func (p ProgressPhase) String() string {
	if int(p) < len(progressPhaseNames) {
		return progressPhaseNames[p]
	}
	return fmt.Sprintf("ProgressPhase(%d)", int(p))
}

// ---- Job manager protocol.

// FailJob ends a job as failed, for a reason outside its attempts (its
// input lost with every replica, a map that can never fit).
type FailJob struct {
	Job    sched.JobID
	Reason string
}

// TaskLaunched tells a job manager one of its attempts was launched:
// Bytes is its task's input (a map's block, a reduce's partition of the
// shuffle), Copy that it is a copy of a running task (QueueCopy).
//
// LossRate is r_m, the coordinator's estimate of the share of the node's
// outputs lost, under tasks.protect_outputs (coordinator_recompute.go).
type TaskLaunched struct {
	Attempt  sched.Attempt
	Node     sched.NodeID
	Locality sched.Locality
	Bytes    int64
	Copy     bool
	LossRate float64
}

// TaskFinished reports an attempt's end to its job manager. Start is its
// launch on its node; Projected, for an attempt killed with
// KillTask.Project, when it would have ended (0: not known).
type TaskFinished struct {
	Attempt     sched.Attempt
	Node        sched.NodeID
	Outcome     sched.Outcome
	Reason      string
	OutputBytes int64
	Start       time.Duration
	Projected   time.Duration
}

// ---- Speculation: job manager → coordinator.

// QueueCopy asks the coordinator for another attempt of a running task:
// it launches it ahead of the job's pending tasks, on a node that does
// not run the task, within the speculation policy's cap.
type QueueCopy struct {
	Job  sched.JobID
	Kind sched.TaskKind
	Task int32
}

// WithdrawCopy takes back a QueueCopy not yet launched.
type WithdrawCopy struct {
	Job  sched.JobID
	Kind sched.TaskKind
	Task int32
}

// AttemptMeasured tells the coordinator how fast an attempt ran on its
// node: its progress rate (input over duration) over the median of its
// phase's so far, for LATE's slow nodes and the blacklist.
type AttemptMeasured struct {
	Attempt   sched.Attempt
	Node      sched.NodeID
	RateRatio float64
}

// MapOutputs tells the node running a reduce attempt where map outputs
// are, and which earlier announced outputs were lost with their node.
//
// It reaches the node after the attempt's LaunchTask, which the node needs
// to know the attempt: the coordinator relays LaunchTask through the
// node's rack switch before it sends TaskLaunched to the job manager, and
// the job manager relays MapOutputs only after TaskLaunched, through the
// same switch, which keeps each destination's messages in order (also
// under [chaos]). A node drops a MapOutputs for an attempt it does not
// run, so a path that bypassed the switch would lose announcements.
type MapOutputs struct {
	Reduce  sched.Attempt
	Outputs []MapOutput
	Lost    []int32
}

// MapOutput is where one finished map's output lives.
// Attempt is the map's attempt that wrote it; Replicas the nodes that
// hold a copy of it besides (tasks.protect_outputs), tried in order when
// a fetch from Node fails.
type MapOutput struct {
	Map      int32
	Node     sched.NodeID
	Bytes    int64
	Attempt  int32
	Replicas []sched.NodeID
}

// FetchFailed tells a job manager that a reduce attempt could not fetch
// the outputs of Maps from Node: the flow failed (its source crashed) or
// stalled past tasks.fetch_timeout (a partition, a cut link). Served are
// the outputs of the same fetch that a copy elsewhere serves instead
// (tasks.protect_outputs): Node failed to serve them too, which its loss
// estimate and suspicion count, but no failure of theirs counts.
type FetchFailed struct {
	Reduce sched.Attempt
	Node   sched.NodeID
	Maps   []int32
	Served []int32
}

// MapsFinished tells the coordinator that every map of a job has
// finished, so its reducers will compute as soon as they have copied; a
// RequeueTasks with maps undoes it.
type MapsFinished struct {
	Job sched.JobID
}

// JobProgressed is a job manager's stage progress of one kind: the mean
// of its tasks' progress scores, a finished task counting 1 (Hadoop's
// map and reduce progress), for a policy that reads it (LAS_MQ's stage
// awareness, sched.NeedsProgress). It is sent only for such a policy,
// when a report or a finished task moves it.
type JobProgressed struct {
	Job      sched.JobID
	Kind     sched.TaskKind
	Progress float64
}

// RequeueTasks makes tasks of a job pending again at the coordinator:
// the initial tasks, released reduces and re-runs after failures. Racks,
// when not nil, names the rack each of Reduces is to run in (Mantri's
// reduce placement): it takes a slot elsewhere only after
// tasks.rack_wait.
type RequeueTasks struct {
	Job     sched.JobID
	Maps    []int32
	Reduces []int32
	Racks   []sched.RackID
}

// ClonesAdmitted tells a job manager that Dolly cloned a phase of its
// job: each of the kind's tasks numbered below Tasks has Copies attempts
// in all, and the others one. Tasks is the phase's size unless admission
// "fcfs" cloned it partly, as many of its tasks as the budget had room
// for. Speculation passes over the cloned tasks, and their clones are
// not speculative copies. A reduce phase whose maps were cloned is
// answered even when it is not (Copies 1, Tasks 0), so the job manager
// knows how many reduce clones its maps' copies serve. Omega is delay
// assignment's wait for a map phase (cloning.access "delay").
type ClonesAdmitted struct {
	Job    sched.JobID
	Kind   sched.TaskKind
	Copies int
	Tasks  int
	Omega  time.Duration
}

// ClonesMeasured tells the coordinator, at a job's end, what its cloned
// maps and its reduces measured for delay assignment's ω ("auto"): Maps,
// its map count (its bin); Gaps, for each cloned map, how long after its
// first copy its second succeeded (-1 when none did); Reduces, each
// finished reduce's input bytes and time held.
type ClonesMeasured struct {
	Job     sched.JobID
	Maps    int
	Gaps    []time.Duration
	Reduces []ReduceMeasured
}

// ReduceMeasured is one finished reduce's input and time held, and the
// node it ran on.
type ReduceMeasured struct {
	Bytes int64
	Held  time.Duration
	Node  sched.NodeID
}

// EvictOutputs tells a job manager that its job's map outputs were
// deleted to free intermediate space: finished maps run again.
type EvictOutputs struct {
	Job sched.JobID
}

// JobEnded tells the coordinator a job is over.
type JobEnded struct {
	Job       sched.JobID
	Succeeded bool
	Reason    string
	// Committed, for a job that succeeded and whose output a later job
	// reads (workload.JobSpec.Output), are the attempts whose output the
	// coordinator's NameNode stores as the job's parts.
	Committed []sched.Attempt
}

// NodeLost tells job managers that a node was declared dead: the
// attempts they had on it end (ReasonNodeLost) and run again, and so do
// the finished maps whose output it held.
type NodeLost struct {
	Node sched.NodeID
}

// ReasonNodeLost is the reason of an attempt that ended because its node
// was declared dead.
const ReasonNodeLost = "node lost"

// ---- Data: owners ⇄ fabric.

// Transfer says which links a flow crosses.
type Transfer uint8

// The transfers of the emulated cluster.
const (
	// DiskRead reads a block from the source's disk into a task on the
	// destination (the same node for a local read).
	DiskRead Transfer = iota
	// DiskWrite writes to the destination's disk from a task on the source
	// (the same node for a local write).
	DiskWrite
	// Compute is CPU work on the destination's CPU: Bytes are nanoseconds
	// of a nominal core, MaxRate is one core at the attempt's speed. It
	// crosses no disk or network link.
	Compute
	// MemoryRead reads from the source's memory (a cached block) into the
	// destination: the source's memory link, and the network when remote.
	MemoryRead
	// NetTransfer sends bytes the source has in memory or its page cache
	// over the network only: no disk at either end.
	NetTransfer
	// DiskCopy copies a block from the source's disk to the destination's
	// disk: a new replica.
	DiskCopy
	// RackFetch is a shuffle fetch of the outputs of several nodes of the
	// source's rack in one flow (tasks.fetch_per_rack, an
	// approximation): the source rack's uplink, the core, the
	// destination's rack downlink and the destination's NIC, without the
	// source nodes' disks, NICs and sending CPU. Source and destination
	// are in different racks.
	RackFetch
)

var transferNames = [...]string{"disk read", "disk write", "compute", "memory read", "network transfer", "disk copy", "rack fetch"}

func (t Transfer) String() string {
	if int(t) < len(transferNames) {
		return transferNames[t]
	}
	return fmt.Sprintf("Transfer(%d)", int(t))
}

// FlowClass is a flow's priority class: background flows get only the
// capacity task traffic leaves (netmodel's strict priority classes).
type FlowClass uint8

// The flow classes.
const (
	// TaskTraffic is what attempts move and compute: the default.
	TaskTraffic FlowClass = iota
	// Background is work nobody waits for now: a re-replication, a
	// replica copy, a cache fill ahead of demand.
	Background
)

// FlowOwner is the kind of work a flow serves.
type FlowOwner uint8

// Flow owners; the zero value is an attempt.
const (
	OwnerAttempt        FlowOwner = iota // an attempt's read, compute, write or fetch
	OwnerReplication                     // copying a block for a new replica (Scarlett)
	OwnerReReplication                   // restoring a lost replica
	OwnerCacheFill                       // filling a cache
	OwnerBackgroundCopy                  // any other background copy
	OwnerProtect                         // copying a map output to a rack-mate (ReplicateOutput)
)

// FlowKey names a flow uniquely within a run: what it serves (an attempt
// by default; another owner numbers its flows by ID) and its part (an
// input read, one shuffle fetch, one pipeline hop).
type FlowKey struct {
	Owner   FlowOwner
	Attempt sched.Attempt // for OwnerAttempt
	ID      int64         // for the other owners
	Part    int32
}

// StartFlow asks the fabric to move Bytes from Src to Dst for the owner,
// an actor on node OwnerNode. MaxRate, when positive, bounds the flow's
// rate in bytes per second: the owner consumes the bytes no faster (a
// map streaming its input through its compute, at one core). CPUPerByte,
// when positive, is CPU work (nanoseconds of a nominal core) per byte on
// Dst's CPU: the bytes are computed on as they arrive, at one rate with
// the transfer, so a busy CPU slows the read as a slow disk slows the
// compute. A transfer over the network also costs the [cluster]
// per-byte CPU of sending and receiving on Src and Dst.
//
// Class and Weight set the flow's priority and its share among flows of
// its class on a common bottleneck (0: 1; netmodel.MinWeight …
// netmodel.MaxWeight).
type StartFlow struct {
	Key        FlowKey
	Src, Dst   sched.NodeID
	Transfer   Transfer
	Bytes      int64
	MaxRate    float64
	CPUPerByte float64
	Class      FlowClass
	Weight     float64
	Owner      *actor.PID
	OwnerNode  sched.NodeID
	// StallTimeout, when positive, fails the flow (FlowFailed) when it
	// delivers no byte for that long: a shuffle fetch's read timeout.
	StallTimeout time.Duration
	// Outputs are the map outputs a shuffle fetch reads from Src, of the
	// job of Key.Attempt, under [intermediate_loss] (fabric_loss.go); nil
	// otherwise.
	Outputs []OutputRef
	// Sources are the nodes a RackFetch reads, Src first: the flow fails
	// when any of them crashes, as a fetch from that node would. Nil for
	// other transfers.
	Sources []sched.NodeID
}

// OutputRef names one map output of a job: the map and the attempt that
// wrote it.
type OutputRef struct {
	Map, Attempt int32
}

// AbortFlows aborts at once every flow to or from Node and every flow an
// actor on Node owns, as a node's crash does; owners elsewhere are told
// with FlowFailed. The coordinator declaring the node dead later (NodeLost)
// finds nothing left to abort.
type AbortFlows struct {
	Node   sched.NodeID
	Reason string
}

// SetFlowMaxRate changes a bounded flow's MaxRate from now on (0 stalls
// it): an attempt's compute when its speed changes. A flow that ended is
// left alone; a flow started without a bound fails the run.
type SetFlowMaxRate struct {
	Key     FlowKey
	MaxRate float64
}

// SetNodeSpeed changes a node's core speed from now on, relative to
// [cluster] speed (1: as configured, 0.5: half, 0: stopped): the node's CPU
// and every running compute's one-core bound re-time at once.
type SetNodeSpeed struct {
	Speed float64
}

// SetAttemptSpeed changes a running attempt's own speed factor from now
// on (1: nominal): its compute progresses at most at one core × the
// node's speed × the factor, as a straggler whose slowdown sets in
// part-way through.
type SetAttemptSpeed struct {
	Attempt sched.Attempt
	Speed   float64
}

// QueryDelivered asks the fabric what each of an owner's flows has
// delivered so far; it answers FlowsDelivered to Owner.
type QueryDelivered struct {
	Attempt sched.Attempt
	Keys    []FlowKey
	Owner   *actor.PID
}

// FlowsDelivered answers QueryDelivered: Bytes[i] is what Keys[i] has
// delivered, in whole bytes (work, for a compute), or -1 when the fabric
// no longer has it (it completed and its FlowDone is on the way, or it
// was cancelled).
type FlowsDelivered struct {
	Attempt sched.Attempt
	Keys    []FlowKey
	Bytes   []int64
}

// MeasureRackLinks asks the fabric how much of each rack's uplink and
// downlink is left now; it answers RackLinksMeasured to Owner. A job
// manager placing its reduces by rack sends it (job_placement.go).
type MeasureRackLinks struct {
	Owner *actor.PID
}

// RackLinksMeasured answers MeasureRackLinks: Up[r] and Down[r] are the
// capacity of rack r's uplink and downlink less the rate its flows use,
// in bytes/s, and never under a tenth of the capacity: max-min gives a
// new flow a share of even a full link.
type RackLinksMeasured struct {
	Up, Down []float64
}

// CancelFlow aborts a flow; the fabric accounts for what it carried.
type CancelFlow struct {
	Key FlowKey
}

// SetLinkCapacity changes a link's capacity from now on (bytes/s); 0 takes
// it down: its flows stall with their bytes kept and resume when it comes
// back. A link the topology does not have fails the run, naming it.
type SetLinkCapacity struct {
	Link     netmodel.LinkRef
	Capacity units.Rate
}

// ScaleLink sets a link's capacity to Factor × its capacity as the
// topology built it (0 takes it down, 1 restores it): a fault's slowdown,
// cut or partition.
type ScaleLink struct {
	Link   netmodel.LinkRef
	Factor float64
}

// FlowDone tells the owner its flow delivered all its bytes.
type FlowDone struct {
	Key     FlowKey
	Bytes   int64
	Started time.Duration
}

// FlowFailed tells the owner its flow was aborted because a node on its
// path was lost; Delivered bytes were carried before.
type FlowFailed struct {
	Key       FlowKey
	Delivered int64
	Reason    string
	// Down is the crashed node that failed the flow, when NodeDown: a
	// RackFetch's owner re-queues the outputs of its other sources
	// without counting their fetch as failed.
	Down     sched.NodeID
	NodeDown bool
}

// ---- Cache (PACMan): a node → its cache client; a cache client ⇄ the
// coordinator's cache directory, through the node's rack switch.

// CachedBlock is a block in a node's memory cache, with what the
// directory needs of its file.
type CachedBlock struct {
	File       string
	Block      int32
	Bytes      int64
	FileBlocks int32
	FileBytes  int64
}

// CacheBlock asks a node's cache client to keep a block the node has just
// read from disk for a map: PACMan caches at the reader, with no flow of
// its own.
type CacheBlock struct {
	CachedBlock
}

// ReadCachedBlock tells a cache client that an attempt on its node reads
// one of its blocks from memory; a client without the block fails the
// run: the directory decided the hit.
type ReadCachedBlock struct {
	Attempt sched.Attempt
	File    string
	Block   int32
}

// PickEviction asks the directory what a full client gives up to cache
// Bytes more (the thesis's FILETOEVICT); Seq numbers the client's asks.
type PickEviction struct {
	Client sched.NodeID
	Bytes  int64
	Seq    int64
}

// EvictFile answers PickEviction: drop these blocks of File, which the
// directory no longer counts as cached there: as many of the client's
// blocks of the file the policy named as the ask's Bytes need (one block
// under a block policy); none when nothing may go (every block the client
// holds is being read).
type EvictFile struct {
	File   string
	Blocks []int32
	Seq    int64
}

// BlockCached tells the directory a client keeps a block (the thesis's
// ADD).
type BlockCached struct {
	Client sched.NodeID
	CachedBlock
}

// BlockEvicted tells the directory a client dropped a block (REMOVE).
type BlockEvicted struct {
	Client sched.NodeID
	File   string
	Block  int32
}

// CacheReported is a client's periodic report of every block it holds,
// from which a restarted coordinator refills its directory.
type CacheReported struct {
	Client sched.NodeID
	Seq    int64
	Blocks []CachedBlock
}

// CacheReportAcked answers CacheReported.
type CacheReportAcked struct {
	Seq int64
}

// WaveWidthMeasured tells the directory, at a job's end, the job's
// wave-width over its map phase, Σ w·t(w): the time-weighted mean number
// of its maps running at once.
type WaveWidthMeasured struct {
	File  string
	Width float64
}

// CrashCache and RestartCache stop and start a node's cache client with
// its node: a crashed machine's memory is lost.
type (
	CrashCache   struct{}
	RestartCache struct{}
)

// ---- QoS classes: a QoS client → a node; the node → the client,
// through the node's rack switch.

// ForwardTask is a QoS client's conformant or degraded task: it joins the
// node's queue of its Class (an index into the classes, 0 highest) and
// runs in a free map slot for Time.
type ForwardTask struct {
	Client *actor.PID
	Job    int32 // the client's job, from 0
	Task   int32 // the task within its job
	Class  int
	Time   time.Duration
}

// TaskServed tells a QoS client a node has run its task: Mu is the time
// it was served, the feedback that sets the client's α.
type TaskServed struct {
	Job, Task int32
	Mu        time.Duration
}

// ---- Replication (Scarlett): coordinator → a source node; the copy's
// owner → coordinator.

// ReplicateBlock tells a node holding a replica of block Block of File
// to copy it to node To, in stages one after another, each a flow of the
// background class: its disk read (Bytes), compression on its CPU
// (Compress of one nominal core), the transfer (Wire bytes), the
// decompression on To's CPU (Decompress) and To's disk write (Bytes). A
// stage of nothing is skipped. The node owns every stage's flows and
// reports BlockReplicated, or ReplicationFailed when a stage fails.
type ReplicateBlock struct {
	Copy                 int64
	File                 string
	Block                int32
	Bytes, Wire          int64
	To                   sched.NodeID
	Compress, Decompress time.Duration
}

// BlockReplicated tells the coordinator that copy Copy landed: node To
// holds a replica of the block. Only then is it one.
type BlockReplicated struct {
	Copy        int64
	To          sched.NodeID
	Bytes, Wire int64
}

// ReplicationFailed tells the coordinator that copy Copy did not land: a
// stage's flow failed (its source or destination went down).
type ReplicationFailed struct {
	Copy   int64
	Reason string
}

// ---- Recompute avoidance (Mantri; recompute_config.go).

// OutputLost tells the coordinator that reducers of a job could not fetch
// Maps outputs from Node: their maps ran again, or a copy served them.
type OutputLost struct {
	Job  sched.JobID
	Node sched.NodeID
	Maps int
}

// NodeSuspected tells every job manager that Node lost
// tasks.recompute_trigger outputs within tasks.recompute_window: each runs
// again, elsewhere, the maps whose outputs there a reduce still needs.
type NodeSuspected struct {
	Node sched.NodeID
}

// ReplicateOutput asks the node holding a map's output to copy it to
// node To of its rack, as a flow of the fabric; the node answers
// OutputReplicated to the job manager once the copy landed, and nothing
// if it failed.
type ReplicateOutput struct {
	Job        sched.JobID
	Map        int32
	Attempt    int32
	Bytes      int64
	To         sched.NodeID
	JobManager *actor.PID
}

// OutputReplicated tells a job manager that node To holds a copy of the
// output of the map's attempt.
type OutputReplicated struct {
	Map     int32
	Attempt int32
	To      sched.NodeID
}

// ---- Rack switch.

// ControlMessages are the types of the messages that cross a rack switch
// between a node and the master (coordinator or job manager): the ones a
// message rule can drop or delay.
var ControlMessages = []string{
	"RegisterNode", "Heartbeat", "TaskFinished", "TaskProgress", "FetchFailed",
	"LaunchTask", "KillTask", "MapOutputs", "MapEvents", "DropJobData", "ReinitNode", "ResyncNode", "HeartbeatAck", "HeartbeatAnswered",
	"PickEviction", "EvictFile", "BlockCached", "BlockEvicted", "CacheReported", "CacheReportAcked",
	"ReplicateBlock", "BlockReplicated", "ReplicationFailed", "ReplicateOutput", "OutputReplicated",
}

// Relay asks a rack switch to deliver Msg to To after the hop's latency;
// From is its sender, for message rules.
type Relay struct {
	From *actor.PID
	To   *actor.PID
	Msg  any
}

// work is the CPU work of the task over bytes: its fixed time when it has
// one, else the bytes at its cost.
func (t *TaskSpec) work(bytes int64) time.Duration {
	if t.Time > 0 {
		return t.Time
	}
	return t.CPU.Time(bytes)
}
