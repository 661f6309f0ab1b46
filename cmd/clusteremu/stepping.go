package main

import (
	"fmt"
	"io"
	"path"

	"clusteremu/cluster"
	"clusteremu/scenarios"
)

// stepping is what run's --stop-at-step and --watch ask of a run: where
// to stop, and the state there once it has.
type stepping struct {
	at    uint64
	state *cluster.StepState
}

// prepareStepping sets the run to stop at a step and to print the
// deliveries of the actors watched; both need deterministic time, where
// deliveries have steps.
func prepareStepping(sc *scenarios.Scenario, cfg *cluster.Config, stopAt uint64, watch string, w io.Writer) (*stepping, error) {
	s := &stepping{at: stopAt}
	if stopAt == 0 && watch == "" {
		return s, nil
	}
	if err := needsDeterministic(sc, "--stop-at-step or --watch"); err != nil {
		return nil, err
	}
	if _, err := path.Match(watch, ""); err != nil {
		return nil, fmt.Errorf("--watch %q: %v (a name, or a pattern such as \"node-*\")", watch, err)
	}
	if stopAt > 0 {
		cfg.Run.Slowdown = false // a stopped run has no reference runs
		cfg.Run.StopAt = stopAt
		cfg.Run.OnStop = func(st cluster.StepState) { s.state = &st }
	}
	if watch != "" {
		prev := cfg.Run.OnEvent
		cfg.Run.OnEvent = func(e cluster.Event) {
			if prev != nil {
				prev(e)
			}
			if stopAt > 0 && e.Step > stopAt {
				return // the deliveries of the run's shutdown
			}
			if watched(watch, e.Receiver) || watched(watch, e.Sender) {
				fmt.Fprintf(w, "step %d at %v: %s from %s to %s\n", e.Step, e.At, e.Type, e.Sender, e.Receiver)
			}
		}
	}
	return s, nil
}

func watched(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// print prints the run's state at the step it stopped at and reports
// whether it stopped there; a run that ended first says so.
func (s *stepping) print(w io.Writer) bool {
	if s == nil || s.at == 0 {
		return false
	}
	st := s.state
	if st == nil {
		fmt.Fprintf(w, "the run ended before step %d\n", s.at)
		return false
	}
	fmt.Fprintf(w, "stopped after step %d at %v\n", st.Step, st.At)
	quiet := 0
	for _, a := range st.Actors {
		if len(a.Lines) == 0 {
			quiet++
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", a.Name, a.Lines[0])
		for _, line := range a.Lines[1:] {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	if quiet > 0 {
		fmt.Fprintf(w, "%d more actors have nothing to say (idle nodes, and actors that describe no state)\n", quiet)
	}
	fmt.Fprintf(w, "queued: %d messages in mailboxes, the first in the order they were posted (which goes next is the schedule's choice among ready actors):\n", st.QueuedTotal)
	for _, e := range st.Queued {
		fmt.Fprintf(w, "    %s from %s to %s\n", e.Type, e.Sender, e.Receiver)
	}
	fmt.Fprintf(w, "timers: %d pending, the first in the order they fire:\n", st.TimersTotal)
	for _, e := range st.Timers {
		fmt.Fprintf(w, "    at %v: %s to %s\n", e.At, e.Type, e.Receiver)
	}
	return true
}
