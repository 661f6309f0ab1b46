package scenarios

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"clusteremu/cluster"
	"clusteremu/units"
)

// fuzzTarget nests the stream structs the way a scenario will: tables,
// arrays of tables and plain keys at several depths.
type fuzzTarget struct {
	Seed     int64 `toml:"seed"`
	Workload struct {
		SWIM      []SWIMStream      `toml:"swim"`
		Synthetic []SyntheticStream `toml:"synthetic"`
		Jobs      JobsStream        `toml:"jobs"`
	} `toml:"workload"`
	Test testConfig `toml:"test"`
}

// FuzzDecode checks that the strict decoder (Decode and DecodeAt) never
// panics and that every rejection, by decoding or by validation, is an
// ErrorList whose entries all have the file name and a position inside
// the document.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		testDoc, jobsDoc, "",
		"[[workload.swim]]\ntrace = \"t.tsv\"\ntime_scale = 0.5\nbytes_per_reduce = \"64MiB\"\nbogus = 1\n",
		"[[workload.synthetic]]\njobs = 10\nload = 0.7\nslots = 40\ntask_time = \"20s\"\nsizes = \"pareto\"\n",
		"workload.jobs.job = [{name = \"a\", submit = \"1s\"}, {nam = 1}]\n",
		"[test.cluster]\nnic = \"1 Gbps\"\n[[test.workload.stream]]\nrate = 3\n",
		"seed = \"x\"\n[workload]\njobs.job = 3\n",
		"[[workload.synthetic]]\n[workload.synthetic.x]\ny = 1\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if parsed, err := Parse("f.toml", []byte(doc)); err == nil {
			checkPositioned(t, doc, parsed.DecodeAt("test", &testConfig{}, "seed"))
			checkPositioned(t, doc, parsed.DecodeAt("workload.swim[0]", &SWIMStream{}))
			checkPositioned(t, doc, parsed.DecodeAt("workload.jobs", &JobsStream{}))
		}
		var v fuzzTarget
		err := Decode("f.toml", []byte(doc), &v)
		if err == nil {
			parsed, perr := Parse("f.toml", []byte(doc))
			if perr != nil {
				t.Fatalf("Decode accepted what Parse rejects: %v", perr)
			}
			err = parsed.Locate(validateAll(&v))
		}
		checkPositioned(t, doc, err)
	})
}

func validateAll(v *fuzzTarget) error {
	var errs []error
	for i := range v.Workload.SWIM {
		errs = append(errs, Prefix(fmt.Sprintf("workload.swim[%d]", i), v.Workload.SWIM[i].Validate()))
	}
	for i := range v.Workload.Synthetic {
		errs = append(errs, Prefix(fmt.Sprintf("workload.synthetic[%d]", i), v.Workload.Synthetic[i].Validate()))
	}
	if len(v.Workload.Jobs.Jobs) > 0 {
		errs = append(errs, Prefix("workload.jobs", v.Workload.Jobs.Validate()))
	}
	return errors.Join(errs...)
}

func checkPositioned(t *testing.T, doc string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("rejection without positions: %T %v", err, err)
	}
	lines := strings.Count(doc, "\n") + 1
	for _, e := range list {
		if e.File != "f.toml" || e.Line < 1 || e.Line > lines || e.Col < 1 {
			t.Fatalf("bad position in %q (document of %d lines)", e.Error(), lines)
		}
	}
}

// FuzzLoad feeds whole scenarios to Load: no panic, and every rejection is
// positioned inside the document. Workload sizes are capped by the
// streams' own limits, so a seed stays quick.
func FuzzLoad(f *testing.F) {
	f.Add(string(DefaultScenario))
	for _, seed := range []string{
		"[cluster]\nracks = -2\nnodes_per_rak = 10\n",
		"[scheduler]\nname = \"fair\"\npools = [{name = \"a\", min_maps = 3}]\nt1 = \"0s\"\n",
		"[[expect]]\nmetric = \"jobs.succeeded\"\nop = \">\"\nvalue = \"1s\"\n",
		"[heartbeat]\ninterval = \"0s\"\n[hdfs]\nreplication = 100\n",
		"[[workload.jobs]]\n[[workload.jobs.job]]\nname = \"x\"\ninput_bytes = \"1GiB\"\n",
		"[[workload.closed]]\nworkers = 2\njobs = 1\n[workload.closed.job]\ninput_file = \"d\"\ninput_bytes = \"1GiB\"\n",
		"[reproduce]\nsource = \"s\"\nreduced = [\"run.until=1m\"]\n[[expect]]\nset = [\"x=1\"]\nbaseline = []\nmetric = \"jobs.throughput\"\nop = \"~\"\nvalue = 1\ntolerance = 0.1\n",
		"[tasks]\ncopy_compute = true\nmax_reducers = 1\nfetch_per_host = true\njob_setup = \"5s\"\n",
		"[cluster]\nracks = 2\nnodes_per_rack = 3\nintermediate_space = \"300MiB\"\n[[workload.synthetic]]\njobs = 6\ninterarrival = \"5s\"\nmax_maps = 9\n",
		"[heartbeat]\ninterval = \"1h\"\n[scheduler]\nname = \"fair\"\npreemption = true\n[[workload.synthetic]]\njobs = 3\ninterarrival = \"1s\"\nmax_maps = 4\n",
		"[[workload.jobs]]\njob = 5\n[workload.closed]\nworkers = \"x\"\n[run]\nseed = [1, 2]\nuntil = 1979-05-27\n[reproduce]\nreduced = [\"a\", 1]\n",
		"[scheduler]\nname = \"fair\"\n[scheduler.pools]\nname = 7\n[[workload]]\nsynthetic = 1\n",
		"[cluster]\nracks = 2\nnodes_per_rack = 2\n[[cluster.class]]\nname = \"o\"\nracks = [1]\nmap_slots = 1\nspeed = 0.5\n[[workload.synthetic]]\njobs = 4\ninterarrival = \"5s\"\nmax_maps = 6\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Contains(doc, "jobs") && strings.Count(doc, "0") > 4 {
			t.Skip("large generated workloads make slow inputs, not findings")
		}
		sc, err := Load("f.toml", []byte(doc), "testdata")
		checkPositioned(t, doc, err)
		if err == nil {
			runBounded(t, sc)
		}
	})
}

// Fuzzed scenarios that validate run for at most fuzzUntil of emulated
// time, with a stall limit, within fuzzHeap of heap: a valid scenario
// must end, without a panic, a broken invariant or a runaway allocation.
const (
	fuzzUntil = 10 * time.Minute
	fuzzHeap  = 2 << 30
	fuzzTasks = 200_000 // beyond, an input is slow, not a finding
)

func runBounded(t *testing.T, sc *Scenario) {
	t.Helper()
	cfg := sc.Config
	tasks := 0
	for _, stream := range append(slices.Clone(cfg.Workload), cfg.Closed...) {
		for _, j := range stream {
			tasks += int(min(j.InputBytes/max(int64(cfg.HDFS.BlockSize), 1), fuzzTasks)) + j.Reduces
		}
	}
	if tasks > fuzzTasks || cfg.Nodes() > 2000 || cfg.Run.Concurrent() {
		t.Skip("a large or concurrent run: slow, not a finding")
	}
	cfg.Run.Until = units.Duration(min(cfg.Run.Until.Std(), fuzzUntil))
	if cfg.Run.Until == 0 {
		cfg.Run.Until = units.Duration(fuzzUntil)
	}
	cfg.Run.StallAfter = 0 // the deadline bounds the run; the watchdog checks where it may
	if cfg.Heartbeat.Interval.Std() <= fuzzUntil/2 {
		cfg.Run.StallAfter = units.Duration(fuzzUntil / 2)
	}
	cfg.Run.Slowdown = false
	c, err := cluster.Build(cfg)
	if err != nil {
		t.Fatalf("a scenario that validates does not build: %v", err)
	}
	rep, err := c.Run()
	if err != nil && !strings.HasPrefix(err.Error(), "run ended deadline") {
		var stall *cluster.StallError
		if !errors.As(err, &stall) {
			t.Fatalf("run failed: %v", err)
		}
	}
	if rep.End.At > cfg.Run.Until.Std() {
		t.Fatalf("the run passed its deadline: %v > %v", rep.End.At, cfg.Run.Until)
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	if mem.HeapAlloc > fuzzHeap {
		t.Fatalf("%d bytes of heap after the run", mem.HeapAlloc)
	}
}
