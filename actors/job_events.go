package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
)

// MapEvents is one node's share of a job manager's batch of map news
// (tasks.map_events_every): for each of the job's reduce attempts on the
// node, in the order the job manager made them, the news it would have
// had as a MapOutputs. News is the batch's, shared by every node's message.
type MapEvents struct {
	News  []MapNews
	Items []NewsItem
}

// MapNews is one announcement of a batch: outputs to fetch, outputs lost.
type MapNews struct {
	Outputs []MapOutput
	Lost    []int32
}

// NewsItem tells a reduce attempt the batch's News[News].
type NewsItem struct {
	Reduce sched.Attempt
	News   int32
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
// its launch, goes at once (the poller's first call). A cloned job's
// bindings of copies to reducers join the batch too: sent at once, a
// binding could overtake a loss of the same map still in the batch, and
// the reducer would forget the copy it was just told of. A job with one
// reducer a node sends as many messages as without batching when its maps
// end an interval or more apart; a wide job's shuffle, a message a reducer
// for each map, becomes one a node an interval.
type mapEvents struct {
	every time.Duration
	news  []MapNews
	// nodes are the nodes with news since the last flush, in the order
	// they first had some, and at their index in the node table.
	nodes []nodeEvents
	at    map[sched.NodeID]int
	timer TimerID // the flush due; 0: none
}

type nodeEvents struct {
	node  sched.NodeID
	items []NewsItem
}

func newMapEvents(every time.Duration) *mapEvents {
	return &mapEvents{every: every, at: make(map[sched.NodeID]int)}
}

// announce tells reducers of outputs and losses: each relayed now, or one
// announcement of the batch with an item a reducer, arming the flush, when
// the job batches and the news is not a launch's.
func (m *JobManager) announce(ctx actor.Context, reducers []attemptRef, outs []MapOutput, lost []int32, launch bool) {
	ev := m.events
	if ev == nil || launch {
		for _, r := range reducers {
			m.dir.relay(ctx, r.Node, &MapOutputs{Reduce: r.Attempt, Outputs: outs, Lost: lost})
		}
		return
	}
	if len(reducers) == 0 {
		return
	}
	news := int32(len(ev.news))
	ev.news = append(ev.news, MapNews{Outputs: outs, Lost: lost})
	for _, r := range reducers {
		i, ok := ev.at[r.Node]
		if !ok {
			i = len(ev.nodes)
			ev.at[r.Node] = i
			ev.nodes = append(ev.nodes, nodeEvents{node: r.Node})
		}
		ev.nodes[i].items = append(ev.nodes[i].items, NewsItem{Reduce: r.Attempt, News: news})
	}
	if ev.timer == 0 {
		ev.timer = m.deps.Clock.After(ev.every, ctx.Self(), &mapEventsDue{})
	}
}

// flushEvents sends each node with news its MapEvents.
func (m *JobManager) flushEvents(ctx actor.Context) {
	ev := m.events
	ev.timer = 0
	for _, n := range ev.nodes {
		m.dir.relay(ctx, n.node, &MapEvents{News: ev.news, Items: n.items})
	}
	clear(ev.at)
	ev.nodes = ev.nodes[:0]
	ev.news = nil // the messages share it
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
	ev.nodes, ev.news = nil, nil
}
