// Package actors holds one file per actor role of the emulated cluster
// (client, coordinator, job manager, node, rack switch, fabric) and the
// messages they exchange, in messages.go.
//
// Actors only translate: a handler turns a message into a policy or
// netmodel call and the result into messages. Actors read emulated time from
// the Clock they are given and never from the wall clock. The package
// imports netmodel and policies; it must not import cluster, scenarios or
// cmd.
package actors
