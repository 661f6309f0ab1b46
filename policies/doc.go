// Package policies holds clusteremu's decision logic, one sub-package per
// kind of decision (sched for task scheduling, straggler for speculation,
// placement for replicas; cache and replication policies later), each
// behind a small interface.
//
// A policy is pure: it never sees an actor, a PID, a clock or a goroutine
// and it imports nothing from clusteremu outside policies/. It may keep its
// own state, fed by events that carry the emulated time, and it returns its
// decisions as data for the actors to carry out.
package policies
