package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"clusteremu/cluster"
	"clusteremu/scenarios"
	"clusteremu/units"
)

// heapWatch is run's look at the process's memory at emulated instants:
// a line of --heap-trace every --heap-every, and the heap profile of
// --memprofile at --memprofile-at. It reads the process's memory on the
// run's goroutine between deliveries (cluster.WatchSizes), after a full
// collection, so a line's heap is what the run holds live then; the run
// is the same with it as without.
type heapWatch struct {
	every, profileAt time.Duration
	profile          string   // --memprofile's file, written at profileAt
	file             *os.File // written line by line, to follow a long run
	err              error
}

// heapTraceHeader names the columns of --heap-trace.
const heapTraceHeader = "at_s,heap_live_bytes,heap_inuse_bytes,jobs_running,jobs_ended,attempts_running,flows,actors"

// newHeapWatch checks the flags together and opens trace (none when "");
// nil when there is nothing to watch.
func newHeapWatch(sc *scenarios.Scenario, trace string, every, profileAt units.Duration, profile string) (*heapWatch, error) {
	if profileAt > 0 && profile == "" {
		return nil, errors.New("--memprofile-at needs --memprofile FILE")
	}
	if trace == "" && profileAt <= 0 {
		return nil, nil
	}
	if err := needsDeterministic(sc, "--heap-trace and --memprofile-at"); err != nil {
		return nil, err
	}
	if every <= 0 {
		return nil, fmt.Errorf("--heap-every must be positive, got %v", every)
	}
	if profileAt > 0 {
		// A profile of one instant is read for its parts: sample every
		// 16 KiB allocated rather than Go's 512 KiB, whose estimates of a
		// part of a few MB vary by a fifth from run to run.
		runtime.MemProfileRate = 16 << 10
	}
	h := &heapWatch{every: every.Std(), profileAt: profileAt.Std(), profile: profile}
	if trace != "" {
		f, err := os.Create(trace)
		if err != nil {
			return nil, err
		}
		h.file = f
		_, h.err = fmt.Fprintln(f, heapTraceHeader)
	}
	return h, nil
}

// watch starts the watch on c.
func (h *heapWatch) watch(c *cluster.Cluster) {
	if h != nil {
		c.WatchSizes(h.next(0), h.sample)
	}
}

// next is the first instant after at the watch looks at; 0 for none.
func (h *heapWatch) next(at time.Duration) time.Duration {
	var n time.Duration
	if h.file != nil {
		n = (at/h.every + 1) * h.every
	}
	if h.profileAt > at && (n == 0 || h.profileAt < n) {
		n = h.profileAt
	}
	return n
}

// sample writes the trace's line and the profile due at s.At.
func (h *heapWatch) sample(s cluster.Sample) time.Duration {
	if s.At == h.profileAt {
		if err := writeHeapProfile(h.profile); err != nil && h.err == nil {
			h.err = err
		}
	}
	if h.file != nil && s.At%h.every == 0 && h.err == nil {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		_, h.err = fmt.Fprintf(h.file, "%s,%d,%d,%d,%d,%d,%d,%d\n", strconv.FormatFloat(s.At.Seconds(), 'f', 0, 64),
			m.HeapAlloc, m.HeapInuse, s.Jobs, s.Ended, s.Attempts, s.Flows, s.Actors)
	}
	return h.next(s.At)
}

// close ends the trace; its error is the first the watch met.
func (h *heapWatch) close() error {
	if h == nil {
		return nil
	}
	if h.file == nil {
		return h.err
	}
	return errors.Join(h.err, h.file.Close())
}
