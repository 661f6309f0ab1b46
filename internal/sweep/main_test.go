package sweep

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(testWorkerEnv); spec != "" {
		os.Exit(serveForTest(spec))
	}
	goleak.VerifyTestMain(m)
}
