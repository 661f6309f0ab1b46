package netmodel

import (
	"math"
	"testing"
	"time"
)

// Tables the fuzzer's bytes index, spanning the ranges that stress the
// arithmetic: cut links, capacities twelve decades apart, sizes from 0 to
// 1 TiB, every weight bound.
var (
	fuzzCaps    = []float64{0, 1, 3, 10, 100, 1e3, 12345.678, 1e6, 125e6, 1e9, 1e12}
	fuzzSizes   = []int64{0, 1, 7, 1000, 1 << 20, 123456789, 1 << 40}
	fuzzWeights = []float64{0, MinWeight, 0.5, 1, 2, 7.3, MaxWeight}
	fuzzUses    = []float64{MinUse, 1e-3, 0.5, 1, 2.5, 953.7, MaxUse}
)

// fuzzReader hands out the fuzzer's bytes, then zeros.
type fuzzReader struct {
	data []byte
}

func (r *fuzzReader) next() int {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return int(b)
}

func (r *fuzzReader) pick(n int) int { return r.next() % n }

// FuzzNetwork decodes bytes into a network (1–8 links) and a sequence of
// starts, cancels, capacity changes and advances; after every event the
// driver checks the invariants, the reference allocation and the byte
// accounting. Nothing may panic.
func FuzzNetwork(f *testing.F) {
	f.Add([]byte{2, 4, 4, 0, 3, 0, 3, 0, 1, 0, 3, 1, 3, 3, 0})
	f.Add([]byte{3, 0, 5, 9, 0, 4, 7, 2, 1, 2, 0, 2, 0, 4, 1, 3, 3, 3, 3})
	f.Add([]byte{1, 10, 0, 6, 6, 1, 2, 1, 9, 3, 1, 0, 2, 0, 4, 3})
	f.Add([]byte{4, 1, 2, 3, 4, 0, 15, 3, 4, 2, 0, 8, 2, 5, 1, 4, 5, 3, 2, 0, 1, 3, 3, 3, 3, 3})
	f.Fuzz(runFuzzBytes)
}

func runFuzzBytes(t *testing.T, data []byte) {
	{
		r := &fuzzReader{data: data}
		caps := make([]float64, 1+r.pick(8))
		for i := range caps {
			caps[i] = fuzzCaps[r.pick(len(fuzzCaps))]
		}
		cfg := DefaultConfig()
		if r.pick(4) == 0 {
			cfg.CompletionWindow = time.Duration(r.next()) * time.Millisecond
		}
		d, err := newDriver(cfg, caps)
		if err != nil {
			t.Fatal(err)
		}
		for events := 0; len(r.data) > 0 && events < 64; events++ {
			if err := fuzzEvent(d, r, len(caps)); err != nil {
				t.Fatalf("event %d: %v", events, err)
			}
		}
		for d.n.NumFlows() > 0 {
			if _, ok := d.n.NextCompletion(); !ok {
				break
			}
			if err := d.advance(0); err != nil {
				t.Fatalf("draining: %v", err)
			}
		}
	}
}

func fuzzEvent(d *driver, r *fuzzReader, links int) error {
	switch r.pick(5) {
	case 0:
		mask := r.next() | 1<<r.pick(links)
		var path []LinkID
		for l := range links {
			if mask&(1<<l) != 0 {
				path = append(path, LinkID(l))
			}
		}
		var use []float64
		if r.pick(3) == 0 {
			for range path {
				use = append(use, fuzzUses[r.pick(len(fuzzUses))])
			}
		}
		return d.start(FlowSpec{Size: fuzzSizes[r.pick(len(fuzzSizes))], Path: path,
			Weight: fuzzWeights[r.pick(len(fuzzWeights))], Class: r.pick(4), Owner: uint64(r.next()), Use: use})
	case 1:
		return d.cancel(r.next())
	case 2:
		return d.setCapacity(LinkID(r.pick(links)), fuzzCaps[r.pick(len(fuzzCaps))])
	case 3:
		return d.advance(0)
	default:
		limit := time.Duration(1+r.next()) * time.Millisecond
		if d.n.Now() > math.MaxInt64-limit {
			return nil
		}
		return d.advance(limit)
	}
}
