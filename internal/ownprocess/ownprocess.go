// Package ownprocess runs a test in a process of its own, for tests of
// code that is one per process in use: protoactor-go's remote, started
// once per coordinator or worker, sets gRPC's process-wide logger each
// time it starts, which the race detector rightly reports when several
// start in one test process.
package ownprocess

import (
	"os"
	"os/exec"
	"testing"
)

// env names the test a child process runs.
const env = "CLUSTEREMU_OWN_PROCESS_TEST"

// Child reports whether the calling test runs in its own process. In the
// test's first process it is false: the test binary has been started
// again to run only this test, the test fails unless that run passed (a
// race the detector found fails it too), and the caller returns. In the
// child it is true, and the caller goes on with the test's body; the
// child's TestMain checks for leaked goroutines as the package's does.
func Child(t *testing.T) bool {
	t.Helper()
	if os.Getenv(env) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, out)
	}
	return false
}
