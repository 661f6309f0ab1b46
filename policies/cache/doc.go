// Package cache decides what a node's memory cache gives up when it is
// full: PACMan's LIFE and LFU-F (Ananthanarayanan's thesis, §2.2–2.3), and
// the classic LRU, LFU and Belady's MIN they are compared with. It is
// pure: a Policy is a function of a Snapshot of the coordinator's cache
// directory as one client sees it, and its answer is data.
//
// PACMan's policies name a file: the caller (clusteremu's cache directory)
// takes as many of its blocks off the client as the client needs room for,
// and asks again for more. Parallel jobs speed up only when a whole wave
// of their input is in memory (the all-or-nothing property), so the
// policies keep complete files: with sticky on they take an incomplete
// file first, one whose blocks are not all cached anywhere in the cluster,
// and keep naming it until it is gone. LIFE then prefers the file of the
// largest wave-width (the time-weighted mean number of its job's tasks
// running at once: small waves gain most per byte cached) and LFU-F the
// least accessed file (cluster efficiency gains with access frequency
// alone). Both first age out the least accessed file not referred to for a
// window, as the thesis's text says (its pseudocode says the oldest).
//
// The classic policies evict a block: LRU the one used longest ago, LFU
// the one used least often, MIN the one read again furthest ahead, which
// the caller works out from what it knows of the future (clusteremu:
// when each block was read in a run of the scenario without caches).
//
// Fig. 2.4 of the thesis, on one client's four-block cache holding A and B
// (J1's file) and C and D (J2's), the future reads being A, C, B, D:
//
//	p, _ := cache.New(cache.Config{Name: cache.LIFE, Sticky: true})
//	v, _ := p.Pick(&snap) // J2's file: evict C and D, J1 stays whole
//	m, _ := cache.New(cache.Config{Name: cache.MIN})
//	v, _ = m.Pick(&snap)  // block D, then B: both jobs lose one block
package cache
