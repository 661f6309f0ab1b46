package cache

import "cmp"

// classic is a block policy: LRU evicts the block used longest ago, LFU
// the block used least often (the one used longest ago among those), MIN
// (Belady's) the block read again furthest ahead. Ties go to the file
// name, then the block index. The cost is O(blocks on the client).
type classic struct{ name string }

func (c classic) Name() string { return c.name }

// Pick implements Policy.
func (c classic) Pick(s *Snapshot) (Victim, bool) {
	best := Victim{File: -1}
	for i := range s.Files {
		for k := range s.Files[i].Local {
			if best.File < 0 || c.before(s, Victim{i, k}, best) {
				best = Victim{i, k}
			}
		}
	}
	return best, best.File >= 0
}

// before reports whether block a goes before block b.
func (c classic) before(s *Snapshot, a, b Victim) bool {
	fa, fb := &s.Files[a.File], &s.Files[b.File]
	ba, bb := &fa.Local[a.Block], &fb.Local[b.Block]
	var by int
	switch c.name {
	case LRU:
		by = cmp.Compare(ba.LastUse, bb.LastUse)
	case LFU:
		if by = cmp.Compare(ba.Uses, bb.Uses); by == 0 {
			by = cmp.Compare(ba.LastUse, bb.LastUse)
		}
	case MIN:
		switch {
		case ba.Next.After(bb.Next):
			by = -1
		case bb.Next.After(ba.Next):
			by = 1
		}
	}
	if by != 0 {
		return by < 0
	}
	return cmp.Or(cmp.Compare(fa.Name, fb.Name), cmp.Compare(ba.Index, bb.Index)) < 0
}
