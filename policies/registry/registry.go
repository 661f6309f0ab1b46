// Package registry holds policies by name, each with its default
// parameters and how to build it, for the policy packages (sched,
// straggler) to share: a scenario names a policy, decodes its table over
// the defaults and builds it, and every package does that the same way.
package registry

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// Params are a policy's parameters: Validate reports every invalid value.
type Params interface {
	Validate() error
}

// Registry maps names to policies of type Pol, built from parameters of
// interface type P and a build argument A (a cluster's shape, a job's
// setup). It is filled from init functions and read afterwards, so it
// needs no lock.
type Registry[P Params, A, Pol any] struct {
	kind    string // what it holds, in messages: "scheduler", "speculation"
	unknown func(name string, known []string) error
	byName  map[string]entry[P, A, Pol]
}

type entry[P Params, A, Pol any] struct {
	defaults func() P
	// build checks the parameters' type, validates them and builds.
	build func(P, A) (Pol, error)
}

// New returns an empty registry of policies of a kind; unknown makes the
// error for a name no policy has, given the names that are known.
func New[P Params, A, Pol any](kind string, unknown func(name string, known []string) error) *Registry[P, A, Pol] {
	return &Registry[P, A, Pol]{kind: kind, unknown: unknown, byName: map[string]entry[P, A, Pol]{}}
}

// Add registers a policy under name: defaults returns a new T holding its
// default parameters on every call (a scenario decodes its table over
// it), and build makes the policy from valid parameters. T must implement
// P. Add panics when the name is taken.
func Add[T Params, P Params, A, Pol any](r *Registry[P, A, Pol], name string, defaults func() T, build func(T, A) (Pol, error)) {
	if _, taken := r.byName[name]; taken {
		panic(fmt.Sprintf("%s policy %q registered twice", r.kind, name))
	}
	if _, ok := any(defaults()).(P); !ok {
		panic(fmt.Sprintf("%s policy %q: %v does not implement %v", r.kind, name, reflect.TypeFor[T](), reflect.TypeFor[P]()))
	}
	r.byName[name] = entry[P, A, Pol]{
		defaults: func() P { return any(defaults()).(P) },
		build: func(p P, a A) (Pol, error) {
			var none Pol
			typed, ok := any(p).(T)
			if !ok {
				return none, fmt.Errorf("%s %q takes parameters of type %v, not %T", r.kind, name, reflect.TypeFor[T](), p)
			}
			if err := typed.Validate(); err != nil {
				return none, err
			}
			return build(typed, a)
		},
	}
}

// Names lists the registered policies, sorted.
func (r *Registry[P, A, Pol]) Names() []string { return slices.Sorted(maps.Keys(r.byName)) }

func (r *Registry[P, A, Pol]) lookup(name string) (entry[P, A, Pol], error) {
	e, ok := r.byName[name]
	if !ok {
		return e, r.unknown(name, r.Names())
	}
	return e, nil
}

// Defaults returns the named policy's default parameters, a new value on
// every call, or the registry's error for an unknown name.
func (r *Registry[P, A, Pol]) Defaults(name string) (P, error) {
	e, err := r.lookup(name)
	if err != nil {
		var none P
		return none, err
	}
	return e.defaults(), nil
}

// Build makes the named policy with parameters p, nil for the policy's
// defaults, which must otherwise be of the type it registered; invalid
// parameters come back as their Validate reports them.
func (r *Registry[P, A, Pol]) Build(name string, p P, a A) (Pol, error) {
	e, err := r.lookup(name)
	if err != nil {
		var none Pol
		return none, err
	}
	if any(p) == nil {
		p = e.defaults()
	}
	return e.build(p, a)
}
