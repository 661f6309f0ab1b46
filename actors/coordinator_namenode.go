package actors

import (
	"fmt"

	"clusteremu/policies/sched"
	"clusteremu/workload"
)

// The NameNode's part of the coordinator: what an attempt reads and
// writes. Input files and their replicas live in the block map
// (block_map.go); the job table reads the same replicas, so the locality
// a launch was decided at is the locality of the replica it reads.

// taskSpec works out what an attempt on node reads, computes and writes;
// loc is the locality the job table gave the task on the node.
func (s *coordState) taskSpec(job *coordJob, a sched.Attempt, node sched.NodeID, loc sched.Locality) (TaskSpec, error) {
	sp := &job.spec
	spec := TaskSpec{Model: sp.Model, Locality: sched.OffRack}
	rng := s.blocks.attemptStream(a)
	if a.Kind == sched.Map {
		blk := job.input.block(a.Task)
		src, srcLoc, ok := s.blocks.source(blk, node, rng)
		if !ok {
			return spec, fmt.Errorf("block %d of %q has no live replica", a.Task, inputName(a.Job, *sp))
		}
		if loc == sched.MemoryLocal {
			// Read from the node's cache: the directory decided the hit.
			src, srcLoc, spec.FromMemory = node, sched.MemoryLocal, true
		}
		if srcLoc != loc {
			s.fail("%v on node %d was placed %v but its nearest replica is %v (node %d)", a, node, loc, srcLoc, src)
		}
		spec.InputBytes, spec.Source, spec.Locality, spec.CPU, spec.Time = blk.bytes, src, srcLoc, sp.MapCPU, sp.MapTime
		if s.cache != nil {
			f, b := job.input.at(a.Task)
			spec.File, spec.FileBlocks, spec.FileBytes, spec.FileFirst = f.name, int32(len(f.blocks)), f.size, a.Task-b
		}
		if sp.Reduces > 0 {
			spec.SpillBytes = job.input.share(sp.ShuffleBytes, int(a.Task))
		} else {
			spec.OutputBytes = job.input.share(sp.OutputBytes, int(a.Task))
		}
	} else {
		spec.Maps, spec.Reduces, spec.CPU, spec.Time = job.maps, sp.Reduces, sp.ReduceCPU, sp.ReduceTime
		if job.parts != nil {
			spec.PartLo, spec.PartHi = job.parts[a.Task], job.parts[a.Task+1]
		}
		spec.OutputBytes = spec.partition(sp.OutputBytes, int(a.Task))
	}
	if spec.OutputBytes > 0 {
		pipeline, err := s.blocks.pipeline(node, rng, sp.OutputReplication)
		if err != nil {
			return spec, fmt.Errorf("output of %v: %w", a, err)
		}
		spec.Pipeline = pipeline[1:]
		if sp.Output != "" {
			s.blocks.writing(a, pipeline, spec.OutputBytes)
		}
	}
	if p := s.cfg.Tasks.FailureProbability; p > 0 {
		spec.Fail = s.blocks.failureStream(a).Float64() < p
	}
	switch {
	case s.cfg.Straggle != nil:
		spec.Straggle = s.cfg.Straggle(a)
	case s.cfg.Stragglers.Draws():
		spec.Straggle = s.cfg.Stragglers.draw(s.blocks.stragglerStream(a))
	}
	return spec, nil
}

// inputName names a job's input file: its own unless it shares one.
func inputName(id sched.JobID, spec workload.JobSpec) string {
	if spec.InputFile != "" {
		return spec.InputFile
	}
	return fmt.Sprintf("input-%d", id) // for several files, the view's

}

// inputNames names the files a job reads.
func inputNames(id sched.JobID, spec workload.JobSpec) []string {
	if len(spec.InputFiles) == 0 {
		return []string{inputName(id, spec)}
	}
	names := make([]string, len(spec.InputFiles))
	for i, f := range spec.InputFiles {
		names[i] = f.File
	}
	return names
}

// blockSizeFor is the cluster's block size, or the size that splits a
// private input into exactly the job's explicit map count.
func blockSizeFor(spec workload.JobSpec, maps int, cluster int64) int64 {
	if spec.Maps == 0 || spec.InputFile != "" || spec.InputBytes == 0 {
		return cluster
	}
	return max(1, (spec.InputBytes+int64(maps)-1)/int64(maps))
}

// commitOutput stores a job's committed output as its parts, before its
// client hears it ended and submits the jobs that read them; a job that
// ended otherwise leaves nothing. A commit the block map cannot make is
// a broken invariant.
func (s *coordState) commitOutput(msg *JobEnded) {
	job := s.jobs[msg.Job]
	if job == nil || job.spec.Output == "" {
		return
	}
	if !msg.Succeeded {
		s.blocks.dropWrites(msg.Job)
		return
	}
	if err := s.blocks.commit(msg.Job, job.spec.Output, job.spec.Reduces == 0, msg.Committed); err != nil {
		s.fail("job %d: %v", msg.Job, err)
	}
}
