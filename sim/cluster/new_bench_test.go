package cluster_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// BenchmarkNew measures building a world: what every explored plan pays first.
func BenchmarkNew(b *testing.B) {
	opts := world()
	for range b.N {
		c, err := cluster.New(&plan.Plan{}, opts)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
