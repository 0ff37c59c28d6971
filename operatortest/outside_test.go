package operatortest

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

// Outside runs an exploration as a test of a program that is not a test
// (ctrlsim run): the same Explore, with its result, and a failing test's
// output returned as the error.
func TestOutsideRunsExploreAndReturnsAFailureAsAnError(t *testing.T) {
	var res Result
	err := Outside("catalogue/entry", func(t *testing.T) {
		var err error
		if res, err = Explore(t, domainOptions()); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil || res.Checks != 6 {
		t.Fatalf("Outside: %v, %d plans explored; want nil and the 6 plans of the options", err, res.Checks)
	}
	err = Outside("catalogue/broken", func(t *testing.T) { t.Fatal("the world could not run") })
	if err == nil || !strings.Contains(err.Error(), "the world could not run") || !strings.Contains(err.Error(), "catalogue/broken") {
		t.Fatalf("a failing test: error %v, want its name and output", err)
	}
}

// Outside explores in its own process: worker processes re-run a test
// binary's test by name, and a program running Outside is not one. An
// explicit Options.Workers above 1 there is an error, never ignored.
func TestOutsideRefusesExplicitWorkers(t *testing.T) {
	err := Outside("catalogue/workers", func(t *testing.T) {
		o := domainOptions()
		o.Workers = 2
		if _, err := Explore(t, o); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "Options.Workers is 2 in catalogue/workers, run by Outside") {
		t.Fatalf("Outside with Options.Workers 2: error %v, want it refused", err)
	}
}

// A nested run owns none of the test binary's files: within Outside the
// test log's flag is empty (else testing's nested M.Run would close the
// outer run's log, and `go test` without -count=1 would fail after every
// test passed), and it is back afterwards.
func TestOutsideLeavesTheTestBinarysFilesToIt(t *testing.T) {
	f := flag.Lookup("test.testlogfile")
	if f == nil {
		t.Skip("no test.testlogfile flag")
	}
	was := f.Value.String()
	if was == "" {
		_ = f.Value.Set(filepath.Join(t.TempDir(), "testlog.txt"))
		defer f.Value.Set("")
	}
	want := f.Value.String()
	var inside string
	if err := Outside("Nested", func(*testing.T) { inside = f.Value.String() }); err != nil {
		t.Fatal(err)
	}
	if inside != "" {
		t.Errorf("within Outside the test log is %q, want none", inside)
	}
	if got := f.Value.String(); got != want {
		t.Errorf("after Outside the test log is %q, want %q back", got, want)
	}
}
