// Package emutest runs clusteremu scenarios from Go tests: a scheduling
// policy (or a speculation rule, a cache policy) of your own, registered
// by the test binary, run on an emulated cluster in deterministic virtual
// time, its schedules explored and its failures shrunk and replayed.
//
// A policy registers itself from an init function of its package
// (sched.Register), and a scenario names it. A test then runs the
// scenario once, or under many schedule seeds:
//
//	func TestReport(t *testing.T) {
//		rep := emutest.Run(t, emutest.File("testdata/backoff.toml"))
//		if got := rep.Summary["jobs.succeeded"]; got != 5 { … }
//	}
//
//	func TestSchedules(t *testing.T) {
//		emutest.Explore(t, emutest.File("testdata/backoff.toml"), 200)
//	}
//
// Run fails the test when the run breaks an invariant or one of the
// scenario's [[expect]] blocks fails, with the schedule seed, the emulated
// instant, the actor and the message it was handling, and the commands
// that replay the run; when the scenario names a policy the test binary
// did not register (listing those it did); and when a goroutine the run
// started is still running after it (an actor or a policy of the test's
// that does not stop what it starts), naming it.
//
// Explore runs schedule seeds 1 to n, GOMAXPROCS at once, each run the
// same workload with a different order of same-instant messages and
// different [chaos] delays. It shrinks the earliest failure to the few
// decisions without which it goes away and stores them in
// testdata/emutest/TestSchedules.jsonl, so the next go test replays that
// failure first, in milliseconds, before exploring; once the fix is in,
// the stored failure passes and stays as a regression case:
//
//	--- FAIL: TestSchedules (4.64s)
//	    schedules_test.go:17: emutest: testdata/backoff.toml: 12 of 200 schedule seeds failed; the earliest failure, seed 159, shrunk:
//	        seed 159: FAIL stalled: no progress since 1m30.217579041s, …; waiting: job 5 (job4): 1 reduce pending, which backoff-fifo launches nowhere
//	        the run left the default course (FIFO delivery, no delays) 4313 times (53 orders, 2160 relay delays, 2100 heartbeat delays) before it failed
//	        shrunk to 7 decision(s) in 283 runs (2.6s); dropping any one of them makes the failure go away:
//	          at 1m2.783547584s: delay heartbeat #62 of node-5 by 167.319559ms
//	          …
//	          at 1m10.801121221s: delay relayed message #5 to coordinator/job-5 by 70.784186ms
//	        stored in testdata/emutest/TestSchedules.jsonl: the next go test replays it first
//	        replay:  go test -run '^TestSchedules$' .
//
// Flags, on the go test command line:
//
//	-emu.seeds=N  the number of schedule seeds every Explore runs, whatever the test asks for
//
// Fuzz makes a fuzz target of a scenario: go test -fuzz searches schedule
// seeds and mutates stored decisions, and keeps failing inputs in
// testdata/fuzz/ for go test to replay.
//
// The stored decisions name the course of the scenario they were taken
// in (its cluster, workload, seeds, policy parameters and chaos, hashed),
// not the policy's code: change the scenario and they are refused, with
// the reason; change the code and they replay against it. A worked
// example, with its own go.mod, is examples/custom-policy in the
// clusteremu repository.
package emutest
