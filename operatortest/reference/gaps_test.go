package reference_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Two references given by hand (no run, no watch log) that disagree on two
// ConfigMaps: the verdict names the first alone, and blames by the faulted
// run's end state, which is the first reference's.
func TestAHandMadeReferenceIsBlamedByTheFaultedRunsEndStateOnTheFirstObject(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	other := func(v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "other", UID: "00000000-0000-4000-8000-000000000009"}, Data: map[string]string{"v": v}}
	}
	a := optest.Snap(t, w, optest.App(map[string]string{"mode": "x"}), other("1"))
	b := optest.Snap(t, w, optest.App(map[string]string{"mode": "y"}), other("2"))
	got := optest.Snap(t, w, optest.App(map[string]string{"mode": "x"}), other("1"))
	v := reference.InterleavingsAgree(w, []*verdict.Reference{{Seed: 1, Snap: a}, {Seed: 2049, Snap: b}}, got)
	if v.Holds {
		t.Fatal("the two references agree")
	}
	if !strings.Contains(v.Detail, "the faulted run ends as the fault-free run with seed 1 does: the suspect is the fault-free run with seed 2049") {
		t.Errorf("not blamed by the faulted run's end state:\n%s", v.Detail)
	}
	if !strings.Contains(v.Detail, "ConfigMap team/app differs") || strings.Contains(v.Detail, "team/other") {
		t.Errorf("the verdict does not name ConfigMap team/app alone:\n%s", v.Detail)
	}
}

// Each plan costs two fault-free runs besides its own (its schedule's and
// another's), cached by seed and workload: a second plan of one seed and
// workload costs its own run alone.
func TestAPlanCostsTwoFaultFreeRunsBesidesItsOwnCachedBySeedAndWorkload(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	runs := func(text string) int {
		t.Helper()
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		before := w.Runs
		r, err := reference.Run(w, t, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violated()) > 0 {
			t.Fatalf("%q violates %v: the test shows nothing", text, r.Violated())
		}
		return w.Runs - before
	}
	runs("seed 3\n") // the world's first plan may cost more (its first use)
	if n := runs("seed 5\ncrash process=op at=1s\n"); n != 3 {
		t.Errorf("the first plan of seed 5 made %d runs, want 3", n)
	}
	if n := runs("seed 5\ncrash process=op at=2s\n"); n != 1 {
		t.Errorf("a second plan of seed 5 made %d runs, want 1", n)
	}
}
