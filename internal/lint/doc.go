// Package lint checks clusteremu's own source for calls that would let the
// wall clock or an unseeded random number into emulated behaviour. It is
// used by a test of the module and imports nothing from clusteremu.
package lint
