package cache

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneClient is a single client's cache of whole blocks, with the
// directory's view of the files it holds, for replaying the thesis's
// worked examples on a policy.
type oneClient struct {
	files    map[string]int // block count by file
	cached   map[string][]int32
	capacity int
	next     map[string]Ahead // MIN's next read, by "file/block"
}

func (c *oneClient) used() int {
	n := 0
	for _, bs := range c.cached {
		n += len(bs)
	}
	return n
}

func (c *oneClient) snapshot() *Snapshot {
	s := &Snapshot{}
	for _, name := range sortedKeys(c.cached) {
		f := File{Name: name, Blocks: c.files[name], Cached: len(c.cached[name]), Width: float64(c.files[name])}
		for _, b := range c.cached[name] {
			f.Local = append(f.Local, Block{Index: b, Next: c.next[blockKey(name, b)]})
		}
		s.Files = append(s.Files, f)
	}
	return s
}

// makeRoom evicts with p until n more blocks fit, and returns the blocks
// evicted in order.
func (c *oneClient) makeRoom(t *testing.T, p Policy, n int) []string {
	var out []string
	for c.used()+n > c.capacity {
		s := c.snapshot()
		v, ok := p.Pick(s)
		require.True(t, ok)
		f := &s.Files[v.File]
		gone := f.Local
		if v.Block != WholeFile {
			gone = f.Local[v.Block : v.Block+1]
		}
		for _, b := range gone {
			out = append(out, blockKey(f.Name, b.Index))
			c.cached[f.Name] = slices.DeleteFunc(c.cached[f.Name], func(x int32) bool { return x == b.Index })
		}
		if len(c.cached[f.Name]) == 0 {
			delete(c.cached, f.Name)
		}
	}
	return out
}

func (c *oneClient) has(file string, b int32) bool { return slices.Contains(c.cached[file], b) }

func blockKey(file string, b int32) string { return file + "/" + string('0'+rune(b)) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Fig. 2.4: a four-block cache holds A and B (J1's input, blocks 0 and 1
// of file j1) and C and D (J2's). J3 reads F and G first and needs two
// blocks of room; then J1 and J2, submitted together, read A, C, B, D in
// that order. MIN evicts the blocks read furthest ahead, B and D: both
// jobs miss once and neither speeds up. Sticky LIFE evicts a whole file,
// J2's C and D: J1 runs all memory-local. Both hit 2 of the 4 reads.
func TestFig24MINAgainstLIFE(t *testing.T) {
	reads := []struct {
		file  string
		block int32
	}{{"j1", 0}, {"j2", 0}, {"j1", 1}, {"j2", 1}} // A, C, B, D
	setup := func() *oneClient {
		c := &oneClient{
			files:    map[string]int{"j1": 2, "j2": 2, "j3": 2},
			cached:   map[string][]int32{"j1": {0, 1}, "j2": {0, 1}},
			capacity: 4, next: map[string]Ahead{},
		}
		for i, r := range reads { // J1 and J2 at one instant: A, C, B, D
			c.next[blockKey(r.file, r.block)] = Ahead{At: 10, Index: r.block, Job: int64(1 + i%2)}
		}
		return c
	}
	for _, tc := range []struct {
		cfg         Config
		evicted     []string
		j1WholeHits bool
	}{
		{Config{Name: MIN}, []string{"j2/1", "j1/1"}, false},               // D, then B
		{Config{Name: LIFE, Sticky: true}, []string{"j2/0", "j2/1"}, true}, // C and D
	} {
		t.Run(tc.cfg.Name, func(t *testing.T) {
			c := setup()
			p, err := New(tc.cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.evicted, c.makeRoom(t, p, 2))
			hits, j1 := 0, 0
			for _, r := range reads {
				if c.has(r.file, r.block) {
					hits++
					if r.file == "j1" {
						j1++
					}
				}
			}
			assert.Equal(t, 2, hits, "hit ratio 2 of 4")
			assert.Equal(t, tc.j1WholeHits, j1 == 2, "J1 all memory-local")
		})
	}
}

// The four Ahead orders: by the read's instant, then block, then job; never last.
func TestAheadOrder(t *testing.T) {
	a := Ahead{At: 5, Index: 0, Job: 2}
	assert.True(t, Ahead{At: 6}.After(a))
	assert.True(t, Ahead{At: 5, Index: 1, Job: 1}.After(a))
	assert.True(t, Ahead{At: 5, Index: 0, Job: 3}.After(a))
	assert.True(t, NeverAgain.After(Ahead{At: 1 << 60}))
	assert.False(t, a.After(a))
}
