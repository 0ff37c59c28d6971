package ryw

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

const (
	// AppLabel marks the ConfigMaps the operator gives a Secret.
	AppLabel = "ryw.ctrlsim.dev/app"
	// OwnerLabel names, on a Secret, the ConfigMap it was made for.
	OwnerLabel = "ryw.ctrlsim.dev/owner"
	// SecretAnnotation publishes, on the ConfigMap, the name of its Secret.
	SecretAnnotation = "ryw.ctrlsim.dev/secret"
)

// Reconciler gives each labelled ConfigMap one Secret with a generated name
// and publishes that name on the ConfigMap.
type Reconciler struct {
	client.Client
}

// SetupWithManager registers the controller: labelled ConfigMaps, and the
// Secrets they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	labelled := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[AppLabel] != "" })
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelled)).
		Owns(&corev1.Secret{}).
		Complete(r)
}

// Reconcile finds the ConfigMap's Secret by its label (a generated name cannot
// be looked up), makes one if there is none, and publishes its name.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Labels[AppLabel] == "" || cm.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	var secrets corev1.SecretList
	if err := r.List(ctx, &secrets, client.InNamespace(cm.Namespace), client.MatchingLabels{OwnerLabel: cm.Name}); err != nil {
		return ctrl.Result{}, err
	}
	var name string
	for _, s := range secrets.Items {
		if metav1.IsControlledBy(&s, &cm) {
			name = s.Name
			break
		}
	}
	if name == "" {
		// None yet (or a crash after the create and before the annotation:
		// the list finds it then). The list is the cache's: without
		// read-your-writes consistency it may not show the Secret this
		// process made a moment ago.
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, GenerateName: cm.Name + "-",
			Labels: map[string]string{OwnerLabel: cm.Name}}}
		if err := controllerutil.SetControllerReference(&cm, s, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		name = s.Name
	}
	if cm.Annotations[SecretAnnotation] == name {
		return ctrl.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[SecretAnnotation] = name
	return ctrl.Result{}, r.Update(ctx, &cm)
}
