package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// physicalMemory is the machine's memory in bytes from /proc/meminfo
// (MemTotal); false where that cannot be read.
func physicalMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kib, err := strconv.ParseInt(fields[1], 10, 64)
			return kib << 10, err == nil
		}
	}
	return 0, false
}

// checkMemory refuses, before a run, a scenario whose floor of memory
// (cluster.Needs.Memory: every node and the most demanding job alone)
// exceeds the machine's, naming the job and the knobs that shrink it,
// instead of letting the kernel kill the run half-way.
func checkMemory(sc *scenarios.Scenario, machine int64) error {
	needs := sc.Config.Needs()
	if needs.Memory <= machine {
		return nil
	}
	jobs := sc.Config.Jobs()
	j := jobs[needs.Largest]
	return fmt.Errorf("%s: the run needs at least %s of memory, more than this machine's %s: job %d %q alone has %d maps and %d reduces "+
		"(with %d nodes): raise hdfs.block_size (fewer maps), a SWIM stream's bytes_per_reduce or max_reduces (fewer reduces), "+
		"or lower its size_scale",
		sc.Name, cluster.HumanBytes(needs.Memory), cluster.HumanBytes(machine), needs.Largest+1, j.Name,
		j.MapCount(int64(sc.Config.HDFS.BlockSize)), j.Reduces, needs.Nodes)
}

// fitsMemory checks a scenario against the machine's memory, when known.
func fitsMemory(sc *scenarios.Scenario) error {
	machine, ok := physicalMemory()
	if !ok {
		return nil
	}
	return checkMemory(sc, machine)
}
