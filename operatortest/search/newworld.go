package search

import (
	"github.com/ctrlsim/ctrlsim/operatortest/workload"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// NewWorld is the world of o (world.Build), its workload drawn by
// operatortest/workload.
func NewWorld(o world.Options) (*world.World, error) {
	return world.Build(o, workload.Source{})
}
