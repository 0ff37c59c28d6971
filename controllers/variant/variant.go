// Package variant names the three versions of each reference controller: the code
// before the upstream fix, the upstream fix as proposed or merged, and this
// project's own design that survives every fault profile of its catalogue entries.
//
// # Known gaps
//
// A variant is a switch inside one reconciler, not three separate programs; where
// the upstream fix changed the controller's wiring (workers, predicates), the
// wiring reads the variant too.
package variant

import "fmt"

// Variant selects a reference controller's behaviour.
type Variant string

// The variants.
const (
	Buggy  Variant = "buggy"  // before the upstream fix
	Fixed  Variant = "fixed"  // the upstream fix as proposed or merged
	Robust Variant = "robust" // this project's design
)

// All is every variant, in catalogue order.
var All = []Variant{Buggy, Fixed, Robust}

// Parse reads a variant name.
func Parse(s string) (Variant, error) {
	for _, v := range All {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown variant %q (want buggy, fixed or robust)", s)
}
