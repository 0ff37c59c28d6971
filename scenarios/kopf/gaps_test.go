package kopf

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// replay runs text on the world of o (Test) with a fault phase of d and a
// short heal, the kernel's verdicts only, as the specs do.
func replay(t *testing.T, o Options, d time.Duration, text string) *operatortest.Replayed {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	opts := Test(o, d)
	opts.HealBudget = 10 * time.Second
	r, err := operatortest.Replay(t, catalogue.ForSpecs(opts), p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func final(t *testing.T, r *operatortest.Replayed, name string) *kopfop.KopfExample {
	t.Helper()
	var k kopfop.KopfExample
	if err := r.Final.Get(types.NamespacedName{Namespace: Namespace, Name: name}, &k); err != nil {
		t.Fatal(err)
	}
	return &k
}

// controllers/kopf's first gap: x and y, made at the start, are handled one
// after the other by the controller's one worker, each after its own batch
// window, where kopf's per-object workers would handle both at once.
func TestObjectsShareTheOperatorsWorkerSoTheirBatchWindowsQueue(t *testing.T) {
	r := replay(t, Options{Variant: variant.Buggy, Quiet: true}, 2*time.Second, "seed 1\n")
	x, y := Attempts(r.Steps, "x"), Attempts(r.Steps, "y")
	if len(x) == 0 || len(y) == 0 {
		t.Fatalf("attempts of x %v and of y %v, want one each", x, y)
	}
	gap := y[0].At - x[0].At
	if gap < 0 {
		gap = -gap
	}
	if gap < kopfop.DefaultBatchWindow {
		t.Errorf("x's first PATCH at %v, y's at %v: want them a batch window (%v) apart or more", x[0].At, y[0].At, kopfop.DefaultBatchWindow)
	}
}

func TestAlternate422AndPoisonActThroughTheOperatorsClient(t *testing.T) {
	r := replay(t, Options{Variant: variant.Fixed, Quiet: true}, 5*time.Second, "seed 1\nat 1s alternate-422 name=x\nat 2s edit name=x field=b\n")
	var refused []Attempt
	for _, a := range Attempts(r.Steps, "x") {
		if a.Failed {
			refused = append(refused, a)
		}
	}
	if len(refused) == 0 || !strings.Contains(refused[0].Result, "rejected by a flaky admission webhook") {
		t.Fatalf("refused PATCHes of x %v, want the server's answer of the webhook in the trace", refused)
	}
	r = replay(t, Options{Variant: variant.Robust, Quiet: true}, 5*time.Second, "seed 1\nat 1s poison name=x\nat 2s edit name=x field=b\n")
	for _, a := range Attempts(r.Steps, "x") {
		if a.At >= 2*time.Second && a.At < 5*time.Second {
			t.Fatalf("a PATCH of x at %v while poisoned: want none (the operator's reads fail)", a.At)
		}
	}
	for _, s := range r.Steps {
		if s.Process == Operator && s.Op == "get" && s.Result != "ok" {
			t.Fatalf("a failed get in the trace (%s): want the poison outside the server", s)
		}
	}
	if k := final(t, r, "x"); !Handled(k) {
		t.Error("x is not handled after the heal: want the poison ended by it")
	}
}

// A failed edit (an API fault on updates of x, which only the editor makes:
// the quiet handler writes no status) ends edit-every's stream for good: no
// edit of x after the fault's window, and no step in the trace tells.
func TestEditEveryIsASystemsTimerThatAFailedEditStops(t *testing.T) {
	r := replay(t, Options{Variant: variant.Robust, Quiet: true}, 8*time.Second,
		"seed 1\nat 1s edit-every name=x every=500ms for=6s\napi verb=update resource=kopfexamples name=x code=500 from=2400ms until=2600ms\n")
	var edits []time.Duration
	for _, s := range r.Steps {
		if s.Op == "update" && s.Object == "KopfExample "+Namespace+"/x" && s.Result == "ok" {
			edits = append(edits, s.At)
		}
	}
	if len(edits) == 0 || slices.Max(edits) > 2600*time.Millisecond {
		t.Errorf("edits of x at %v: want some, and none after the failed one at 2.5s", edits)
	}
	var kinds []string
	for _, d := range Test(Options{}, time.Second).Workload.Domain {
		kinds = append(kinds, d.Name)
	}
	if slices.Contains(kinds, "touch-every") {
		t.Errorf("steps %v: want no touch-every", kinds)
	}
}

func TestTheCatalogueRunsTheFourEntriesOnOperatortest(t *testing.T) {
	es := OnOperatortest()
	if len(es) != 4 {
		t.Fatalf("%d entries on operatortest, want 4", len(es))
	}
	for _, e := range es {
		if e.Test == nil {
			t.Errorf("%s has no operatortest test", e.ID)
		}
	}
}

// Two objects each keep to their own envelope while their PATCHes together
// come far faster than either's: nothing bounds the sum. And no entry's
// workload draws grow.
func TestEachObjectKeepsToItsOwnEnvelopeAndNothingBoundsTheirSum(t *testing.T) {
	var x, y, both []Attempt
	at := time.Duration(0)
	for i := range 10 {
		at += 10 * time.Millisecond << i // twice the limiter's delay, under kopf's
		x = append(x, Attempt{At: at, Failed: true, Incarnation: 1})
		y = append(y, Attempt{At: at + time.Millisecond, Failed: true, Incarnation: 1})
		both = append(both, x[i], y[i])
	}
	if BoundedRetryRate(x) != nil || BoundedRetryRate(y) != nil {
		t.Fatal("x and y each keep to the envelope")
	}
	if BoundedRetryRate(both) == nil {
		t.Fatal("their sum, one attempt a millisecond after another, breaks it")
	}
	for _, test := range []func(variant.Variant) operatortest.Options{Persistent422, Alternating422, PoisonEvent, NoEventAfterFailure} {
		for _, d := range test(variant.Fixed).Workload.Domain {
			if d.Name == "grow" {
				t.Errorf("an entry's workload draws grow")
			}
		}
	}
}
