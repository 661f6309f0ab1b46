package netmodel

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestLayout keeps the solver's data in whole cache lines (see flow and
// link).
func TestLayout(t *testing.T) {
	assert.Equal(t, uintptr(64), unsafe.Sizeof(flow{}))
	assert.Equal(t, uintptr(64), unsafe.Sizeof(link{}))
}
