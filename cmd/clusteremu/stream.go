package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"

	"clusteremu/internal/atomicfile"
)

// streamFile is an output file written while the run goes, under a
// temporary name in its directory: finish renames it into place, so a
// file is whole or absent, and abandon removes it. A part of a file
// assembled at the end (the trace's attempt slices) is a streamFile that
// is copied out and abandoned instead. The first error is kept and later
// writes are dropped.
type streamFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	err  error
}

// streamBuffer is a streamFile's buffer: a run with --out streams up to
// seven files at once.
const streamBuffer = 256 << 10

// createStream starts the file that finish puts at path.
func createStream(path string) (*streamFile, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &streamFile{path: path, f: f, w: bufio.NewWriterSize(f, streamBuffer)}, nil
}

// write writes p unless an earlier write failed.
func (s *streamFile) write(p []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
}

// flush writes out what is buffered, so the file can be read back.
func (s *streamFile) flush() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// finish renames the file into place, or removes it when a write failed.
func (s *streamFile) finish() error { return atomicfile.Settle(s.f, s.path, s.flush()) }

// abandon removes the file.
func (s *streamFile) abandon() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// copyTo writes the whole file to w.
func (s *streamFile) copyTo(w io.Writer) error {
	if err := s.flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// jsonlFile is a JSON-lines streamFile, a value a line.
type jsonlFile struct {
	*streamFile
	enc *json.Encoder
}

func createJSONL(path string) (*jsonlFile, error) {
	s, err := createStream(path)
	if err != nil {
		return nil, err
	}
	return &jsonlFile{streamFile: s, enc: json.NewEncoder(s.w)}, nil
}

func (j *jsonlFile) put(v any) {
	if j.err == nil {
		j.err = j.enc.Encode(v)
	}
}

// csvFile is a CSV streamFile, a record a row.
type csvFile struct {
	*streamFile
	csv *csv.Writer
}

// createCSV starts a CSV file with its header.
func createCSV(path string, header []string) (*csvFile, error) {
	s, err := createStream(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{streamFile: s, csv: csv.NewWriter(s.w)}
	c.put(header)
	return c, nil
}

func (c *csvFile) put(row []string) {
	if c.err == nil {
		c.err = c.csv.Write(row)
	}
}

func (c *csvFile) finish() error {
	c.csv.Flush()
	if c.err == nil {
		c.err = c.csv.Error()
	}
	return c.streamFile.finish()
}
