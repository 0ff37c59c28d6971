package operatortest

import (
	"context"
	"crypto/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// passwordReconciler is a correct operator that generates a password: for
// each ConfigMap it owns a Secret holding a password drawn with crypto/rand,
// made once and kept.
type passwordReconciler struct{ client.Client }

func (r *passwordReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-password"}}
	if err := r.Get(ctx, client.ObjectKeyFromObject(s), s); !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	s.StringData = map[string]string{"password": rand.Text()}
	if err := controllerutil.SetControllerReference(&app, s, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, client.IgnoreAlreadyExists(r.Create(ctx, s))
}

func passwordOptions() Options {
	return Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).
				Complete(&passwordReconciler{Client: mgr.GetClient()})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
	}
}

// Randomness follows the plan's seed: an operator that generates its
// password with crypto/rand writes the same password in every run of a plan
// (one trace hash, which covers what it wrote), and converges and
// interleavings-agree, which compare it with its fault-free runs, hold.
func TestARandomPasswordFollowsThePlansSeed(t *testing.T) {
	w, err := newWorld(passwordOptions().withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"seed 1\n",
		"seed 5\nat 2s delete object=0\nat 9s recreate object=0\n",
		"seed 9\ncrash process=op write=1\nlag process=op kind=* min=0s max=300ms\n",
		"seed 3000\nstale process=op at=2s age=1s\n",
		// The operator draws its password and is restarted before it writes
		// it: the new incarnation draws the same password again.
		"seed 0\nstale process=op at=1ms age=1ms\n",
		"seed 1\ncrash process=op at=1ms\n",
	} {
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		_, a, err := w.runOnce(t, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := w.runOnce(t, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if a.hash != b.hash {
			t.Errorf("%stwo runs, two trace hashes: %s and %s", text, a.hash, b.hash)
		}
		if v := judge(t, passwordOptions(), text); len(v) != 0 {
			t.Errorf("%sviolated %v", text, v)
		}
	}
}
