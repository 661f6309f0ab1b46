// Package sched is the task-scheduling policy interface of clusteremu and
// its policies. It imports nothing from clusteremu.
package sched
