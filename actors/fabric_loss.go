package actors

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"clusteremu/policies/sched"
	"clusteremu/policies/straggler"
)

// Intermediate-data loss ([intermediate_loss]): the fabric serves every
// shuffle fetch, so it decides, at an output's first fetch from a node,
// whether that copy is lost, and fails at once each fetch that reads a
// lost copy, as the fetch of a crashed node's output fails. The draw is
// the copy's own, keyed by the workload seed, the job, the map, the
// attempt that wrote it and the node that holds it, so every run compared
// meets the same losses on the same copies whatever ran before; the
// probability is the node's (straggler.LossProbability: a hot node's, and
// twenty times it within a minute of the node's last loss). The draws of
// an output and of its copy are independent, so both are lost with the
// product of their nodes' probabilities (the thesis's text, erratum 6).

// lossModel is the fabric's state of [intermediate_loss].
type lossModel struct {
	cfg  IntermediateLossConfig
	seed uint64
	hot  []bool
	// fate is when each copy drawn so far was lost, or -1: kept.
	fate map[copyKey]time.Duration
	// last is each node's latest loss, for bursts.
	last map[sched.NodeID]time.Duration
	// episodes is each node's episode chain, under Episodes.
	episodes map[sched.NodeID]*episodeChain
}

// episodeChain is whether a node is in a faulty episode, step by step of
// episodeStep: out of one, it enters with the chance that keeps it in
// for the configured share of its steps; in one, it leaves with the
// chance episodeStep/straggler.BurstWindow, so an episode lasts a
// minute on the mean. The chain draws from the node's own stream, so
// whether the node is in an episode at an instant depends on the seed
// alone.
type episodeChain struct {
	rng  *rand.Rand
	step int64
	in   bool
}

// episodeStep is the step of a node's episode chain.
const episodeStep = 5 * time.Second

// inEpisode reports whether a node is in a faulty episode now; the
// fabric asks at instants that never go back.
func (l *lossModel) inEpisode(node sched.NodeID, now time.Duration) bool {
	e := l.episodes[node]
	if e == nil {
		e = &episodeChain{rng: rand.New(rand.NewPCG(l.seed^0x45504953, uint64(node))), step: -1}
		l.episodes[node] = e
	}
	leave := float64(episodeStep) / float64(straggler.BurstWindow)
	enter := leave * l.cfg.Episodes / (1 - l.cfg.Episodes)
	for k := int64(now / episodeStep); e.step < k; e.step++ {
		if u := e.rng.Float64(); e.in {
			e.in = u >= leave
		} else {
			e.in = u < enter
		}
	}
	return e.in
}

// copyKey names one copy of a map output: the map's attempt's output on
// a node (a replica is another copy).
type copyKey struct {
	job        sched.JobID
	m, attempt int32
	node       sched.NodeID
}

// LoseOutputs has the fabric lose map outputs at their first fetch, as
// cfg says, drawing from seed on a cluster of nodes. Call it before the
// run.
func (f *Fabric) LoseOutputs(cfg IntermediateLossConfig, seed uint64, nodes int) {
	f.loss = &lossModel{
		cfg: cfg, seed: seed, hot: straggler.HotNodes(nodes, cfg.HotNodes, seed),
		fate: make(map[copyKey]time.Duration), last: make(map[sched.NodeID]time.Duration),
		episodes: make(map[sched.NodeID]*episodeChain),
	}
}

// lose reports whether a fetch reads a lost copy and, if so, fails it at
// once, accounted as aborted with nothing delivered.
func (f *Fabric) lose(ctx actor.Context, msg *StartFlow) bool {
	if f.loss == nil || len(msg.Outputs) == 0 {
		return false
	}
	now := f.deps.Clock.Now()
	lost := int32(-1)
	for _, o := range msg.Outputs {
		k := copyKey{msg.Key.Attempt.Job, o.Map, o.Attempt, msg.Src}
		if f.loss.failing(k, now, f.deps.Metrics) && lost < 0 {
			lost = o.Map
		}
	}
	if lost < 0 {
		return false
	}
	f.failAtOnce(ctx, msg, fmt.Sprintf("the output of map %d on node %d is lost", lost, msg.Src), nil)
	return true
}

// failing draws a copy's fate at its first fetch and reports whether a
// fetch of it fails now: a lost copy's always, an unresponsive node's
// for straggler.BurstWindow after the loss.
func (l *lossModel) failing(k copyKey, now time.Duration, m Recorder) bool {
	at, drawn := l.fate[k]
	if !drawn {
		at = l.draw(k, now)
		l.fate[k] = at
		if at >= 0 {
			l.last[k.node] = now
			m.Count(MetricOutputsLost, 1)
		}
	}
	if at < 0 {
		return false
	}
	return l.cfg.Mode == LossLost || now < at+straggler.BurstWindow
}

// draw decides a copy's fate: now when it is lost, -1 when kept.
func (l *lossModel) draw(k copyKey, now time.Duration) time.Duration {
	last, lostBefore := l.last[k.node]
	burst := l.cfg.Burst && lostBefore && now-last < straggler.BurstWindow
	hot := int(k.node) < len(l.hot) && l.hot[k.node]
	p := straggler.LossProbability(l.cfg.Probability, l.cfg.HotNodes, hot, burst)
	if l.cfg.Episodes > 0 {
		p = min(p*straggler.EpisodeFactor(l.cfg.Episodes, l.inEpisode(k.node, now)), 1)
	}
	key := uint64(k.job)<<32 | uint64(uint32(k.m))
	u := rand.New(rand.NewPCG(l.seed^0x4c4f5353^attemptKey(sched.Attempt{Attempt: k.attempt}), key^uint64(k.node)<<20)).Float64()
	if u < p {
		return now
	}
	return -1
}
