package world_test

import (
	"context"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// mirrorReconciler keeps a copy "<name>-mirror" of each ConfigMap labelled
// mirror=yes, written through a typed clientset built, as many operators'
// main.go build theirs, from ctrl.GetConfigOrDie() rather than from the
// manager.
type mirrorReconciler struct {
	client.Client
	cs kubernetes.Interface
}

func (r *mirrorReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil || cm.Labels["mirror"] != "yes" {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	mirrors := r.cs.CoreV1().ConfigMaps(req.Namespace)
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name + "-mirror"}, Data: cm.Data}
	got, err := mirrors.Get(ctx, want.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = mirrors.Create(ctx, want, metav1.CreateOptions{})
		return reconcile.Result{}, err
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	got.Data = cm.Data
	_, err = mirrors.Update(ctx, got, metav1.UpdateOptions{})
	return reconcile.Result{}, err
}

// An operator whose clients come from ctrl.GetConfigOrDie() is tested as it
// is: its calls through that clientset reach the simulated cluster as its own
// (a mirror is made), and with default Options (workload, faults, every
// oracle) the correct operator passes.
func TestAnOperatorBuildingItsClientsFromCtrlGetConfigIsTestedWhole(t *testing.T) {
	o := world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "mirror", Setup: func(mgr manager.Manager) error {
			cs, err := kubernetes.NewForConfig(ctrl.GetConfigOrDie())
			if err != nil {
				return err
			}
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&mirrorReconciler{Client: mgr.GetClient(), cs: cs})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Labels: map[string]string{"mirror": "yes"}}, Data: map[string]string{"k": "v"}}},
		Checks: 10,
	}
	search.Run(t, o)
	var mirrored bool
	_, err := search.Explore(t, world.Options{Scheme: o.Scheme, Managers: o.Managers, Objects: o.Objects, Checks: 1, NoWorkload: true,
		Properties: []world.Property{{Name: "mirrored", Check: func(h *world.History) error {
			var m corev1.ConfigMap
			mirrored = h.Get(client.ObjectKey{Namespace: "shop", Name: "web-mirror"}, &m) == nil && m.Data["k"] == "v"
			return nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !mirrored {
		t.Fatal("no mirror was made through the clientset built from ctrl.GetConfigOrDie()")
	}
}
