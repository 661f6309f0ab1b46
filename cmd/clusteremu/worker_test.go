package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/internal/ownprocess"
)

// workerProcess is a `clusteremu worker` started by a test: this test
// binary as the command (asCLI), on a free loopback port.
type workerProcess struct {
	addr   string
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

// startWorker starts a worker running one unit at once, with extra flags;
// the test's end kills it.
func startWorker(t *testing.T, extra ...string) *workerProcess {
	t.Helper()
	w := &workerProcess{}
	w.cmd = exec.Command(os.Args[0], append([]string{"worker", "--listen", "127.0.0.1:0", "--parallel", "1"}, extra...)...)
	w.cmd.Env = append(os.Environ(), asCLI+"=1")
	w.cmd.Stderr = &w.stderr
	stdout, err := w.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, w.cmd.Start())
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		w.cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the worker's first line; its stderr: %s", &w.stderr)
	m := regexp.MustCompile(`^worker listening on (\S+) `).FindStringSubmatch(line)
	require.NotNil(t, m, line)
	w.addr = m[1]
	return w
}

// startWorkers starts three workers, the last with extra flags, and
// returns them and the --workers list.
func startWorkers(t *testing.T, lastExtra ...string) ([]*workerProcess, string) {
	ws := []*workerProcess{startWorker(t), startWorker(t), startWorker(t, lastExtra...)}
	return ws, ws[0].addr + "," + ws[1].addr + "," + ws[2].addr
}

var raceScenario = filepath.Join("..", "..", "scenarios", "examples", "race", "race.toml")

// exploreOutput runs explore over 12 seeds of the race example, which
// has failing seeds among them, with extra flags, and returns its output
// with the wall time and speed, which no two runs share, left out.
func exploreOutput(t *testing.T, extra ...string) (stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(append([]string{"explore", raceScenario, "--seeds", "12"}, extra...), &out, &errs)
	require.Equal(t, 1, code, "explore finds the race: %s%s", &out, &errs)
	return regexp.MustCompile(`in \S+ wall \([^)]*\)`).ReplaceAllString(out.String(), "in WALL"), errs.String()
}

func TestExploreOverWorkersPrintsWhatALocalRunPrints(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	local, _ := exploreOutput(t, "--parallel", "1")
	require.Contains(t, local, ": FAIL ")
	_, list := startWorkers(t)
	remote, errs := exploreOutput(t, "--workers", list)
	assert.Equal(t, local, remote)
	assert.Empty(t, errs)
}

// A worker that exits on taking its first unit, as one whose machine went
// away, has that unit run again on another: nothing lost, nothing twice.
func TestExploreOverWorkersSurvivesALostWorker(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	local, _ := exploreOutput(t, "--parallel", "1")
	ws, list := startWorkers(t, "--exit-on-unit", "1")
	remote, errs := exploreOutput(t, "--workers", list)
	assert.Equal(t, local, remote)
	assert.Contains(t, errs, "worker "+ws[2].addr+" lost; its 1 unit(s) go to the other workers")
	err := ws[2].cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the worker exited of itself")
	assert.Equal(t, 3, exit.ExitCode())
}

func TestCompareOverWorkersPrintsWhatALocalRunPrints(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	sameOverWorkers(t, "compare", writeScenario(t, smallScenario), "--set", "scheduler.name=fifo,fair")
}

func TestReproduceOverWorkersPrintsWhatALocalRunPrints(t *testing.T) {
	if !ownprocess.Child(t) {
		return
	}
	sameOverWorkers(t, "reproduce", "--reduced", filepath.Join("..", "..", "scenarios", "papers", "hu2019", "toy.toml"))
}

// sameOverWorkers checks that a command prints the same here and over
// three workers.
func sameOverWorkers(t *testing.T, args ...string) {
	_, list := startWorkers(t)
	var local, remote, errs bytes.Buffer
	require.Equal(t, 0, run(args, &local, &errs), errs.String())
	require.Equal(t, 0, run(append(args, "--workers", list), &remote, &errs), errs.String())
	assert.Equal(t, local.String(), remote.String())
	assert.Empty(t, errs.String())
}

func TestWorkersThatDoNotAnswerFailFast(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	silent := lis.Addr().String()
	require.NoError(t, lis.Close()) // nothing listens there now
	for _, args := range [][]string{
		{"explore", raceScenario, "--seeds", "2"},
		{"compare", "--set", "scheduler.name=fifo,fair"},
		{"reproduce", "--reduced", filepath.Join("..", "..", "scenarios", "papers", "hu2019", "toy.toml")},
	} {
		var out, errs bytes.Buffer
		assert.Equal(t, 2, run(append(args, "--workers", silent), &out, &errs), args[0])
		assert.Contains(t, errs.String(), "--workers: worker "+silent+" does not answer", args[0])
		assert.Empty(t, out.String())
	}
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"compare", "--set", "scheduler.name=fifo,fair", "--workers", silent, "--out", t.TempDir()}, &out, &errs))
	assert.Contains(t, errs.String(), "compare --out with --workers")
}

// A unit whose scenario resolves on the worker to another configuration
// than the coordinator's (another clusteremu, other trace files) is
// refused with the reason, not run.
func TestWorkerRefusesAUnitOfAnotherConfiguration(t *testing.T) {
	sc, err := loadScenario(nil)
	require.NoError(t, err)
	u, err := newUnit(unitExploreSeed, sc)
	require.NoError(t, err)
	r := &unitRunner{}
	_, refused := r.scenario(u)
	assert.Empty(t, refused)
	unknown := u
	unknown.Kind = "dance"
	_, refused = (&unitRunner{}).run(unknown)
	assert.Contains(t, refused, `a unit of kind "dance", which this worker does not know`)
	u.Hash = strings.Repeat("0", 64)
	_, refused = r.scenario(u)
	assert.Contains(t, refused, "resolves on this worker to configuration")
	assert.Contains(t, refused, "on the coordinator to 000000000000…")
	u.Scenario = "[cluster]\nracks = 0\n"
	_, refused = r.scenario(u)
	assert.Contains(t, refused, "the scenario does not load on this worker")
	assert.Contains(t, refused, "cluster.racks")
}
