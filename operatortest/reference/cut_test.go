package reference_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// labelledChild creates a Secret of generated name for the app when its
// cache lists none, and records the creation on the app (an update that
// triggers the next reconcile): while its Secret watch is held it creates
// one at every reconcile, as fast as the API answers.
func labelledChild(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	var list corev1.SecretList
	if err := c.List(ctx, &list, client.InNamespace(app.Namespace), client.MatchingLabels{"app": app.Name}); err != nil {
		return err
	}
	if len(list.Items) > 0 {
		return nil
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, GenerateName: app.Name + "-", Labels: map[string]string{"app": app.Name}}}
	if err := controllerutil.SetControllerReference(app, s, c.Scheme()); err != nil {
		return err
	}
	if err := c.Create(ctx, s); err != nil {
		return err
	}
	if app.Annotations == nil {
		app.Annotations = map[string]string{}
	}
	app.Annotations["last-child"] = s.Name
	return c.Update(ctx, app)
}

// A plan whose run does more work than a run may (a storm of creations a
// held watch drives, for the whole fault phase) is cut at the work bound and
// not judged: it is no violation (a held watch drives storms in correct code
// too), and it held nothing either; the exploration counts it and says so.
func TestAPlanCutAtTheWorkBoundIsCountedNotJudged(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(labelledChild))
	p, err := plan.Parse("seed 1\nhold process=op kind=/v1/Secret from=0s until=1m0s\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	note := world.CutNote(r.Verdicts)
	if note == "" || len(r.Violated()) > 0 {
		t.Fatalf("verdicts %v: want the run cut at the work bound and no violation judged", r.Verdicts)
	}
	for _, want := range []string{"cut at its work bound", "a storm: op/", "while a watch was stalled", "not judged"} {
		if !strings.Contains(note, want) {
			t.Errorf("the cut's note %q does not say %q", note, want)
		}
	}

	// The same plan, with the hold ending early, is judged (and the
	// Secrets made while it lasted are the operator's bug).
	p, err = plan.Parse("seed 1\nhold process=op kind=/v1/Secret from=0s until=5ms\n")
	if err != nil {
		t.Fatal(err)
	}
	if r, err = reference.Run(w, t, p); err != nil {
		t.Fatal(err)
	}
	if note := world.CutNote(r.Verdicts); note != "" || len(r.Violated()) == 0 {
		t.Errorf("a short hold: cut %q, violated %v: want it judged and caught", note, r.Violated())
	}

	search.CountCut(w, 3, "the first")
	search.CountCut(w, 3, "again")
	search.CountCut(w, 9, "the second")
	var res search.Result
	search.CutSummary(w, &res)
	if line := search.CutLine(res); res.Cut != 2 || line != "2 plans cut at the work bound and not judged (plan 3: the first)" {
		t.Errorf("the exploration's count: %d, line %q", res.Cut, line)
	}
	res = search.Result{Caught: true, FirstFailure: 5}
	search.CutSummary(w, &res)
	if res.Cut != 1 {
		t.Errorf("a place past the first failure was counted: %d cut", res.Cut)
	}
}
