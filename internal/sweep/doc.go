// Package sweep spreads a sweep's independent units of work (the
// schedule seeds of `clusteremu explore`, the variants of `compare` and
// `reproduce`) over `clusteremu worker` processes joined through
// protoactor-go's remote, and hands the results back in the order of a
// local run.
//
// A worker serves an actor named WorkerName at its address; a Runner,
// the command's, runs each unit by the code a local run takes. A
// coordinator connects to its workers (an address that does not answer
// fails at once, naming it; a worker of another version refuses), then
// runs sweeps on them one after another:
//
//	// On each machine:
//	go sweep.Serve(sweep.WorkerOptions{Listen: "10.0.0.5:7071", Version: v, Parallel: 2, Run: run}, stop)
//
//	// The coordinator:
//	pool, err := sweep.Connect([]string{"10.0.0.5:7071", "10.0.0.6:7071"}, v, 5*time.Second)
//	defer pool.Close()
//	err = pool.Run(units, func(i int, result json.RawMessage) {
//		// unit i's result: called for 0, 1, 2, … in turn
//	}, nil, stop)
//
// The coordinator's ledger hands each worker as many units as it runs at
// once, lowest index first. When the remote reports a worker's connection
// lost, the units it held wait again and go to the other workers; a
// result that comes twice counts once, so nothing is lost or counted
// twice. Loss is known by the connection only: no timeout runs once a
// worker has answered its hello.
//
// Coordinator and workers are one remote per process, as protoactor-go's
// remote expects (it sets gRPC's process-wide logger when it starts); the
// package's tests run each in a process of its own.
package sweep
