package workers_test

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// Places are handed out lowest first, only those of the shard, none after
// a known failure; the exploration is decided once every place before the
// failure is judged, whatever order the verdicts come in.
func TestPlacesAreHandedOutInOrderAndDecidedAtTheFirstFailure(t *testing.T) {
	sh := world.Shard{Index: 2, Count: 3}
	ps := &workers.Places{Checks: 30, Owns: sh.Owns, Next: 1, Finished: make(chan struct{}), V: &workers.Verdicts{Sigs: map[int][]string{}, Judged: map[int]bool{}}}
	var got []int
	for range 4 {
		got = append(got, ps.Give())
	}
	if !slices.Equal(got, []int{2, 5, 8, 11}) {
		t.Fatalf("handed out %v, want shard 2/3's places 2, 5, 8, 11", got)
	}
	ps.Judged(8, []string{"converges"}, "", "")
	if k := ps.Give(); k != 0 {
		t.Errorf("handed out place %d after a failure at 8", k)
	}
	ps.Judged(5, nil, "", "")
	ps.Judged(11, nil, "", "")
	select {
	case <-ps.Finished:
		t.Fatal("decided before place 2 was judged")
	default:
	}
	ps.Judged(2, nil, "", "")
	select {
	case <-ps.Finished:
	default:
		t.Fatal("not decided once places 2 and 5 held and 8 failed")
	}
	if ps.V.Stop != 8 {
		t.Errorf("stop = %d, want 8", ps.V.Stop)
	}
}
