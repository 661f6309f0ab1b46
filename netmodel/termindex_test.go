package netmodel

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTermIndex runs random puts, gets and deletions against a map,
// with keys crowded into few rows and columns as a fabric's are.
func TestTermIndex(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var ti termIndex
	want := map[uint64]int32{}
	for i := range 200000 {
		k := entryKey(int32(r.Intn(50)), int32(r.Intn(50)))
		v, ok := ti.get(k)
		w, wok := want[k]
		require.Equal(t, wok, ok, "op %d key %x", i, k)
		require.Equal(t, w, v, "op %d key %x", i, k)
		if ok && r.Intn(2) == 0 {
			ti.del(k)
			delete(want, k)
		} else if !ok {
			ti.put(k, int32(i))
			want[k] = int32(i)
		}
		require.Equal(t, len(want), ti.len())
	}
	for k, w := range want {
		v, ok := ti.get(k)
		require.True(t, ok)
		require.Equal(t, w, v)
	}
}
