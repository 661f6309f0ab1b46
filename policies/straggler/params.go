package straggler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"clusteremu/policies/registry"
	"clusteremu/units"
)

// Params is a speculation policy's parameters: a pointer to a struct
// whose fields carry toml tags, which a scenario's strict decoder fills
// from [speculation] (every key but name) over the policy's defaults.
type Params interface {
	// Validate reports every invalid value at once: a *ParamError each,
	// joined with errors.Join.
	Validate() error
	// Cap is the most copies of running tasks that may run at once, as a
	// share of the cluster's slots of their kind, in (0, 1]; the
	// coordinator keeps to it.
	Cap() float64
	// SlowNodes is the share of the nodes, slowest first, on which no
	// copy launches (LATE's SlowNodeThreshold); 0: any node.
	SlowNodes() float64
}

// ParamError is one invalid parameter; Key is its name in [speculation].
type ParamError struct {
	Key   string
	Value any
	Msg   string
}

// Error formats e as `speculation.<Key> = <Value>: <Msg>`.
func (e *ParamError) Error() string {
	v := fmt.Sprint(e.Value)
	switch x := e.Value.(type) {
	case string:
		v = strconv.Quote(x)
	case fmt.Stringer:
		v = strconv.Quote(x.String())
	}
	return fmt.Sprintf("speculation.%s = %s: %s", e.Key, v, e.Msg)
}

// checks collects the ParamErrors of a Validate.
type checks []error

func (c *checks) check(bad bool, key string, v any, msg string) {
	if bad {
		*c = append(*c, &ParamError{Key: key, Value: v, Msg: msg})
	}
}

// share checks a share in (0, 1] (or [0, 1] when zero is allowed).
func (c *checks) share(key string, x float64, zero bool) {
	if zero {
		c.check(!(x >= 0 && x <= 1), key, x, "must be a share in [0, 1]")
		return
	}
	c.check(!(x > 0 && x <= 1), key, x, "must be a share in (0, 1]")
}

func (c *checks) duration(key string, d units.Duration) {
	c.check(d < 0, key, d, `must be a duration ≥ 0 like "60s"`)
}

func (c checks) err() error { return errors.Join(c...) }

// policies holds the speculation policies by name.
var policies = registry.New[Params, Setup, Policy]("speculation", func(name string, known []string) error {
	return &ParamError{Key: "name", Value: name, Msg: "must be one of " + strings.Join(known, ", ")}
})

// Register makes a policy available to scenarios under name: defaults
// returns a new P holding its default parameters on every call, and build
// makes the policy for one job from valid parameters. Register panics
// when the name is taken.
func Register[P Params](name string, defaults func() P, build func(P, Setup) Policy) {
	registry.Add(policies, name, defaults, func(p P, s Setup) (Policy, error) { return build(p, s), nil })
}

// None is the policy that never speculates, the default: a job manager
// runs no policy at all for it.
const None = "none"

func init() {
	Register(None, func() *NoneParams { return &NoneParams{} }, func(*NoneParams, Setup) Policy { return nil })
	Register("hadoop", DefaultHadoopParams, newHadoop)
	Register("late", DefaultLATEParams, newLATE)
	Register("dryad", DefaultDryadParams, newDryad)
	Register("mantri", DefaultMantriParams, newMantri)
}

// NoneParams are "none"'s parameters: none.
type NoneParams struct{}

// Validate implements Params.
func (*NoneParams) Validate() error { return nil }

// Cap implements Params.
func (*NoneParams) Cap() float64 { return 1 }

// SlowNodes implements Params.
func (*NoneParams) SlowNodes() float64 { return 0 }

// Names lists the registered policies, sorted.
func Names() []string { return policies.Names() }

// NewParams returns the named policy's default parameters, a new value
// on every call; an unknown name is a *ParamError for the key name.
func NewParams(name string) (Params, error) { return policies.Defaults(name) }

// Validate checks parameters p for the named policy (nil: its defaults).
func Validate(name string, p Params) error {
	_, err := New(name, p, Setup{})
	return err
}

// New builds the named policy for one job with parameters p (nil: its
// defaults), which must be of the type the policy registered. "none"
// builds a nil Policy.
func New(name string, p Params, s Setup) (Policy, error) { return policies.Build(name, p, s) }
