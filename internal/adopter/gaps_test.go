package adopter

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheOperatorRequiresThisCheckoutByAReplace(t *testing.T) {
	gomod := operatorGoMod("/src/ctrlsim")
	for _, want := range []string{"\nrequire github.com/ctrlsim/ctrlsim v0.0.0\n", "\nreplace github.com/ctrlsim/ctrlsim => /src/ctrlsim\n"} {
		if !strings.Contains(gomod, want) {
			t.Errorf("the operator's go.mod lacks %q:\n%s", want, gomod)
		}
	}
	if n := strings.Count(gomod, "=>"); n != 1 {
		t.Errorf("%d replace directives, want the one to the checkout:\n%s", n, gomod)
	}
}

func TestTheOperatorsGoSumStartsAsCtrlsims(t *testing.T) {
	checkout := filepath.Join("..", "..")
	dir := t.TempDir()
	seedGoSum(t, checkout, dir)
	got, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the operator's first go.sum (%d bytes) is not ctrlsim's (%d bytes)", len(got), len(want))
	}
}

func TestOneOperatorShapeIsTried(t *testing.T) {
	project, err := os.ReadFile(filepath.Join("testdata", "operator", "PROJECT"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(project), "\n- api:"); n != 1 || !strings.Contains(string(project), "- go.kubebuilder.io/v4\n") {
		t.Errorf("PROJECT has %d resources, want one, in kubebuilder's go/v4 layout:\n%s", n, project)
	}
	groups, err := os.ReadDir(filepath.Join("testdata", "operator", "api"))
	if err != nil {
		t.Fatal(err)
	}
	ctrls, err := filepath.Glob(filepath.Join("testdata", "operator", "internal", "controller", "*_controller.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || len(ctrls) != 1 {
		t.Errorf("%d API versions and controllers %v, want one of each", len(groups), ctrls)
	}
}
