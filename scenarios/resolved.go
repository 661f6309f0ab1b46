package scenarios

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
)

// Resolved returns the scenario as it runs, written as a scenario file:
// every key with its default filled in, --set, --seed and --until
// applied, and trace paths made absolute so the file loads from any
// directory. Loading it gives the same configuration. When --until cuts
// the run before some fault, the faults are written as drawn (cutFaults).
func (s *Scenario) Resolved() ([]byte, error) {
	f := s.file
	f.Run = s.Config.Run
	// With containers, the slot keys the file left out are its containers.
	f.Cluster.MapSlots, f.Cluster.ReduceSlots = s.Config.Cluster.MapSlots, s.Config.Cluster.ReduceSlots
	if f.Cluster.RackUplink > 0 {
		f.Cluster.Oversubscription = 0 // the uplink is set; see senseChecks
	}
	f.Workload.Synthetic = slices.Clone(f.Workload.Synthetic)
	for i := range f.Workload.Synthetic {
		f.Workload.Synthetic[i] = f.Workload.Synthetic[i].withDefaults()
	}
	f.Workload.SWIM = slices.Clone(f.Workload.SWIM)
	for i := range f.Workload.SWIM {
		if t := f.Workload.SWIM[i].Trace; t != "" && !filepath.IsAbs(t) {
			abs, err := filepath.Abs(filepath.Join(s.dir, t))
			if err != nil {
				return nil, err
			}
			f.Workload.SWIM[i].Trace = abs
		}
	}
	f.Fault = cutFaults(f.Fault, &s.Config)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# %s, resolved: defaults filled in, overrides applied.\n\n", s.Name)
	if err := toml.NewEncoder(&buf).Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
