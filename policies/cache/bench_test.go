package cache

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchDirectory is 10,000 files of 1 to 40 blocks, of which 0 to all
// are cached, each on one of 100 clients at random, as one snapshot per
// client: about 930 files and 1,000 blocks each.
func benchDirectory() []*Snapshot {
	const files, clients = 10_000, 100
	rng := rand.New(rand.NewPCG(1, 2))
	snaps := make([]*Snapshot, clients)
	for c := range snaps {
		snaps[c] = &Snapshot{Now: 10 * time.Hour}
	}
	for i := range files {
		blocks := 1 + rng.IntN(40)
		cached := rng.IntN(blocks + 1)
		f := File{Name: fmt.Sprintf("file%05d", i), Blocks: blocks, Cached: cached, Size: int64(blocks) << 27,
			Width: float64(rng.IntN(blocks) + 1), Accesses: rng.IntN(30) + 1, LastRef: time.Duration(rng.Int64N(int64(10 * time.Hour)))}
		local := map[int][]Block{}
		for b := range cached {
			c := rng.IntN(clients)
			local[c] = append(local[c], Block{Index: int32(b), LastUse: time.Duration(rng.Int64N(int64(10 * time.Hour))),
				Uses: rng.IntN(30), Next: Ahead{At: time.Duration(rng.Int64N(int64(20 * time.Hour)))}})
		}
		for c := range clients {
			if bs := local[c]; len(bs) > 0 {
				g := f
				g.Local = bs
				snaps[c].Files = append(snaps[c].Files, g)
			}
		}
	}
	return snaps
}

// BenchmarkPick is one eviction choice of a client of a 10,000-file
// directory on 100 clients (about 930 files and 1,000 blocks on the
// client), for each policy.
func BenchmarkPick(b *testing.B) {
	snaps := benchDirectory()
	for _, cfg := range []Config{
		{Name: LIFE, Sticky: true, Window: 6 * time.Hour}, {Name: LFUF, Sticky: true, Window: 6 * time.Hour},
		{Name: LRU}, {Name: LFU}, {Name: MIN},
	} {
		p, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(cfg.Name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok := p.Pick(snaps[i%len(snaps)]); !ok {
					b.Fatal("no victim")
				}
				i++
			}
		})
	}
}
