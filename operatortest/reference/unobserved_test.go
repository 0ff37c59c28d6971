package reference_test

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A fault profile narrowed to objects aims faults only at their changes in
// the reference run; a name the script's run never changes, or one that is
// no name, is refused in one line.
func TestAFaultProfileNarrowedToAnObjectAimsAtItsChangesOnly(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Workload.Steps = []world.StepKind{} // the script alone (here none): each plan's workload is the same
	o.Faults.Objects = []types.NamespacedName{{Namespace: "team", Name: "app-child"}}
	w := optest.TestWorld(t, o)
	r, err := reference.Reference(w, t, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Targets.Writes) == 0 {
		t.Fatal("no target: the operator's Secret team/app-child is created in the reference run")
	}
	for _, wr := range r.Targets.Writes {
		if wr.Object != "team/app-child" {
			t.Errorf("a target of another object: %+v", wr)
		}
	}
	if ws := plan.UnobservedWindows(r.Targets, "op"); len(ws) == 0 || ws[0].String() != "unobserved process=op kind=/v1/Secret object=team/app-child from=0 until=0" {
		t.Errorf("the unobserved windows of op: %v, want the Secret's from its creation first", ws)
	}

	o.Faults.Objects = []types.NamespacedName{{Namespace: "team", Name: "nope"}}
	_, err = reference.Reference(optest.TestWorld(t, o), t, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "Options.Faults.Objects: team/nope is changed by no write of the script's fault-free run (its objects: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("an object the run never changes: got %v, want one line naming it and the run's objects", err)
	}
	o.Faults.Objects = []types.NamespacedName{{Namespace: "team", Name: "a/b"}}
	if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), "Options.Faults.Objects[0]") {
		t.Errorf("a name with a slash: got %v", err)
	}
}

// A correct operator holds when one of its children is unobserved from its
// creation until the heal: it creates the Secret, never sees it, and its
// next reconciles meet AlreadyExists, which it expects; after the heal its
// cache has the Secret and the end state is the fault-free one.
func TestACorrectOperatorHoldsWithItsChildUnobserved(t *testing.T) {
	p, err := plan.Parse("seed 1\nunobserved process=op kind=/v1/Secret object=team/app-child from=0 until=0\ncrash process=op at=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(optest.TestWorld(t, optest.AppOptions(optest.Child())), t, p)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Violated(); len(v) > 0 {
		t.Fatalf("violated %v", v)
	}
	var said []string
	for _, s := range r.Steps {
		if s.Op == "unobserved" || s.Op == "catch-up" {
			said = append(said, s.Result)
		}
	}
	if len(said) != 3 || !strings.HasPrefix(said[0], "its changes from resourceVersion") || said[1] != "the window ends at the heal" {
		t.Fatalf("the run's trace says of the window %q; want it opened at the Secret's creation and ended at the heal", said)
	}
	// A failure under it would say what it did and what it stands for.
	why := strings.Join(failure.WhyReal(p, r.Steps, nil), "\n")
	for _, want := range []string{"op never saw Secret team/app-child from its creation until its deletion or the heal", "its watch broke while the object changed"} {
		if !strings.Contains(why, want) {
			t.Errorf("a failure's account of the faults:\n%s\nsays nothing of %q", why, want)
		}
	}
}
