package sched

// fakeView is a View over a fixed table, for policy tests.
type fakeView struct {
	jobs  []*JobStatus
	local map[JobID]map[NodeID]Locality // best pending-map locality per node; absent = OffRack
	slots map[TaskKind]int
}

func (v *fakeView) Jobs() []*JobStatus { return v.jobs }

func (v *fakeView) Job(id JobID) *JobStatus {
	for _, j := range v.jobs {
		if j.ID == id {
			return j
		}
	}
	return nil
}

func (v *fakeView) BestLocality(id JobID, kind TaskKind, node NodeID) (Locality, bool) {
	j := v.Job(id)
	if j == nil || j.Pending(kind) == 0 {
		return 0, false
	}
	if kind == Reduce {
		return OffRack, true
	}
	if l, ok := v.local[id][node]; ok {
		return l, true
	}
	return OffRack, true
}

func (v *fakeView) Slots(kind TaskKind) int { return v.slots[kind] }
