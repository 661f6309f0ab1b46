// Package custompolicy is the worked example of testing a policy of your
// own with clusteremu from your own module (README.md, "Testing your own
// policy in Go"): a scheduling policy with a planted race, the scenario
// that exposes it, and the tests that find, shrink and replay the race
// with package emutest.
//
// The policy, backoff-fifo, is FIFO, and it backs a job off reduce slots
// once the coordinator's view says the job has no reduce to run, until it
// hears that one of the job's maps ended. It assumes that by the time the
// coordinator hears of a map (from the node's heartbeat) the job manager,
// which hears of it from the node's separate TaskFinished message, has
// released the reduces that the map's end makes runnable. When the
// heartbeat wins and the map was the job's last, nothing wakes the job
// again: the run stalls with its reduces pending.
//
//	go test .            # TestSchedules finds the race, shrinks it, stores testdata/emutest/TestSchedules.jsonl
//	go test .            # replays the stored failure first: fails at once
//	go test . -fixed     # the fix: the stored failure and all 200 seeds pass
//
// The module requires clusteremu through a replace directive pointing at
// this repository; a module of your own points it at its checkout.
package custompolicy
