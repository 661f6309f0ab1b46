package sweep

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The protocol between a coordinator and its workers. protoactor-go's
// remote carries only protobuf messages, found again on the far side by
// their registered type name. Every message here travels as the JSON of
// an envelope inside a wrapperspb.BytesValue, a type the protobuf module
// registers itself: no .proto file, no protoc step and no generated code
// to keep in step, and a unit's scenario and a result's summary already
// have exact JSON forms. The cost, a JSON encoding per unit, is nothing
// beside the emulation the unit runs.

// Hello asks a worker, at connect time, whether it runs the coordinator's
// version of clusteremu and how many units it runs at once.
type Hello struct {
	Version string `json:"version"`
}

// HelloAnswered is a worker's answer to Hello: its version, the units it
// runs at once (≥ 1), and why it refuses the coordinator when it does.
type HelloAnswered struct {
	Version  string `json:"version"`
	Parallel int    `json:"parallel"`
	Refused  string `json:"refused,omitempty"`
}

// RunUnit hands a worker one unit of work: what to run (Kind, read by the
// worker's Runner), the scenario as a resolved scenario file with its
// name, the configuration hash the coordinator computed from it, which
// the worker checks before running anything, and the unit's schedule
// seed when it has one. Index is the unit's place in the sweep.
type RunUnit struct {
	Index    int    `json:"index"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Scenario string `json:"scenario"`
	Hash     string `json:"config_sha256"`
	Seed     uint64 `json:"seed,omitempty"`
	Version  string `json:"version"`
}

// UnitFinished is a worker's result of RunUnit: the unit's index and its
// result as the Runner encoded it, or why the worker refused to run it (a
// version or a configuration that differs from the coordinator's).
type UnitFinished struct {
	Index   int             `json:"index"`
	Result  json.RawMessage `json:"result,omitempty"`
	Refused string          `json:"refused,omitempty"`
}

// envelope is what travels: exactly one field set.
type envelope struct {
	Hello         *Hello         `json:"hello,omitempty"`
	HelloAnswered *HelloAnswered `json:"hello_answered,omitempty"`
	RunUnit       *RunUnit       `json:"run_unit,omitempty"`
	UnitFinished  *UnitFinished  `json:"unit_finished,omitempty"`
}

// wrap encodes a message of the protocol for the remote.
func wrap(e envelope) *wrapperspb.BytesValue {
	data, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("clusteremu: encoding a sweep message: %v", err))
	}
	return wrapperspb.Bytes(data)
}

// unwrap decodes a message of the protocol; an error names what did not
// decode.
func unwrap(m *wrapperspb.BytesValue) (envelope, error) {
	var e envelope
	if err := json.Unmarshal(m.GetValue(), &e); err != nil {
		return e, fmt.Errorf("a sweep message that does not decode (%v): %.80q", err, m.GetValue())
	}
	return e, nil
}
