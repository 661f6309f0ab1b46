// Package netmodel is clusteremu's fluid bandwidth model: links with
// capacities in bytes per second, flows with sizes, paths, weights and
// priority classes, and the exact weighted max-min fair allocation of link
// capacity among the flows.
//
// The package is pure. It imports nothing from clusteremu, starts no
// goroutine and reads no clock: time is passed in by the caller, which asks
// "when does the next flow finish" and "advance to t".
package netmodel
