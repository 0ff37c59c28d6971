package outside

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

// A nested run owns none of the test binary's files: within Run the
// test log's flag is empty (else testing's nested M.Run would close the
// outer run's log, and `go test` without -count=1 would fail after every
// test passed), and it is back afterwards.
func TestRunLeavesTheTestBinarysFilesToIt(t *testing.T) {
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
	if err := Run("Nested", func(*testing.T) { inside = f.Value.String() }); err != nil {
		t.Fatal(err)
	}
	if inside != "" {
		t.Errorf("within Run the test log is %q, want none", inside)
	}
	if got := f.Value.String(); got != want {
		t.Errorf("after Run the test log is %q, want %q back", got, want)
	}
}

// A nested run runs exactly the test Outside made, once, whatever selected
// the outer tests: `go test -skip X` (make check's CHECK_SKIP) once skipped
// it ("testing: warning: no tests to run"), and -count, -run or -list would
// run it twice, not at all, or list it. The selection is back afterwards.
func TestRunRunsItsTestOnceWhateverSelectedTheOuterTests(t *testing.T) {
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
	err := Run("Nested", func(*testing.T) { runs++ })
	if err != nil || runs != 1 {
		t.Errorf("Run under -run, -skip, -count, -list, -shuffle: error %v, ran %d times; want nil, once", err, runs)
	}
	for name, v := range want {
		if got := flag.Lookup(name).Value.String(); got != v {
			t.Errorf("after Run -%s is %q, want %q back", name, got, v)
		}
	}
	if err := Run("Nested", func(t *testing.T) { t.Error("it ran and failed") }); err == nil || !strings.Contains(err.Error(), "it ran and failed") {
		t.Errorf("a failing nested test under the same flags: error %v, want its failure", err)
	}
}
