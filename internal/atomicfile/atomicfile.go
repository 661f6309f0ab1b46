// Package atomicfile writes a file so that it is whole or absent: under a
// temporary name in its directory, renamed into place once written.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes the file path with write, buffered, under a temporary name
// renamed into place; a failure leaves no file.
func Write(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	return Settle(f, path, err)
}

// Create opens a temporary file beside path for a caller that writes it
// over time (Settle ends it).
func Create(path string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
}

// Settle closes a temporary file from Create and renames it to path, or
// removes it when writing it failed (err).
func Settle(f *os.File, path string, err error) error {
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
