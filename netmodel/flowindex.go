package netmodel

// flowIndex maps a live flow's ID to its slot. IDs are handed out in
// increasing order, so it keeps them in pages of consecutive IDs, indexed
// by ID: a lookup is two index operations, where a map would hash. A page
// is dropped when its last flow ends, so memory follows the flows alive
// (at most a page each, 1 KiB) and the span of IDs between the oldest and
// the newest (a pointer a page), not the run's length.
type flowIndex struct {
	first int64       // page number of pages[0]
	pages []*flowPage // nil where every flow of the page has ended
	spare []*flowPage // dropped pages, for reuse
}

const (
	flowPageBits = 8
	flowPageSize = 1 << flowPageBits
	// maxSparePages bounds the dropped pages kept for reuse (1 MiB).
	maxSparePages = 1024
)

type flowPage struct {
	slots [flowPageSize]int32 // slot+1; 0 when the ID names no live flow
	live  int32
}

// at returns the page holding id and id's place in it, or nil.
func (x *flowIndex) at(id FlowID) (*flowPage, int) {
	p := int64(id)>>flowPageBits - x.first
	if p < 0 || p >= int64(len(x.pages)) {
		return nil, 0
	}
	return x.pages[p], int(id & (flowPageSize - 1))
}

// get returns id's slot and whether id names a live flow.
func (x *flowIndex) get(id FlowID) (int32, bool) {
	pg, i := x.at(id)
	if pg == nil || pg.slots[i] == 0 {
		return 0, false
	}
	return pg.slots[i] - 1, true
}

// put records id's slot; id has no slot yet and is above every ID put
// before (Start hands them out in increasing order), so its page is at or
// past the first kept.
func (x *flowIndex) put(id FlowID, slot int32) {
	pn := int64(id) >> flowPageBits
	if len(x.pages) == 0 {
		x.first = pn
	}
	for pn-x.first >= int64(len(x.pages)) {
		x.pages = append(x.pages, nil)
	}
	p := pn - x.first
	if x.pages[p] == nil {
		x.pages[p] = x.newPage()
	}
	pg := x.pages[p]
	pg.slots[id&(flowPageSize-1)] = slot + 1
	pg.live++
}

// del forgets id, dropping its page when no flow of it is left.
func (x *flowIndex) del(id FlowID) {
	pg, i := x.at(id)
	if pg == nil || pg.slots[i] == 0 {
		return
	}
	pg.slots[i] = 0
	if pg.live--; pg.live > 0 {
		return
	}
	x.pages[int64(id)>>flowPageBits-x.first] = nil
	if len(x.spare) < maxSparePages {
		x.spare = append(x.spare, pg)
	}
	for len(x.pages) > 0 && x.pages[0] == nil {
		x.pages = x.pages[1:]
		x.first++
	}
}

func (x *flowIndex) newPage() *flowPage {
	if n := len(x.spare); n > 0 {
		pg := x.spare[n-1]
		x.spare = x.spare[:n-1]
		return pg // all its slots are 0 again
	}
	return new(flowPage)
}
