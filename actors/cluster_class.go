package actors

import (
	"fmt"
	"slices"
	"strings"

	"clusteremu/units"
)

// NodeClass is a [[cluster.class]]: nodes whose hardware is not
// [cluster]'s, as a production cluster's racks of an older or a newer
// generation are, or an EC2 cluster's slower instances (the heterogeneity
// LATE was made for). A class names its nodes by whole racks, by node
// numbers (rack × nodes_per_rack + position in the rack), or both; each
// key it sets replaces [cluster]'s on those nodes, and a key it leaves
// out keeps [cluster]'s. A node is in one class at most.
//
// A class changes what a node is (its slots, cores, speed, disks, NIC and
// memory bandwidth), and every part of the run that reads a node reads
// its class: the fabric builds its links from it, the node runs that many
// attempts at that speed, the coordinator offers its slots and the
// policies see them (sched.Shape). A rack's uplink set by
// oversubscription is its own nodes' NICs over the ratio.
type NodeClass struct {
	Name  string `toml:"name"`
	Racks []int  `toml:"racks,omitempty" json:",omitempty"`
	Nodes []int  `toml:"nodes,omitempty" json:",omitempty"`

	MapSlots    *int `toml:"map_slots,omitempty" json:",omitempty"`
	ReduceSlots *int `toml:"reduce_slots,omitempty" json:",omitempty"`
	// Containers replaces [cluster]'s containers on the class's nodes,
	// whose map and reduce slots are then that many too; only where
	// [cluster] has containers.
	Containers *int        `toml:"containers,omitempty" json:",omitempty"`
	Cores      *int        `toml:"cores,omitempty" json:",omitempty"`
	Speed      *float64    `toml:"speed,omitempty" json:",omitempty"`
	DiskRead   *units.Rate `toml:"disk_read,omitempty" json:",omitempty"`
	DiskWrite  *units.Rate `toml:"disk_write,omitempty" json:",omitempty"`
	NIC        *units.Rate `toml:"nic,omitempty" json:",omitempty"`
	Memory     *units.Rate `toml:"memory,omitempty" json:",omitempty"`
	// IntermediateSpace replaces [cluster]'s disk space for map outputs
	// on the class's nodes; "0B" leaves theirs unlimited.
	IntermediateSpace *units.Bytes `toml:"intermediate_space,omitempty" json:",omitempty"`
	// Cache replaces [cache] capacity on the class's nodes ("0B": they
	// cache nothing); the cache runs when [cache] has a capacity.
	Cache *units.Bytes `toml:"cache,omitempty" json:",omitempty"`
}

// apply returns base with the class's keys in place of its own.
func (k *NodeClass) apply(base ClusterConfig) ClusterConfig {
	override(&base.MapSlots, k.MapSlots)
	override(&base.ReduceSlots, k.ReduceSlots)
	if k.Containers != nil && base.Containers > 0 {
		base.Containers = *k.Containers
		base.MapSlots, base.ReduceSlots = base.Containers, base.Containers/base.ReduceSize()
	}
	override(&base.Cores, k.Cores)
	override(&base.Speed, k.Speed)
	override(&base.DiskRead, k.DiskRead)
	override(&base.DiskWrite, k.DiskWrite)
	override(&base.NIC, k.NIC)
	override(&base.Memory, k.Memory)
	override(&base.IntermediateSpace, k.IntermediateSpace)
	return base
}

// override sets *dst to *v when the class sets v.
func override[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// own is [cluster]'s own hardware: the keys above its classes.
func (c *ClusterConfig) own() ClusterConfig {
	own := *c
	own.Classes = nil
	return own
}

// Heterogeneous reports whether any node's hardware is not [cluster]'s.
func (c *ClusterConfig) Heterogeneous() bool { return len(c.Classes) > 0 }

// ClassOf is the index in Classes of node's class, or −1 when the node is
// [cluster]'s own. Validate has checked that no node is in two classes.
func (c *ClusterConfig) ClassOf(node int) int {
	if c.NodesPerRack < 1 {
		return -1
	}
	rack := node / c.NodesPerRack
	for k := range c.Classes {
		for _, r := range c.Classes[k].Racks {
			if r == rack {
				return k
			}
		}
		for _, n := range c.Classes[k].Nodes {
			if n == node {
				return k
			}
		}
	}
	return -1
}

// ForNode is node's hardware: [cluster] with its class's keys applied,
// and no classes of its own.
func (c *ClusterConfig) ForNode(node int) ClusterConfig {
	own := c.own()
	if k := c.ClassOf(node); k >= 0 {
		return c.Classes[k].apply(own)
	}
	return own
}

// EachNode calls f with every node's hardware, in node order, computing
// each class's once.
func (c *ClusterConfig) EachNode(f func(node int, hw *ClusterConfig)) {
	own := c.own()
	classes := make([]ClusterConfig, len(c.Classes))
	for k := range c.Classes {
		classes[k] = c.Classes[k].apply(own)
	}
	for n := range c.Nodes() {
		if k := c.ClassOf(n); k >= 0 {
			f(n, &classes[k])
		} else {
			f(n, &own)
		}
	}
}

// SlotTotals is the cluster's map slots and reducers (TasksConfig.Reducers),
// over every node.
func (c *ClusterConfig) SlotTotals(t *TasksConfig) [2]int {
	return [2]int{
		c.Sum(func(hw *ClusterConfig) int { return hw.MapSlots }),
		c.Sum(func(hw *ClusterConfig) int { return t.Reducers(hw.ReduceSlots) }),
	}
}

// Attempts is how many attempts the cluster runs at once: its
// containers, or its map slots and reducers.
func (c *ClusterConfig) Attempts(t *TasksConfig) int {
	if c.Containers > 0 {
		return c.Sum(func(hw *ClusterConfig) int { return hw.Containers })
	}
	s := c.SlotTotals(t)
	return s[0] + s[1]
}

// Sum adds f of every node's hardware.
func (c *ClusterConfig) Sum(f func(hw *ClusterConfig) int) int {
	if !c.Heterogeneous() {
		return c.Nodes() * f(c)
	}
	total := 0
	c.EachNode(func(_ int, hw *ClusterConfig) { total += f(hw) })
	return total
}

// NodeSlots is each node's map slots and reducers, in node order, or nil
// when every node has [cluster]'s.
func (c *ClusterConfig) NodeSlots(t *TasksConfig) [2][]int {
	if !c.Heterogeneous() {
		return [2][]int{}
	}
	var out [2][]int
	c.EachNode(func(_ int, hw *ClusterConfig) {
		out[0] = append(out[0], hw.MapSlots)
		out[1] = append(out[1], t.Reducers(hw.ReduceSlots))
	})
	return out
}

// validateClasses checks [[cluster.class]]: names, the nodes each names,
// that no node is in two, and each class's keys as [cluster]'s own are
// checked, under the class's key.
func (c *ClusterConfig) validateClasses(errs *Checks) {
	nodes := c.Nodes()
	if c.Racks < 1 || c.NodesPerRack < 1 || nodes > MaxNodes {
		return // the shape is reported; the classes' nodes cannot be placed
	}
	owner := make(map[int]int) // node → class, for the nodes the classes name
	names := make(map[string]bool)
	for k := range c.Classes {
		cl := &c.Classes[k]
		key := fmt.Sprintf("cluster.class[%d]", k)
		errs.Check(cl.Name == "", key+".name", cl.Name, "must name the class (run's header and report.html show it)")
		errs.Check(cl.Name != "" && names[cl.Name], key+".name", cl.Name, "must differ from every other class's name")
		errs.Check(cl.Name == "cluster", key+".name", cl.Name, `must not be "cluster", which names the nodes of no class in the hardware.<class>. metrics`)
		names[cl.Name] = true
		errs.Check(len(cl.Racks) == 0 && len(cl.Nodes) == 0, key, cl.Name, "must name its nodes: racks = [...] or nodes = [...]")
		if cl.Containers != nil {
			errs.Check(c.Containers == 0, key+".containers", *cl.Containers,
				"needs cluster.containers > 0: a cluster's nodes have containers or map and reduce slots, not both")
		}
		clash := false
		claim := func(field string, n int) {
			if prev, ok := owner[n]; ok && prev != k {
				errs.Check(!clash, key+field, n, fmt.Sprintf("node %d is in class %q already (cluster.class[%d]): a node is in one class at most",
					n, c.Classes[prev].Name, prev))
				clash = true
				return
			}
			owner[n] = k
		}
		for _, r := range cl.Racks {
			if r < 0 || r >= c.Racks {
				errs.Check(true, key+".racks", r, fmt.Sprintf("must be a rack of the cluster, 0 … %d", c.Racks-1))
				continue
			}
			for n := r * c.NodesPerRack; n < (r+1)*c.NodesPerRack; n++ {
				claim(".racks", n)
			}
		}
		for _, n := range cl.Nodes {
			if n < 0 || n >= nodes {
				errs.Check(true, key+".nodes", n, fmt.Sprintf("must be a node of the cluster, 0 … %d (rack × nodes_per_rack + position)", nodes-1))
				continue
			}
			claim(".nodes", n)
		}
		hw := cl.apply(c.own())
		var found Checks
		hw.checkNode(&found, key+".")
		for _, err := range found {
			// A key the class leaves out is [cluster]'s, reported there.
			if fe, ok := err.(*FieldError); ok && cl.sets(strings.TrimPrefix(fe.Key, key+".")) {
				*errs = append(*errs, err)
			}
		}
	}
}

// sets reports whether the class sets the key.
func (k *NodeClass) sets(key string) bool {
	return slices.ContainsFunc(k.set(), func(kv keyValue) bool { return kv.name == key })
}

// CheckClasses checks a key every node has against each class's
// hardware, under the class's "cluster.class[k].<key>", where the class
// makes it bad and [cluster]'s own is not (that one the caller reports
// under its own key). value gives the key's value to report.
func (c *ClusterConfig) CheckClasses(check func(bad bool, key string, v any, msg string), key string, bad func(hw *ClusterConfig) bool, value func(hw *ClusterConfig) any, msg string) {
	own := c.own()
	for k := range c.Classes {
		hw := c.Classes[k].apply(own)
		check(bad(&hw) && !bad(&own), fmt.Sprintf("cluster.class[%d].%s", k, key), value(&hw), msg)
	}
}

// CacheCapacity is node's cache: its class's, or base, [cache]'s.
func (c *ClusterConfig) CacheCapacity(node int, base units.Bytes) units.Bytes {
	if k := c.ClassOf(node); k >= 0 && c.Classes[k].Cache != nil {
		return *c.Classes[k].Cache
	}
	return base
}

// Class is class k's hardware: [cluster] with the class's keys applied.
func (c *ClusterConfig) Class(k int) ClusterConfig { return c.Classes[k].apply(c.own()) }

// Describe is the cluster's shape in a line: racks, nodes, slots, and
// each class's nodes and the keys it sets.
func (c *ClusterConfig) Describe() string {
	if c.Containers > 0 {
		return fmt.Sprintf("%d racks × %d nodes, %d containers each", c.Racks, c.NodesPerRack, c.Containers) + c.DescribeClasses()
	}
	return fmt.Sprintf("%d racks × %d nodes, %d map + %d reduce slots each", c.Racks, c.NodesPerRack, c.MapSlots, c.ReduceSlots) +
		c.DescribeClasses()
}

// DescribeClasses is what Describe says of the classes: " but" and each
// class's node count, name and keys; "" with none.
func (c *ClusterConfig) DescribeClasses() string {
	if !c.Heterogeneous() {
		return ""
	}
	counts := make([]int, len(c.Classes))
	for n := range c.Nodes() {
		if k := c.ClassOf(n); k >= 0 {
			counts[k]++
		}
	}
	var b strings.Builder
	b.WriteString(" but")
	for k := range c.Classes {
		if k > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %d %s (%s)", counts[k], c.Classes[k].Name, strings.Join(c.Classes[k].keys(), ", "))
	}
	return b.String()
}

// set lists the keys the class sets with their values, in the order
// they are documented.
func (k *NodeClass) set() []keyValue {
	var out []keyValue
	add := func(name string, isSet bool, v func() any) {
		if isSet {
			out = append(out, keyValue{name, v()})
		}
	}
	add("map_slots", k.MapSlots != nil, func() any { return *k.MapSlots })
	add("reduce_slots", k.ReduceSlots != nil, func() any { return *k.ReduceSlots })
	add("containers", k.Containers != nil, func() any { return *k.Containers })
	add("cores", k.Cores != nil, func() any { return *k.Cores })
	add("speed", k.Speed != nil, func() any { return *k.Speed })
	add("disk_read", k.DiskRead != nil, func() any { return *k.DiskRead })
	add("disk_write", k.DiskWrite != nil, func() any { return *k.DiskWrite })
	add("nic", k.NIC != nil, func() any { return *k.NIC })
	add("memory", k.Memory != nil, func() any { return *k.Memory })
	add("intermediate_space", k.IntermediateSpace != nil, func() any { return *k.IntermediateSpace })
	add("cache", k.Cache != nil, func() any { return *k.Cache })
	return out
}

// keyValue is one key a class sets.
type keyValue struct {
	name  string
	value any
}

// keys are the keys the class sets, as "key value".
func (k *NodeClass) keys() []string {
	var out []string
	for _, kv := range k.set() {
		out = append(out, fmt.Sprintf("%s %v", kv.name, kv.value))
	}
	if len(out) == 0 {
		return []string{"as [cluster]"}
	}
	return out
}
