package netmodel

// termIndex maps a term's (row, column) key to its entry: open
// addressing with linear probing over a power-of-two table, deletion by
// shifting the run back (no tombstones). Terms are added and removed as
// flows come and go, several per event, and a general map spent more on
// hashing and probing than the structure's arithmetic.
type termIndex struct {
	keys []uint64 // key+1; 0 is an empty slot
	vals []int32
	n    int
}

func termHash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 20 }

// get returns the entry of key k, false when absent.
func (t *termIndex) get(k uint64) (int32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	mask := uint64(len(t.keys) - 1)
	for i := termHash(k) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k + 1:
			return t.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put sets the entry of an absent key k.
func (t *termIndex) put(k uint64, v int32) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	i := termHash(k) & mask
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k+1, v
	t.n++
}

// del removes a present key k.
func (t *termIndex) del(k uint64) {
	mask := uint64(len(t.keys) - 1)
	i := termHash(k) & mask
	for t.keys[i] != k+1 {
		i = (i + 1) & mask
	}
	// Shift back every later key of the run whose home lies at or before
	// the hole, so lookups never stop early at it.
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		home := termHash(t.keys[j]-1) & mask
		if (j-home)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = 0
	t.n--
}

func (t *termIndex) grow() {
	keys, vals := t.keys, t.vals
	size := max(64, 2*len(keys))
	t.keys, t.vals, t.n = make([]uint64, size), make([]int32, size), 0
	for i, k := range keys {
		if k != 0 {
			t.put(k-1, vals[i])
		}
	}
}

func (t *termIndex) clear() {
	clear(t.keys)
	t.n = 0
}

func (t *termIndex) len() int { return t.n }
