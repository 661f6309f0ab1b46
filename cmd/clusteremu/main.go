// Command clusteremu runs emulated data-analytics clusters described by TOML
// scenarios.
package main

import (
	"fmt"
	"io"
	"os"

	_ "clusteremu/scenarios/examples/race" // the race tutorial's policy
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `clusteremu %s: an in-process emulator of data-analytics clusters

Usage:
  clusteremu run [scenario.toml] [--seed N] [--schedule-seed S] [--until D]
                 [--set key=value] [--decisions FILE] [--out DIR [--events]]
                            run a scenario (without one, the embedded
                            default: 4 racks of 10 nodes under FIFO) in
                            deterministic virtual time, print its summary
                            and check its [[expect]] blocks
  clusteremu compare a.toml b.toml ... | [scenario.toml] --set key=v1,v2,...
                            run variants on the same workload and seeds and
                            print their metrics side by side with ratios
  clusteremu validate scenario.toml ...
                            decode and validate scenarios only
  clusteremu explore [scenario.toml] [--seeds N] [--first S] [--parallel P]
                   [--shrink]
                            run the scenario under N schedule seeds and
                            print every seed that breaks an invariant or an
                            [[expect]] block
  clusteremu shrink [scenario.toml] --schedule-seed S [--out FILE]
                            reduce a failing seed to the fewest ordering
                            and delay decisions that still fail; run
                            --decisions FILE replays them
  clusteremu reproduce [--reduced] scenario.toml ...
                            run a paper reproduction's variants and print
                            paper value, emulator value and verdict per
                            [[expect]] block
  clusteremu version        print the version
  clusteremu help           print this text
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stdout, usage, version)
		return 0
	}
	switch args[0] {
	case "run":
		return runCommand(args[1:], stdout, stderr)
	case "compare":
		return compareCommand(args[1:], stdout, stderr)
	case "validate":
		return validateCommand(args[1:], stdout, stderr)
	case "reproduce":
		return reproduceCommand(args[1:], stdout, stderr)
	case "explore":
		return exploreCommand(args[1:], stdout, stderr)
	case "shrink":
		return shrinkCommand(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "clusteremu", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprintf(stdout, usage, version)
		return 0
	default:
		fmt.Fprintf(stderr, "clusteremu: unknown command %q\n", args[0])
		fmt.Fprintf(stderr, usage, version)
		return 2
	}
}
