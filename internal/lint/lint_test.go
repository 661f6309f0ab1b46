package lint

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// guarded names the directories whose code runs on emulated time.
var guarded = []string{"actors", "policies", "netmodel", "scenarios", "workload"}

func checkTree(t *testing.T, root string) []string {
	t.Helper()
	dirs := make([]string, len(guarded))
	for i, d := range guarded {
		dirs[i] = filepath.Join(root, d)
	}
	found, err := CheckDirs(dirs...)
	require.NoError(t, err)
	lines := make([]string, len(found))
	for i, f := range found {
		lines[i] = f.String()
	}
	return lines
}

// TestEmulatedCodeUsesNoWallClock is the project rule: no wall clock, no
// global random source and no protoactor timer in the emulated code.
func TestEmulatedCodeUsesNoWallClock(t *testing.T) {
	for _, line := range checkTree(t, filepath.Join("..", "..")) {
		t.Error(line)
	}
}

// TestFixtureIsCaught runs the same check on a small tree with one
// forbidden use of each kind, so the check above cannot pass by reading
// nothing.
func TestFixtureIsCaught(t *testing.T) {
	tree := filepath.Join("testdata", "tree")
	at := func(rel string) string { return filepath.Join(tree, rel) }
	want := []string{
		at("actors/node.go") + ":11:6: SetReceiveTimeout: " + protoTimer,
		at("actors/node.go") + ":12:9: time.Since: " + wallClock,
		at("actors/node.go") + ":16:23: math/rand.Int63n: " + globalRand,
		at("policies/sched/fifo.go") + ":8:29: time.Sleep: " + wallClock,
		at("policies/sched/fifo.go") + ":10:75: math/rand/v2.IntN: " + globalRand,
		at("scenarios/load.go") + ":3:8: import github.com/asynkron/protoactor-go/scheduler: " + protoTimer,
	}
	assert.Equal(t, want, checkTree(t, tree))
}

func TestEveryForbiddenName(t *testing.T) {
	src := `package p
import ("time"; "math/rand"; v2 "math/rand/v2"; "github.com/asynkron/protoactor-go/actor")
func f(c actor.Context, r actor.SenderContext) {
	time.Now(); time.Since(time.Time{}); time.Until(time.Time{}); time.Sleep(1)
	<-time.After(1); time.AfterFunc(1, nil); time.NewTimer(1); time.NewTicker(1); time.Tick(1)
	rand.Intn(1); rand.Seed(1); v2.IntN(1)
	r.RequestFuture(nil, nil, 0); c.StopFuture(nil); c.PoisonFuture(nil); c.ReenterAfter(nil, nil)
	c.SetReceiveTimeout(0)
}`
	found, err := CheckFile("p.go", src)
	require.NoError(t, err)
	var uses []string
	for _, f := range found {
		uses = append(uses, f.Use)
	}
	assert.Equal(t, []string{
		"time.Now", "time.Since", "time.Until", "time.Sleep",
		"time.After", "time.AfterFunc", "time.NewTimer", "time.NewTicker", "time.Tick",
		"math/rand.Intn", "math/rand.Seed", "math/rand/v2.IntN",
		"RequestFuture", "StopFuture", "PoisonFuture", "ReenterAfter", "SetReceiveTimeout",
	}, uses)
}

func TestAllowedUsesPass(t *testing.T) {
	found, err := CheckFile(filepath.Join("testdata", "tree", "netmodel", "solver.go"), nil)
	require.NoError(t, err)
	assert.Empty(t, found)
}

func TestDotImportIsReported(t *testing.T) {
	found, err := CheckFile("p.go", "package p\nimport . \"time\"\nvar _ = Now\n")
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, "dot import of time", found[0].Use)
}
