// Package shrink reduces a failing set of decisions to a minimal one with
// Zeller and Hildebrandt's delta debugging (ddmin, "Simplifying and
// Isolating Failure-Inducing Input", TSE 2002).
package shrink

import "clusteremu/internal/parallel"

// Minimize returns a subset of items, in their order, for which fails
// holds and from which no single item can be dropped without fails
// turning false (1-minimal), given that fails(items) holds. It also
// returns the number of calls to fails.
//
// Each round splits the current set into n parts and tries every part
// alone, then every part's complement; it keeps the first failing
// candidate in that order, so the result does not depend on workers,
// the number of candidates tried at once (≤ 0: one per CPU). fails must
// be deterministic and safe to call concurrently.
func Minimize[T any](items []T, fails func([]T) bool, workers int) (minimal []T, tests int) {
	cur := items
	if fails(nil) {
		return nil, 1
	}
	tests = 1
	for n := 2; len(cur) >= 2; {
		n = min(n, len(cur))
		parts := split(cur, n)
		var cands [][]T
		if n > 2 { // with two parts each subset is the other's complement
			cands = append(cands, parts...)
		}
		for i := range parts {
			cands = append(cands, complement(parts, i))
		}
		i, t := firstFailing(cands, fails, workers)
		tests += t
		switch {
		case i < 0:
			if n == len(cur) {
				return cur, tests
			}
			n *= 2
		case n > 2 && i < len(parts): // a part alone fails
			cur, n = cands[i], 2
		default: // a complement fails
			cur, n = cands[i], max(n-1, 2)
		}
	}
	return cur, tests
}

// split cuts s into n parts of near-equal length, in order.
func split[T any](s []T, n int) [][]T {
	parts := make([][]T, n)
	for i := range n {
		parts[i] = s[i*len(s)/n : (i+1)*len(s)/n]
	}
	return parts
}

// complement joins every part but the i-th.
func complement[T any](parts [][]T, i int) []T {
	var out []T
	for j, p := range parts {
		if j != i {
			out = append(out, p...)
		}
	}
	return out
}

// firstFailing tries the candidates in batches of workers and returns
// the index of the first that fails (−1 when none does) and the number of
// tries.
func firstFailing[T any](cands [][]T, fails func([]T) bool, workers int) (int, int) {
	workers = parallel.Workers(workers)
	tries := 0
	for lo := 0; lo < len(cands); lo += workers {
		hi := min(lo+workers, len(cands))
		got := make([]bool, hi-lo)
		parallel.For(hi-lo, workers, func(i int) { got[i] = fails(cands[lo+i]) })
		tries += hi - lo
		for i, f := range got {
			if f {
				return lo + i, tries
			}
		}
	}
	return -1, tries
}
