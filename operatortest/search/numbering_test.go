package search

import (
	"errors"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// A plan has one number wherever it is printed: the line that announces a
// KeepGoing finding of the random pass numbers its plan among the sweep's
// places (the two take turns: a random plan's place is even while the
// sweep's plans last), as the finding (and its report) does, not from 1
// again.
func TestAFindingsPlanHasOneNumberWhereverItIsPrinted(t *testing.T) {
	h := hookProgress(t, time.Hour)
	NoSweep = false // the sweep's places take turns with the random ones
	o := twoSeedOptions(world.Property{Name: "two-faults", Check: func(h *world.History) error {
		if p := h.Run().Plan; p != nil && len(p.Faults) >= 2 {
			return errors.New("violated by a plan of two faults or more (a random one: a targeted plan has one)")
		}
		return nil
	}})
	o.KeepGoing, o.Checks = true, 60
	res, err := Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].NoFault {
		t.Fatalf("findings %+v, want the random plans' one", res.Findings)
	}
	f := res.Findings[0]
	swept := 0
	for _, c := range res.Targeted {
		swept += c.Ran
	}
	var announced []int
	for _, l := range h.logged() {
		if m := regexp.MustCompile(`^operatortest: found two-faults at plan (\d+) `).FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			announced = append(announced, n)
		}
	}
	targeted := f.FirstFailure%2 == 1 && f.FirstFailure < 2*swept // a place of the sweep's (targetedPlace)
	if len(announced) != 1 || announced[0] != f.FirstFailure || targeted || swept == 0 {
		t.Errorf("announced at plans %v, the finding at plan %d, among %d targeted plans: want one number, a random plan's place", announced, f.FirstFailure, swept)
	}
}
