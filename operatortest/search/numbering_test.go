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
// KeepGoing finding of the random pass numbers its plan after the sweep's
// places, as the finding (and its report) does, not from 1 again.
func TestAFindingsPlanHasOneNumberWhereverItIsPrinted(t *testing.T) {
	h := hookProgress(t, time.Hour)
	NoSweep = false // the sweep's places come first
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
	if len(announced) != 1 || announced[0] != f.FirstFailure || f.FirstFailure <= swept {
		t.Errorf("announced at plans %v, the finding at plan %d, after %d targeted plans: want one number, after the sweep's", announced, f.FirstFailure, swept)
	}
}
