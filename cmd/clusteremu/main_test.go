package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestUnknownCommandFails(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"frobnicate"}, &out, &errs))
	assert.Contains(t, errs.String(), `unknown command "frobnicate"`)
}

func TestVersion(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 0, run([]string{"version"}, &out, &errs))
	assert.Equal(t, "clusteremu dev\n", out.String())
}

func TestRunPrintsSummary(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--jobs", "20", "--seed", "4"}, &out, &errs)
	assert.Equal(t, 0, code, errs.String())
	assert.Contains(t, out.String(), "jobs      20 submitted, 20 succeeded, 0 failed, 0 cut off")
	assert.Contains(t, out.String(), "(done)")
}

func TestRunCutOff(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"run", "--jobs", "50", "--until", "30s"}, &out, &errs)
	assert.Equal(t, 0, code, errs.String())
	assert.Contains(t, out.String(), "30s emulated (deadline)")
	assert.NotContains(t, out.String(), "0 cut off")
}

func TestRunBadFlag(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"run", "--jobz", "3"}, &out, &errs))
	assert.Contains(t, errs.String(), "flag provided but not defined: -jobz")
}
