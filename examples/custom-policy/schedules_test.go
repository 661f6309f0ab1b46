package custompolicy

import (
	"testing"

	"clusteremu/emutest"
)

var scenario = emutest.File("testdata/backoff.toml")

// TestSchedules runs the scenario under 200 schedule seeds. With the
// planted race some of them stall; the test fails with the earliest,
// shrunk to the decisions that make it, and stores them in
// testdata/emutest/TestSchedules.jsonl for the next go test to replay
// first. With -fixed every seed passes, the stored failure too.
func TestSchedules(t *testing.T) {
	emutest.Explore(t, scenario, 200)
}

// TestEveryJobSucceeds runs the scenario once, on its own schedule seed,
// and reads the report.
func TestEveryJobSucceeds(t *testing.T) {
	rep := emutest.Run(t, scenario)
	if got := rep.Summary["jobs.succeeded"]; got != 5 {
		t.Errorf("jobs.succeeded = %v, want 5", got)
	}
}

// FuzzSchedules searches schedules with go test -fuzz FuzzSchedules.
func FuzzSchedules(f *testing.F) {
	emutest.Fuzz(f, scenario)
}
