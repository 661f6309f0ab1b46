// Package cluster is clusteremu's runtime: the clock in its three modes
// (wall, scaled, virtual), the deterministic and concurrent dispatchers, the
// run lifecycle (start, run until a stop condition, stop every actor),
// seeded random streams, and later the builder that turns a configuration
// into running actors, the metrics and the outputs.
//
// It may import actors, netmodel and policies; it must not import cmd.
package cluster
