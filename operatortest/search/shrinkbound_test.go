package search

import "testing"

// The default bound is twice the random plans drawn to find the violation,
// 20 at the least (distinct plans: shrinkBound).
func TestTheShrinkBound(t *testing.T) {
	for _, c := range []struct{ place, want int }{
		{1, 20},
		{10, 20},
		{11, 22},
		{80, 160},
		{1000, 2000},
	} {
		if got := shrinkBound(c.place); got != c.want {
			t.Errorf("shrinkBound(found at %d) = %d, want %d", c.place, got, c.want)
		}
	}
}
