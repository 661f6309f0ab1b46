package cache

import "cmp"

// pacman is LIFE or LFU-F (the thesis's Pseudocode 1), with or without
// sticky, with LIFE~'s sizes for widths.
//
//	aged := files on the client not referred to for window
//	if aged: the least accessed of them        (the text; the pseudocode says oldest)
//	else, with sticky: the incomplete file with the largest width (LIFE) or
//	      fewest accesses (LFU-F); if none, the complete file by the same rule
//	else, without sticky: the file by that rule among all
//
// Ties, which the thesis breaks arbitrarily, go by the next key: LIFE's by
// size then name, LFU-F's and aging's by the older last reference then
// name; the last key is the name, larger first for LIFE ("largest"),
// smaller first otherwise. The cost is O(files).
type pacman struct{ cfg Config }

func (p *pacman) Name() string { return p.cfg.Name }

// Pick implements Policy.
func (p *pacman) Pick(s *Snapshot) (Victim, bool) {
	if i := p.aged(s); i >= 0 {
		return Victim{File: i, Block: WholeFile}, true
	}
	best, bestComplete := -1, false
	for i := range s.Files {
		f := &s.Files[i]
		if len(f.Local) == 0 {
			continue
		}
		complete := p.cfg.Sticky && f.Complete()
		switch {
		case best < 0:
		case complete != bestComplete:
			if complete {
				continue // an incomplete file goes first
			}
		case !p.before(f, &s.Files[best]):
			continue
		}
		best, bestComplete = i, complete
	}
	return Victim{File: best, Block: WholeFile}, best >= 0
}

// aged returns the least accessed file not referred to for the window,
// or -1.
func (p *pacman) aged(s *Snapshot) int {
	if p.cfg.Window <= 0 {
		return -1
	}
	best := -1
	for i := range s.Files {
		f := &s.Files[i]
		if len(f.Local) == 0 || s.Now-f.LastRef < p.cfg.Window {
			continue
		}
		if best < 0 || leastAccessed(f, &s.Files[best]) < 0 {
			best = i
		}
	}
	return best
}

// before reports whether f goes before g under the policy's rule.
func (p *pacman) before(f, g *File) bool {
	if p.cfg.Name == LFUF {
		return leastAccessed(f, g) < 0
	}
	if c := cmp.Compare(p.width(g), p.width(f)); c != 0 {
		return c < 0
	}
	return cmp.Or(cmp.Compare(g.Size, f.Size), cmp.Compare(g.Name, f.Name)) < 0
}

func (p *pacman) width(f *File) float64 {
	if p.cfg.Width == WidthSize {
		return float64(f.Size)
	}
	return f.Width
}

// leastAccessed orders files by accesses, then last reference, then name.
func leastAccessed(f, g *File) int {
	if c := cmp.Compare(f.Accesses, g.Accesses); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(f.LastRef, g.LastRef), cmp.Compare(f.Name, g.Name))
}
