package cache

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// file makes a directory entry: blocks of which cached are cached in the
// cluster, local of them on the client, the wave-width, accesses and
// last reference in seconds.
func file(name string, blocks, cached, local int, width float64, accesses int, lastRef int) File {
	f := File{Name: name, Blocks: blocks, Cached: cached, Size: int64(blocks) << 20, Width: width,
		Accesses: accesses, LastRef: time.Duration(lastRef) * time.Second}
	for i := range local {
		f.Local = append(f.Local, Block{Index: int32(i)})
	}
	return f
}

func pick(t *testing.T, cfg Config, s *Snapshot) string {
	t.Helper()
	p, err := New(cfg)
	require.NoError(t, err)
	v, ok := p.Pick(s)
	if !ok {
		return "none"
	}
	require.Equal(t, WholeFile, v.Block, "PACMan's policies name a file")
	return s.Files[v.File].Name
}

// LIFE and LFU-F against Pseudocode 1 on hand-made directories of one
// client's files: aging first (the least accessed file unreferenced for
// the window, as the text says), then with sticky the incomplete files,
// LIFE's largest wave-width and LFU-F's least accessed, then the complete
// ones; without sticky the same rule over every file.
func TestPseudocode1(t *testing.T) {
	// a: complete, width 10, 5 accesses; b: incomplete, width 4, 9
	// accesses; c: complete, width 2, 1 access; d: incomplete, width 8, 3
	// accesses. Every file last referred to at 7000 s, 200 s before now,
	// unless said.
	base := func() []File {
		return []File{
			file("a", 4, 4, 2, 10, 5, 7000),
			file("b", 6, 3, 1, 4, 9, 7000),
			file("c", 2, 2, 2, 2, 1, 7000),
			file("d", 8, 5, 3, 8, 3, 7000),
		}
	}
	old := func(files []File, name string, accesses int) []File {
		for i := range files {
			if files[i].Name == name {
				files[i].LastRef, files[i].Accesses = 0, accesses
			}
		}
		return files
	}
	hour := time.Hour
	for _, tc := range []struct {
		name  string
		cfg   Config
		files []File
		want  string
	}{
		{"LIFE sticky: the incomplete file of the largest width", Config{Name: LIFE, Sticky: true}, base(), "d"},
		{"LIFE without sticky: the largest width of all", Config{Name: LIFE}, base(), "a"},
		{"LFU-F sticky: the least accessed incomplete file", Config{Name: LFUF, Sticky: true}, base(), "d"},
		{"LFU-F without sticky: the least accessed of all", Config{Name: LFUF}, base(), "c"},
		{"LIFE sticky, only complete files left: the largest width", Config{Name: LIFE, Sticky: true},
			[]File{file("a", 4, 4, 2, 10, 5, 100), file("c", 2, 2, 2, 2, 1, 100)}, "a"},
		{"LFU-F sticky, only complete files left: the least accessed", Config{Name: LFUF, Sticky: true},
			[]File{file("a", 4, 4, 2, 10, 5, 100), file("c", 2, 2, 2, 2, 1, 100)}, "c"},
		{"LIFE~ ranks by size: b (6 blocks) under d (8)", Config{Name: LIFE, Sticky: true, Width: WidthSize},
			[]File{file("b", 6, 3, 1, 40, 9, 100), file("d", 8, 5, 3, 8, 3, 100)}, "d"},
		{"LIFE~ without sticky: the largest file", Config{Name: LIFE, Width: WidthSize}, base(), "d"},
		{"aging: an unreferenced file goes first, whatever sticky says", Config{Name: LIFE, Sticky: true, Window: hour},
			old(base(), "c", 1), "c"},
		{"aging: the least accessed of the aged files, not the oldest", Config{Name: LFUF, Sticky: true, Window: hour},
			func() []File {
				fs := old(old(base(), "a", 5), "b", 2)
				fs[0].LastRef = -time.Hour // a is the oldest
				return fs
			}(), "b"},
		{"aging off (window 0)", Config{Name: LIFE, Sticky: true}, old(base(), "c", 1), "d"},
		{"a window not yet passed ages nothing", Config{Name: LIFE, Sticky: true, Window: 3 * hour}, old(base(), "c", 1), "d"},
		{"a file with no block the client may give up is no candidate", Config{Name: LIFE, Sticky: true},
			[]File{file("d", 8, 5, 0, 8, 3, 100), file("a", 4, 4, 2, 10, 5, 100)}, "a"},
		{"nothing to give up", Config{Name: LFUF, Sticky: true}, []File{file("d", 8, 5, 0, 8, 3, 100)}, "none"},
		{"LIFE's ties: the larger file, then the larger name", Config{Name: LIFE},
			[]File{file("x", 2, 2, 1, 3, 1, 100), file("y", 3, 3, 1, 3, 1, 100), file("z", 3, 3, 1, 3, 1, 100)}, "z"},
		{"LFU-F's ties: the older reference, then the smaller name", Config{Name: LFUF},
			[]File{file("y", 2, 2, 1, 3, 1, 50), file("x", 2, 2, 1, 3, 1, 50), file("w", 2, 2, 1, 3, 1, 60)}, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Snapshot{Now: 2 * time.Hour, Files: tc.files}
			assert.Equal(t, tc.want, pick(t, tc.cfg, s))
		})
	}
}

// The classic block policies on one directory: LRU the block used
// longest ago, LFU the one used least (the older of two), MIN the one read
// furthest ahead, a block never read again first.
func TestClassicPolicies(t *testing.T) {
	s := &Snapshot{Files: []File{
		{Name: "a", Blocks: 2, Cached: 2, Local: []Block{
			{Index: 0, LastUse: 5 * time.Second, Uses: 1, Next: Ahead{At: 10}},
			{Index: 1, LastUse: 2 * time.Second, Uses: 4, Next: Ahead{At: 90}},
		}},
		{Name: "b", Blocks: 3, Cached: 1, Local: []Block{
			{Index: 2, LastUse: 3 * time.Second, Uses: 1, Next: Ahead{At: 50}},
		}},
	}}
	for _, tc := range []struct {
		name, want string
		mod        func()
	}{
		{LRU, "a/1", nil},
		{LFU, "b/2", nil}, // a/0 and b/2 used once; b/2 longer ago
		{MIN, "a/1", nil},
		{MIN, "b/2", func() { s.Files[1].Local[0].Next = NeverAgain }},
	} {
		if tc.mod != nil {
			tc.mod()
		}
		p, err := New(Config{Name: tc.name})
		require.NoError(t, err)
		v, ok := p.Pick(s)
		require.True(t, ok)
		f := s.Files[v.File]
		assert.Equal(t, tc.want, f.Name+"/"+string('0'+rune(f.Local[v.Block].Index)), tc.name)
	}
}

func TestNewRefusesUnknownNames(t *testing.T) {
	_, err := New(Config{Name: "fifo"})
	assert.ErrorContains(t, err, `cache policy "fifo": must be one of`)
	_, err = New(Config{Name: LIFE, Width: "bytes"})
	assert.ErrorContains(t, err, `cache width "bytes"`)
}
