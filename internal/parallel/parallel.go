// Package parallel runs independent emulations side by side: reference
// runs, reproduction variants, explored seeds.
package parallel

import (
	"runtime"
	"sync"
)

// For calls f(i) for every i in [0, n), at most workers at a time (≤ 0:
// one per CPU), and returns when all calls have returned. Calls with
// different i run concurrently, so f must only write what belongs to i.
func For(n, workers int, f func(i int)) {
	workers = Workers(workers)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, n)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// Workers is the number of workers a request for workers gets: itself,
// or one per CPU when ≤ 0.
func Workers(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}
