package mapports

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// AppLabel marks the ConfigMaps the operator serves: their data is a map of
// port name to port number.
const AppLabel = "mapports.ctrlsim.dev/app"

// Reconciler serves each app ConfigMap with a Service of the same name and
// a ConfigMap <name>-ports that lists its ports as text.
type Reconciler struct {
	client.Client
	// Fixed makes both on every reconcile; the buggy reconciler takes the
	// Service, made first, as proof that the list exists too.
	Fixed bool
	// Sorted builds the ports and the list in name order; otherwise in the
	// order of a range over the ConfigMap's data (a Go map: random per
	// iteration).
	Sorted bool
}

// SetupWithManager registers the controller: app ConfigMaps, owned Services
// and ConfigMaps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[AppLabel] != "" }))).
		Owns(&corev1.Service{}).
		Owns(&corev1.ConfigMap{}).
		Complete(r)
}

// Reconcile makes the Service's ports those of the ConfigMap's data, then
// writes them as text to <name>-ports.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	ports := r.ports(app.Data)
	svc := corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, &svc, func() error {
		svc.Spec.Selector = map[string]string{"app": app.Name}
		svc.Spec.Ports = ports
		return controllerutil.SetControllerReference(&app, &svc, r.Scheme())
	})
	if err != nil {
		return reconcile.Result{}, err
	}
	if op != controllerutil.OperationResultCreated && !r.Fixed {
		return reconcile.Result{}, nil // the bug: the Service stands for the list
	}
	var text strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&text, "%s=%d\n", p.Name, p.Port)
	}
	list := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-ports"}}
	_, err = controllerutil.CreateOrUpdate(ctx, r.Client, &list, func() error {
		list.Data = map[string]string{"ports": text.String()}
		return controllerutil.SetControllerReference(&app, &list, r.Scheme())
	})
	return reconcile.Result{}, err
}

// ports are the Service ports of data (name: port number), in the order of
// a range over the map unless Sorted.
func (r *Reconciler) ports(data map[string]string) []corev1.ServicePort {
	var out []corev1.ServicePort
	for name, v := range data {
		n, err := strconv.Atoi(v)
		if err != nil {
			continue
		}
		out = append(out, corev1.ServicePort{Name: name, Protocol: corev1.ProtocolTCP, Port: int32(n), TargetPort: intstr.FromInt32(int32(n))})
	}
	if r.Sorted {
		slices.SortFunc(out, func(a, b corev1.ServicePort) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}
