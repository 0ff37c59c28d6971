package rollout

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// AppLabel marks the ConfigMaps the operator serves; StatusAnnotation holds
// the rollout's state.
const (
	AppLabel         = "rollout.ctrlsim.dev/app"
	StatusAnnotation = "rollout.ctrlsim.dev/status"
)

// Reconciler keeps each app's Deployment and reports its rollout.
type Reconciler struct {
	client.Client
}

// SetupWithManager registers the controller: app ConfigMaps, owned
// Deployments.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[AppLabel] != "" }))).
		Owns(&appsv1.Deployment{}).
		Complete(r)
}

// Reconcile creates or updates the Deployment, then reports the rollout.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	replicas := int32(1)
	if n, err := strconv.Atoi(app.Data["replicas"]); err == nil && n >= 0 {
		replicas = int32(n)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, d, func() error {
		labels := map[string]string{"app": app.Name}
		d.Spec.Replicas = &replicas
		if d.Spec.Selector == nil {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: app.Data["image"]}}
		return controllerutil.SetControllerReference(&app, d, r.Scheme())
	})
	if err != nil {
		return reconcile.Result{}, err
	}
	status := "Progressing"
	if RolloutComplete(d) {
		status = "Complete " + d.Annotations["deployment.kubernetes.io/revision"]
	}
	if app.Annotations[StatusAnnotation] == status {
		return reconcile.Result{}, nil
	}
	patch := client.MergeFrom(app.DeepCopy())
	if app.Annotations == nil {
		app.Annotations = map[string]string{}
	}
	app.Annotations[StatusAnnotation] = status
	if err := r.Patch(ctx, &app, patch); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("reporting the rollout: %w", err)
	}
	return reconcile.Result{}, nil
}

// RolloutComplete is kubectl's rollout status test
// (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go): the controller has
// observed the current spec, and every replica is updated and available with
// none of an older template left.
func RolloutComplete(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	st := d.Status
	return d.Generation <= st.ObservedGeneration && st.UpdatedReplicas >= want &&
		st.Replicas <= st.UpdatedReplicas && st.AvailableReplicas >= st.UpdatedReplicas
}
