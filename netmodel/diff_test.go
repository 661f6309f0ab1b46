package netmodel

import (
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// diffSeeds is the number of random cases TestDifferential runs:
// 2,000 by default, NETMODEL_DIFF_SEEDS to change it (e.g. 100000 for a
// long soak).
func diffSeeds(t *testing.T) int {
	if s := os.Getenv("NETMODEL_DIFF_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "NETMODEL_DIFF_SEEDS")
		return n
	}
	if testing.Short() {
		return 200
	}
	return 2000
}

// randCapacity is mostly a capacity between 1 kB/s and 1 GB/s, spread
// over six decades, sometimes 0 (a cut link).
func randCapacity(r *rand.Rand) float64 {
	if r.Intn(12) == 0 {
		return 0
	}
	return math.Round(math.Pow(10, 3+6*r.Float64()))
}

func randSpec(r *rand.Rand, links, classes int) FlowSpec {
	weights := []float64{0, 1, 2, 0.5, 3.7, MinWeight, 10}
	k := 1 + r.Intn(min(4, links))
	path := make([]LinkID, 0, k)
	for _, l := range r.Perm(links)[:k] {
		path = append(path, LinkID(l))
	}
	size := int64(1 + r.Intn(1<<20))
	if r.Intn(20) == 0 {
		size = 0
	}
	return FlowSpec{Size: size, Path: path, Weight: weights[r.Intn(len(weights))], Class: r.Intn(classes), Owner: r.Uint64(), Use: randUse(r, k)}
}

// randUse is mostly nil (1 on every link), sometimes a use per link from
// the bounds to a CPU cost per byte's thousands.
func randUse(r *rand.Rand, hops int) []float64 {
	if r.Intn(4) != 0 {
		return nil
	}
	uses := []float64{1, 0.5, 3, 953.7, MinUse, 1e-3, 40, 7e6}
	use := make([]float64, hops)
	for i := range use {
		use[i] = uses[r.Intn(len(uses))]
	}
	return use
}

// runRandomCase drives one seeded random network through events, checking
// after every one.
func runRandomCase(t *testing.T, seed int64) Stats {
	r := rand.New(rand.NewSource(seed))
	caps := make([]float64, 1+r.Intn(10))
	for i := range caps {
		caps[i] = randCapacity(r)
	}
	cfg := DefaultConfig()
	if r.Intn(4) == 0 {
		cfg.CompletionWindow = time.Duration(r.Intn(1e6))
	}
	return runCase(t, seed, r, cfg, caps).n.Stats()
}

// runCase drives one network through the seed's random events.
func runCase(t *testing.T, seed int64, r *rand.Rand, cfg Config, caps []float64) *driver {
	d, err := newDriver(cfg, caps)
	require.NoError(t, err)
	classes := 1 + int(seed%3) // one class in a third of the cases: the threshold rule applies there
	for range 10 + r.Intn(40) {
		switch op := r.Intn(20); {
		case op < 8:
			err = d.start(randSpec(r, len(caps), classes))
		case op < 11:
			err = d.cancel(r.Intn(1 << 10))
		case op < 13:
			err = d.setCapacity(LinkID(r.Intn(len(caps))), randCapacity(r))
		case op < 18:
			err = d.advance(0)
		default:
			err = d.advance(time.Duration(1 + r.Intn(1e9)))
		}
		require.NoError(t, err, "seed %d after %d events", seed, d.events)
	}
	for d.n.NumFlows() > 0 {
		if _, ok := d.n.NextCompletion(); !ok {
			break // the rest is stalled
		}
		require.NoError(t, d.advance(0), "seed %d draining", seed)
	}
	return d
}

// TestDifferential runs the incremental solver against referenceRates on
// thousands of random networks and event sequences.
func TestDifferential(t *testing.T) {
	var st Stats
	for seed := range int64(diffSeeds(t)) {
		s := runRandomCase(t, seed)
		st.Solves += s.Solves
		st.Structural += s.Structural
	}
	t.Logf("%d re-solves, %d on the bottleneck structure", st.Solves, st.Structural)
	require.Positive(t, st.Structural, "no re-solve took the structure's fast path")
}

// TestDifferentialTopology does the same on random rack topologies with
// the Topology's paths, where components are large and shared uplinks
// couple racks.
func TestDifferentialTopology(t *testing.T) {
	seeds := max(1, diffSeeds(t)/10)
	var direct, solves, structural int64
	for seed := range int64(seeds) {
		r := rand.New(rand.NewSource(seed))
		n, err := NewNetwork(DefaultConfig())
		require.NoError(t, err)
		spec := TopologySpec{
			Racks: 1 + r.Intn(4), HostsPerRack: 1 + r.Intn(4),
			DiskRead: 100e6, DiskWrite: 80e6, NICUp: 125e6, NICDown: 125e6, Memory: 1e9,
			Oversubscription: 1 + 4*r.Float64(), Core: 1e9 * r.Float64(),
		}
		randRef := func() LinkRef {
			return LinkRef{Kind: LinkKind(r.Intn(int(CoreLink) + 1)), Host: HostID(r.Intn(spec.Racks * spec.HostsPerRack)), Rack: r.Intn(spec.Racks)}
		}
		for range r.Intn(3) {
			spec.Dead = append(spec.Dead, randRef()) // links down from the start
		}
		topo, err := BuildTopology(n, spec)
		require.NoError(t, err)
		// Bound links, as the fabric gives flows with a MaxRate and
		// computes: a flow crossing one alone may be started and ended
		// without a re-solve (direct.go).
		var bounds []LinkID
		for range 8 {
			l, err := n.AddLink(math.Round(math.Pow(10, 5+4*r.Float64())))
			require.NoError(t, err)
			bounds = append(bounds, l)
		}
		d, err := newDriver(DefaultConfig(), nil)
		require.NoError(t, err)
		d.n = n
		d.carried = make([]int64, n.NumLinks())
		for range 60 {
			src, dst := HostID(r.Intn(topo.NumHosts())), HostID(r.Intn(topo.NumHosts()))
			kind := TransferKind(r.Intn(len(kindNames)))
			path, perr := topo.Path(src, dst, kind)
			switch {
			case perr != nil:
				continue
			case r.Intn(8) == 0:
				// A link goes down, comes back or changes.
				if l, lerr := topo.Link(randRef()); lerr == nil {
					err = d.setCapacity(l, randCapacity(r))
				}
			case r.Intn(3) == 0:
				err = d.advance(0)
			default:
				fs := FlowSpec{Size: 1 + r.Int63n(1e9), Path: path, Class: r.Intn(2)}
				if r.Intn(2) == 0 {
					fs.Path = append(fs.Path, bounds[r.Intn(len(bounds))])
					fs.Use = randUse(r, len(fs.Path))
				}
				err = d.start(fs)
			}
			require.NoError(t, err, "seed %d", seed)
		}
		for d.n.NumFlows() > 0 {
			if _, ok := d.n.NextCompletion(); !ok {
				break // the rest is stalled on a link that is down
			}
			require.NoError(t, d.advance(0), "seed %d draining", seed)
		}
		direct += n.Stats().Direct
		solves += n.Stats().Solves
		structural += n.Stats().Structural
	}
	t.Logf("%d re-solves, %d on the bottleneck structure", solves, structural)
	require.Positive(t, structural, "no re-solve took the structure's fast path")
	require.Positive(t, direct, "no start or end was applied directly: the cases miss direct.go")
}

// TestDifferentialCatchesWrongRates shows the comparison can fail: a
// rate nudged by 1 % is reported.
func TestDifferentialCatchesWrongRates(t *testing.T) {
	n, err := NewNetwork(DefaultConfig())
	require.NoError(t, err)
	l, _ := n.AddLink(100)
	_, err = n.Start(0, FlowSpec{Size: 10, Path: []LinkID{l}})
	require.NoError(t, err)
	_, err = n.Start(0, FlowSpec{Size: 10, Path: []LinkID{l}})
	require.NoError(t, err)
	require.NoError(t, compareWithReference(n))
	require.NoError(t, checkInvariants(n))
	n.flows[0].rate *= 1.01
	require.Error(t, compareWithReference(n))
	require.Error(t, checkInvariants(n), "over capacity")
	n.flows[0].rate, n.flows[1].rate = 40, 40
	require.Error(t, checkInvariants(n), "no bottleneck")
}

// TestDifferentialShuffle drives the bottleneck structure's fast path
// (structure.go) hard: all-to-all transfers across oversubscribed rack
// links, so that every rack link is a bottleneck and flows switch between
// their source's uplink and their destination's downlink as others come
// and go; computes and bounded flows crossing a private link and the
// CPU, whose bounds change; groups of identical flows, whose levels tie;
// uneven weights; now and then a flow of a second class. Every event is
// checked against the reference.
func TestDifferentialShuffle(t *testing.T) {
	seeds := max(1, diffSeeds(t)/20)
	var st Stats
	for seed := range int64(seeds) {
		r := rand.New(rand.NewSource(seed))
		n, err := NewNetwork(DefaultConfig())
		require.NoError(t, err)
		spec := TopologySpec{
			Racks: 2 + r.Intn(4), HostsPerRack: 2 + r.Intn(4),
			DiskRead: 100e6, NICUp: 125e6, NICDown: 125e6, CPU: 4e9,
			Oversubscription: 2 + 8*r.Float64(),
		}
		topo, err := BuildTopology(n, spec)
		require.NoError(t, err)
		cpu := func(h HostID) LinkID {
			l, err := topo.Link(LinkRef{Kind: HostCPU, Host: h})
			require.NoError(t, err)
			return l
		}
		var bounds []LinkID
		for range 6 {
			l, err := n.AddLink(math.Round(math.Pow(10, 6+3*r.Float64())))
			require.NoError(t, err)
			bounds = append(bounds, l)
		}
		d, err := newDriver(DefaultConfig(), nil)
		require.NoError(t, err)
		d.n = n
		d.carried = make([]int64, n.NumLinks())
		hosts := topo.NumHosts()
		crossRack := func() (HostID, HostID) {
			src := HostID(r.Intn(hosts))
			for {
				dst := HostID(r.Intn(hosts))
				if int(dst)/spec.HostsPerRack != int(src)/spec.HostsPerRack {
					return src, dst
				}
			}
		}
		transfer := func(src, dst HostID, size int64) FlowSpec {
			path, err := topo.Path(src, dst, RemoteRead)
			require.NoError(t, err)
			fs := FlowSpec{Size: size, Path: path}
			if r.Intn(3) == 0 {
				// The CPUs of both ends work on its bytes.
				fs.Path = append(fs.Path, cpu(src), cpu(dst))
				fs.Use = make([]float64, len(fs.Path))
				for i := range fs.Use {
					fs.Use[i] = 1
				}
				fs.Use[len(fs.Use)-2], fs.Use[len(fs.Use)-1] = 0.7, 1.3
			}
			if r.Intn(6) == 0 {
				fs.Weight = []float64{0.5, 2, 3}[r.Intn(3)]
			}
			return fs
		}
		for range 80 + r.Intn(80) {
			switch op := r.Intn(40); {
			case op < 14:
				src, dst := crossRack()
				err = d.start(transfer(src, dst, 1+r.Int63n(4e8)))
			case op < 16:
				// A group of identical flows in both directions: ties.
				src, dst := crossRack()
				size := 1 + r.Int63n(4e8)
				for range 1 + r.Intn(3) {
					if err == nil {
						err = d.start(transfer(src, dst, size))
					}
					if err == nil {
						err = d.start(transfer(dst, src, size))
					}
				}
			case op < 19:
				// A compute: its core's bound and the host's CPU.
				h := HostID(r.Intn(hosts))
				fs := FlowSpec{Size: 1 + r.Int63n(1e9), Path: []LinkID{cpu(h), bounds[r.Intn(len(bounds))]}}
				err = d.start(fs)
			case op < 21:
				// A bounded transfer.
				src, dst := crossRack()
				fs := transfer(src, dst, 1+r.Int63n(4e8))
				fs.Path = append(fs.Path, bounds[r.Intn(len(bounds))])
				if fs.Use != nil {
					fs.Use = append(fs.Use, 1)
				}
				err = d.start(fs)
			case op < 22:
				if r.Intn(3) == 0 {
					src, dst := crossRack()
					fs := transfer(src, dst, 1+r.Int63n(4e8))
					fs.Class = 1
					err = d.start(fs)
				}
			case op < 25:
				err = d.setCapacity(bounds[r.Intn(len(bounds))], math.Round(math.Pow(10, 6+3*r.Float64())))
			case op < 27:
				err = d.cancel(r.Intn(1 << 10))
			default:
				err = d.advance(0)
			}
			require.NoError(t, err, "seed %d after %d events", seed, d.events)
		}
		for d.n.NumFlows() > 0 {
			if _, ok := d.n.NextCompletion(); !ok {
				break
			}
			require.NoError(t, d.advance(0), "seed %d draining", seed)
		}
		s := n.Stats()
		st.Solves += s.Solves
		st.Structural += s.Structural
	}
	t.Logf("%d re-solves, %d on the bottleneck structure", st.Solves, st.Structural)
	require.Greater(t, st.Structural, st.Solves/2, "the fast path is rarely taken: the cases miss it")
}
