package actors

import (
	"fmt"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// A job's side of Dolly's access modes ([cloning] access): which copy of
// each cloned map's output each reduce clone reads. Every successful copy
// of a map keeps its output; the first to succeed finishes the map, and
// under "cac" and "delay" the others run on while a reduce clone may be
// bound to them. Each reduce attempt holds a slot (0 for the original, 1
// for its first clone, …), and slot s of every reduce reads the copy the
// map's straggler.Binding binds to s, so no reduce clone reads two copies
// of a map. Under "cc" the first copy binds every slot and the others are
// killed at once, as for an uncloned map, and this state is not used.

// ReasonCopyUnbound is why a cloned map's copy is killed once every
// reduce clone is bound to another copy of the map.
const ReasonCopyUnbound = "every reduce clone reads another copy of its map"

// jobAccess is a job's access state, nil without [cloning].
type jobAccess struct {
	mode straggler.Access
	// copies is the map phase's copies (ClonesAdmitted), below 2 when
	// its maps were not cloned, and cloned its maps cloned, those
	// numbered below (all unless admission "fcfs" cloned the phase
	// partly); need the reduce phase's copies, once known.
	copies, need int
	cloned       int32
	omega        time.Duration
	maps         map[int32]*mapCopies
	slotOf       map[sched.Attempt]int
	// readOf is, for each reduce attempt told of a copy, the attempt of
	// each map whose copy it reads, plus one (0: none yet), to check
	// that no reduce clone reads two copies of a map.
	readOf map[sched.Attempt][]int32
}

// mapCopies is a cloned map's binding and its finished copies' outputs,
// in finish order.
type mapCopies struct {
	straggler.Binding
	outs []mapOutput
}

// told is a reduce attempt's news of the copies bound to its slot, and
// of the maps whose copy it read was lost, to forget first.
type told struct {
	ref  attemptRef
	outs []mapOutput
	lost []int32
}

func newJobAccess(mode straggler.Access) *jobAccess {
	return &jobAccess{mode: mode, maps: make(map[int32]*mapCopies), slotOf: make(map[sched.Attempt]int),
		readOf: make(map[sched.Attempt][]int32)}
}

// tracks reports whether the job's map copies are bound one by one: its
// maps were cloned, a reduce reads them, and the mode is not CC.
func (j *jobState) tracks() bool {
	ac := j.access
	return ac != nil && ac.mode != straggler.AccessCC && ac.copies >= 2 && len(j.reduces) > 0
}

// tracksMap reports whether map m's copies are bound one by one: the job
// tracks its maps' copies and m was cloned. An uncloned map of a partly
// cloned phase has one output, which every reduce clone reads.
func (j *jobState) tracksMap(m int32) bool {
	return j.tracks() && m < j.access.cloned
}

// slots is the reduce clones each map's binding serves.
func (ac *jobAccess) slots() int {
	if ac.need > 0 {
		return ac.need
	}
	return ac.copies
}

// binding is map m's binding, made at its first copy's success.
func (ac *jobAccess) binding(m int32) *mapCopies {
	mc := ac.maps[m]
	if mc == nil {
		mc = &mapCopies{Binding: straggler.NewBinding(ac.slots())}
		ac.maps[m] = mc
	}
	return mc
}

// takeSlot gives a reduce attempt the lowest slot no running attempt of
// its task holds; one past the clones reads as the original does.
func (j *jobState) takeSlot(a sched.Attempt, tk *task) int {
	ac := j.access
	used := make([]bool, max(ac.slots(), 1))
	for att := range tk.running {
		if s, ok := ac.slotOf[sched.Attempt{Job: a.Job, Kind: a.Kind, Task: a.Task, Attempt: att}]; ok && s < len(used) {
			used[s] = true
		}
	}
	slot := max(slices.Index(used, false), 0)
	ac.slotOf[a] = slot
	return slot
}

// outputFor is the copy of map i the reduce slot reads: the map's output
// when it is not bound copy by copy, false while the slot is unbound.
func (j *jobState) outputFor(i int32, slot int) (mapOutput, bool) {
	t := &j.maps[i]
	mc := j.access.maps[i]
	if mc == nil {
		return mapOutput{i, t.output, t.outBytes, t.outAtt, t.replicas}, true
	}
	if slot >= len(mc.Bound) {
		slot = 0
	}
	if slot >= len(mc.Bound) || mc.Bound[slot] < 0 {
		return mapOutput{}, false
	}
	return mc.outs[mc.Bound[slot]], true
}

// reduceLaunched tells a new reduce attempt the copies bound to its slot.
func (j *jobState) reduceLaunched(a sched.Attempt, node sched.NodeID, tk *task) effects {
	slot := j.takeSlot(a, tk)
	var outs []mapOutput
	for i := range j.maps {
		if j.maps[i].state != taskDone {
			continue
		}
		if out, ok := j.outputFor(int32(i), slot); ok {
			outs = append(outs, out)
		}
	}
	if len(outs) == 0 {
		return effects{} // its slot is bound to no copy yet
	}
	return effects{told: []told{{ref: attemptRef{a, node}, outs: outs}}, launch: true}
}

// copySucceeded books a copy of a tracked map that succeeded: the first
// finishes the map; each binds the slots the mode gives it, and the
// running reducers of those slots are told. Once every slot is bound the
// copies still running are killed.
func (j *jobState) copySucceeded(a sched.Attempt, tk *task, node sched.NodeID, outBytes int64) effects {
	var fx effects
	first := tk.state != taskDone
	if first {
		tk.state = taskDone
		tk.output, tk.outBytes, tk.outAtt, tk.replicas = node, outBytes, a.Attempt, nil
		j.mapsDone++
		fx.mapsFinished = j.mapsDone == len(j.maps)
		fx.requeueReduces = j.maybeRelease()
		fx.release = len(fx.requeueReduces) > 0
		if j.access.mode == straggler.AccessDelay {
			fx.omega = []int32{a.Task}
		}
	}
	mc := j.access.binding(a.Task)
	mc.outs = append(mc.outs, mapOutput{a.Task, node, outBytes, a.Attempt, nil})
	j.tell(&fx, a.Task, mc.Finished(j.access.mode))
	if len(tk.running) == 0 && j.access.mode != straggler.AccessDelay {
		// No copy is left to wait for. Under delay ω decides: a clone
		// the coordinator launched before it heard of this copy may
		// still come, and finish within it.
		j.tell(&fx, a.Task, mc.Expire())
	}
	j.maybeCloseCopies(&fx, a.Task, tk)
	if first {
		fx.ended = j.maybeEnd()
	}
	return fx
}

// bindingOpen reports whether done map m's binding may still bind a copy
// not yet finished: a slot is unbound and, under delay, ω has not passed.
func (j *jobState) bindingOpen(m int32) bool {
	if !j.tracks() {
		return false
	}
	mc := j.access.maps[m]
	return mc != nil && !mc.Closed
}

// tell has the running reducers of the slots just bound read map m's
// copy bound to their slot.
func (j *jobState) tell(fx *effects, m int32, slots []int) {
	j.tellForgetting(fx, m, slots, nil)
}

// tellForgetting is tell with the maps (lost) each reducer told forgets
// first: a copy bound again after the one it read was lost.
func (j *jobState) tellForgetting(fx *effects, m int32, slots []int, lost []int32) {
	if len(slots) == 0 {
		return
	}
	for _, r := range j.runningReducers() {
		slot := j.access.slotOf[r.Attempt]
		if !slices.Contains(slots, slot) {
			continue
		}
		if out, ok := j.outputFor(m, slot); ok {
			fx.told = append(fx.told, told{ref: r, outs: []mapOutput{out}, lost: lost})
		}
	}
}

// dropCopiesOn books the finished copies of cloned maps on a lost node
// as gone. A map with a finished copy left stays done: its output moves
// there when the node held the first, and the reduce clones whose slot
// read a lost copy forget it and read the copy bound in its place. A map
// with none left is lost, and made again, as an uncloned map is
// (loseOutputs).
func (j *jobState) dropCopiesOn(fx *effects, node sched.NodeID) {
	if !j.tracks() {
		return
	}
	for i := range j.maps {
		m, tk := int32(i), &j.maps[i]
		mc := j.access.maps[m]
		if mc == nil || tk.state != taskDone {
			continue
		}
		left := true
		for k, o := range mc.outs {
			if o.Node != node || mc.Lost(k) {
				continue
			}
			var slots []int
			slots, left = mc.Drop(k)
			j.tellForgetting(fx, m, slots, []int32{m})
		}
		if left && tk.output == node {
			for k, o := range mc.outs {
				if !mc.Lost(k) {
					tk.output, tk.outBytes, tk.outAtt, tk.replicas = o.Node, o.Bytes, o.Attempt, nil
					break
				}
			}
		}
	}
}

// maybeCloseCopies kills a done map's running copies once its binding
// needs no more.
func (j *jobState) maybeCloseCopies(fx *effects, m int32, tk *task) {
	if mc := j.access.maps[m]; mc == nil || !mc.Closed {
		return
	}
	for _, att := range sortedAttempts(nil, tk.running) {
		fx.unbound = append(fx.unbound, attemptRef{sched.Attempt{Job: j.id, Kind: sched.Map, Task: m, Attempt: att}, tk.running[att]})
	}
}

// copyEnded binds a done map's unbound slots to its least-read copy when
// its last running copy ended without finishing: none is left to wait
// for.
func (j *jobState) copyEnded(fx *effects, a sched.Attempt, tk *task) {
	if a.Kind == sched.Reduce {
		delete(j.access.slotOf, a)
		delete(j.access.readOf, a)
		return
	}
	if mc := j.access.maps[a.Task]; mc != nil && tk.state == taskDone && len(tk.running) == 0 {
		j.tell(fx, a.Task, mc.Expire())
	}
}

// omegaExpired is delay assignment's ω after map m's first copy: its
// unbound slots read the least-read copy, and its unfinished copies are
// killed.
func (j *jobState) omegaExpired(m int32) effects {
	var fx effects
	mc := j.access.maps[m]
	if mc == nil || m < 0 || int(m) >= len(j.maps) || j.maps[m].state != taskDone {
		return fx
	}
	j.tell(&fx, m, mc.Expire())
	j.maybeCloseCopies(&fx, m, &j.maps[m])
	return fx
}

// reduceCopiesKnown bounds every binding to the reduce phase's clones,
// its admission known, and kills the copies no longer needed.
func (j *jobState) reduceCopiesKnown(n int) effects {
	var fx effects
	ac := j.access
	if ac == nil || !j.tracks() {
		return fx
	}
	ac.need = max(min(n, ac.copies), 1)
	for i := range j.maps {
		if mc := ac.maps[int32(i)]; mc != nil && !mc.Closed {
			mc.Need(ac.need)
			j.maybeCloseCopies(&fx, int32(i), &j.maps[i])
		}
	}
	return fx
}

// copyOn reports whether a finished copy of map m not lost is on node.
func (j *jobState) copyOn(m int32, node sched.NodeID) bool {
	if j.access == nil {
		return false
	}
	if mc := j.access.maps[m]; mc != nil {
		for k, o := range mc.outs {
			if o.Node == node && !mc.Lost(k) {
				return true
			}
		}
	}
	return false
}

// omegaDue is the end of delay assignment's ω for a map.
type omegaDue struct {
	Map int32
}

// accessAdmitted books a cloned phase for the job's access: the maps'
// copies, the maps cloned and ω, or the reduces' clones, which bound the
// bindings.
func (j *jobState) accessAdmitted(msg *ClonesAdmitted) effects {
	ac := j.access
	if ac == nil {
		return effects{}
	}
	if msg.Kind == sched.Map {
		ac.copies, ac.cloned, ac.omega = msg.Copies, int32(msg.Tasks), msg.Omega
		return effects{}
	}
	return j.reduceCopiesKnown(msg.Copies)
}

// cloneSamples is what a job measures for delay assignment's ω: when
// each cloned map's first copy succeeded, the gap to its second, and
// each finished reduce's input and time held.
type cloneSamples struct {
	first   map[int32]time.Duration
	gaps    map[int32]time.Duration
	reduces []ReduceMeasured
}

// sampleClones books a succeeded attempt; finished tells whether it
// finished its task.
func (m *JobManager) sampleClones(msg *TaskFinished, finished bool) {
	if !m.measureClones || !m.state.tracks() || msg.Attempt.Kind == sched.Map && !m.state.tracksMap(msg.Attempt.Task) {
		return
	}
	cs := m.clonesSeen
	if cs == nil {
		cs = &cloneSamples{first: make(map[int32]time.Duration), gaps: make(map[int32]time.Duration)}
		m.clonesSeen = cs
	}
	now, a := m.deps.Clock.Now(), msg.Attempt
	switch {
	case a.Kind == sched.Map && finished:
		cs.first[a.Task] = now
	case a.Kind == sched.Map:
		if at, ok := cs.first[a.Task]; ok {
			if _, seen := cs.gaps[a.Task]; !seen {
				cs.gaps[a.Task] = now - at
			}
		}
	case finished:
		cs.reduces = append(cs.reduces, ReduceMeasured{Bytes: m.reduceBytes(), Held: now - msg.Start, Node: msg.Node})
	}
}

// reduceBytes is a reduce's share of the job's shuffle, at even cuts.
func (m *JobManager) reduceBytes() int64 {
	return m.spec.ShuffleBytes / int64(max(len(m.state.reduces), 1))
}

// sendClonesMeasured gives the coordinator the job's samples at its end,
// maps in order, a map whose second copy never succeeded with gap -1.
func (m *JobManager) sendClonesMeasured(ctx actor.Context) {
	cs := m.clonesSeen
	if cs == nil || len(cs.reduces) == 0 {
		return
	}
	msg := &ClonesMeasured{Job: m.id, Maps: len(m.state.maps), Reduces: cs.reduces}
	for i := range m.state.maps {
		if _, ok := cs.first[int32(i)]; !ok {
			continue
		}
		gap, ok := cs.gaps[int32(i)]
		if !ok {
			gap = -1
		}
		msg.Gaps = append(msg.Gaps, gap)
	}
	ctx.Send(m.coordinator, msg)
}

// checkReads books the copies an effect tells reduce attempts to read,
// after the outputs it says were lost, and fails if it would have a
// reduce attempt read a second copy of a map.
func (j *jobState) checkReads(fx *effects) error {
	ac := j.access
	if ac == nil || len(fx.told) == 0 && len(fx.lost) == 0 {
		return nil
	}
	for _, reads := range ac.readOf {
		for _, m := range fx.lost {
			reads[m] = 0
		}
	}
	for _, t := range fx.told {
		reads := ac.readOf[t.ref.Attempt]
		if reads == nil {
			reads = make([]int32, len(j.maps))
			ac.readOf[t.ref.Attempt] = reads
		}
		for _, m := range t.lost {
			reads[m] = 0
		}
		for _, o := range t.outs {
			if was := reads[o.Map]; was != 0 && was != o.Attempt+1 {
				return fmt.Errorf("reduce %v reads map %d's copy %d after its copy %d", t.ref.Attempt, o.Map, o.Attempt, was-1)
			}
			reads[o.Map] = o.Attempt + 1
		}
	}
	return nil
}
