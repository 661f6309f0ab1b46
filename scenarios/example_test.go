package scenarios_test

import (
	"fmt"

	"clusteremu/scenarios"
)

func ExampleDecode() {
	var config struct {
		Cluster struct {
			Racks        int            `toml:"racks"`
			NodesPerRack int            `toml:"nodes_per_rack"`
			NIC          scenarios.Rate `toml:"nic"`
		} `toml:"cluster"`
	}
	doc := "[cluster]\nracks = 4\n  rackz = 3\nnodes_per_rak = 10\n"
	fmt.Println(scenarios.Decode("scenario.toml", []byte(doc), &config))
	// Output:
	// scenario.toml:3:3: cluster.rackz: unknown key; allowed: racks, nodes_per_rack, nic
	// scenario.toml:4:1: cluster.nodes_per_rak: unknown key; allowed: racks, nodes_per_rack, nic
}

func ExampleDocument_Locate() {
	doc, err := scenarios.Parse("scenario.toml", []byte("[cluster]\nracks = -2\nnic = \"1Gbps\"\n"))
	if err != nil {
		panic(err)
	}
	// What a Validate method of the cluster table would return:
	verr := scenarios.Invalid("racks", -2, "must be ≥ 1")
	fmt.Println(doc.Locate(scenarios.Prefix("cluster", verr)))
	// Output:
	// scenario.toml:2:1: cluster.racks = -2: must be ≥ 1
}
