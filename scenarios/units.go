package scenarios

import "clusteremu/units"

// The scenario's quantities with units, as the workload tables write them.
type (
	Bytes    = units.Bytes
	Rate     = units.Rate
	Duration = units.Duration
)
