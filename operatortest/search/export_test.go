package search

import (
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// ShrinkWall sets the wall time a shrink may take (shrinkWall) until the
// returned func puts it back.
func ShrinkWall(d time.Duration) func() {
	old := shrinkWall
	shrinkWall = func(world.Options) time.Duration { return d }
	return func() { shrinkWall = old }
}
