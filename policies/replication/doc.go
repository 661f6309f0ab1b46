// Package replication holds Scarlett's replication planning
// (Ananthanarayanan's thesis §2.4): replicate files by their observed
// concurrency, within a storage budget, on the least-loaded racks and
// nodes, in doubling steps, compressed on the wire. It is pure: the
// coordinator feeds it launches and ends with the emulated time, hands it
// the files, their replicas and the nodes every epoch, and carries out
// the plan it returns.
//
// Concurrency tracks c_f, the most jobs with running maps on a file at
// once within the learning window T_L. Factors turns them into desired
// replication factors r_f = max(c_f + δ, base) within a budget B of extra
// bytes, largest files first or one replica per file per pass. Rearrange
// places the difference: removals first, from the most-loaded nodes, then
// each new replica on the least-loaded rack holding none of its block and
// the least-loaded node there. Steps orders a block's new replicas into
// copies that double the sources each step.
//
// The thesis's budget example (200 GB stored, B = 20 GB, base 3, δ 1):
//
//	files := []replication.File{
//		{Name: "X", Size: 8 << 30, Concurrency: 4},
//		{Name: "Y", Size: 4 << 30, Concurrency: 4},
//		{Name: "Z", Size: 2 << 30, Concurrency: 5},
//	}
//	p := replication.Params{Base: 3, Delta: 1, Budget: 20 << 30, Order: replication.LargestFirst}
//	replication.Factors(files, p) // [5 3 3]; with RoundRobin [4 5 5]
package replication
