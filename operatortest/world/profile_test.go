package world_test

import (
	"bytes"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/google/pprof/profile"
)

// labelsHere are the profile labels of the calling goroutine, read from a
// goroutine profile (every goroutine, with its labels and stack): the
// goroutine whose stack holds this function.
func labelsHere(t *testing.T) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if strings.HasSuffix(l.Function.Name, "world_test.labelsHere") {
					return strings.Join(s.Label[world.LabelPhase], ",") + " " + strings.Join(s.Label[world.LabelRun], ",")
				}
			}
		}
	}
	t.Fatal("the goroutine profile has no goroutine in labelsHere")
	return ""
}

// Every run carries what it was for in its goroutines' profile labels, so
// that `go test -cpuprofile` and `go tool pprof -tagfocus ctrlsim.phase=shrink`
// split an exploration's time: the plans of the search and their fault-free
// references, the shrinker's candidates, a replay.
func TestEveryRunIsLabelledWithItsPhaseInCPUProfiles(t *testing.T) {
	defer optest.RandomPassOnly()()
	var seen []string
	o := optest.BugOptions(&optest.KnownBugs{TwoWrites: true}, false)
	o.Checks = 40
	o.Properties = append(o.Properties, world.Property{Name: "labelled", Check: func(*world.History) error {
		if l := labelsHere(t); !slices.Contains(seen, l) {
			seen = append(seen, l)
		}
		return nil
	}})
	res := optest.ExploreWith(t, o, 1)
	if !res.Caught {
		t.Fatal("the two-writes bug was not caught: no shrink to label")
	}
	for _, want := range []string{"preflight reference", "find plan", "find reference", "shrink plan"} {
		if !slices.Contains(seen, want) {
			t.Errorf("no run labelled %q; labels seen: %q", want, seen)
		}
	}
	seen = nil
	if _, err := operatortest.Replay(t, o, res.Minimal); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(seen, "replay plan") {
		t.Errorf("the replay's run is not labelled \"replay plan\"; labels seen: %q", seen)
	}
}
