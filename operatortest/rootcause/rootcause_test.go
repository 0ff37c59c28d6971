package rootcause_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/rootcause"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// rewritesItsSecret writes the app's Secret at every reconcile, its value
// flipped each time (examples/patterns' password twin, in small): each
// write is an event of an owned object, and brings the app back at once.
func rewritesItsSecret() optest.Behaviour {
	return func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}
		if err := c.Get(ctx, client.ObjectKeyFromObject(s), s); apierrors.IsNotFound(err) {
			if err := controllerutil.SetControllerReference(app, s, c.Scheme()); err != nil {
				return err
			}
			return c.Create(ctx, s)
		} else if err != nil {
			return err
		}
		flipped := "a"
		if string(s.Data["password"]) == "a" {
			flipped = "b"
		}
		s.StringData = map[string]string{"password": flipped}
		return c.Update(ctx, s)
	}
}

// A hot loop goes wrong in the reconcile it loops in, with a fault or
// without: the loop of the app's reconciles and of its Secret's writes is
// one root cause, named by the controller and the object it reconciles.
func TestAHotLoopGoesWrongInTheReconcileItLoopsIn(t *testing.T) {
	w, err := search.NewWorld(optest.AppOptions(rewritesItsSecret()).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	var got []*rootcause.Write
	for _, text := range []string{"seed 1\n", "seed 1\ncrash process=op write=1\n"} {
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		ww, err := rootcause.First(w, t, p, "hot-loop")
		if err != nil {
			t.Fatal(err)
		}
		if ww == nil {
			t.Fatalf("%q: no hot loop found, where the app's reconciles rewrite its Secret for ever", text)
		}
		if ww.Process != "op" || ww.Reconcile != "configmap team/app" {
			t.Errorf("%q: the loop goes wrong in %s of process %s (%s), not configmap team/app of op", text, ww.Reconcile, ww.Process, ww.Said)
		}
		got = append(got, ww)
	}
	if !got[0].Same(got[1]) {
		t.Errorf("the loop with no fault (%s) and under a crash (%s) are two root causes", got[0].Said, got[1].Said)
	}
}
