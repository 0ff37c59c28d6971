package helm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Helm's ownership metadata (pkg/action/validate.go).
const (
	ManagedByLabel               = "app.kubernetes.io/managed-by"
	ManagedByHelm                = "Helm"
	ReleaseNameAnnotation        = "meta.helm.sh/release-name"
	ReleaseNamespaceAnnotation   = "meta.helm.sh/release-namespace"
	pollInterval                 = 2 * time.Second // kube/wait.go: PollImmediateUntil(2*time.Second, ...)
	errTimedOutWaitingCondition  = "timed out waiting for the condition"
	errAnotherOperationInProcess = "another operation (install/upgrade/rollback) is in progress"
)

// ErrWaitTimeout is what a wait returns when its timeout passes: the text of
// apimachinery's wait.ErrWaitTimeout that helm v3.10.1's PollImmediateUntil
// returned. (helm v3.17.3 polls with PollUntilContextCancel and returns
// "context deadline exceeded" instead; seed 2 does not wait.)
var ErrWaitTimeout = errors.New(errTimedOutWaitingCondition)

// resource is one object of a release with its kind (helm's resource.Info).
type resource struct {
	obj client.Object
	gvk schema.GroupVersionKind
}

// same reports whether a and b name the same object: group, kind, namespace and
// name (kube/resource.go isMatchingInfo).
func (r resource) same(o resource) bool {
	return r.gvk.GroupKind() == o.gvk.GroupKind() && r.obj.GetNamespace() == o.obj.GetNamespace() && r.obj.GetName() == o.obj.GetName()
}

// String is helm's resourceString: `Kind "name" in namespace "ns"`.
func (r resource) String() string {
	return fmt.Sprintf("%s %q in namespace %q", r.gvk.Kind, r.obj.GetName(), r.obj.GetNamespace())
}

func (r resource) key() client.ObjectKey { return client.ObjectKeyFromObject(r.obj) }

// empty is a new typed object of r's kind to read into.
func (r resource) empty(scheme *runtime.Scheme) (client.Object, error) {
	ro, err := scheme.New(r.gvk)
	if err != nil {
		return nil, err
	}
	return ro.(client.Object), nil
}

// withOwnership is a copy of r's object carrying helm's ownership metadata
// (action.go setMetadataVisitor with force).
func (r resource) withOwnership(name, namespace string) client.Object {
	obj := r.obj.DeepCopyObject().(client.Object)
	lbs := maps.Clone(obj.GetLabels())
	if lbs == nil {
		lbs = map[string]string{}
	}
	lbs[ManagedByLabel] = ManagedByHelm
	obj.SetLabels(lbs)
	ann := maps.Clone(obj.GetAnnotations())
	if ann == nil {
		ann = map[string]string{}
	}
	ann[ReleaseNameAnnotation], ann[ReleaseNamespaceAnnotation] = name, namespace
	obj.SetAnnotations(ann)
	return obj
}

// render turns a chart into a manifest: each object copied, its namespace
// defaulted to the release namespace when its kind is namespaced, sorted in
// helm's install order. A kind the RESTMapper does not know is left as it is:
// build reports it.
func (h *Helm) render(chart *Chart) (string, error) {
	scheme, mapper := h.cfg.Client.Scheme(), h.cfg.Client.RESTMapper()
	var rs []resource
	for _, o := range chart.Objects {
		obj := o.DeepCopyObject().(client.Object)
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return "", err
		}
		if m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
			if m.Scope.Name() == meta.RESTScopeNameNamespace {
				if obj.GetNamespace() == "" {
					obj.SetNamespace(h.cfg.Namespace)
				}
			} else {
				obj.SetNamespace("")
			}
		}
		rs = append(rs, resource{obj: obj, gvk: gvk})
	}
	sortByKind(rs, installOrder)
	docs := make([]string, len(rs))
	for i, r := range rs {
		d, err := encodeObject(r.obj, r.gvk)
		if err != nil {
			return "", err
		}
		docs[i] = d
	}
	return strings.Join(docs, manifestSeparator), nil
}

// build parses a manifest into resources, mapping each kind as kube.Client.Build
// does: a kind the cluster does not serve fails here, before anything is written.
func (h *Helm) build(manifest string) ([]resource, error) {
	objs, err := decodeManifest(h.cfg.Client.Scheme(), manifest)
	if err != nil {
		return nil, err
	}
	mapper := h.cfg.Client.RESTMapper()
	out := make([]resource, len(objs))
	for i, obj := range objs {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if _, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			// cli-runtime resource/mapper.go infoForData
			return nil, fmt.Errorf("resource mapping not found for name: %q namespace: %q from \"\": %w\nensure CRDs are installed first",
				obj.GetName(), obj.GetNamespace(), err)
		}
		out[i] = resource{obj: obj, gvk: gvk}
	}
	return out, nil
}

// existingResourceConflict reads every resource (one get each): a missing one
// is fine, one owned by this release is to be adopted, any other is a conflict
// (action/validate.go).
func (h *Helm) existingResourceConflict(ctx context.Context, rs []resource, name string) ([]resource, error) {
	var adopt []resource
	for _, r := range rs {
		live, err := r.empty(h.cfg.Client.Scheme())
		if err != nil {
			return nil, err
		}
		if err := h.cfg.Reader.Get(ctx, r.key(), live); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("could not get information about the resource %s: %w", r, err)
		}
		if err := checkOwnership(live, name, h.cfg.Namespace); err != nil {
			return nil, fmt.Errorf("%s exists and cannot be imported into the current release: %s", r, err)
		}
		adopt = append(adopt, r)
	}
	return adopt, nil
}

func checkOwnership(obj client.Object, name, namespace string) error {
	var errs []string
	if err := requireValue(obj.GetLabels(), ManagedByLabel, ManagedByHelm); err != nil {
		errs = append(errs, "label validation error: "+err.Error())
	}
	if err := requireValue(obj.GetAnnotations(), ReleaseNameAnnotation, name); err != nil {
		errs = append(errs, "annotation validation error: "+err.Error())
	}
	if err := requireValue(obj.GetAnnotations(), ReleaseNamespaceAnnotation, namespace); err != nil {
		errs = append(errs, "annotation validation error: "+err.Error())
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New("invalid ownership metadata; " + strings.Join(errs, "; "))
}

func requireValue(m map[string]string, k, v string) error {
	actual, ok := m[k]
	if !ok {
		return fmt.Errorf("missing key %q: must be set to %q", k, v)
	}
	if actual != v {
		return fmt.Errorf("key %q must equal %q: current value is %q", k, v, actual)
	}
	return nil
}

// create creates every resource with ownership metadata, one create each, and
// stops at the first error (kube.Client.Create).
func (h *Helm) create(ctx context.Context, name string, rs []resource) error {
	for _, r := range rs {
		if err := h.cfg.Client.Create(ctx, r.withOwnership(name, h.cfg.Namespace)); err != nil {
			return err
		}
	}
	return nil
}

// update moves the cluster from original to target (kube.Client.Update): for
// each target resource a get, then a create when it is missing or a patch when
// it differs (nothing when it does not); then for each original resource not in
// target a get and a delete. A failed create or get stops at once; failed
// patches are collected and reported together; failed deletes are ignored.
func (h *Helm) update(ctx context.Context, name string, original, target []resource) error {
	scheme := h.cfg.Client.Scheme()
	var updateErrors []string
	for _, r := range target {
		want := r.withOwnership(name, h.cfg.Namespace)
		live, err := r.empty(scheme)
		if err != nil {
			return err
		}
		if err := h.cfg.Reader.Get(ctx, r.key(), live); err != nil {
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("could not get information about the resource: %w", err)
			}
			if err := h.cfg.Client.Create(ctx, want); err != nil {
				return fmt.Errorf("failed to create resource: %w", err)
			}
			continue
		}
		if !slices.ContainsFunc(original, r.same) {
			return fmt.Errorf("no %s with the name %q found", r.gvk.Kind, r.obj.GetName())
		}
		if err := h.patch(ctx, live, want); err != nil {
			updateErrors = append(updateErrors, fmt.Sprintf("cannot patch %q with kind %s: %v", r.obj.GetName(), r.gvk.Kind, err))
		}
	}
	if len(updateErrors) > 0 {
		return errors.New(strings.Join(updateErrors, " && "))
	}
	for _, r := range original {
		if slices.ContainsFunc(target, r.same) {
			continue
		}
		live, err := r.empty(scheme)
		if err != nil {
			return err
		}
		if err := h.cfg.Reader.Get(ctx, r.key(), live); err != nil {
			continue // helm logs "Unable to get obj" and goes on
		}
		_ = h.cfg.Client.Delete(ctx, live, client.PropagationPolicy(metav1.DeletePropagationBackground))
	}
	return nil
}

// patch brings live to want with a merge patch of want's fields (its labels,
// annotations and everything but metadata and status) over live, as helm's
// three-way merge does for fields the chart sets; no call when nothing differs.
func (h *Helm) patch(ctx context.Context, live, want client.Object) error {
	merged, changed, err := overlay(live, want)
	if err != nil || !changed {
		return err
	}
	return h.cfg.Client.Patch(ctx, merged, client.MergeFrom(live))
}

// overlay is live with want's fields laid over it, and whether that changes live.
func overlay(live, want client.Object) (client.Object, bool, error) {
	lu, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return nil, false, err
	}
	wu, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return nil, false, err
	}
	out := runtime.DeepCopyJSON(lu)
	for k, v := range wu { // lint:order-independent each key is merged on its own
		switch k {
		case "apiVersion", "kind", "status":
		case "metadata":
			wm, _ := v.(map[string]any)
			om, _ := out["metadata"].(map[string]any)
			for _, f := range []string{"labels", "annotations"} {
				if wv, ok := wm[f].(map[string]any); ok {
					om[f] = mergeMaps(asMap(om[f]), wv)
				}
			}
		default:
			if v == nil {
				continue
			}
			if wv, ok := v.(map[string]any); ok {
				out[k] = mergeMaps(asMap(out[k]), wv)
			} else {
				out[k] = v
			}
		}
	}
	if reflect.DeepEqual(out, lu) {
		return live, false, nil
	}
	merged := live.DeepCopyObject().(client.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out, merged); err != nil {
		return nil, false, err
	}
	return merged, true, nil
}

func asMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// mergeMaps lays src over dst recursively: maps merge, lists of objects that
// name the same elements in the same order merge element by element (as a
// strategic merge by name keeps what the server defaulted in each, e.g. a
// container's imagePullPolicy), other values (other lists included) replace,
// nulls in src are skipped.
func mergeMaps(dst, src map[string]any) map[string]any {
	out := make(map[string]any, len(dst)+len(src))
	maps.Copy(out, dst)
	for k, v := range src { // lint:order-independent each key is merged on its own
		switch sv := v.(type) {
		case nil:
		case map[string]any:
			out[k] = mergeMaps(asMap(out[k]), sv)
		case []any:
			if merged, ok := mergeLists(out[k], sv); ok {
				out[k] = merged
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	return out
}

// mergeLists merges src over dst element by element when both are lists of
// objects of one length whose elements have the same names (or none) pairwise.
func mergeLists(dst any, src []any) ([]any, bool) {
	dl, ok := dst.([]any)
	if !ok || len(dl) != len(src) {
		return nil, false
	}
	out := make([]any, len(src))
	for i := range src {
		d, dok := dl[i].(map[string]any)
		s, sok := src[i].(map[string]any)
		if !dok || !sok || d["name"] != s["name"] {
			return nil, false
		}
		out[i] = mergeMaps(d, s)
	}
	return out, true
}

// deleteAll deletes every resource with background propagation, one delete each
// (kube.Client.Delete): NotFound counts as deleted, other errors are collected.
func (h *Helm) deleteAll(ctx context.Context, rs []resource) (deleted []resource, errs []error) {
	for _, r := range rs {
		obj := r.obj.DeepCopyObject().(client.Object)
		err := h.cfg.Client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err == nil || apierrors.IsNotFound(err) {
			deleted = append(deleted, r)
			continue
		}
		errs = append(errs, err)
	}
	return deleted, errs
}

// waitForDelete polls until every resource is NotFound (kube/wait.go
// waitForDeletedResources): a get per resource per poll, every 2s, until the
// timeout. Another read error ends the wait with that error.
func (h *Helm) waitForDelete(ctx context.Context, rs []resource, timeout time.Duration) error {
	return h.poll(timeout, func() (bool, error) {
		for _, r := range rs {
			live, err := r.empty(h.cfg.Client.Scheme())
			if err != nil {
				return false, err
			}
			err = h.cfg.Reader.Get(ctx, r.key(), live)
			if err == nil || !apierrors.IsNotFound(err) {
				return false, err
			}
		}
		return true, nil
	})
}

// waitReady polls until every resource is ready, which here means: it exists
// and is not being deleted (a get per resource per poll, every 2s). Helm's
// ReadyChecker also looks at Pods, Deployments, Jobs, PVCs, Services, ... status;
// that is not modelled.
func (h *Helm) waitReady(ctx context.Context, rs []resource, timeout time.Duration) error {
	return h.poll(timeout, func() (bool, error) {
		for _, r := range rs {
			live, err := r.empty(h.cfg.Client.Scheme())
			if err != nil {
				return false, err
			}
			if err := h.cfg.Reader.Get(ctx, r.key(), live); err != nil {
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				return false, err
			}
			if live.GetDeletionTimestamp() != nil {
				return false, nil
			}
		}
		return true, nil
	})
}

// poll runs cond at once and then every pollInterval on the injected clock until
// it is done, fails, or the timeout passes (ErrWaitTimeout).
func (h *Helm) poll(timeout time.Duration, cond func() (bool, error)) error {
	deadline := h.cfg.Clock.Now().Add(timeout)
	for {
		done, err := cond()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		now := h.cfg.Clock.Now()
		if !now.Add(pollInterval).Before(deadline) {
			if d := deadline.Sub(now); d > 0 {
				h.cfg.Clock.Sleep(d)
			}
			return ErrWaitTimeout
		}
		h.cfg.Clock.Sleep(pollInterval)
	}
}

// Helm's kind orders (pkg/releaseutil/kind_sorter.go).
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
	"PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
	"PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
	"ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
	"Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
}

var uninstallOrder = []string{
	"APIService", "Ingress", "IngressClass", "Service", "CronJob", "Job", "StatefulSet",
	"HorizontalPodAutoscaler", "Deployment", "ReplicaSet", "ReplicationController", "Pod", "DaemonSet",
	"RoleBindingList", "RoleBinding", "RoleList", "Role", "ClusterRoleBindingList", "ClusterRoleBinding",
	"ClusterRoleList", "ClusterRole", "CustomResourceDefinition", "PersistentVolumeClaim", "PersistentVolume",
	"StorageClass", "ConfigMap", "SecretList", "Secret", "ServiceAccount", "PodDisruptionBudget",
	"PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy", "Namespace", "PriorityClass",
}

// sortByKind sorts stably by kind in order; unknown kinds go last, by kind name
// (kind_sorter.go lessByKind).
func sortByKind(rs []resource, order []string) {
	slices.SortStableFunc(rs, func(a, b resource) int {
		ia, ib := slices.Index(order, a.gvk.Kind), slices.Index(order, b.gvk.Kind)
		switch {
		case ia < 0 && ib < 0:
			return strings.Compare(a.gvk.Kind, b.gvk.Kind)
		case ia < 0:
			return 1
		case ib < 0:
			return -1
		default:
			return ia - ib
		}
	})
}
