package main

import "clusteremu/actors"

// offers.jsonl is the scheduling log clusteremu explain reads: a line per
// slot offer the policy looked at a job for, with the policy's reason for
// each job it looked at and the attempt launched, if any.

// offerLine is one line of offers.jsonl.
type offerLine struct {
	At         float64   `json:"at"` // emulated seconds
	Node       int32     `json:"node"`
	Kind       string    `json:"kind"`
	Slot       int       `json:"slot"`
	Considered []jobLine `json:"considered,omitempty"`
	Launched   string    `json:"launched,omitempty"`
	Locality   string    `json:"locality,omitempty"`
	// Waited is the seconds the heartbeat waited for and in the
	// coordinator's service (heartbeat.service_time).
	Waited float64 `json:"waited,omitempty"`
}

// jobLine is a job the policy looked at and its reason.
type jobLine struct {
	Job    int64  `json:"job"`
	Reason string `json:"reason"`
}

// offerLineOf is an offer's line.
func offerLineOf(o actors.OfferRecord) *offerLine {
	line := &offerLine{At: o.At.Seconds(), Node: int32(o.Node), Kind: o.Kind.String(), Slot: o.Slot, Waited: o.Waited.Seconds()}
	for _, n := range o.Notes {
		line.Considered = append(line.Considered, jobLine{Job: int64(n.Job), Reason: n.Reason})
	}
	if o.Launched != nil {
		line.Launched, line.Locality = o.Launched.String(), o.Locality.String()
	}
	return line
}
