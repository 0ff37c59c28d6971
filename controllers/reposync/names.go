package reposync

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Names config-sync gives things (pkg/metadata, pkg/core, pkg/reconcilermanager).
const (
	// ReconcilerFinalizer is added and removed by the ns-reconciler when the
	// deletion propagation policy is Foreground.
	ReconcilerFinalizer = "configsync.gke.io/reconciler"
	// ReconcilerManagerFinalizer is added and removed by the reconciler-manager.
	ReconcilerManagerFinalizer = "configsync.gke.io/reconciler-manager"
	// DeletionPropagationPolicyAnnotation chooses Foreground or Orphan (the
	// default) deletion of the managed objects when the RepoSync is deleted.
	DeletionPropagationPolicyAnnotation = "configsync.gke.io/deletion-propagation-policy"
	DeletionPropagationForeground       = "Foreground"
	DeletionPropagationOrphan           = "Orphan"

	// ControllerNamespace holds the reconciler-manager and the ns-reconcilers.
	ControllerNamespace = "config-management-system"
	// RepoSyncBaseRoleBindingName is the shared RoleBinding in each RepoSync
	// namespace that binds RepoSyncBaseClusterRoleName to every ns-reconciler
	// ServiceAccount of that namespace.
	// (Upstream's name, for both.)
	RepoSyncBaseRoleBindingName = "configsync.gke.io:ns-reconciler"
	// RepoSyncBaseClusterRoleName grants the ns-reconcilers access to their
	// RepoSyncs (get/list/watch/update/patch on reposyncs and reposyncs/status).
	RepoSyncBaseClusterRoleName = "configsync.gke.io:ns-reconciler"
	// RepoSyncName is the default RepoSync name.
	RepoSyncName = "repo-sync"
	// NsReconcilerPrefix starts every ns-reconciler's name.
	NsReconcilerPrefix = "ns-reconciler"

	// Labels on the objects the reconciler-manager creates.
	SyncNamespaceLabel = "configsync.gke.io/sync-namespace"
	SyncNameLabel      = "configsync.gke.io/sync-name"
	SyncKindLabel      = "configsync.gke.io/sync-kind"
	// ManagedByLabel marks the objects a reconciler applied.
	ManagedByLabel      = "app.kubernetes.io/managed-by"
	ManagedByValue      = "configmanagement.gke.io"
	ResourceManagerAnno = "configsync.gke.io/manager"
)

// NsReconcilerName is the name of the ns-reconciler (Deployment and
// ServiceAccount in ControllerNamespace) of RepoSync namespace/name
// (core.NsReconcilerName).
func NsReconcilerName(namespace, name string) string {
	if name == RepoSyncName {
		return NsReconcilerPrefix + "-" + namespace
	}
	return fmt.Sprintf("%s-%s-%s-%d", NsReconcilerPrefix, namespace, name, len(name))
}

// ReconcilerKey is the Deployment and ServiceAccount of the ns-reconciler of
// RepoSync rs.
func ReconcilerKey(rs types.NamespacedName) types.NamespacedName {
	return types.NamespacedName{Namespace: ControllerNamespace, Name: NsReconcilerName(rs.Namespace, rs.Name)}
}

// errNoUpdate tells withRetry that the object needs no write (mutate.NoUpdateError).
var errNoUpdate = errors.New("no update required")

// withRetry is config-sync's mutate.Spec/mutate.Status: mutate obj, write it,
// and on a conflict (or a 500/503) re-read it from the cache, mutate and write
// again, up to retry.DefaultRetry's 5 attempts 10ms apart. It reports whether
// it wrote.
func withRetry(ctx context.Context, c client.Client, clk clock.Clock, obj client.Object, write func(context.Context, client.Object) error, mutate func() error) (bool, error) {
	uid := obj.GetUID()
	if err := mutate(); err != nil {
		if errors.Is(err, errNoUpdate) {
			return false, nil
		}
		return false, fmt.Errorf("mutating object: %w", err)
	}
	var err error
	for attempt := range 5 {
		if attempt > 0 {
			clk.Sleep(10 * time.Millisecond)
		}
		if obj.GetResourceVersion() == "" {
			if err = c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				err = fmt.Errorf("failed to get latest version of object: %w", err)
				if retriableOrConflict(err) {
					continue
				}
				return false, err
			}
			if obj.GetUID() != uid {
				return false, errors.New("metadata.uid has changed: object may have been re-created")
			}
			if err = mutate(); err != nil {
				if errors.Is(err, errNoUpdate) {
					return false, nil
				}
				return false, fmt.Errorf("failed to mutate object: %w", err)
			}
		}
		err = write(ctx, obj)
		if err == nil {
			return true, nil
		}
		if apierrors.IsConflict(err) {
			obj.SetResourceVersion("")
		}
		if !retriableOrConflict(err) {
			break
		}
	}
	return false, fmt.Errorf("failed to update object: %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
}

func retriableOrConflict(err error) bool {
	return apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsConflict(err)
}

func updateSpec(c client.Client) func(context.Context, client.Object) error {
	return func(ctx context.Context, o client.Object) error { return c.Update(ctx, o) }
}

func updateStatus(c client.Client) func(context.Context, client.Object) error {
	return func(ctx context.Context, o client.Object) error { return c.Status().Update(ctx, o) }
}
