package actors

import (
	"fmt"
	"slices"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// writing records an attempt's output under construction: the nodes of
// its write pipeline, the writer first, and its bytes.
func (b *blockMap) writing(a sched.Attempt, pipeline []sched.NodeID, bytes int64) {
	if b.written == nil {
		b.written = map[sched.JobID]map[sched.Attempt]outputWrite{}
	}
	w := b.written[a.Job]
	if w == nil {
		w = map[sched.Attempt]outputWrite{}
		b.written[a.Job] = w
	}
	w[a] = outputWrite{slices.Clone(pipeline), bytes}
}

// commit stores the output the job's committed attempts wrote as the
// parts of dir (workload.PartName), as MapReduce's output committer makes
// a succeeded job's output visible: a part of a block or more, each
// block's replicas on its attempt's pipeline (HDFS draws a pipeline a
// block, the writer first; here one serves the part's blocks). A pipeline
// node down at the commit keeps its replica on its disk, restored if it
// comes back with it. The written records of the job are dropped.
func (b *blockMap) commit(job sched.JobID, dir string, mapOnly bool, committed []sched.Attempt) error {
	w := b.written[job]
	delete(b.written, job)
	for _, a := range committed {
		out, ok := w[a]
		if !ok {
			return fmt.Errorf("output of %v: no write of it was recorded", a)
		}
		if out.bytes == 0 {
			continue // an empty part: no job reads it
		}
		name := workload.PartName(dir, mapOnly, int(a.Task))
		if _, dup := b.files[name]; dup {
			return fmt.Errorf("output of %v: %q is stored already", a, name)
		}
		f := &file{name: name, size: out.bytes, blocks: make([]block, max(1, (out.bytes+b.blockSize-1)/b.blockSize))}
		for i := range f.blocks {
			f.blocks[i].bytes = min(b.blockSize, out.bytes-int64(i)*b.blockSize)
			ref := blockRef{f, i}
			for _, node := range out.nodes {
				if b.topo.Down[node] {
					b.dormant[node] = append(b.dormant[node], ref)
					continue
				}
				f.blocks[i].replicas = append(f.blocks[i].replicas, node)
				b.onNode[node] = append(b.onNode[node], ref)
				b.write(node, f.blocks[i].bytes)
			}
		}
		b.files[name] = f
	}
	return nil
}

// dropWrites forgets a job's outputs under construction: it ended
// without committing them.
func (b *blockMap) dropWrites(job sched.JobID) { delete(b.written, job) }
