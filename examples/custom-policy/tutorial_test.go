package custompolicy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTutorial takes the README's steps on a copy of this module in a
// temporary directory, so that the source tree is never written: go test
// finds the planted race within TestSchedules' 200 seeds, shrinks it and
// stores it; the next go test replays the stored failure first and fails
// on it at once; with -fixed the stored failure and every seed pass.
func TestTutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds this module's tests and runs them three times")
	}
	dir := copyModule(t)
	bin := filepath.Join(dir, "custompolicy.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	schedules := func(args ...string) (string, bool) {
		cmd := exec.Command(bin, append([]string{"-test.run", "^TestSchedules$", "-test.v"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	stored := filepath.Join("testdata", "emutest", "TestSchedules.jsonl")

	out, ok := schedules()
	if ok {
		t.Fatalf("the planted race was not found:\n%s", out)
	}
	for _, want := range []string{
		`of 200 schedule seeds failed; the earliest failure, seed \d+, shrunk:`,
		`FAIL stalled: .*waiting: job \d+ \(job\d+\): 1 reduce pending, which backoff-fifo launches nowhere`,
		`shrunk to \d+ decision\(s\) in \d+ runs .*; dropping any one of them makes the failure go away:`,
		`stored in ` + regexp.QuoteMeta(stored) + `: the next go test replays it first`,
		`replay:  go test -run '\^TestSchedules\$' \.`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the first run's output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, stored)); err != nil {
		t.Fatalf("the shrunk failure was not stored: %v", err)
	}

	out, ok = schedules()
	if ok || !strings.Contains(out, "the stored failure "+stored) || !strings.Contains(out, "replayed first, still fails: FAIL") ||
		strings.Contains(out, "schedule seeds failed") {
		t.Errorf("the second run does not fail on the stored failure alone:\n%s", out)
	}

	out, ok = schedules("-fixed")
	if !ok || !strings.Contains(out, "the stored failure "+stored+" replays without failing") ||
		!strings.Contains(out, "200 schedule seeds (1–200) passed") {
		t.Errorf("with -fixed the stored failure and every seed should pass:\n%s", out)
	}
}

// copyModule copies the module's policy, tests and scenario to a
// temporary directory, its replace directive pointing at this clusteremu.
func copyModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go.mod", "go.sum", "policy.go", "main_test.go", "schedules_test.go", "testdata/backoff.toml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "go.mod" {
			data = []byte(strings.Replace(string(data), "=> ../..", "=> "+root, 1))
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
