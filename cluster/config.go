package cluster

import (
	"fmt"
	"math"
	"time"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// Config is everything a run needs: the cluster's shape and rates, HDFS,
// heartbeats, the scheduling policy and the workload. Rates are bytes per
// second; durations are emulated time. Start from DefaultConfig.
type Config struct {
	// Seed drives everything the workload generates (block placement,
	// heartbeat phases); ScheduleSeed only the order of same-instant
	// messages.
	Seed, ScheduleSeed uint64
	// Until cuts the run off at this emulated instant; 0 runs to the end.
	Until time.Duration
	// StallAfter fails a run that makes no progress for this long; 0
	// never does.
	StallAfter time.Duration

	Racks, NodesPerRack   int
	MapSlots, ReduceSlots int // per node
	DiskRead, DiskWrite   float64
	NIC                   float64 // each direction
	// RackUplink is each rack's link to the core, each direction; when 0,
	// Oversubscription sets it to NodesPerRack × NIC / Oversubscription.
	RackUplink       float64
	Oversubscription float64
	Core             float64 // 0: no core link
	// CompletionWindow lets flows finishing within it of each other
	// complete together (netmodel.Config); 0 is exact.
	CompletionWindow time.Duration

	BlockSize   int64
	Replication int

	Heartbeat      time.Duration
	ControlLatency time.Duration // per rack-switch hop of a control message
	DeadAfter      int           // missed heartbeats before a node is dead; 0 never
	AssignMultiple bool          // fill every free slot per heartbeat
	OutOfBand      bool          // heartbeat as soon as an attempt ends

	Scheduler       string
	SchedulerParams map[string]any
	PolicyTick      time.Duration // 0: the policy never ticks

	SlowStart      float64
	MaxAttempts    int
	ParallelCopies int

	// Workload holds one job list per client stream, each sorted by
	// submission time.
	Workload [][]workload.JobSpec

	Events, Choices bool // record the event and choice logs
}

// DefaultConfig is a small cluster with Hadoop's defaults: 2 racks of 10
// nodes with 4 map and 2 reduce slots, 100 MB/s disks, 1 Gb/s NICs with
// 5:1 rack oversubscription, 128 MiB blocks in 3 replicas, 3 s heartbeats
// with 1 ms per control hop, FIFO, slow-start 0.05, 4 attempts, 5
// parallel copies.
func DefaultConfig() Config {
	return Config{
		Racks: 2, NodesPerRack: 10, MapSlots: 4, ReduceSlots: 2,
		DiskRead: 100e6, DiskWrite: 100e6, NIC: 125e6, Oversubscription: 5,
		BlockSize: 128 << 20, Replication: 3,
		Heartbeat: 3 * time.Second, ControlLatency: time.Millisecond, DeadAfter: 10,
		AssignMultiple: true, Scheduler: "fifo", PolicyTick: time.Second,
		SlowStart: 0.05, MaxAttempts: 4, ParallelCopies: 5,
	}
}

// Nodes is the cluster's node count.
func (c *Config) Nodes() int { return c.Racks * c.NodesPerRack }

// Validate checks the whole configuration; the error names the field, its
// value and what is allowed.
func (c *Config) Validate() error {
	checks := []struct {
		bad  bool
		what string
	}{
		{c.Racks < 1, fmt.Sprintf("racks = %d: must be ≥ 1", c.Racks)},
		{c.NodesPerRack < 1, fmt.Sprintf("nodes_per_rack = %d: must be ≥ 1", c.NodesPerRack)},
		{c.MapSlots < 0, fmt.Sprintf("map_slots = %d: must be ≥ 0", c.MapSlots)},
		{c.ReduceSlots < 0, fmt.Sprintf("reduce_slots = %d: must be ≥ 0", c.ReduceSlots)},
		{!positive(c.DiskRead), fmt.Sprintf("disk_read = %v: must be a rate > 0", c.DiskRead)},
		{!positive(c.DiskWrite), fmt.Sprintf("disk_write = %v: must be a rate > 0", c.DiskWrite)},
		{!positive(c.NIC), fmt.Sprintf("nic = %v: must be a rate > 0", c.NIC)},
		{c.RackUplink < 0 || math.IsNaN(c.RackUplink), fmt.Sprintf("rack_uplink = %v: must be ≥ 0", c.RackUplink)},
		{c.Oversubscription < 0 || math.IsNaN(c.Oversubscription), fmt.Sprintf("oversubscription = %v: must be ≥ 0", c.Oversubscription)},
		{c.Core < 0 || math.IsNaN(c.Core), fmt.Sprintf("core = %v: must be ≥ 0", c.Core)},
		{c.BlockSize < 1, fmt.Sprintf("block_size = %d: must be ≥ 1", c.BlockSize)},
		{c.Replication < 1 || c.Replication > c.Nodes(), fmt.Sprintf("replication = %d: must be 1 … %d (the nodes)", c.Replication, c.Nodes())},
		{c.Heartbeat <= 0, fmt.Sprintf("heartbeat = %v: must be > 0", c.Heartbeat)},
		{c.ControlLatency < 0, fmt.Sprintf("control_latency = %v: must be ≥ 0", c.ControlLatency)},
		{c.DeadAfter < 0, fmt.Sprintf("dead_after = %d: must be ≥ 0 missed heartbeats", c.DeadAfter)},
		{c.PolicyTick < 0, fmt.Sprintf("policy_tick = %v: must be ≥ 0", c.PolicyTick)},
		{!(c.SlowStart >= 0 && c.SlowStart <= 1), fmt.Sprintf("slow_start = %v: must be in [0, 1]", c.SlowStart)},
		{c.MaxAttempts < 1, fmt.Sprintf("max_attempts = %d: must be ≥ 1", c.MaxAttempts)},
		{c.ParallelCopies < 1, fmt.Sprintf("parallel_copies = %d: must be ≥ 1", c.ParallelCopies)},
		{c.Until < 0, fmt.Sprintf("until = %v: must be ≥ 0", c.Until)},
		{c.StallAfter < 0, fmt.Sprintf("stall_after = %v: must be ≥ 0", c.StallAfter)},
		{c.CompletionWindow < 0, fmt.Sprintf("completion_window = %v: must be ≥ 0", c.CompletionWindow)},
	}
	for _, ch := range checks {
		if ch.bad {
			return fmt.Errorf("cluster config: %s", ch.what)
		}
	}
	if _, err := sched.New(c.Scheduler, c.SchedulerParams); err != nil {
		return fmt.Errorf("cluster config: %w", err)
	}
	return c.validateWorkload()
}

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

func (c *Config) validateWorkload() error {
	for s, jobs := range c.Workload {
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				return fmt.Errorf("cluster config: workload[%d].job[%d] (%s): %w", s, i, jobs[i].Name, err)
			}
			if i > 0 && jobs[i].Submit < jobs[i-1].Submit {
				return fmt.Errorf("cluster config: workload[%d].job[%d].submit = %v: before the job ahead of it (%v)",
					s, i, jobs[i].Submit, jobs[i-1].Submit)
			}
		}
	}
	return nil
}
