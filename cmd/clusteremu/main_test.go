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
