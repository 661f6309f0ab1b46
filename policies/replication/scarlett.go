package replication

import (
	"cmp"
	"fmt"
	"slices"
)

// Order is how the budget is shared among the files that want replicas.
type Order uint8

// The orders.
const (
	// LargestFirst raises files to their desired factor in descending
	// size, stopping at the first that does not fit (Pseudocode 2).
	LargestFirst Order = iota
	// RoundRobin adds one replica per file per pass, in descending size,
	// skipping a file that does not fit, and stops when a pass adds
	// nothing (Pseudocode 3, made to terminate).
	RoundRobin
)

// OrderNames are the orders as a scenario names them.
var OrderNames = []string{"largest_first", "round_robin"}

// ParseOrder returns the order a scenario names.
func ParseOrder(name string) (Order, error) {
	if i := slices.Index(OrderNames, name); i >= 0 {
		return Order(i), nil
	}
	return 0, fmt.Errorf("replication order %q: must be one of %q", name, OrderNames)
}

func (o Order) String() string {
	if int(o) < len(OrderNames) {
		return OrderNames[o]
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Params are Scarlett's knobs for one epoch.
type Params struct {
	Base   int   // the base factor, [hdfs] replication (≥ 1)
	Delta  int   // δ, the cushion over c_f (≥ 0)
	Budget int64 // B, bytes of extra replicas over Base, all files together
	Order  Order
}

// File is a stored file as one epoch sees it.
type File struct {
	Name        string
	Size        int64
	Concurrency int // c_f
	// Blocks are the live replicas of each block, by node.
	Blocks [][]int
}

// Node is a node as placement sees it: its rack, its expected load l_m
// (Loads) and whether it may take a replica.
type Node struct {
	Rack int
	Load float64
	Down bool
}

// Replica names one replica: block Block of Files[File] on node Node.
type Replica struct {
	File, Block, Node int
}

// Plan is an epoch's decision: each file's factor, the replicas to drop
// (lazily: they leave the live list at once) and those to create, in the
// order they were placed.
type Plan struct {
	Factors []int
	Remove  []Replica
	Add     []Replica
}

// bySize returns the files' indices largest first, ties by name.
func bySize(files []File) []int {
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(files[b].Size, files[a].Size), cmp.Compare(files[a].Name, files[b].Name), cmp.Compare(a, b))
	})
	return order
}

// Factors returns each file's replication factor: r_f = max(c_f + δ,
// base) as far as the budget allows, extra replicas costing size·(r_f −
// base). The cost is O(files log files) for LargestFirst and O(files ×
// (max r_f − base)) for RoundRobin.
func Factors(files []File, p Params) []int {
	return factors(files, p, bySize(files))
}

// factors is Factors over the files in order, largest first.
func factors(files []File, p Params, order []int) []int {
	r := make([]int, len(files))
	for i := range r {
		r[i] = p.Base
	}
	want := func(i int) int { return max(files[i].Concurrency+p.Delta, p.Base) }
	var used int64
	if p.Order == LargestFirst {
		for _, i := range order {
			cost := files[i].Size * int64(want(i)-p.Base)
			if cost == 0 {
				continue
			}
			if used+cost > p.Budget {
				break
			}
			r[i], used = want(i), used+cost
		}
		return r
	}
	for added := true; added; {
		added = false
		for _, i := range order {
			if r[i] < want(i) && used+files[i].Size <= p.Budget {
				r[i]++
				used += files[i].Size
				added = true
			}
		}
	}
	return r
}

// Loads sets each node's expected load: Σ c_f / r over the replicas it
// holds, r the replicas of that block.
func Loads(files []File, nodes []Node) {
	for i := range nodes {
		nodes[i].Load = 0
	}
	for _, f := range files {
		for _, reps := range f.Blocks {
			for _, n := range reps {
				nodes[n].Load += float64(f.Concurrency) / float64(len(reps))
			}
		}
	}
}

// Rearrange plans an epoch (§3.4 of the notes): Factors, then the
// removals of every file over its factor, each from its block's
// most-loaded nodes (l_m −= c_f / r), then, files largest first, one new
// replica per block per round until the factor is reached: on the
// least-loaded rack holding none of the block (else the fewest), the
// least-loaded live node there not holding it, l_m += c_f / r with r
// before the increment. A block with no live replica gets none. nodes'
// loads are updated in place. The cost is O(replicas changed × nodes).
func Rearrange(files []File, nodes []Node, p Params) Plan {
	order := bySize(files)
	plan := Plan{Factors: factors(files, p, order)}
	racks := 0
	for _, n := range nodes {
		racks = max(racks, n.Rack+1)
	}
	rackLoad := make([]float64, racks)
	for _, n := range nodes {
		if !n.Down {
			rackLoad[n.Rack] += n.Load
		}
	}
	pl := placer{nodes: nodes, rackLoad: rackLoad, perRack: make([]int, racks), members: make([][]int, racks),
		live: make([]int, racks)}
	for i, n := range nodes {
		pl.members[n.Rack] = append(pl.members[n.Rack], i)
		if !n.Down {
			pl.live[n.Rack]++
		}
	}
	for i, f := range files {
		for b, reps := range f.Blocks {
			for len(reps) > plan.Factors[i] {
				k := pl.mostLoaded(reps)
				pl.addLoad(reps[k], -float64(f.Concurrency)/float64(len(reps)))
				plan.Remove = append(plan.Remove, Replica{i, b, reps[k]})
				reps = slices.Delete(slices.Clone(reps), k, k+1)
			}
		}
	}
	for _, i := range order {
		plan.Add = pl.grow(plan.Add, i, files[i], plan.Factors[i])
	}
	return plan
}

type placer struct {
	nodes    []Node
	rackLoad []float64
	perRack  []int   // live replicas of the block being placed, per rack
	members  [][]int // nodes per rack
	live     []int   // live nodes per rack
}

func (pl *placer) addLoad(n int, d float64) {
	pl.nodes[n].Load += d
	if !pl.nodes[n].Down {
		pl.rackLoad[pl.nodes[n].Rack] += d
	}
}

// mostLoaded is the index in reps of the most-loaded node, the first on ties.
func (pl *placer) mostLoaded(reps []int) int {
	k := 0
	for j, n := range reps {
		if pl.nodes[n].Load > pl.nodes[reps[k]].Load {
			k = j
		}
	}
	return k
}

// grow places file i's new replicas, round by round, up to r.
func (pl *placer) grow(add []Replica, i int, f File, r int) []Replica {
	if len(f.Blocks) == 0 {
		return add
	}
	blocks := make([][]int, len(f.Blocks))
	least := r
	for b, reps := range f.Blocks {
		blocks[b] = reps
		least = min(least, len(reps))
	}
	for round := max(least, 1); round < r; round++ {
		for b, reps := range blocks {
			if len(reps) == 0 || len(reps) > round {
				continue
			}
			n, ok := pl.target(reps)
			if !ok {
				continue
			}
			pl.addLoad(n, float64(f.Concurrency)/float64(len(reps)))
			blocks[b] = append(slices.Clone(reps), n)
			add = append(add, Replica{i, b, n})
		}
	}
	return add
}

// target is the node a new replica of a block held on reps goes to: on
// the rack with the fewest of its replicas, the least loaded of those,
// the least-loaded live node there not holding it; ties go to the lowest
// index. The cost is O(racks + the rack's nodes × replicas).
func (pl *placer) target(reps []int) (int, bool) {
	clear(pl.perRack)
	for _, n := range reps {
		if !pl.nodes[n].Down {
			pl.perRack[pl.nodes[n].Rack]++
		}
	}
	rack := -1
	for r := range pl.live {
		if pl.perRack[r] < pl.live[r] && (rack < 0 || pl.betterRack(r, rack)) {
			rack = r
		}
	}
	if rack < 0 {
		return -1, false
	}
	best := -1
	for _, n := range pl.members[rack] {
		if !pl.nodes[n].Down && !slices.Contains(reps, n) && (best < 0 || pl.nodes[n].Load < pl.nodes[best].Load) {
			best = n
		}
	}
	return best, best >= 0
}

func (pl *placer) betterRack(a, b int) bool {
	if pl.perRack[a] != pl.perRack[b] {
		return pl.perRack[a] < pl.perRack[b]
	}
	return pl.rackLoad[a] < pl.rackLoad[b]
}

// Copy is one replica copy: from a node holding the block to a new one.
type Copy struct {
	Src, Dst int
}

// Steps orders the copies that take a block held on sources to the new
// nodes targets: r ← min(2r, r_new) per step, each replica held at the
// start of a step feeding at most one new one in it, the next step
// starting when the last copy of this one lands (§3.5). Going from 3 to
// 10 replicas takes steps of 3, 3 and 4 copies.
func Steps(sources, targets []int) [][]Copy {
	have := slices.Clone(sources)
	var steps [][]Copy
	for next := 0; next < len(targets) && len(have) > 0; {
		n := min(len(have), len(targets)-next)
		step := make([]Copy, n)
		for k := range n {
			step[k] = Copy{Src: have[k], Dst: targets[next+k]}
		}
		have = append(have, targets[next:next+n]...)
		next += n
		steps = append(steps, step)
	}
	return steps
}
