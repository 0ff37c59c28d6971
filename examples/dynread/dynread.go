package dynread

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// InventoryLabel marks the ConfigMaps the operator keeps: each names a
// resource (data "group", "version", "resource") whose objects in its
// namespace the operator counts.
const InventoryLabel = "inventory.example.com/enabled"

// CountAnnotation is where the count goes.
const CountAnnotation = "inventory.example.com/count"

// Reconciler counts, through the dynamic client (kinds known only at run
// time), the objects of the resource an inventory ConfigMap names, and
// writes the count on it.
type Reconciler struct {
	Client  client.Client
	Dynamic dynamic.Interface
	// Scoped is the fix: list in the ConfigMap's namespace, which the
	// operator's Role allows. Without it the operator lists across all
	// namespaces and filters (a ClusterRole's permission it does not have).
	Scoped bool
}

// Reconcile counts and writes the annotation.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	gvr := schema.GroupVersionResource{Group: cm.Data["group"], Version: cm.Data["version"], Resource: cm.Data["resource"]}
	if gvr.Version == "" || gvr.Resource == "" {
		return ctrl.Result{}, nil
	}
	n := 0
	if r.Scoped {
		list, err := r.Dynamic.Resource(gvr).Namespace(cm.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return ctrl.Result{}, err
		}
		n = len(list.Items)
	} else {
		list, err := r.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return ctrl.Result{}, err
		}
		for _, o := range list.Items {
			if o.GetNamespace() == cm.Namespace {
				n++
			}
		}
	}
	count := strconv.Itoa(n)
	if cm.Annotations[CountAnnotation] == count {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(cm.DeepCopy())
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[CountAnnotation] = count
	return ctrl.Result{}, r.Client.Patch(ctx, &cm, patch)
}

// SetupWithManager builds the dynamic client from the manager's REST config,
// as an operator's main.go does, and watches inventory ConfigMaps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Dynamic == nil {
		dyn, err := dynamic.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
		if err != nil {
			return err
		}
		r.Dynamic = dyn
	}
	labelled := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[InventoryLabel] == "true" })
	return ctrl.NewControllerManagedBy(mgr).Named("inventory").
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelled)).Complete(r)
}
