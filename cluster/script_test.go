package cluster_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/cockroachdb/datadriven"

	"clusteremu/actors"
	"clusteremu/cluster"
	"clusteremu/scenarios"
	"clusteremu/units"
)

// TestScripts runs the scenario scripts under testdata/scripts, each a
// datadriven file of commands whose output is checked against the output
// recorded below it. Run one with
//
//	go test ./cluster -run TestScripts/lost_node
//
// and, after a change that moves the numbers on purpose, record them
// again with -rewrite and review the diff:
//
//	go test ./cluster -run TestScripts -rewrite
//
// The commands:
//
//	cluster [key=value ...]
//	    The body is a scenario in TOML, as users write it (decoded by
//	    scenarios.Load), with two harness defaults the body may override:
//	    run.slowdown = false and run.stall_after = "1h". Each key=value
//	    overrides a scenario key as --set does (run.seed=2,
//	    tasks.copy_compute=true). Without a body, the overrides apply to
//	    the last body. Prints the cluster in one line, or the error.
//	run [until=DURATION]
//	    Builds the cluster and runs it to its end, or cuts it off at the
//	    deadline; prints how and when it ended, and any error.
//	jobs
//	    A line per job: submission, first launch, last map's end, end,
//	    response time, outcome, size; pool, evictions and reason when any
//	    job has one.
//	attempts [job=N] [kind=map|reduce] [node=N] [outcome=O]
//	    A line per attempt, in attempt order: node and slot, locality,
//	    start, end, time held, bytes read locally and over the network,
//	    outcome and reason.
//	flows
//	    The flows completed and aborted, and the bytes they carried.
//	notes
//	    What happened to nodes (Records.Notes): a line each, in order.
//	faults
//	    The scenario's faults as they took effect and ended: a line each.
//	summary METRIC ...
//	    The named headline metrics (cluster.MetricNames).
//	events [actor=NAME] [type=TYPE] [from=DURATION] [to=DURATION]
//	    The deliveries, in order, to or from the actor (node-3,
//	    coordinator, job-1) of messages of the type (NodeLost or
//	    actors.NodeLost) between the two instants.
//
// Times are emulated seconds to the millisecond; actors go by their names
// in the run (node-0, rack-0, coordinator, coordinator/job-1, client-0,
// and faults, which fires the scenario's [[fault]] entries). Every script starts
// with a comment saying what it shows and why its numbers are what they
// are; a regression script is named after what it caught.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		s := &script{dir: filepath.Dir(path)}
		datadriven.RunTest(t, path, s.do)
	})
}

// script is one script's state: the scenario built last, the events
// scripted for its run, and the run's report once it has run.
type script struct {
	dir  string
	body string // of the last cluster command with one
	sc   *scenarios.Scenario
	rep  *cluster.Report
}

func (s *script) do(t *testing.T, td *datadriven.TestData) string {
	switch td.Cmd {
	case "cluster":
		return s.cluster(t, td)
	case "run":
		return s.run(t, td)
	case "jobs":
		return printJobs(s.report(t, td))
	case "attempts":
		return printAttempts(s.report(t, td), attemptFilter(t, td))
	case "flows":
		return printFlows(flowsOf(s.report(t, td)))
	case "notes":
		return printNotes(s.report(t, td).Records.Notes)
	case "faults":
		return printFaults(s.report(t, td).Records.Faults)
	case "summary":
		return printSummary(t, td, s.report(t, td).Summary)
	case "events":
		return printEvents(s.report(t, td), eventFilter(t, td))
	}
	td.Fatalf(t, "unknown command %q", td.Cmd)
	return ""
}

// harnessDefaults are set unless the body sets them: no reference runs,
// whose slowdowns no command prints, and a watchdog that fails a run
// stuck for an hour instead of hanging the test.
var harnessDefaults = [][2]string{{"run.slowdown", "false"}, {"run.stall_after", `"1h"`}}

func (s *script) cluster(t *testing.T, td *datadriven.TestData) string {
	if td.Input != "" {
		s.body = td.Input
	}
	if s.body == "" {
		td.Fatalf(t, "cluster: no scenario in the body, and none before")
	}
	s.sc, s.rep = nil, nil
	sc, err := scenarios.Load("cluster", []byte(s.body), s.dir)
	if err == nil {
		sc, err = sc.WithSet(append(unset(s.body), sets(td)...)...)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	s.sc = sc
	return describe(&sc.Config)
}

// unset returns the harness defaults the body does not set, as --set
// assignments. The body is a valid scenario.
func unset(body string) []string {
	var tree map[string]any
	meta, _ := toml.Decode(body, &tree)
	var sets []string
	for _, d := range harnessDefaults {
		if !meta.IsDefined(strings.Split(d[0], ".")...) {
			sets = append(sets, d[0]+"="+d[1])
		}
	}
	return sets
}

// sets returns the command's key=value arguments as --set assignments.
func sets(td *datadriven.TestData) []string {
	var out []string
	for _, arg := range td.CmdArgs {
		out = append(out, arg.Key+"="+strings.Join(arg.Vals, ","))
	}
	return out
}

// describe is the cluster in one line: its shape, blocks, heartbeat,
// policy and workload.
func describe(cfg *cluster.Config) string {
	nodes := "node-0"
	if cfg.Nodes() > 1 {
		nodes += fmt.Sprintf(" … node-%d", cfg.Nodes()-1)
	}
	slots := fmt.Sprintf("%d map + %d reduce slots", cfg.Cluster.MapSlots, cfg.Cluster.ReduceSlots)
	if cfg.Cluster.Containers > 0 {
		slots = count(cfg.Cluster.Containers, "container")
	}
	return fmt.Sprintf("%s × %s (%s), %s each%s; %s blocks × %d; heartbeat %s; %s; %s",
		count(cfg.Cluster.Racks, "rack"), count(cfg.Cluster.NodesPerRack, "node"), nodes, slots,
		cfg.Cluster.DescribeClasses(),
		scenarios.Bytes(cfg.HDFS.BlockSize), cfg.HDFS.Replication, scenarios.Duration(cfg.Heartbeat.Interval), cfg.Scheduler.Name,
		count(len(cfg.Jobs()), "job")) + describeFaults(cfg.Faults) + describeRules(cfg.Rules)
}

// describeRules lists the run's message rules.
func describeRules(rules []cluster.MessageRule) string {
	var b strings.Builder
	for i, r := range rules {
		b.WriteString(map[bool]string{true: "; rules: ", false: ", "}[i == 0])
		fmt.Fprintf(&b, "%s %s %s → %s", r.Action, r.Message, r.From, r.To)
		if r.Probability < 1 {
			fmt.Fprintf(&b, " p=%g", r.Probability)
		}
	}
	return b.String()
}

// describeFaults lists the run's faults, each as what, on what, when.
func describeFaults(faults []actors.Fault) string {
	var b strings.Builder
	for i, f := range faults {
		b.WriteString(map[bool]string{true: "; faults: ", false: ", "}[i == 0])
		fmt.Fprintf(&b, "%s %s at %s", f.Kind, f.Target(), stamp(f.At))
		switch {
		case f.Kind == actors.FaultCrash && f.RestartAfter > 0:
			fmt.Fprintf(&b, " until %s", stamp(f.At+f.RestartAfter))
		case f.For > 0:
			fmt.Fprintf(&b, " until %s", stamp(f.At+f.For))
		}
	}
	return b.String()
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (s *script) run(t *testing.T, td *datadriven.TestData) string {
	s.scenario(t, td)
	if s.rep != nil {
		td.Fatalf(t, "run: this cluster has run; build it again with cluster")
	}
	args := scanArgs(t, td, "until")
	cfg := s.sc.Config
	cfg.Run.Events = true
	if _, ok := args["until"]; ok {
		cfg.Run.Until = units.Duration(durationArg(t, td, args, "until"))
	}
	c, err := cluster.Build(cfg)
	if err != nil {
		return "error: " + err.Error()
	}
	rep, err := c.Run()
	s.rep = rep
	return printEnd(rep, err)
}

// scenario fails the command unless a cluster command has built a
// scenario.
func (s *script) scenario(t *testing.T, td *datadriven.TestData) {
	if s.sc == nil {
		td.Fatalf(t, "%s: no cluster; start with a cluster command", td.Cmd)
	}
}

// report fails the command unless the cluster has run.
func (s *script) report(t *testing.T, td *datadriven.TestData) *cluster.Report {
	if s.rep == nil {
		td.Fatalf(t, "%s: the cluster has not run; use run first", td.Cmd)
	}
	return s.rep
}

// scanArgs returns the command's key=value arguments, failing on a key
// not allowed or on a list of values.
func scanArgs(t *testing.T, td *datadriven.TestData, allowed ...string) map[string]string {
	args := map[string]string{}
	for _, arg := range td.CmdArgs {
		if !slices.Contains(allowed, arg.Key) || len(arg.Vals) != 1 {
			td.Fatalf(t, "%s: argument %s: want one of %s, each with one value", td.Cmd, arg, strings.Join(allowed, ", "))
		}
		args[arg.Key] = arg.Vals[0]
	}
	return args
}

// durationArg reads a duration written as in a scenario ("90s", "1m30s").
func durationArg(t *testing.T, td *datadriven.TestData, args map[string]string, key string) time.Duration {
	d, err := units.ParseDuration(args[key])
	if err != nil {
		td.Fatalf(t, "%s: %s=%q: %v", td.Cmd, key, args[key], err)
	}
	return d.Std()
}

// The report's parts, read only here, under the names the runtime gives
// them today.

// ending is how the run ended: why, at what emulated instant, and how
// many messages went to actors that no longer existed.
func ending(rep *cluster.Report) (reason cluster.EndReason, at time.Duration, deadLetters int) {
	return rep.End.Reason, rep.End.At, rep.End.DeadLetters
}

func jobsOf(rep *cluster.Report) []cluster.JobResult { return rep.Records.Jobs }

func attemptsOf(rep *cluster.Report) []actors.AttemptRecord { return rep.Records.Attempts }

func flowsOf(rep *cluster.Report) cluster.FlowTotals { return rep.Records.Flows }

func eventsOf(rep *cluster.Report) []cluster.Event { return rep.End.Events }

// outcomeOf is how the job ended: succeeded, failed or cut-off.
func outcomeOf(j *cluster.JobResult) string { return string(j.Outcome) }
