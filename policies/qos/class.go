package qos

import (
	"fmt"
	"math"
)

// Class is one QoS class: a client's token bucket refills at Rate tokens
// per second up to Capacity tokens (a token is a millisecond of a node's
// compute), and a node's WRR takes up to Weight of its tasks a round.
type Class struct {
	Name     string  `toml:"name"`
	Rate     float64 `toml:"rate"`
	Capacity float64 `toml:"capacity"`
	Weight   int     `toml:"weight"`
}

// DefaultClasses are the paper's three, highest first (§VII, notes
// §2.5.1): premium 800 tokens/s, 10,000 tokens, weight 10; advanced 300,
// 150, 3; basic 100, 125, 1.
func DefaultClasses() []Class {
	return []Class{
		{Name: "premium", Rate: 800, Capacity: 10000, Weight: 10},
		{Name: "advanced", Rate: 300, Capacity: 150, Weight: 3},
		{Name: "basic", Rate: 100, Capacity: 125, Weight: 1},
	}
}

// MaxWeight is the largest weight a class may have: a WRR round serves
// at most the sum of the weights.
const MaxWeight = 1 << 20

// FieldError is one invalid value of a class list: Key is its path
// ("classes[1].rate").
type FieldError struct {
	Key   string
	Value any
	Msg   string
}

// Error formats e as "key = value: msg".
func (e *FieldError) Error() string { return fmt.Sprintf("%s = %v: %s", e.Key, e.Value, e.Msg) }

// ValidateClasses checks a class list, highest first: at least one
// class, names given once, rates and capacities finite and above 0,
// weights whole numbers in [1, MaxWeight]. It returns every problem, a
// *FieldError each.
func ValidateClasses(classes []Class) []error {
	var errs []error
	bad := func(cond bool, key string, v any, msg string) {
		if cond {
			errs = append(errs, &FieldError{Key: key, Value: v, Msg: msg})
		}
	}
	bad(len(classes) == 0, "classes", "[]", "must list at least one class, highest first")
	seen := map[string]int{}
	for i, c := range classes {
		key := fmt.Sprintf("classes[%d]", i)
		bad(c.Name == "", key+".name", `""`, "every class needs a name")
		if j, dup := seen[c.Name]; dup && c.Name != "" {
			bad(true, key+".name", fmt.Sprintf("%q", c.Name), fmt.Sprintf("names classes[%d] again", j))
		}
		seen[c.Name] = i
		bad(!positive(c.Rate), key+".rate", c.Rate, "must be a finite number > 0 (tokens per second; a token is 1 ms of compute)")
		bad(!positive(c.Capacity), key+".capacity", c.Capacity, "must be a finite number > 0 (tokens)")
		bad(c.Weight < 1 || c.Weight > MaxWeight, key+".weight", c.Weight, fmt.Sprintf("must be a whole number in [1, %d] (tasks a WRR round)", MaxWeight))
	}
	return errs
}

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
