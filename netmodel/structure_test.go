package netmodel

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStructureParkedFlowKeepsFastPath: a flow stalled alone on a link of
// capacity 0 is parked, so the flows elsewhere still re-solve on the
// structure; raising the capacity fills and gives it its rate.
func TestStructureParkedFlowKeepsFastPath(t *testing.T) {
	n, err := NewNetwork(DefaultConfig())
	require.NoError(t, err)
	cut, _ := n.AddLink(0)
	shared, _ := n.AddLink(100)
	stalled, err := n.Start(0, FlowSpec{Size: 1000, Path: []LinkID{cut}})
	require.NoError(t, err)
	_, err = n.Start(0, FlowSpec{Size: 1000, Path: []LinkID{shared}})
	require.NoError(t, err)
	n.Solve()
	_, err = n.Start(0, FlowSpec{Size: 1000, Path: []LinkID{shared}})
	require.NoError(t, err)
	n.Solve()
	require.Equal(t, int64(1), n.Stats().Structural, "the second flow on the shared link re-solves on the structure")
	require.NoError(t, checkStructure(n))
	require.NoError(t, n.SetCapacity(0, cut, 10))
	r, err := n.Rate(stalled)
	require.NoError(t, err)
	require.Equal(t, 10.0, r)
	require.NoError(t, checkInvariants(n))
	require.NoError(t, checkStructure(n))
}
