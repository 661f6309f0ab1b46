package actors

import (
	"cmp"
	"slices"
	"time"

	"clusteremu/policies/cache"
	"clusteremu/policies/sched"
)

// cacheDirectory is PACMan's coordinator state (the thesis's §2.3.2):
// which client caches which block, and per file what the eviction
// policies rank by: its block count, how many of its blocks are cached
// anywhere (a file is complete when all are), its wave-width, the jobs
// that read it and when it was last read; per block, when it was read and
// how often (LRU, LFU). It never sends anything: the coordinator's cache
// role (coordinator_cache.go) turns its answers into messages.
//
// A block the directory told a client to evict leaves its view at once,
// before the client confirms (evicting), so no launch reads it from
// memory meanwhile and no report sent before the client evicted brings
// it back. A block an attempt reads from memory is pinned until the
// attempt ends, and no eviction takes it.
type cacheDirectory struct {
	policy  cache.Policy
	files   map[string]*dirFile
	clients []map[*dirFile][]int32 // by node: the blocks of each file it holds
	// evicting are blocks told to go and not yet confirmed, pinned the
	// blocks memory reads hold, by attempt too.
	evicting map[blockOn]bool
	pinned   map[blockOn]int
	pins     map[sched.Attempt]blockOn
	oracle   *cacheOracle // MIN's, nil for other policies
}

// dirFile is the directory's entry for a file.
type dirFile struct {
	name    string
	blocks  int32
	bytes   int64
	holders [][]sched.NodeID // by block
	cached  int              // blocks with a holder
	// width is an EWMA of the wave-widths its jobs measured; measured
	// says whether any has.
	width    float64
	measured bool
	accesses int // maps launched to read its blocks
	lastRef  time.Duration
	lastUse  []time.Duration // by block
	uses     []int32         // by block
}

// blockOn is a block of a file on a node.
type blockOn struct {
	file  *dirFile
	block int32
	node  sched.NodeID
}

// widthWeight is the weight of a job's wave-width in its file's running
// average: the thesis does not say how the widths of several jobs
// combine; an even EWMA follows a file whose readers change without
// forgetting them at once.
const widthWeight = 0.5

func newCacheDirectory(policy cache.Policy, nodes int, oracle *cacheOracle) *cacheDirectory {
	d := &cacheDirectory{
		policy: policy, files: make(map[string]*dirFile), clients: make([]map[*dirFile][]int32, nodes),
		evicting: make(map[blockOn]bool), pinned: make(map[blockOn]int), pins: make(map[sched.Attempt]blockOn),
		oracle: oracle,
	}
	for i := range d.clients {
		d.clients[i] = make(map[*dirFile][]int32)
	}
	return d
}

// file returns the entry of a file of blocks blocks and bytes bytes,
// making it when new.
func (d *cacheDirectory) file(name string, blocks int32, bytes int64) *dirFile {
	f := d.files[name]
	if f == nil {
		blocks = max(blocks, 1)
		f = &dirFile{name: name, blocks: blocks, bytes: bytes, holders: make([][]sched.NodeID, blocks),
			lastUse: make([]time.Duration, blocks), uses: make([]int32, blocks)}
		d.files[name] = f
	}
	return f
}

// caches reports whether the node holds the block in the directory's
// view: a launch there may read it from memory.
func (d *cacheDirectory) caches(name string, block int32, node sched.NodeID) bool {
	f := d.files[name]
	return f != nil && block >= 0 && block < f.blocks && slices.Contains(f.holders[block], node)
}

// holders lists the nodes caching a block.
func (d *cacheDirectory) holders(name string, block int32) []sched.NodeID {
	if f := d.files[name]; f != nil && block >= 0 && block < f.blocks {
		return f.holders[block]
	}
	return nil
}

// add books a block on a node and reports whether it is new there. A
// block told to go from there and not yet confirmed gone is not taken
// back.
func (d *cacheDirectory) add(b CachedBlock, node sched.NodeID) bool {
	f := d.file(b.File, b.FileBlocks, b.FileBytes)
	if b.Block < 0 || b.Block >= f.blocks || d.evicting[blockOn{f, b.Block, node}] || slices.Contains(f.holders[b.Block], node) {
		return false
	}
	if len(f.holders[b.Block]) == 0 {
		f.cached++
	}
	f.holders[b.Block] = append(f.holders[b.Block], node)
	d.clients[node][f] = append(d.clients[node][f], b.Block)
	return true
}

// remove takes a block off a node in the directory's view.
func (d *cacheDirectory) remove(f *dirFile, block int32, node sched.NodeID) {
	if block < 0 || block >= f.blocks {
		return
	}
	h := f.holders[block]
	i := slices.Index(h, node)
	if i < 0 {
		return
	}
	f.holders[block] = slices.Delete(h, i, i+1)
	if len(f.holders[block]) == 0 {
		f.cached--
	}
	local := slices.DeleteFunc(d.clients[node][f], func(b int32) bool { return b == block })
	if len(local) == 0 {
		delete(d.clients[node], f)
	} else {
		d.clients[node][f] = local
	}
}

// evicted books a client's word that it dropped a block.
func (d *cacheDirectory) evicted(name string, block int32, node sched.NodeID) {
	f := d.files[name]
	if f == nil {
		return
	}
	delete(d.evicting, blockOn{f, block, node})
	d.remove(f, block, node)
}

// reported makes a client's blocks those of its report, less those it
// was told to evict: the report may have left before the client heard.
// It returns the blocks new to the directory.
func (d *cacheDirectory) reported(node sched.NodeID, blocks []CachedBlock) []CachedBlock {
	in := make(map[blockOn]bool, len(blocks))
	var added []CachedBlock
	for _, b := range blocks {
		f := d.file(b.File, b.FileBlocks, b.FileBytes)
		in[blockOn{f, b.Block, node}] = true
		if d.add(b, node) {
			added = append(added, b)
		}
	}
	for _, f := range d.sortedFiles(node) {
		for _, b := range slices.Clone(d.clients[node][f]) {
			if !in[blockOn{f, b, node}] {
				d.remove(f, b, node)
			}
		}
	}
	return added
}

// clear forgets every block of a node: its memory is lost (a crash), or
// it is out of the cluster. Its pins go with its attempts.
func (d *cacheDirectory) clear(node sched.NodeID) {
	for _, f := range d.sortedFiles(node) {
		for _, b := range slices.Clone(d.clients[node][f]) {
			d.remove(f, b, node)
		}
	}
	for k := range d.evicting {
		if k.node == node {
			delete(d.evicting, k)
		}
	}
}

// sortedFiles lists the files a node holds blocks of, by name.
func (d *cacheDirectory) sortedFiles(node sched.NodeID) []*dirFile {
	files := make([]*dirFile, 0, len(d.clients[node]))
	for f := range d.clients[node] {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b *dirFile) int { return cmp.Compare(a.name, b.name) })
	return files
}

// read books a map launched to read a block of a file, from memory or
// disk: an access to the file (the thesis's ADD counts one a block, the
// notes' choice every task read, hit or miss), its last reference and the
// block's use.
func (d *cacheDirectory) read(f *dirFile, block int32, now time.Duration) {
	f.accesses++
	f.lastRef = now
	if block >= 0 && block < f.blocks {
		f.lastUse[block] = now
		f.uses[block]++
	}
}

// pin holds a block an attempt reads from memory until it ends.
func (d *cacheDirectory) pin(a sched.Attempt, f *dirFile, block int32, node sched.NodeID) {
	k := blockOn{f, block, node}
	d.pins[a] = k
	d.pinned[k]++
}

// unpin lets an ended attempt's block go.
func (d *cacheDirectory) unpin(a sched.Attempt) {
	k, ok := d.pins[a]
	if !ok {
		return
	}
	delete(d.pins, a)
	if d.pinned[k]--; d.pinned[k] <= 0 {
		delete(d.pinned, k)
	}
}

// measured folds a job's wave-width into its file's.
func (d *cacheDirectory) measured(name string, width float64) {
	f := d.files[name]
	if f == nil || !(width > 0) {
		return
	}
	if !f.measured {
		f.width, f.measured = width, true
		return
	}
	f.width = widthWeight*width + (1-widthWeight)*f.width
}

// pick asks the policy what a full client gives up to cache need more
// bytes and takes it out of the view (evicting, until the client
// confirms). It returns the file and the blocks, and false when nothing
// may go.
//
// A file policy's answer is a file whose blocks the client may evict (the
// thesis's FILETOEVICT, asked "to evict a block"): the client gives up as
// many of the file's local blocks as need takes, highest index first, not
// all of them. The file is then incomplete, so the sticky rule returns it
// again at the client's next ask, and at every other client's, until it is
// gone ("it sticks to its blocks for eviction until the file is completely
// removed from cache"); meanwhile its other blocks still serve its next
// job's waves. A client that still lacks room asks again.
func (d *cacheDirectory) pick(node sched.NodeID, now time.Duration, need int64) (string, []int32, bool) {
	files := d.sortedFiles(node)
	snap := &cache.Snapshot{Now: now, Files: make([]cache.File, 0, len(files))}
	for _, f := range files {
		cf := cache.File{Name: f.name, Blocks: int(f.blocks), Cached: f.cached, Size: f.bytes, Width: f.width,
			Accesses: f.accesses, LastRef: f.lastRef}
		if !f.measured {
			cf.Width = float64(f.blocks)
		}
		for _, b := range d.clients[node][f] {
			if d.pinned[blockOn{f, b, node}] > 0 {
				continue
			}
			blk := cache.Block{Index: b, LastUse: f.lastUse[b], Uses: int(f.uses[b])}
			if d.oracle != nil {
				blk.Next = d.oracle.next(f.name, b)
			}
			cf.Local = append(cf.Local, blk)
		}
		snap.Files = append(snap.Files, cf)
	}
	v, ok := d.policy.Pick(snap)
	if !ok {
		return "", nil, false
	}
	f, chosen := files[v.File], snap.Files[v.File].Local
	if v.Block != cache.WholeFile {
		chosen = chosen[v.Block : v.Block+1]
	} else {
		chosen = enough(chosen, f, need)
	}
	blocks := make([]int32, len(chosen))
	for i, b := range chosen {
		blocks[i] = b.Index
		d.evicting[blockOn{f, b.Index, node}] = true
		d.remove(f, b.Index, node)
	}
	slices.Sort(blocks)
	return f.name, blocks, true
}

// enough returns the highest-indexed of a file's local blocks that free
// need bytes, at least one, reckoning each block at the file's mean block
// size (a short last block may leave the client to ask again).
func enough(local []cache.Block, f *dirFile, need int64) []cache.Block {
	per := max((f.bytes+int64(f.blocks)-1)/int64(f.blocks), 1)
	n := int(min(max((need+per-1)/per, 1), int64(len(local))))
	byIndex := slices.SortedFunc(slices.Values(local), func(a, b cache.Block) int { return cmp.Compare(b.Index, a.Index) })
	return byIndex[:n]
}

// cacheOracle is what MIN knows of the future: every job of the open
// streams, by the file it reads, in submission order, with when it reads
// each block in the trace (the run without caches). A block's next read
// is the earliest trace read of it by a job that has not ended and has not
// yet launched the block's map: Belady's MIN over the blocks' interleaved
// reads, which knows nothing of files or waves.
type cacheOracle struct {
	future map[string][]FutureRead
	head   map[string]int // the first read of each file not yet over
	ended  map[sched.JobID]bool
	// launched reports whether an active job has launched a map.
	launched func(job sched.JobID, task int32) bool
}

// FutureRead is a job of the workload and the file it reads, for MIN:
// when it was submitted and, by block, when its map read the block in the
// trace. A block Reads leaves out (or all, when nil) is read at Submit.
// First is the job's map that reads the file's block 0 (0 unless the job
// reads several files).
type FutureRead struct {
	Job    sched.JobID
	Submit time.Duration
	Reads  []time.Duration
	First  int32
}

// readAt is when the job reads a block in the trace.
func (r *FutureRead) readAt(block int32) time.Duration {
	if block >= 0 && int(block) < len(r.Reads) {
		return r.Reads[block]
	}
	return r.Submit
}

func newCacheOracle(future map[string][]FutureRead, launched func(sched.JobID, int32) bool) *cacheOracle {
	return &cacheOracle{future: future, head: make(map[string]int), ended: make(map[sched.JobID]bool), launched: launched}
}

// jobEnded marks a job's reads over.
func (o *cacheOracle) jobEnded(id sched.JobID) { o.ended[id] = true }

// next is when a block is read again (cache.Ahead's order): the earliest
// trace read among the jobs still to read it, ties to the earlier job.
// The cost is O(the file's jobs not yet over).
func (o *cacheOracle) next(name string, block int32) cache.Ahead {
	reads := o.future[name]
	i := o.head[name]
	for i < len(reads) && o.ended[reads[i].Job] { // kept: a job over several files is in several lists
		i++
	}
	o.head[name] = i
	next := cache.NeverAgain
	for k := range reads[i:] {
		r := &reads[i+k]
		if o.ended[r.Job] || o.launched(r.Job, r.First+block) {
			continue
		}
		if a := (cache.Ahead{At: r.readAt(block), Index: block, Job: int64(r.Job)}); next.After(a) {
			next = a
		}
	}
	return next
}
