package main

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"clusteremu/cluster"
	"clusteremu/explore"
	"clusteremu/internal/parallel"
	"clusteremu/internal/sweep"
	"clusteremu/scenarios"
)

// connectDeadline is how long a worker address may take to answer at
// connect time; once connected, a worker is lost by its connection only.
const connectDeadline = 5 * time.Second

// buildID is what a worker and its coordinator compare: the version
// stamped at build time (make build's git describe), or, in a build
// without one ("dev"), that and a hash of the executable, so that two
// unstamped builds of different code never share a sweep.
var buildID = sync.OnceValue(func() string {
	if version != "dev" {
		return version
	}
	exe, err := os.Executable()
	if err != nil {
		return version
	}
	f, err := os.Open(exe)
	if err != nil {
		return version
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return version
	}
	return fmt.Sprintf("%s+%x", version, h.Sum(nil)[:6])
})

// workersFlag is explore's, compare's and reproduce's --workers.
func workersFlag(fs *flags) *string {
	return fs.String("workers", "", "run the sweep's units on these `clusteremu worker` processes (host:port,host:port,...) instead of here; the output is the same")
}

// connectWorkers joins the workers of a --workers list, or returns nil
// when the list is empty.
func connectWorkers(list string) (*sweep.Pool, error) {
	if list == "" {
		return nil, nil
	}
	addrs := strings.Split(list, ",")
	for i := range addrs {
		addrs[i] = strings.TrimSpace(addrs[i])
	}
	pool, err := sweep.Connect(addrs, buildID(), connectDeadline)
	if err != nil {
		return nil, fmt.Errorf("--workers: %w", err)
	}
	return pool, nil
}

// newUnit is a unit of the given kind that runs the scenario sc, sent as
// its resolved text with its configuration hash, which the worker checks.
func newUnit(kind string, sc *scenarios.Scenario) (sweep.RunUnit, error) {
	text, err := sc.Resolved()
	if err != nil {
		return sweep.RunUnit{}, err
	}
	return sweep.RunUnit{Kind: kind, Name: sc.Name, Scenario: string(text), Hash: configHash(sc.Config), Version: buildID()}, nil
}

// runUnits runs units on the pool until done or until runs is
// interrupted, calling each with each result in unit order and telling
// stderr of every worker lost and the units it held.
func runUnits(pool *sweep.Pool, units []sweep.RunUnit, runs *explore.Runs, stderr io.Writer, each func(i int, result json.RawMessage) error) error {
	for i := range units {
		units[i].Index = i
	}
	var bad error
	err := pool.Run(units, func(i int, result json.RawMessage) {
		if err := each(i, result); err != nil && bad == nil {
			bad = fmt.Errorf("the result of %s: %v", units[i].Name, err)
		}
	}, func(addr string, held []int) {
		fmt.Fprintf(stderr, "clusteremu: worker %s lost; its %d unit(s) go to the other workers\n", addr, len(held))
	}, runs.Done())
	if errors.Is(err, sweep.ErrInterrupted) {
		err = nil // the caller reads runs.Stopped()
	}
	return errors.Join(err, bad)
}

// seedResult is an explored seed's outcome as a worker sends it.
type seedResult struct {
	Failed  bool          `json:"failed,omitempty"`
	Err     string        `json:"err,omitempty"`
	At      time.Duration `json:"at"`
	Skipped bool          `json:"skipped,omitempty"`
}

func seedResultOf(o explore.Outcome) seedResult {
	r := seedResult{At: o.At, Skipped: o.Skipped}
	if o.Err != nil {
		r.Failed, r.Err = true, o.Err.Error()
	}
	return r
}

func (r seedResult) outcome() explore.Outcome {
	o := explore.Outcome{At: r.At, Skipped: r.Skipped}
	if r.Failed {
		o.Err = errors.New(r.Err)
	}
	return o
}

// summaryResult is a run's summary, or its error, as a worker sends it.
// The metrics travel as text in Go's shortest exact form, which JSON
// numbers cannot do for NaN and the infinities.
type summaryResult struct {
	Summary  map[string]string `json:"summary,omitempty"`
	Err      string            `json:"err,omitempty"`
	NotBuilt bool              `json:"not_built,omitempty"`
}

func summaryResultOf(s cluster.Summary, err error) summaryResult {
	var r summaryResult
	var notBuilt *buildError
	switch {
	case errors.As(err, &notBuilt):
		r.Err, r.NotBuilt = notBuilt.err.Error(), true
	case err != nil:
		r.Err = err.Error()
	}
	if s != nil {
		r.Summary = make(map[string]string, len(s))
		for _, name := range s.Names() {
			r.Summary[name] = strconv.FormatFloat(s[name], 'g', -1, 64)
		}
	}
	return r
}

// runHere runs a unit's scenario as the command of its kind runs it: a
// worker's units and a local sweep's runs take this one path. Compare and
// reproduce read only the summary, so both kinds run the variant in
// compareConfig, its attempts tallied rather than kept.
func runHere(_ string, sc *scenarios.Scenario, runs *explore.Runs) (cluster.Summary, error) {
	rep, err := runConfig(compareConfig(sc, nil), runs)
	if err != nil {
		return nil, err
	}
	return rep.Summary, nil
}

// decode is the summary and the error the worker's run returned.
func (r summaryResult) decode() (cluster.Summary, error) {
	var err error
	switch {
	case r.NotBuilt:
		err = &buildError{errors.New(r.Err)}
	case r.Err != "":
		err = errors.New(r.Err)
	}
	if r.Summary == nil {
		return nil, err
	}
	s := make(cluster.Summary, len(r.Summary))
	for _, name := range slices.Sorted(maps.Keys(r.Summary)) {
		v, perr := strconv.ParseFloat(r.Summary[name], 64)
		if perr != nil {
			return nil, fmt.Errorf("metric %s: %v", name, perr)
		}
		s[name] = v
	}
	return s, err
}

// sweeper runs a command's independent runs: here, at most parallel at
// once, or, with a pool, on its workers.
type sweeper struct {
	parallel int
	pool     *sweep.Pool
	runs     *explore.Runs
	stderr   io.Writer
}

// summaries runs the n scenarios variant(0), …, variant(n−1) as units of
// kind and returns each run's summary or error in that order, as runHere
// gives them.
// The error is a sweep's over workers that could not finish (a worker
// refused a unit, or every worker was lost); runs an interrupt kept from
// finishing end with cluster.ErrInterrupted.
func (sw sweeper) summaries(kind string, n int, variant func(i int) (*scenarios.Scenario, error)) ([]cluster.Summary, []error, error) {
	sums, errs := make([]cluster.Summary, n), make([]error, n)
	if sw.pool == nil {
		parallel.For(n, sw.parallel, func(i int) {
			v, err := variant(i)
			if err == nil {
				sums[i], err = runHere(kind, v, sw.runs)
			}
			errs[i] = err
		})
		return sums, errs, nil
	}
	var units []sweep.RunUnit
	var of []int // the run of each unit
	for i := range n {
		v, err := variant(i)
		var u sweep.RunUnit
		if err == nil {
			u, err = newUnit(kind, v)
		}
		if err != nil {
			errs[i] = err
			continue
		}
		errs[i] = cluster.ErrInterrupted // until its result comes
		units, of = append(units, u), append(of, i)
	}
	err := runUnits(sw.pool, units, sw.runs, sw.stderr, func(u int, result json.RawMessage) error {
		var r summaryResult
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		sums[of[u]], errs[of[u]] = r.decode()
		return nil
	})
	return sums, errs, err
}
