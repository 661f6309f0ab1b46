package netmodel

import "fmt"

// Example is the package documentation's worked example: 250 MB and
// 125 MB sent from one host's memory to another in the same rack over
// 125 MB/s NICs.
func Example() {
	n, _ := NewNetwork(DefaultConfig())
	topo, _ := BuildTopology(n, TopologySpec{Racks: 1, HostsPerRack: 2, NICUp: 125e6, NICDown: 125e6})
	path, _ := topo.Path(0, 1, Transfer)
	big, _ := n.Start(0, FlowSpec{Size: 250e6, Path: path, Owner: 7})
	_, _ = n.Start(0, FlowSpec{Size: 125e6, Path: path, Owner: 8})
	rate, _ := n.Rate(big)
	fmt.Printf("each at %.1f MB/s\n", rate/1e6)
	for n.NumFlows() > 0 {
		at, _ := n.NextCompletion()
		done, _ := n.AdvanceTo(at)
		for _, c := range done {
			fmt.Printf("flow %d (owner %d) delivered %d bytes at %v\n", c.ID, c.Owner, c.Size, c.At)
		}
	}
	carried, _ := n.Carried(path[0])
	fmt.Println("NIC-up carried", carried)
	// Output:
	// each at 62.5 MB/s
	// flow 2 (owner 8) delivered 125000000 bytes at 2s
	// flow 1 (owner 7) delivered 250000000 bytes at 3s
	// NIC-up carried 375000000
}
