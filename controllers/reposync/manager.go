package reposync

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

// Manager is the reconciler-manager's RepoSync reconciler
// (pkg/reconcilermanager/controllers/reposync_controller.go and
// reconciler_base.go setupOrTeardown): for each RepoSync it keeps the
// ns-reconciler's ServiceAccount, the namespace's shared RoleBinding and the
// ns-reconciler Deployment in place, and on deletion waits for the
// ns-reconciler's finalizer, tears them down and removes its own finalizer.
//
// The variants differ only in the deletion branch while the reconciler
// finalizer is present:
//   - Buggy (before 9e28c844b): wait ("Waiting for Reconciler Finalizer to
//     finish") and return nil, with no requeue.
//   - Fixed (9e28c844b): read the RepoSync's Namespace from the cache; if it is
//     Terminating, remove the reconciler finalizer, then tear down in the same
//     reconcile; otherwise wait as before. No Namespace watch.
//   - Robust: read the Namespace live (the APIReader) and watch Namespaces; if
//     it is terminating (or gone), remove the reconciler finalizer; if it is
//     Active, keep the ns-reconciler's ServiceAccount, RoleBinding and Deployment
//     in place so that the ns-reconciler can finish its Foreground deletion.
type Manager struct {
	// Client reads from the manager's cache and writes.
	Client client.Client
	// APIReader reads live (Robust's Namespace reads).
	APIReader client.Reader
	// Clock stamps the status conditions and spaces status-write retries.
	Clock clock.Clock
	// Variant chooses buggy, fixed or robust.
	Variant variant.Variant
}

// SetupWithManager registers the controller as upstream does: one worker,
// For(RepoSync) with no predicate, and Deployments, ServiceAccounts and
// RoleBindings mapped to their RepoSyncs; Robust also watches Namespaces.
// The seed's code ran on client-go's classic queue.
func (m *Manager) SetupWithManager(mgr ctrl.Manager) error {
	rv := builder.WithPredicates(predicate.ResourceVersionChangedPredicate{})
	b := ctrl.NewControllerManagedBy(mgr).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, UsePriorityQueue: ptr.To(false)}).
		For(&RepoSync{}).
		Watches(&appsv1.Deployment{}, handler.EnqueueRequestsFromMapFunc(m.MapObjectToRepoSync), rv).
		Watches(&corev1.ServiceAccount{}, handler.EnqueueRequestsFromMapFunc(m.MapObjectToRepoSync), rv).
		Watches(&rbacv1.RoleBinding{}, handler.EnqueueRequestsFromMapFunc(m.MapObjectToRepoSync), rv)
	if m.Variant == variant.Robust {
		b = b.Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(m.MapNamespaceToRepoSyncs), rv)
	}
	return b.Complete(m)
}

// Reconcile is RepoSyncReconciler.Reconcile without validation (the simulated
// RepoSyncs are valid) and without metrics.
func (m *Manager) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	rsRef := req.NamespacedName
	reconcilerRef := ReconcilerKey(rsRef)
	rs := &RepoSync{}
	if err := m.Client.Get(ctx, rsRef, rs); err != nil {
		if apierrors.IsNotFound(err) {
			// Cleanup after an already deleted RepoSync.
			if err := m.deleteManagedObjects(ctx, reconcilerRef, rsRef); err != nil {
				return reconcile.Result{}, fmt.Errorf("failed to delete managed objects: %w", err)
			}
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("failed to get RepoSync: %w", err)
	}
	return reconcile.Result{}, m.setupOrTeardown(ctx, rs, reconcilerRef)
}

// setupOrTeardown is reconcilerBase.setupOrTeardown with the variants' handling
// of the reconciler finalizer.
func (m *Manager) setupOrTeardown(ctx context.Context, rs *RepoSync, reconcilerRef types.NamespacedName) error {
	log := logf.FromContext(ctx)
	if rs.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(rs, ReconcilerManagerFinalizer) {
			controllerutil.AddFinalizer(rs, ReconcilerManagerFinalizer)
			if err := m.Client.Update(ctx, rs); err != nil {
				return fmt.Errorf("failed to update RepoSync to add finalizer: %w", err)
			}
		}
		if err := m.setup(ctx, reconcilerRef, rs); err != nil {
			return fmt.Errorf("setup failed: %w", err)
		}
		return nil
	}
	if controllerutil.ContainsFinalizer(rs, ReconcilerFinalizer) {
		removed := false
		if m.Variant != variant.Buggy {
			var err error
			if removed, err = m.handleReconcilerFinalizer(ctx, rs, reconcilerRef); err != nil {
				return err
			}
		}
		if !removed {
			log.Info("Waiting for Reconciler Finalizer to finish")
			return nil
		}
	}
	if controllerutil.ContainsFinalizer(rs, ReconcilerManagerFinalizer) {
		if err := m.teardown(ctx, reconcilerRef, rs); err != nil {
			return fmt.Errorf("teardown failed: %w", err)
		}
		controllerutil.RemoveFinalizer(rs, ReconcilerManagerFinalizer)
		if err := m.Client.Update(ctx, rs); err != nil {
			return fmt.Errorf("failed to update RepoSync to remove finalizer: %w", err)
		}
	}
	return nil
}

// handleReconcilerFinalizer is nsReconcilerFinalizerHandler (Fixed) or this
// project's version of it (Robust). It reports whether the reconciler
// finalizer is gone.
func (m *Manager) handleReconcilerFinalizer(ctx context.Context, rs *RepoSync, reconcilerRef types.NamespacedName) (bool, error) {
	ns := &corev1.Namespace{}
	key := types.NamespacedName{Name: rs.Namespace}
	terminating := false
	if m.Variant == variant.Robust {
		err := m.APIReader.Get(ctx, key, ns)
		switch {
		case apierrors.IsNotFound(err):
			terminating = true // the namespace and everything in it is going
		case err != nil:
			return false, err
		default:
			terminating = ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating
		}
		if !terminating {
			// The ns-reconciler must finish its own (Foreground) deletion: keep
			// what it needs to run and to write its RepoSync in place.
			return false, m.upsertReconciler(ctx, reconcilerRef, rs)
		}
	} else {
		if err := m.Client.Get(ctx, key, ns); err != nil {
			return false, err
		}
		if ns.Status.Phase != corev1.NamespaceTerminating {
			return false, nil
		}
	}
	if !controllerutil.RemoveFinalizer(rs, ReconcilerFinalizer) {
		return true, nil
	}
	if err := m.Client.Update(ctx, rs); err != nil {
		return false, fmt.Errorf("failed to update RepoSync to remove the reconciler finalizer: %w", err)
	}
	return true, nil
}

// setup upserts the managed objects and reports the outcome in the status.
func (m *Manager) setup(ctx context.Context, reconcilerRef types.NamespacedName, rs *RepoSync) error {
	err := m.upsertReconciler(ctx, reconcilerRef, rs)
	updateErr := m.updateSyncStatus(ctx, rs, reconcilerRef, "Setup", err)
	if err != nil {
		return err
	}
	return updateErr
}

// teardown deletes the managed objects and reports the outcome in the status.
func (m *Manager) teardown(ctx context.Context, reconcilerRef types.NamespacedName, rs *RepoSync) error {
	err := m.deleteManagedObjects(ctx, reconcilerRef, client.ObjectKeyFromObject(rs))
	updateErr := m.updateSyncStatus(ctx, rs, reconcilerRef, "Teardown", err)
	if err != nil {
		return err
	}
	return updateErr
}

// upsertReconciler is upsertManagedObjects reduced to the objects this model
// has: the ServiceAccount, the shared RoleBinding and the Deployment.
func (m *Manager) upsertReconciler(ctx context.Context, reconcilerRef types.NamespacedName, rs *RepoSync) error {
	labels := map[string]string{SyncNamespaceLabel: rs.Namespace, SyncNameLabel: rs.Name, SyncKindLabel: RepoSyncGVK.Kind}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: reconcilerRef.Namespace, Name: reconcilerRef.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, m.Client, sa, func() error {
		addLabels(&sa.ObjectMeta, labels)
		return nil
	}); err != nil {
		return fmt.Errorf("upserting service account: %w", err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: rs.Namespace, Name: RepoSyncBaseRoleBindingName}}
	if _, err := controllerutil.CreateOrUpdate(ctx, m.Client, rb, func() error {
		rb.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: RepoSyncBaseClusterRoleName}
		rb.Subjects = addSubject(rb.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: reconcilerRef.Namespace, Name: reconcilerRef.Name})
		return nil
	}); err != nil {
		return fmt.Errorf("upserting role binding: %w", err)
	}
	if err := m.upsertDeployment(ctx, reconcilerRef, labels); err != nil {
		return fmt.Errorf("upserting reconciler deployment: %w", err)
	}
	rs.Status.Reconciler = reconcilerRef.Name
	return nil
}

// upsertDeployment is createOrPatchDeployment: a live Get, then a create or an
// update when the declared labels or spec differ (upstream applies with
// server-side apply, which the simulator does not serve).
func (m *Manager) upsertDeployment(ctx context.Context, reconcilerRef types.NamespacedName, labels map[string]string) error {
	declared := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: reconcilerRef.Namespace, Name: reconcilerRef.Name}}
	addLabels(&declared.ObjectMeta, labels)
	podLabels := map[string]string{"configsync.gke.io/deployment-name": reconcilerRef.Name}
	declared.Spec = appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1),
		Selector: &metav1.LabelSelector{MatchLabels: podLabels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
			Spec: corev1.PodSpec{
				ServiceAccountName: reconcilerRef.Name,
				Containers:         []corev1.Container{{Name: "reconciler", Image: "gcr.io/config-management-release/reconciler"}},
			},
		},
	}
	current := &appsv1.Deployment{}
	err := m.reader().Get(ctx, reconcilerRef, current)
	switch {
	case apierrors.IsNotFound(err):
		return m.Client.Create(ctx, declared)
	case err != nil:
		return err
	}
	if current.DeletionTimestamp != nil {
		return fmt.Errorf("deployment %s is being deleted", reconcilerRef)
	}
	if equality.Semantic.DeepEqual(current.Labels, declared.Labels) && equality.Semantic.DeepEqual(current.Spec, declared.Spec) {
		return nil
	}
	declared.ResourceVersion = current.ResourceVersion
	declared.UID = current.UID
	return m.Client.Update(ctx, declared)
}

func (m *Manager) reader() client.Reader {
	if m.APIReader != nil {
		return m.APIReader
	}
	return m.Client
}

// deleteManagedObjects deletes the Deployment, the RepoSync's subject of the
// shared RoleBinding (the RoleBinding with its last subject) and the
// ServiceAccount, in upstream's order.
func (m *Manager) deleteManagedObjects(ctx context.Context, reconcilerRef, rsRef types.NamespacedName) error {
	meta := metav1.ObjectMeta{Namespace: reconcilerRef.Namespace, Name: reconcilerRef.Name}
	if err := m.Client.Delete(ctx, &appsv1.Deployment{ObjectMeta: meta}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting reconciler deployment: %w", err)
	}
	if err := m.deleteSharedRoleBinding(ctx, reconcilerRef, rsRef); err != nil {
		return fmt.Errorf("deleting role binding: %w", err)
	}
	if err := m.Client.Delete(ctx, &corev1.ServiceAccount{ObjectMeta: meta}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting service account: %w", err)
	}
	return nil
}

// deleteSharedRoleBinding removes the ns-reconciler from the shared RoleBinding,
// deleting the RoleBinding when no subject is left. Upstream reads it from the
// cache; Robust reads it live: Robust puts a revoked RoleBinding back while
// the ns-reconciler finalizes, and a cache behind that write would show the
// RoleBinding gone and leave it in place for good.
func (m *Manager) deleteSharedRoleBinding(ctx context.Context, reconcilerRef, rsRef types.NamespacedName) error {
	rb := &rbacv1.RoleBinding{}
	var r client.Reader = m.Client
	if m.Variant == variant.Robust {
		r = m.reader()
	}
	if err := r.Get(ctx, types.NamespacedName{Namespace: rsRef.Namespace, Name: RepoSyncBaseRoleBindingName}, rb); err != nil {
		return client.IgnoreNotFound(err)
	}
	var keep []rbacv1.Subject
	for _, s := range rb.Subjects {
		if s.Kind != rbacv1.ServiceAccountKind || s.Namespace != reconcilerRef.Namespace || s.Name != reconcilerRef.Name {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return client.IgnoreNotFound(m.Client.Delete(ctx, rb))
	}
	if len(keep) == len(rb.Subjects) {
		return nil
	}
	rb.Subjects = keep
	return client.IgnoreNotFound(m.Client.Update(ctx, rb))
}

// updateSyncStatus is updateSyncStatus with handleReconcileError: success
// clears Reconciling and Stalled, a failure sets them; the write happens only
// when the status changed.
func (m *Manager) updateSyncStatus(ctx context.Context, rs *RepoSync, reconcilerRef types.NamespacedName, stage string, stageErr error) error {
	now := metav1.NewTime(m.Clock.Now()).Rfc3339Copy()
	_, err := withRetry(ctx, m.Client, m.Clock, rs, updateStatus(m.Client), func() error {
		before := rs.DeepCopy().Status
		if stageErr == nil {
			rs.removeCondition(RepoSyncReconciling)
			rs.removeCondition(RepoSyncStalled)
		} else {
			rs.setCondition(RepoSyncReconciling, metav1.ConditionTrue, stage, stage+" stalled", now)
			rs.setCondition(RepoSyncStalled, metav1.ConditionTrue, "Error", stageErr.Error(), now)
		}
		rs.Status.Reconciler = reconcilerRef.Name
		rs.Status.ObservedGeneration = rs.Generation
		if equality.Semantic.DeepEqual(before, rs.Status) {
			return errNoUpdate
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("Sync status update failed: %w", err)
	}
	return nil
}

// MapObjectToRepoSync is mapObjectToRepoSync: an ns-reconciler Deployment or
// ServiceAccount maps to its RepoSync, the shared RoleBinding to every RepoSync
// of its namespace, as found in the cache.
func (m *Manager) MapObjectToRepoSync(ctx context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetName()
	if !strings.HasPrefix(name, NsReconcilerPrefix) && name != RepoSyncBaseRoleBindingName {
		return nil
	}
	_, isRB := obj.(*rbacv1.RoleBinding)
	if obj.GetNamespace() != ControllerNamespace && !isRB {
		return nil
	}
	var all RepoSyncList
	if err := m.Client.List(ctx, &all); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, rs := range all.Items {
		key := client.ObjectKeyFromObject(&rs)
		if isRB {
			if name == RepoSyncBaseRoleBindingName && obj.GetNamespace() == rs.Namespace {
				out = append(out, reconcile.Request{NamespacedName: key})
			}
			continue
		}
		if name == NsReconcilerName(rs.Namespace, rs.Name) {
			return []reconcile.Request{{NamespacedName: key}}
		}
	}
	return out
}

// MapNamespaceToRepoSyncs maps a Namespace to the RepoSyncs in it (Robust).
func (m *Manager) MapNamespaceToRepoSyncs(ctx context.Context, obj client.Object) []reconcile.Request {
	var l RepoSyncList
	if err := m.Client.List(ctx, &l, client.InNamespace(obj.GetName())); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(l.Items))
	for _, rs := range l.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&rs)})
	}
	return out
}

func addLabels(o *metav1.ObjectMeta, labels map[string]string) {
	if o.Labels == nil {
		o.Labels = map[string]string{}
	}
	for k, v := range labels { // order-independent copy
		o.Labels[k] = v
	}
}

func addSubject(subjects []rbacv1.Subject, s rbacv1.Subject) []rbacv1.Subject {
	for _, x := range subjects {
		if x.Kind == s.Kind && x.Namespace == s.Namespace && x.Name == s.Name {
			return subjects
		}
	}
	return append(subjects, s)
}
