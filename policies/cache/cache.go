package cache

import (
	"fmt"
	"math"
	"time"
)

// The policies' names, as a scenario's [cache] name gives them.
const (
	LIFE = "life"
	LFUF = "lfu-f"
	LRU  = "lru"
	LFU  = "lfu"
	MIN  = "min"
)

// Names lists the policies.
var Names = []string{LIFE, LFUF, LRU, LFU, MIN}

// Wave-width measures LIFE ranks files by (Config.Width).
const (
	// WidthWave is the measured wave-width, Σ w·t(w) of the file's jobs.
	WidthWave = "wave"
	// WidthSize is the file's size instead: the thesis's LIFE~.
	WidthSize = "size"
)

// Config selects and parameterises a policy.
type Config struct {
	Name string
	// Sticky: PACMan's policies evict incomplete files first (LIFE and
	// LFU-F; the classic ones ignore it).
	Sticky bool
	// Window ages out files not referred to for that long, the least
	// accessed first; 0 never does.
	Window time.Duration
	// Width is what LIFE ranks files by: WidthWave or WidthSize.
	Width string
}

// New returns the policy the configuration names.
func New(cfg Config) (Policy, error) {
	switch cfg.Name {
	case LIFE, LFUF:
		if cfg.Width != WidthWave && cfg.Width != WidthSize && cfg.Width != "" {
			return nil, fmt.Errorf("cache width %q: must be %q or %q", cfg.Width, WidthWave, WidthSize)
		}
		return &pacman{cfg: cfg}, nil
	case LRU, LFU, MIN:
		return classic{name: cfg.Name}, nil
	}
	return nil, fmt.Errorf("cache policy %q: must be one of %v", cfg.Name, Names)
}

// Policy picks what a full client gives up.
type Policy interface {
	Name() string
	// Pick chooses a victim among the snapshot's files and their local
	// blocks, and reports false when there is none (every block the client
	// holds is being read). It does not change the snapshot.
	Pick(s *Snapshot) (Victim, bool)
}

// Snapshot is the cache directory as one client sees it when it is full:
// the files it holds blocks of that it may give up (a block being read
// from memory is pinned and left out), with what the directory knows of
// each. The order of Files is the caller's and decides nothing: every
// tie is broken by name.
type Snapshot struct {
	Now   time.Duration
	Files []File
}

// File is one file in the directory.
type File struct {
	Name string
	// Blocks is the file's block count and Cached its blocks cached on
	// some client of the cluster: the file is complete when they are equal.
	Blocks, Cached int
	Size           int64 // bytes
	// Width is the file's wave-width: what its jobs measured, or before
	// any, its block count.
	Width float64
	// Accesses counts the reads of the file's blocks (maps launched to
	// read one, from memory or disk); LastRef is when it was last read.
	Accesses int
	LastRef  time.Duration
	// Local are the file's blocks on the client that may be evicted.
	Local []Block
}

// Complete reports whether every block of the file is cached somewhere.
func (f *File) Complete() bool { return f.Cached >= f.Blocks }

// Block is one of a file's blocks on the client.
type Block struct {
	Index int32
	// LastUse and Uses are when the block was last read (by a task
	// launched to read it, from memory or disk) and how many times.
	LastUse time.Duration
	Uses    int
	// Next is when it is read again, for MIN.
	Next Ahead
}

// Ahead places a future read of a block in the order reads are expected
// in: by when the block is read (the scenario's oracle says when: the
// instant its map read it in the trace); among reads at one instant, by
// block index, then by job. Never is a block no known job reads again.
type Ahead struct {
	Never bool
	At    time.Duration
	Index int32
	Job   int64
}

// NeverAgain is the Ahead of a block no job reads again.
var NeverAgain = Ahead{Never: true, At: math.MaxInt64}

// After reports whether a is later than b.
func (a Ahead) After(b Ahead) bool {
	switch {
	case a.Never != b.Never:
		return a.Never
	case a.At != b.At:
		return a.At > b.At
	case a.Index != b.Index:
		return a.Index > b.Index
	}
	return a.Job > b.Job
}

// Victim is a policy's answer: a file of the snapshot and, for a block
// policy, one of its local blocks (Block indexes File.Local); Block is -1
// when a file policy names the file: the caller takes as many of its local
// blocks as the client needs room for.
type Victim struct {
	File  int
	Block int
}

// WholeFile is Victim.Block when the policy names a file, not a block.
const WholeFile = -1
