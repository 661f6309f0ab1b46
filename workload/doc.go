// Package workload describes the jobs a run submits: the JobSpec that the
// scenario decoder produces and the actors execute. It is a leaf package:
// it imports nothing from clusteremu, so both sides can depend on it.
package workload
