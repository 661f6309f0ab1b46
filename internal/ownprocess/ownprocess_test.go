package ownprocess

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestChildRunsTheTestInAnotherProcess(t *testing.T) {
	if !Child(t) {
		assert.NotEqual(t, t.Name(), os.Getenv(env), "the first process is no child")
		return
	}
	assert.Equal(t, t.Name(), os.Getenv(env), "the child knows its test")
}
