package reposync

import "github.com/ctrlsim/ctrlsim/sim/check"

// Properties are the properties of every entry of this world: terminates (no
// object, the namespace included, still deleting at the end of the heal
// budget).
func Properties() []check.Property { return []check.Property{check.Terminates{}} }
