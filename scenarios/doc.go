// Package scenarios reads clusteremu's TOML scenarios: the schema, strict
// decoding with file:line:column errors, validation, defaults, workload
// generators and expectations. Example scenarios live in
// scenarios/examples/, paper reproductions in scenarios/papers/.
//
// It must not import actors or cmd, and it never reads the wall clock:
// every duration in a scenario is emulated time.
package scenarios
