package actors

import (
	"fmt"
	"time"

	"clusteremu/policies/replication"
	"clusteremu/units"
)

// ReplicationConfig is [replication]: Scarlett (the thesis's §2.4), the
// coordinator replicating files by their observed concurrency
// (coordinator_scarlett.go).
type ReplicationConfig struct {
	// Name is the replication policy: "scarlett".
	Name string `toml:"name"`
	// Learn is T_L, the window c_f is the most concurrent jobs in.
	Learn units.Duration `toml:"learn"`
	// Epoch is T_R, the period of the rearrangements, the first one Epoch
	// after the start.
	Epoch units.Duration `toml:"epoch"`
	// Delta is δ, the replicas asked for over c_f.
	Delta int `toml:"delta"`
	// Budget is B, the extra replicas' bytes as a fraction of the bytes
	// stored at base replication.
	Budget float64 `toml:"budget"`
	// Order shares the budget: "largest_first" or "round_robin".
	Order string `toml:"order"`
	// Compression is the codec of replica copies (Table 2.5): "ppmvc",
	// "gzip", "bzip2", "lzma" or "none".
	Compression string `toml:"compression"`
}

// ReplicationScarlett is [replication]'s only policy.
const ReplicationScarlett = "scarlett"

// DefaultReplicationConfig is [replication] with the thesis's defaults:
// T_L 24 h, T_R 12 h, δ 1, B 10%, largest first, PPMVC.
func DefaultReplicationConfig() ReplicationConfig {
	return ReplicationConfig{
		Name: ReplicationScarlett, Learn: units.Duration(24 * time.Hour), Epoch: units.Duration(12 * time.Hour),
		Delta: 1, Budget: 0.1, Order: replication.OrderNames[replication.LargestFirst], Compression: "ppmvc",
	}
}

// SetDefaults fills a zero table with DefaultReplicationConfig, for a
// [replication] a scenario creates with --set.
func (c *ReplicationConfig) SetDefaults() { *c = DefaultReplicationConfig() }

// Validate checks [replication].
func (c *ReplicationConfig) Validate(errs *Checks) {
	errs.Check(c.Name != ReplicationScarlett, "replication.name", c.Name, fmt.Sprintf("must be %q", ReplicationScarlett))
	errs.Check(c.Learn <= 0, "replication.learn", c.Learn, "must be > 0: T_L, the window c_f is measured over")
	errs.Check(c.Epoch <= 0, "replication.epoch", c.Epoch, "must be > 0: T_R, the period of the rearrangements")
	errs.Check(c.Delta < 0, "replication.delta", c.Delta, "must be ≥ 0")
	errs.Check(!(c.Budget >= 0 && c.Budget <= 1), "replication.budget", c.Budget,
		"must be in [0, 1]: the extra replicas' bytes as a fraction of the bytes stored")
	_, err := replication.ParseOrder(c.Order)
	errs.Check(err != nil, "replication.order", c.Order, fmt.Sprintf("must be one of %q", replication.OrderNames))
	_, err = replication.CodecNamed(c.Compression)
	errs.Check(err != nil, "replication.compression", c.Compression, fmt.Sprintf("must be one of %q", replication.CodecNames))
}

// Params are the policy's parameters for a cluster storing stored bytes
// at base replication.
func (c *ReplicationConfig) Params(base int, stored int64) replication.Params {
	order, _ := replication.ParseOrder(c.Order)
	return replication.Params{Base: base, Delta: c.Delta, Budget: int64(c.Budget * float64(stored)), Order: order}
}
