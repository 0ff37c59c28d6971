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

// A nested run runs exactly the test Outside made, once, whatever selected
// the outer tests: `go test -skip X` (make check's CHECK_SKIP) once skipped
// it ("testing: warning: no tests to run"), and -count, -run or -list would
// run it twice, not at all, or list it. The selection is back afterwards.
func TestOutsideRunsItsTestOnceWhateverSelectedTheOuterTests(t *testing.T) {
	set := map[string]string{"test.run": "^TestSomethingElse$", "test.skip": "Nested|Other", "test.count": "2",
		"test.list": ".", "test.shuffle": "7"}
	want := map[string]string{}
	for name, v := range set {
		f := flag.Lookup(name)
		if f == nil {
			t.Fatalf("no flag %s in a test binary", name)
		}
		want[name] = f.Value.String()
		if err := f.Value.Set(v); err != nil {
			t.Fatal(err)
		}
		defer f.Value.Set(want[name])
		want[name] = v
	}
	runs := 0
	err := Outside("Nested", func(*testing.T) { runs++ })
	if err != nil || runs != 1 {
		t.Errorf("Outside under -run, -skip, -count, -list, -shuffle: error %v, ran %d times; want nil, once", err, runs)
	}
	for name, v := range want {
		if got := flag.Lookup(name).Value.String(); got != v {
			t.Errorf("after Outside -%s is %q, want %q back", name, got, v)
		}
	}
	if err := Outside("Nested", func(t *testing.T) { t.Error("it ran and failed") }); err == nil || !strings.Contains(err.Error(), "it ran and failed") {
		t.Errorf("a failing nested test under the same flags: error %v, want its failure", err)
	}
}
