package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// MapEvents is one node's share of a job manager's batch of map news
// (tasks.map_events_every): the MapOutputs for the job's reduce attempts
// on the node, in the order the job manager made them. The node handles
// each as if it had come alone.
type MapEvents struct {
	Items []*MapOutputs
}

// mapEventsDue is the end of a batch's interval.
type mapEventsDue struct{}

// mapEvents batches a job's news of finished maps and lost outputs for its
// running reducers (tasks.map_events_every): what would go to each reducer
// as a map ends waits for the interval's end, then goes to each node as one
// MapEvents. Hadoop's reducers learn of finished maps by polling for
// completion events (Hadoop 2's event fetcher asks its application master
// once a second while nothing new comes; Hadoop 1's task trackers poll the
// job tracker), so a reducer hears of a map up to an interval late; here
// the whole job's reducers hear at the same instants. Only the news of
// maps that end while reducers run is batched: a reducer's first news, at
// its launch, goes at once (the poller's first call), as do a cloned
// job's bindings. A job with one reducer a node sends as many messages as
// without batching when its maps end an interval or more apart; a wide
// job's shuffle, a message a reducer for each map, becomes one a node an
// interval.
type mapEvents struct {
	every time.Duration
	// nodes are the nodes with news since the last flush, in the order
	// they first had some, and at their index in the node table.
	nodes []nodeEvents
	at    map[sched.NodeID]int
	timer TimerID // the flush due; 0: none
}

type nodeEvents struct {
	node  sched.NodeID
	items []*MapOutputs
}

func newMapEvents(every time.Duration) *mapEvents {
	return &mapEvents{every: every, at: make(map[sched.NodeID]int)}
}

// tell relays a reduce attempt's news now, or adds it to the batch and
// arms the flush when the job batches and the news is not a launch's.
func (m *JobManager) tell(ctx actor.Context, node sched.NodeID, msg *MapOutputs, now bool) {
	ev := m.events
	if ev == nil || now {
		m.dir.relay(ctx, node, msg)
		return
	}
	i, ok := ev.at[node]
	if !ok {
		i = len(ev.nodes)
		ev.at[node] = i
		ev.nodes = append(ev.nodes, nodeEvents{node: node})
	}
	ev.nodes[i].items = append(ev.nodes[i].items, msg)
	if ev.timer == 0 {
		ev.timer = m.deps.Clock.After(ev.every, ctx.Self(), &mapEventsDue{})
	}
}

// flushEvents sends each node with news its MapEvents.
func (m *JobManager) flushEvents(ctx actor.Context) {
	ev := m.events
	ev.timer = 0
	for _, n := range ev.nodes {
		m.dir.relay(ctx, n.node, &MapEvents{Items: n.items})
	}
	clear(ev.at)
	ev.nodes = ev.nodes[:0]
}

// dropEvents forgets the batch when the job ends: its reducers are gone.
func (m *JobManager) dropEvents() {
	ev := m.events
	if ev == nil {
		return
	}
	if ev.timer != 0 {
		m.deps.Clock.Cancel(ev.timer)
		ev.timer = 0
	}
	clear(ev.at)
	ev.nodes = nil
}
