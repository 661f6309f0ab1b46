// Package scenarios reads clusteremu's TOML scenarios: the schema, strict
// decoding with file:line:column errors, validation, defaults, workload
// generators and expectations. Example scenarios live in
// scenarios/examples/, paper reproductions in scenarios/papers/.
//
// It must not import actors or cmd, and it never reads the wall clock:
// every duration in a scenario is emulated time.
//
// # Units
//
// Sizes (Bytes) are "128MiB" (2^20-based), "128MB" (10^6-based), "1.5GiB"
// or a plain integer of bytes. Rates (Rate) are "1Gbps" (bits, 10^9-based)
// or "125MB/s" / "1GiB/s" (bytes), or an integer of bytes per second.
// Durations (Duration) are Go durations ("250ms", "1h30m") with optional
// leading days ("2d", "1d12h"); a bare integer is rejected, since it could
// mean seconds or nanoseconds.
//
// # Strict decoding, worked example
//
// Decoding this file into a struct whose [cluster] table has the keys
// racks, nodes_per_rack and nic:
//
//	[cluster]
//	racks = 4
//	  rackz = 3
//	nodes_per_rak = 10
//
// fails with both unknown keys at once, each at its key:
//
//	scenario.toml:3:3: cluster.rackz: unknown key; allowed: racks, nodes_per_rack, nic
//	scenario.toml:4:1: cluster.nodes_per_rak: unknown key; allowed: racks, nodes_per_rack, nic
//
// A syntax error is reported alone. Wrong types and bad units ("1 Gbps")
// come with the unknown keys, all at once and in file order: the decoder
// stops at the first, so its key is taken out and the rest decoded
// again until what is left decodes. They are said in the file's words,
// not Go's; Load on
//
//	[cluster]
//	racks = "four"
//	[[workload]]
//	synthetic = 1
//
// reports
//
//	scenario.toml:2:1: cluster.racks = "four": want an integer, got a string
//	scenario.toml:3:3: workload: want a table ([workload]), got an array of tables ([[workload]])
//
// A key of the wrong type keeps its default, which validation does not
// refuse again. Validation reports through
// FieldError: a Validate method returns Invalid("racks", -2, "must be ≥
// 1"), the caller places it with Prefix("cluster", err), and
// Document.Locate turns it into "scenario.toml:2:1: cluster.racks = -2:
// must be ≥ 1". Positions come from decoding the text again into a probe
// type holding only the key's path and ending in a value that always
// fails: the decoder then reports where that key is (the decoder keeps key
// positions private). In an array of tables the decoder knows only the
// last occurrence of a key, so Position decodes the shortest prefix of the
// file that holds the wanted element.
//
// [scheduler] is decoded in two steps with DecodeAt: name and tick, then
// every other key into the named policy's own parameters
// (sched.NewParams), so that every bad parameter is reported with the
// rest of the file's errors. --set changes the File's table and decodes
// it the same way, without positions; its errors name the override.
//
// # Workloads
//
// A Stream (SWIMStream, SyntheticStream or JobsStream) turns its
// configuration into workload.JobSpec values sorted by submit time. The
// SWIM Facebook traces are read from ../shared/traces and never copied
// into the repository.
package scenarios
