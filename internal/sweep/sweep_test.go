package sweep

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"clusteremu/internal/ownprocess"
)

// testWorkerEnv, set in a child's environment to "version,parallel,hold",
// makes the test binary a worker whose units square their seed, or, with
// hold, report that they were taken and never finish. Workers are
// processes of their own, as in use: one remote per process.
const testWorkerEnv = "SWEEP_TEST_WORKER"

func serveForTest(spec string) int {
	parts := strings.Split(spec, ",")
	parallel, _ := strconv.Atoi(parts[1])
	run := squares
	if parts[2] == "hold" {
		run = func(u RunUnit) (json.RawMessage, string) {
			fmt.Printf("took %d\n", u.Index)
			select {} // killed by the test
		}
	}
	err := Serve(WorkerOptions{Listen: "127.0.0.1:0", Version: parts[0], Parallel: parallel, Run: run,
		Ready:     func(addr string) { fmt.Printf("ready %s\n", addr) },
		Unhandled: func(msg any) { fmt.Printf("unhandled %v\n", msg) }}, nil)
	fmt.Fprintln(os.Stderr, err)
	return 2
}

func squares(u RunUnit) (json.RawMessage, string) {
	return json.RawMessage(fmt.Sprint(u.Seed * u.Seed)), ""
}

// testWorker is a worker process and its output, line by line.
type testWorker struct {
	addr  string
	cmd   *exec.Cmd
	lines *bufio.Scanner
}

func startWorker(t *testing.T, version string, parallel int, hold bool) *testWorker {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%v", testWorkerEnv, version, parallel, map[bool]string{true: "hold", false: "run"}[hold]))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	w := &testWorker{cmd: cmd, lines: bufio.NewScanner(stdout)}
	require.True(t, w.lines.Scan(), "the worker says where it listens")
	addr, ok := strings.CutPrefix(w.lines.Text(), "ready ")
	require.True(t, ok, w.lines.Text())
	w.addr = addr
	return w
}

// connect joins the workers as a coordinator of version v1, closed when
// the test ends.
func connect(t *testing.T, workers ...*testWorker) *Pool {
	t.Helper()
	addrs := make([]string, len(workers))
	for i, w := range workers {
		addrs[i] = w.addr
	}
	p, err := Connect(addrs, "v1", 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func seedUnits(n int, version string) []RunUnit {
	units := make([]RunUnit, n)
	for i := range units {
		units[i] = RunUnit{Index: i, Seed: uint64(i + 1), Version: version}
	}
	return units
}

func TestRunGivesResultsInIndexOrder(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	a := startWorker(t, "v1", 2, false)
	b := startWorker(t, "v1", 1, false)
	p := connect(t, a, b)
	assert.Equal(t, 3, p.Parallel())
	var got []string
	err := p.Run(seedUnits(20, "v1"), func(i int, r json.RawMessage) { got = append(got, fmt.Sprintf("%d:%s", i, r)) }, nil, nil)
	require.NoError(t, err)
	var want []string
	for i := range 20 {
		want = append(want, fmt.Sprintf("%d:%d", i, (i+1)*(i+1)))
	}
	assert.Equal(t, want, got)
}

func TestConnectRefusesAWorkerOfAnotherVersion(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	a := startWorker(t, "v2", 1, false)
	_, err := Connect([]string{a.addr}, "v1", 5*time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "worker "+a.addr+" refuses: this worker runs clusteremu v2, the coordinator v1")
}

// A unit of another version that reaches a worker (a coordinator that
// skipped the hello) is refused with the reason, and the sweep ends with
// it.
func TestRunEndsWithAWorkersRefusal(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	a := startWorker(t, "v1", 1, false)
	p := connect(t, a)
	err := p.Run(seedUnits(3, "v0"), func(int, json.RawMessage) {}, nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a worker refused unit 0")
	assert.Contains(t, err.Error(), "this worker runs clusteremu v1, the coordinator v0")
}

func TestConnectFailsFastOnAnAddressThatDoesNotAnswer(t *testing.T) {
	a := startWorker(t, "v1", 1, false)
	a.cmd.Process.Kill()
	a.cmd.Wait()
	_, err := Connect([]string{a.addr}, "v1", 5*time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "worker "+a.addr+" does not answer")
	_, err = Connect([]string{"nowhere"}, "v1", 5*time.Second)
	assert.ErrorContains(t, err, `worker "nowhere": not host:port`)
}

// A worker killed while it holds a unit: the coordinator hears of it
// through the remote, its unit runs on the other worker, and every
// result comes once, in order.
func TestRunReRunsTheUnitsOfALostWorker(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	b := startWorker(t, "v1", 1, true)
	a := startWorker(t, "v1", 1, false)
	p := connect(t, b, a)
	killed := make(chan error, 1)
	go func() {
		if !b.lines.Scan() || b.lines.Text() != "took 0" {
			killed <- fmt.Errorf("the holding worker said %q", b.lines.Text())
			return
		}
		killed <- b.cmd.Process.Kill()
	}()
	var got []int
	var lost []string
	err := p.Run(seedUnits(6, "v1"), func(i int, r json.RawMessage) { got = append(got, i) },
		func(addr string, held []int) { lost = append(lost, fmt.Sprint(addr, held)) }, nil)
	require.NoError(t, <-killed)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, got)
	assert.Equal(t, []string{b.addr + "[0]"}, lost)
}

// Every worker lost ends the sweep with what was not run.
func TestRunEndsWhenEveryWorkerIsLost(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	b := startWorker(t, "v1", 2, true)
	p := connect(t, b)
	go func() {
		if b.lines.Scan() {
			b.cmd.Process.Kill()
		}
	}()
	err := p.Run(seedUnits(3, "v1"), func(int, json.RawMessage) { t.Error("no unit finishes") }, nil, nil)
	assert.ErrorContains(t, err, "every worker was lost: 3 of 3 units not run")
}

func TestRunStopsWhenAsked(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	b := startWorker(t, "v1", 1, true)
	p := connect(t, b)
	stop := make(chan struct{})
	go func() {
		if b.lines.Scan() {
			close(stop)
		}
	}()
	err := p.Run(seedUnits(3, "v1"), func(int, json.RawMessage) { t.Error("no unit finishes") }, nil, stop)
	assert.ErrorIs(t, err, ErrInterrupted)
}

// A message that is not of the protocol is reported, and the worker goes
// on serving.
func TestWorkerReportsWhatItDoesNotHandle(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	a := startWorker(t, "v1", 1, false)
	p := connect(t, a)
	pid := actor.NewPID(a.addr, WorkerName)
	p.system.Root.Send(pid, wrapperspb.String("hello"))
	require.True(t, a.lines.Scan())
	assert.Equal(t, `unhandled value:"hello"`, strings.ReplaceAll(a.lines.Text(), "  ", " "))
	p.system.Root.Send(pid, wrapperspb.Bytes([]byte("{")))
	require.True(t, a.lines.Scan())
	assert.Contains(t, a.lines.Text(), "unhandled a sweep message that does not decode")
	var got []int
	require.NoError(t, p.Run(seedUnits(2, "v1"), func(i int, _ json.RawMessage) { got = append(got, i) }, nil, nil))
	assert.Equal(t, []int{0, 1}, got)
}
