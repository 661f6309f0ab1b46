package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBatchGCSetsAndRestoresTheCollector(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)
	restore := batchGC()
	assert.Equal(t, batchGCPercent, debug.SetGCPercent(batchGCPercent))
	if machine, ok := physicalMemory(); ok {
		assert.Equal(t, machine/2, debug.SetMemoryLimit(-1))
	}
	restore()
	assert.Equal(t, before, debug.SetGCPercent(before))
}

func TestBatchGCLeavesTheEnvironmentsSetting(t *testing.T) {
	t.Setenv("GOGC", "150")
	before := debug.SetGCPercent(-1)
	debug.SetGCPercent(before)
	restore := batchGC()
	assert.Equal(t, before, debug.SetGCPercent(before))
	restore()
}
