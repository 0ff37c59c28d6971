package reference_test

import (
	"context"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The reference run's acts are what a sweep ranks by: each write of a
// reconcile that changed something, with the reads the reconcile made
// before it. The operator reads its app ConfigMap, creates the app's
// Secret (an act, after a read of the app's version) and updates the app
// with nothing changed: a no-op write, which commits no version and acts
// on nothing.
func TestTheReferenceRunsActsAreTheWritesThatChangedSomethingAfterTheirReads(t *testing.T) {
	childThenNoOp := func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if err := optest.Child()(ctx, c, app); err != nil {
			return err
		}
		return c.Update(ctx, app) // nothing changed
	}
	w, err := search.NewWorld(optest.AppOptions(childThenNoOp).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := reference.RunOnce(w, t, &plan.Plan{Seed: 1}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tg := reference.TargetsOf(w, res)
	var app []plan.Write // the app's committed versions
	for _, x := range tg.Writes {
		if x.Kind == "/v1/ConfigMap" && x.Object == "team/app" {
			app = append(app, x)
		}
	}
	secrets := 0
	for _, a := range tg.Acts {
		if a.Kind == "/v1/ConfigMap" && a.Object == "team/app" {
			t.Errorf("the no-op update of the app is an act: %+v", a)
		}
		if a.Kind != "/v1/Secret" || a.Object != "team/app-child" {
			continue
		}
		secrets++
		read := false
		for _, r := range a.Reads {
			for _, v := range app {
				read = read || r.Kind == "/v1/ConfigMap" && r.Object == "team/app" && r.RV == v.RV && r.At <= a.At
			}
		}
		if !read {
			t.Errorf("the Secret's creation %+v has no read of a version of the app %+v", a, app)
		}
	}
	if secrets == 0 {
		t.Fatalf("no act creates the Secret: %+v", tg.Acts)
	}
}
