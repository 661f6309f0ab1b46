package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"clusteremu/cluster"
	"clusteremu/units"
)

// runStats is what run --stats writes: a run's size and the work it took.
type runStats struct {
	Nodes       int     `json:"nodes"`
	Jobs        int     `json:"jobs"`
	Tasks       int64   `json:"tasks"`
	Emulated    float64 `json:"emulated_s"`
	Wall        float64 `json:"wall_s"`
	Messages    uint64  `json:"messages"`
	Solves      int64   `json:"solves"`
	FlowsSolved int64   `json:"flows_solved"`
	Structural  int64   `json:"structural"` // re-solves on netmodel's bottleneck structure
	Flows       int64   `json:"flows"`
	Reason      string  `json:"end"`
}

func writeStats(path string, cfg cluster.Config, rep *cluster.Report, wall time.Duration) error {
	st := runStats{
		Nodes: cfg.Nodes(), Jobs: len(rep.Records.Jobs), Emulated: rep.End.At.Seconds(), Wall: wall.Seconds(),
		Messages: rep.End.Steps, Solves: rep.Network.Solves, FlowsSolved: rep.Network.FlowsSolved,
		Structural: rep.Network.Structural, Flows: rep.Network.Completions + rep.Network.Cancelations, Reason: string(rep.End.Reason),
	}
	for _, j := range rep.Records.Jobs {
		st.Tasks += int64(j.Maps + j.Reduces)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// benchCase is one row of the bench table: a scenario and run flags.
type benchCase struct {
	name string
	args []string
}

// benchSuite is the table make bench prints: the scales clusteremu aims
// at, from the default scenario to 10,000 nodes.
func benchSuite() []benchCase {
	fb2009 := filepath.Join("scenarios", "examples", "fb2009-day.toml")
	return []benchCase{
		{"default (embedded)", nil},
		{"FB-2009, first hour, fifo", []string{fb2009, "--until", "1h"}},
		{"FB-2009 day, fifo", []string{fb2009}},
		{"FB-2009 day, fair", []string{fb2009, "--set", "scheduler.name=fair"}},
		// The larger two do not finish in reasonable time yet: their first
		// emulated minutes.
		{"FB-2010, 3,000 nodes, first 5 minutes, fifo", []string{filepath.Join("scenarios", "examples", "fb2010-day.toml"), "--until", "5m"}},
		{"10,000 nodes, first 20 seconds, fifo", []string{filepath.Join("scenarios", "examples", "nodes-10k.toml"), "--until", "20s"}},
	}
}

// benchCommand runs each case several times, each in a process of its
// own so its peak resident memory is its own, and prints one table of
// medians.
func benchCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", stdout, stderr)
	runs := fs.Int("runs", 3, "runs of each case; the table gives medians")
	only := fs.String("only", "", "run only the cases whose name contains this")
	var sets setFlags
	fs.Var(&sets, "set", "override a scenario key in every case: key=value (repeatable)")
	positional, err := fs.parse(args)
	if err != nil {
		return exitCode(err)
	}
	if *runs < 1 {
		fmt.Fprintln(stderr, "clusteremu: --runs must be ≥ 1")
		return exitUsage
	}
	cases := benchSuite()
	if len(positional) > 0 {
		cases = nil
		for _, p := range positional {
			cases = append(cases, benchCase{p, []string{p}})
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	dir, err := os.MkdirTemp("", "clusteremu-bench-")
	if err != nil {
		fmt.Fprintln(stderr, "clusteremu:", err)
		return exitFailed
	}
	defer os.RemoveAll(dir)
	fmt.Fprintf(stdout, "| scenario | nodes | jobs | tasks | emulated | wall (median of %d) | emulated s / wall s | messages / s | re-solves | flows / re-solve | peak RSS |\n", *runs)
	fmt.Fprintln(stdout, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	code := exitOK
	for _, c := range cases {
		if !strings.Contains(c.name, *only) {
			continue
		}
		var walls, rss []float64
		var st runStats
		for i := range *runs {
			out := filepath.Join(dir, fmt.Sprintf("stats-%d.json", i))
			argv := append([]string{"run", "--quiet", "--stats", out, "--set", "run.slowdown=false"}, c.args...)
			for _, s := range sets {
				argv = append(argv, "--set", s)
			}
			r, peak, err := benchRun(self, argv, out)
			if err != nil {
				fmt.Fprintf(stderr, "clusteremu: %s: %v\n", c.name, err)
				code = exitFailed
				break
			}
			st = r
			walls, rss = append(walls, r.Wall), append(rss, peak)
		}
		if len(walls) < *runs {
			continue
		}
		wall, peak := median(walls), median(rss)
		fmt.Fprintf(stdout, "| %s | %s | %s | %s | %v | %.2f s | %s | %s | %s | %.0f | %.0f MiB |\n",
			c.name, thousands(int64(st.Nodes)), thousands(int64(st.Jobs)), thousands(st.Tasks),
			units.Duration((time.Duration(st.Emulated) * time.Second).Round(time.Second)), wall,
			thousands(int64(st.Emulated/wall)), thousands(int64(float64(st.Messages)/wall)),
			thousands(st.Solves), perSolveOf(st), peak/(1<<20))
	}
	return code
}

// benchRun runs one case in a child process and returns its stats and
// its peak resident set in bytes.
func benchRun(self string, argv []string, statsPath string) (runStats, float64, error) {
	cmd := exec.Command(self, argv...)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == exitFailed) {
		return runStats{}, 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	var st runStats
	b, rerr := os.ReadFile(statsPath)
	if rerr != nil {
		return st, 0, fmt.Errorf("the run wrote no stats (%v): %s", err, strings.TrimSpace(errb.String()))
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, 0, err
	}
	var peak float64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = float64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	return st, peak, nil
}

func perSolveOf(st runStats) float64 {
	if st.Solves == 0 {
		return 0
	}
	return float64(st.FlowsSolved) / float64(st.Solves)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
