package sched

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestView is a fakeView that tells jobs' map requests.
type requestView struct {
	*fakeView
	locations map[JobID]int
	nodes     int
}

func (v requestView) Locations(id JobID) int { return v.locations[id] }
func (v requestView) Nodes() int             { return v.nodes }

// offer asks p for a map slot of the node: the locality it may launch at,
// or false.
func offer(t *testing.T, p Policy, v View, node NodeID) (Locality, bool) {
	t.Helper()
	a, ok := p.Assign(time.Minute, v, Slot{Node: node, Kind: Map})
	return a.MaxLocality, ok
}

// With node_locality_delay 3, a job of 5 pending maps whose requests name
// 4 of the 10 nodes and racks (a wait factor of 0.4) takes a node-local
// map at once, passes up a rack-local node until more than 2 = 5 × 0.4
// opportunities have gone by, then may place anywhere (the count is
// kept), and rack-local once more than 3 have.
func TestCapacityDelaysForLocalityAsYARN(t *testing.T) {
	p, err := New("capacity", &CapacityParams{Queues: []CapacityQueue{{Name: DefaultQueue, Capacity: 100}}, NodeLocalityDelay: 3}, Shape{})
	require.NoError(t, err)
	j := status(1, Normal, 0, 5, 1)
	p.Submitted(0, j.Job)
	fv := &fakeView{jobs: []*JobStatus{j}, slots: map[TaskKind]int{Map: 40, Reduce: 20},
		local: map[JobID]map[NodeID]Locality{1: {1: NodeLocal, 2: RackLocal}}}
	v := requestView{fv, map[JobID]int{1: 4}, 10}

	var got []any
	for range 5 {
		loc, ok := offer(t, p, v, 2)
		got = append(got, ok, loc)
	}
	assert.Equal(t, []any{false, Locality(0), false, Locality(0), true, OffRack, true, RackLocal, false, Locality(0)}, got,
		"passed up twice, then anywhere (no reset), then rack-local (reset), then passed up again")
	loc, ok := offer(t, p, v, 1)
	assert.True(t, ok)
	assert.Equal(t, NodeLocal, loc, "node-local at once")

	// A reduce names no location: anywhere at once.
	a, ok := p.Assign(time.Minute, v, Slot{Node: 2, Kind: Reduce})
	assert.True(t, ok)
	assert.Equal(t, OffRack, a.MaxLocality)

	// Its requests naming every node (a factor of 1), a job of 5 pending
	// maps on a node it has nothing near waits out 5 opportunities.
	v.locations[1] = 20
	var passed int
	for {
		if _, ok := offer(t, p, v, 7); ok {
			break
		}
		passed++
	}
	assert.Equal(t, 5, passed)
}
