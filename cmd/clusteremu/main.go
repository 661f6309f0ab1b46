// Command clusteremu runs emulated data-analytics clusters described by TOML
// scenarios.
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `clusteremu %s: an in-process emulator of data-analytics clusters

Usage:
  clusteremu run [--seed N] [--jobs N] [--until D]
                            run the built-in cluster (4 racks of 10 nodes,
                            FIFO, a synthetic stream at 70%% load) in
                            deterministic virtual time and print a summary
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
