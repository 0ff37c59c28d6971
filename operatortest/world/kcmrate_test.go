package world_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// remaker gives each ConfigMap a Secret it owns, made again whenever it is
// missing.
type remaker struct{ client.Client }

func (r *remaker) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name}}
	if err := controllerutil.SetControllerReference(&cm, s, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// An operator whose view of its ConfigMap is held from before the
// ConfigMap's deletion makes its Secret again each time the garbage
// collector deletes it, for as long as the hold lasts, as it would in a
// real cluster. The collector's calls are kube-controller-manager's, at
// most --kube-api-burst (30) at once and --kube-api-qps (20) a second after
// that: no second of the churn holds more than 50 of them, where with no
// limit the collector made a call every millisecond or two.
func TestTheCollectorDeletesAtKubeControllerManagersRate(t *testing.T) {
	o := world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Complete(&remaker{Client: mgr.GetClient()})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}},
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\nat 5s delete object=0\nhold process=op kind=/v1/ConfigMap from=0s until=25s\n")
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	perSecond := map[time.Duration]int{}
	deletes := 0
	for _, s := range r.Steps {
		// kube-controller-manager's calls outside a controller-runtime
		// controller (the namespace controller's model is one): its
		// hosted garbage collector's, the only other controller here.
		if s.Process != world.KubeControllerManager || s.Controller != "" {
			continue
		}
		switch s.Op {
		case "get", "list", "create", "update", "patch", "delete":
			perSecond[s.At.Truncate(time.Second)]++
			if s.Op == "delete" && strings.HasPrefix(s.Object, "Secret ") {
				deletes++
			}
		}
	}
	if deletes < 20 {
		t.Fatalf("the collector deleted the operator's Secret %d times in the hold: no churn, the test shows nothing", deletes)
	}
	for sec, n := range perSecond {
		if n > 50 {
			t.Errorf("the collector made %d calls in the second from %v: more than kube-controller-manager's burst and QPS allow (50)", n, sec)
		}
	}
}
