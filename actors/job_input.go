package actors

import (
	"fmt"
	"sort"

	"clusteremu/workload"
)

// A job over several files (workload.JobSpec.InputFiles) reads them
// through a view: a file of its own whose maps run over the files' blocks
// in order, map i reading the block at i in their concatenation. The
// files are the block map's, shared with every job that reads them; the
// view stores no block, and the cache directory, MIN's oracle and the
// memory hints know only the files. A file read alone is its own view.

// filePart is one file of a view and the map that reads its block 0.
type filePart struct {
	file  *file
	first int32
}

// view stores a job's input files, each in blocks of blockSize, and
// returns the view over them named name. With stored, the files are
// output parts a commit stored (blockMap.commit), none to be placed.
func (b *blockMap) view(name string, files []workload.FilePart, blockSize int64, stored bool) (*file, error) {
	v := &file{name: name}
	var first int32
	for _, p := range files {
		if _, ok := b.files[p.File]; stored && !ok {
			return nil, fmt.Errorf("input %q was never committed", p.File)
		}
		f, err := b.ensure(p.File, p.Bytes, blockSize, 0)
		if err != nil {
			return nil, err
		}
		v.parts = append(v.parts, filePart{f, first})
		v.size += f.size
		first += int32(len(f.blocks))
	}
	if len(v.parts) == 0 {
		return nil, fmt.Errorf("view %q over no file", name)
	}
	return v, nil
}

// count is the number of blocks the file's maps read.
func (f *file) count() int {
	if f.parts == nil {
		return len(f.blocks)
	}
	last := f.parts[len(f.parts)-1]
	return int(last.first) + len(last.file.blocks)
}

// at returns the stored file and block a map reads.
func (f *file) at(task int32) (*file, int32) {
	if f.parts == nil {
		return f, task
	}
	i := sort.Search(len(f.parts), func(i int) bool { return f.parts[i].first > task }) - 1
	p := f.parts[max(i, 0)]
	return p.file, task - p.first
}

// block is the block a map reads.
func (f *file) block(task int32) *block {
	g, i := f.at(task)
	return &g.blocks[i]
}

// stored lists the stored files a job reading f reads, each with the map
// that reads its block 0.
func (f *file) stored() []filePart {
	if f.parts == nil {
		return []filePart{{f, 0}}
	}
	return f.parts
}

// taskOf returns the map that reads block index of the stored file g.
func (f *file) taskOf(g *file, index int32) (int32, bool) {
	for _, p := range f.stored() {
		if p.file == g && index >= 0 && int(index) < len(g.blocks) {
			return p.first + index, true
		}
	}
	return 0, false
}
