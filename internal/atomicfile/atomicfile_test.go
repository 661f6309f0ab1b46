package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWriteIsWholeOrAbsent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	require.NoError(t, Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "whole"); return err }))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "whole", string(data))

	// A failed write leaves the earlier file as it was and no temporary.
	err = Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("broke") })
	assert.EqualError(t, err, "writing "+path+": broke")
	data, _ = os.ReadFile(path)
	assert.Equal(t, "whole", string(data))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file is left")
}
