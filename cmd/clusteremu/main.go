// Command clusteremu runs emulated data-analytics clusters described by TOML
// scenarios.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	_ "clusteremu/scenarios/examples/race" // the race tutorial's policy
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// command is one subcommand: its arguments and what it does, for the
// usage text and its own -h.
type command struct {
	name, args, desc string
	run              func(args []string, stdout, stderr io.Writer) int
}

var commands []command

func init() {
	commands = []command{
		{"run", "[scenario.toml] [--seed N] [--schedule-seed S] [--until D] [--set key=value] [--decisions FILE] [--out DIR [--events] [--trace-flows]] [--listen ADDR]",
			`run a scenario (without one, the embedded default: 4 racks of 10
nodes under FIFO) in deterministic virtual time, print its summary and
check its [[expect]] blocks`, runCommand},
		{"compare", "a.toml b.toml ... | [scenario.toml] --set key=v1,v2,... [--out DIR] [--jobs]",
			`run variants on the same workload and seeds and print their metrics
side by side with ratios`, compareCommand},
		{"explain", "RUN_DIR --task JOB/TASK | --job JOB | --at INSTANT",
			"tell a task's or a job's story from a run's --out directory: the slot offers its job was looked at for and the policy's reasons, where and when it launched, its phases, and what bounded its flows (with run --trace-flows)", explainCommand},
		{"validate", "[--set key=value] scenario.toml ...",
			"decode and validate scenarios only", validateCommand},
		{"config", "[scenario.toml] [--seed N] [--until D] [--set key=value]",
			`print the scenario as it would run: every key with its default,
overrides applied (what run --out saves as scenario.toml)`, configCommand},
		{"explore", "[scenario.toml] [--reduced] [--seeds N] [--first S] [--parallel P | --workers HOST:PORT,...] [--shrink]",
			`run the scenario under N schedule seeds and print every seed that
breaks an invariant or an [[expect]] block`, exploreCommand},
		{"shrink", "[scenario.toml] --schedule-seed S [--out FILE]",
			`reduce a failing seed to the fewest ordering and delay decisions
that still fail; run --decisions FILE replays them`, shrinkCommand},
		{"reproduce", "[--reduced] [--set key=value] scenario.toml ...",
			`run a paper reproduction's variants and print paper value, emulator
value and verdict per [[expect]] block`, reproduceCommand},
		{"worker", "[--listen HOST:PORT] [--parallel P]",
			`take the units of explore, compare and reproduce sweeps started with
--workers (schedule seeds, variants) and run them here, until
interrupted; every worker of a sweep runs the coordinator's version`, workerCommand},
		{"bench", "[--runs N] [--only NAME] [--set key=value] [scenario.toml ...]",
			`run each case of the benchmark table (or each scenario given) N times,
each in a process of its own, and print one table of medians: size,
wall time, speed, solver work and peak resident memory`, benchCommand},
		{"version", "", "print the version", func(_ []string, stdout, _ io.Writer) int {
			fmt.Fprintln(stdout, "clusteremu", version)
			return exitOK
		}},
		{"help", "[command]", "print this text, or a command's flags", helpCommand},
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "clusteremu %s: an in-process emulator of data-analytics clusters\n\nUsage:\n", version)
	for _, c := range commands {
		fmt.Fprintf(w, "  clusteremu %s %s\n", c.name, c.args)
		fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(c.desc, "\n", "\n      "))
	}
	fmt.Fprint(w, `
Exit codes: 0 ok; 1 a run failed or an expectation failed; 2 bad usage,
a bad scenario or an output that cannot be written; 130 interrupted.
"clusteremu help COMMAND" or "clusteremu COMMAND -h" lists its flags.
`)
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// helpCommand prints the usage, or a command's own.
func helpCommand(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printUsage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: clusteremu help [command]")
		return exitUsage
	}
	c, ok := lookup(args[0])
	if !ok || c.name == "help" || c.name == "version" {
		if ok {
			fmt.Fprintf(stdout, "usage: clusteremu %s %s\n\n%s\n", c.name, c.args, c.desc)
			return exitOK
		}
		fmt.Fprintf(stderr, "clusteremu help: unknown command %q\n", args[0])
		return exitUsage
	}
	return c.run([]string{"-h"}, stdout, stderr)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stdout)
		return exitOK
	}
	switch args[0] {
	case "-h", "--help", "-help":
		printUsage(stdout)
		return exitOK
	case "--version", "-version":
		args[0] = "version"
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "clusteremu: unknown command %q\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}
