package netmodel

import (
	"math/rand/v2"
	"testing"
)

// TestFlowIndexMatchesMap drives the paged index and a map with the same
// random starts (increasing IDs) and ends, some long-lived, and checks
// every lookup, including of IDs never started or already ended.
func TestFlowIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	var x flowIndex
	ref := map[FlowID]int32{}
	var live []FlowID
	next := FlowID(1)
	for step := range 200_000 {
		if len(live) == 0 || rng.IntN(100) < 52 {
			slot := int32(rng.IntN(1000))
			x.put(next, slot)
			ref[next] = slot
			live = append(live, next)
			next++
		} else {
			// mostly the recent flows end; now and then an old one
			i := len(live) - 1 - rng.IntN(min(len(live), 50))
			if rng.IntN(100) == 0 {
				i = rng.IntN(len(live))
			}
			x.del(live[i])
			delete(ref, live[i])
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
		}
		probe := FlowID(rng.Int64N(int64(next) + 10))
		got, ok := x.get(probe)
		want, wok := ref[probe]
		if ok != wok || got != want {
			t.Fatalf("step %d: get(%d) = %d, %v; want %d, %v", step, probe, got, ok, want, wok)
		}
	}
	for id, want := range ref {
		if got, ok := x.get(id); !ok || got != want {
			t.Fatalf("get(%d) = %d, %v; want %d, true", id, got, ok, want)
		}
	}
	if len(x.pages) > int(next>>flowPageBits)+1 {
		t.Fatalf("%d pages for IDs up to %d", len(x.pages), next)
	}
}
