package actors

// outputRefs names the map outputs a fetch flow reads, with the attempts
// that wrote them, for the fabric's loss model (fabric_loss.go).
func (r *run) outputRefs(part int32) []OutputRef {
	items := r.batches[part]
	refs := make([]OutputRef, len(items))
	for i, it := range items {
		refs[i] = OutputRef{Map: it.m, Attempt: r.wrote[it.m]}
	}
	return refs
}
