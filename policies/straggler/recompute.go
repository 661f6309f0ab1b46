package straggler

import (
	"math/rand/v2"
	"slices"
	"time"
)

// Mantri's recompute avoidance (thesis §3.4; notes §2.2), the decisions
// as pure functions: how likely a node is to lose an output it serves,
// which nodes are the hot few, and when a node's recent losses make it
// suspected, so that every job re-runs its unread outputs there before
// their fetches fail.

// The loss model's constants: the hot nodes take HotShare of the losses,
// and a node that lost an output loses the next ones BurstFactor times as
// often for BurstWindow (notes §1.4, §5.1: half the losses on 5% of the
// nodes, clustered in time).
const (
	HotShare    = 0.5
	BurstFactor = 20
	BurstWindow = time.Minute
)

// LossProbability is the chance that one output a node serves is lost,
// given the cluster's mean per-output probability p, the share of nodes
// that are hot (0: none), whether this node is hot and whether it lost
// an output within BurstWindow. The hot nodes take HotShare of the
// losses: p·HotShare/hot on a hot node, p·(1 − HotShare)/(1 − hot)
// elsewhere, so the mean over the nodes stays p. The result is at most 1.
func LossProbability(p, hot float64, isHot, burst bool) float64 {
	q := p
	if hot > 0 && hot < 1 {
		if isHot {
			q = p * HotShare / hot
		} else {
			q = p * (1 - HotShare) / (1 - hot)
		}
	}
	if burst {
		q *= BurstFactor
	}
	return min(q, 1)
}

// EpisodeFactor is what a node's loss probability is multiplied by when
// its losses come in faulty episodes that take share of its time (below
// 1/BurstFactor): BurstFactor in an episode (in), and
// (1 − BurstFactor·share)/(1 − share) out of one, so its mean over time
// stays its probability.
func EpisodeFactor(share float64, in bool) float64 {
	if in {
		return BurstFactor
	}
	return (1 - BurstFactor*share) / (1 - share)
}

// HotNodes picks ⌈share × nodes⌉ of nodes (none when share is 0), the
// same ones for the same seed, and marks them in the result, by node.
func HotNodes(nodes int, share float64, seed uint64) []bool {
	hot := make([]bool, nodes)
	k := int(share*float64(nodes) + 0.999999999)
	if share <= 0 || nodes == 0 {
		return hot
	}
	perm := rand.New(rand.NewPCG(seed, 0x484f54)).Perm(nodes)
	for _, n := range perm[:min(k, nodes)] {
		hot[n] = true
	}
	return hot
}

// Suspected reports whether a node whose outputs were lost at the given
// instants (any order) is suspected at now: trigger of them fall within
// the window that ends at now, (now − window, now]. Mantri's trigger is
// 2 within a minute, which the thesis finds right 93% of the time against
// 76% for 1.
func Suspected(losses []time.Duration, now, window time.Duration, trigger int) bool {
	n := 0
	for _, at := range losses {
		if at > now-window && at <= now {
			n++
		}
	}
	return trigger > 0 && n >= trigger
}

// RecentLosses drops the instants of losses at or before now − window,
// which no later suspicion can count, and appends now: a node's history
// stays as long as its losses within one window.
func RecentLosses(losses []time.Duration, now, window time.Duration) []time.Duration {
	losses = slices.DeleteFunc(losses, func(at time.Duration) bool { return at <= now-window })
	return append(losses, now)
}

// LossWeight is the weight of each output in a node's loss estimate
// (LossEWMA): about the last hundred outputs count. PriorLoss is the
// estimate before a node has produced any.
const (
	LossWeight = 0.01
	PriorLoss  = 0.01
)

// LossEWMA moves a node's estimate r_m of the share of its outputs lost
// by one output: towards 1 for an output lost, towards 0 for one
// produced. A node that produces n outputs and loses k of them ends near
// k/n: a node's loss probability estimated over a long period.
func LossEWMA(r float64, lost bool) float64 {
	x := 0.0
	if lost {
		x = 1
	}
	return (1-LossWeight)*r + LossWeight*x
}

// ShouldReplicate is Mantri's rule for copying a finished task's output
// of bytes to a rack-mate (the thesis's text, erratum 7: the expected
// cost to recompute against the cost to copy): the copy's time at the
// rack-local rate nic (bytes/s) is below r · tRedo, the output's loss
// probability times the time to make it again, and the job's tokens (in
// bytes) cover it.
func ShouldReplicate(bytes int64, nic, r float64, tRedo time.Duration, tokens float64) bool {
	if bytes <= 0 || nic <= 0 || float64(bytes) > tokens {
		return false
	}
	tRep := float64(bytes) / nic
	return tRep < r*tRedo.Seconds()
}
