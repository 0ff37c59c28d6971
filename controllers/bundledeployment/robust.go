package bundledeployment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

// install installs through the action client (Buggy, Fixed). Robust installs
// with failure rollbacks off and uninstalls itself, without waiting, so that
// the error it reports is the install's own: a failed cleanup is kept in the
// returned error (cleanupError) but never replaces the root cause's message. Before the
// uninstall it records what it is about to delete (expectations), so that the
// dependent watches ignore the events of its own cleanup.
func (r *Reconciler) install(ctx context.Context, ac *helm.ActionClient, name string, chart *helm.Chart) (*helm.Release, error) {
	if r.Variant != variant.Robust {
		return ac.Install(ctx, name, chart, helm.InstallOptions{})
	}
	// The action client drops the failed release; helm itself returns it.
	rel, err := ac.Helm.Install(ctx, name, chart, helm.InstallOptions{})
	if err == nil {
		r.settle(rel)
		return rel, nil
	}
	if rel == nil {
		return nil, err
	}
	r.expectDeletions(rel, nil)
	if _, uerr := ac.Uninstall(ctx, name, helm.UninstallOptions{}); uerr != nil && !errors.Is(uerr, helm.ErrReleaseNotFound) {
		return nil, &cleanupError{root: err, cleanup: uerr}
	}
	return nil, err
}

// upgrade upgrades through the action client (Buggy, Fixed); Robust rolls back
// to current itself, without waiting, as install does.
func (r *Reconciler) upgrade(ctx context.Context, ac *helm.ActionClient, name string, chart *helm.Chart, current *helm.Release) (*helm.Release, error) {
	if r.Variant != variant.Robust {
		return ac.Upgrade(ctx, name, chart, helm.UpgradeOptions{})
	}
	rel, err := ac.Helm.Upgrade(ctx, name, chart, helm.UpgradeOptions{})
	if err == nil {
		r.settle(rel)
		return rel, nil
	}
	if rel == nil {
		return nil, err
	}
	r.expectDeletions(rel, current)
	if rerr := ac.Rollback(ctx, name, helm.RollbackOptions{Force: true}); rerr != nil {
		return nil, &cleanupError{root: err, cleanup: rerr}
	}
	return nil, err
}

// objectKey names an object across versions of its kind.
type objectKey struct {
	gk        schema.GroupKind
	namespace string
	name      string
}

func keyOf(obj client.Object, gvk schema.GroupVersionKind) objectKey {
	return objectKey{gk: gvk.GroupKind(), namespace: obj.GetNamespace(), name: obj.GetName()}
}

func (r *Reconciler) releaseKeys(rel *helm.Release) []objectKey {
	if rel == nil {
		return nil
	}
	objs, err := rel.Objects(r.Client.Scheme())
	if err != nil {
		return nil
	}
	out := make([]objectKey, len(objs))
	for i, o := range objs {
		out[i] = keyOf(o, o.GetObjectKind().GroupVersionKind())
	}
	return out
}

// expectDeletions records the objects of failed that a cleanup back to target
// (nil: an uninstall) deletes.
func (r *Reconciler) expectDeletions(failed, target *helm.Release) {
	keep := r.releaseKeys(target)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.expected == nil {
		r.expected = map[objectKey]bool{}
	}
	for _, k := range r.releaseKeys(failed) {
		if !slices.Contains(keep, k) {
			r.expected[k] = true
		}
	}
}

// settle forgets the expected deletions of the objects a successful release
// (re)created.
func (r *Reconciler) settle(rel *helm.Release) {
	keys := r.releaseKeys(rel)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		delete(r.expected, k)
	}
}

// ownDeletion reports whether an event of obj comes from a deletion the
// controller expects; gone (a delete event) clears the expectation.
func (r *Reconciler) ownDeletion(obj client.Object, scheme *runtime.Scheme, gone bool) bool {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return false
	}
	k := keyOf(obj, gvk)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.expected[k] {
		return false
	}
	if gone {
		delete(r.expected, k)
	}
	return true
}

// cleanupError is a failed attempt whose cleanup failed too. Its message is the
// root cause's, so that the status stays stable; the next attempt cleans up
// again (helm finds the failed release and upgrades or uninstalls it).
type cleanupError struct{ root, cleanup error }

func (e *cleanupError) Error() string { return e.root.Error() }
func (e *cleanupError) Unwrap() error { return e.root }

// Cleanup is the cleanup's error.
func (e *cleanupError) Cleanup() error { return e.cleanup }

// LeftoverError says an attempt did not start because something it needs is
// still being deleted, most often by the cleanup of the previous attempt.
type LeftoverError struct{ Object string }

func (e *LeftoverError) Error() string {
	return fmt.Sprintf("waiting for the cleanup of a previous attempt: %s is being deleted", e.Object)
}

// leftovers reads, from the API server, every object of the chart and every
// namespace the chart's objects live in, and fails with a LeftoverError if one
// is being deleted: helm would adopt it, or be refused by NamespaceLifecycle.
func (r *Reconciler) leftovers(ctx context.Context, chart *helm.Chart) error {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	scheme := r.Client.Scheme()
	var namespaces []string
	for _, o := range chart.Objects {
		live := o.DeepCopyObject().(client.Object)
		key := client.ObjectKeyFromObject(o)
		if key.Namespace == "" {
			if namespaced, err := apiutil.IsObjectNamespaced(o, scheme, r.Client.RESTMapper()); err == nil && namespaced {
				key.Namespace = r.ReleaseNamespace
			}
		}
		if key.Namespace != "" && !slices.Contains(namespaces, key.Namespace) {
			namespaces = append(namespaces, key.Namespace)
		}
		if err := reader.Get(ctx, key, live); err != nil {
			if apierrors.IsNotFound(err) || apimeta.IsNoMatchError(err) {
				continue
			}
			return err
		}
		if live.GetDeletionTimestamp() != nil {
			return &LeftoverError{Object: describe(o, key)}
		}
	}
	for _, ns := range namespaces {
		var live corev1.Namespace
		if err := reader.Get(ctx, client.ObjectKey{Name: ns}, &live); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return err
		}
		if live.DeletionTimestamp != nil {
			return &LeftoverError{Object: fmt.Sprintf("Namespace %q", ns)}
		}
	}
	return nil
}

func describe(o client.Object, key client.ObjectKey) string {
	kind := fmt.Sprintf("%T", o)
	if i := strings.LastIndex(kind, "."); i >= 0 {
		kind = kind[i+1:]
	}
	if k := o.GetObjectKind().GroupVersionKind().Kind; k != "" {
		kind = k
	}
	name := key.String()
	if key.Namespace == "" {
		name = key.Name
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// isTransient reports whether err is a side effect of an earlier attempt's
// cleanup or of a race, not a cause a user can act on: a create refused in a
// terminating namespace (NamespaceLifecycle's NamespaceTerminating cause), an
// object that exists but is being deleted, a cleanup wait that timed out, a
// write conflict, or an attempt held back by leftovers.
func isTransient(err error) bool {
	var lo *LeftoverError
	switch {
	case errors.As(err, &lo),
		apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause),
		apierrors.IsAlreadyExists(err) && strings.Contains(err.Error(), "object is being deleted"),
		errors.Is(err, helm.ErrWaitTimeout),
		apierrors.IsConflict(err):
		return true
	}
	return false
}
