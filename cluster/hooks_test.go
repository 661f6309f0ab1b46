package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"clusteremu/actors"
	"clusteremu/policies/sched"
	"clusteremu/units"
)

// streamed is what a run's hooks received, in the order they received it.
type streamed struct {
	attempts []actors.AttemptRecord
	links    []actors.LinkSample
	offers   []actors.OfferRecord
	flows    []actors.FlowRecord
	progress []actors.AttemptProgress
	// held is the most records the recorder held at once while attempts
	// ended, and ended how many had ended then.
	held, ended int
}

// recordedRun is fourRacks with every record the recorder makes: offers
// explained, links sampled, flows kept, progress reported, some attempts
// failing, cut off at 4 minutes while jobs still run.
func recordedRun() Config {
	cfg := fourRacks()
	cfg.Tasks.FailureProbability = 0.1
	cfg.Tasks.ProgressInterval = units.Duration(10 * time.Second)
	cfg.Run.Explain, cfg.Run.KeepFlows = true, true
	cfg.Run.LinkSamples = time.Second
	cfg.Run.Until = units.Duration(4 * time.Minute)
	return cfg
}

// runStreamed runs cfg with every hook set. In each attempt's hook it
// counts what the recorder holds: the hook runs under the recorder's lock.
func runStreamed(t *testing.T, cfg Config) (*Report, *streamed) {
	t.Helper()
	var got streamed
	var c *Cluster
	cfg.Run.OnAttemptEnded = func(a actors.AttemptRecord) {
		got.attempts = append(got.attempts, a)
		r := c.rec
		if held := len(r.attempts) + len(r.running) + len(r.links.Samples) + len(r.offers) + len(r.flowList) + len(r.progress); held > got.held {
			got.held, got.ended = held, len(got.attempts)
		}
	}
	cfg.Run.OnLinks = func(s actors.LinkSample) { got.links = append(got.links, s) }
	cfg.Run.OnOffer = func(o actors.OfferRecord) { got.offers = append(got.offers, o) }
	cfg.Run.OnFlowEnded = func(f actors.FlowRecord) { got.flows = append(got.flows, f) }
	cfg.Run.OnProgress = func(p actors.AttemptProgress) { got.progress = append(got.progress, p) }
	c, err := Build(cfg)
	require.NoError(t, err)
	rep, err := c.Run()
	require.NoError(t, err)
	return rep, &got
}

// A run with hooks hands them every record a run without keeps, in the
// order the run made them, keeps none of them, and summarises the same.
func TestHooksReceiveWhatARunWouldKeep(t *testing.T) {
	cfg := recordedRun()
	kept := run(t, cfg)
	rep, got := runStreamed(t, cfg)
	require.NotEmpty(t, kept.Records.Attempts)
	require.NotEmpty(t, kept.Records.CutOff, "the run is cut off while attempts run")
	require.NotEmpty(t, kept.Records.Progress)
	require.Positive(t, kept.Summary["tasks.failed"])

	assert.Equal(t, kept.Summary, rep.Summary)
	assert.Equal(t, kept.Records.Jobs, rep.Records.Jobs)
	assert.Equal(t, kept.Records.CutOff, rep.Records.CutOff)
	assert.Equal(t, kept.Records.Tally, rep.Records.Tally)
	assert.Equal(t, kept.Records.Links.Names, rep.Records.Links.Names)

	byAttempt := slices.Clone(got.attempts)
	slices.SortFunc(byAttempt, func(a, b actors.AttemptRecord) int { return sched.CompareAttempts(a.Attempt, b.Attempt) })
	assert.Equal(t, kept.Records.Attempts, byAttempt)
	assert.False(t, slices.EqualFunc(got.attempts, byAttempt, func(a, b actors.AttemptRecord) bool { return a.Attempt == b.Attempt }),
		"the hook has attempts as they end, not in attempt order")
	for i := 1; i < len(got.attempts); i++ {
		require.LessOrEqual(t, got.attempts[i-1].End, got.attempts[i].End, "attempt %d ends before the one before it", i)
	}
	assert.Equal(t, kept.Records.Links.Samples, got.links, "the last window included")
	assert.Equal(t, kept.Records.Offers, got.offers)
	assert.Equal(t, kept.Records.FlowList, got.flows)
	progress := slices.Clone(got.progress)
	slices.SortStableFunc(progress, func(a, b actors.AttemptProgress) int { return sched.CompareAttempts(a.Attempt, b.Attempt) })
	assert.Equal(t, kept.Records.Progress, progress, "the same reports, to the last bit")

	assert.Empty(t, rep.Records.Attempts)
	assert.Empty(t, rep.Records.Links.Samples)
	assert.Empty(t, rep.Records.Offers)
	assert.Empty(t, rep.Records.FlowList)
	assert.Empty(t, rep.Records.Progress)
}

// With hooks set, what the recorder holds while attempts end is the
// running attempts only, never more than the cluster's slots, however
// many attempts have ended.
func TestHooksKeepTheRecorderToTheRunningAttempts(t *testing.T) {
	cfg := recordedRun()
	cfg.Run.Until = 0
	rep, got := runStreamed(t, cfg)
	slots := cfg.Nodes() * (cfg.Cluster.MapSlots + cfg.Reducers())
	require.Greater(t, len(got.attempts), 4*slots, "attempts end many times over the slots")
	assert.Equal(t, rep.Records.Tally.Attempts, len(got.attempts))
	assert.Positive(t, got.held)
	assert.LessOrEqual(t, got.held, slots, "at most, after %d attempts ended", got.ended)
}

// An attempt that ends twice breaks an invariant with hooks set too,
// though the recorder no longer has the first end's record.
func TestHooksStillCatchAnAttemptEndingTwice(t *testing.T) {
	r := newRecorder()
	r.configure(&RunOptions{OnAttemptEnded: func(actors.AttemptRecord) {}})
	a := actors.AttemptRecord{Attempt: sched.Attempt{Job: 1, Kind: sched.Map}, Start: time.Second, End: 2 * time.Second}
	r.AttemptStarted(a)
	r.AttemptEnded(a)
	_, err := r.results(3 * time.Second)
	require.NoError(t, err)
	r.AttemptEnded(a)
	_, err = r.results(3 * time.Second)
	assert.ErrorContains(t, err, "ended twice, or never started")
}
