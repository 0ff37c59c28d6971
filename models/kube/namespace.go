package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// DefaultGracePeriod is namespaceDeletionGracePeriod: the namespace controller
// syncs a deleting Namespace this long after each of its events.
const DefaultGracePeriod = 5 * time.Second

// ConcurrentNamespaceSyncs is kube-controller-manager's default
// --concurrent-namespace-syncs: the namespace controller's workers.
const ConcurrentNamespaceSyncs = 10

// FinalizerKubernetes is the finalizer token of the namespace controller, the one
// it removes through the finalize subresource.
const FinalizerKubernetes = corev1.FinalizerKubernetes

// finalizerEstimateSeconds is the estimate, in seconds, of the time content
// with finalizers takes to go (namespaced_resources_deleter.go).
const finalizerEstimateSeconds = int64(15)

// NamespaceController is kube-controller-manager's namespace lifecycle controller
// (k8s.io/kubernetes pkg/controller/namespace, v1.37.1) as a reconciler: for a
// Namespace with a deletionTimestamp it deletes every namespaced object of the
// Content kinds, waits until they are gone (objects with finalizers keep it
// waiting), then removes the kubernetes finalizer through the finalize
// subresource, which deletes the Namespace.
//
// The zero values of the optional fields give upstream's behaviour: the kinds in
// Content order, the objects of a kind in list order, no delay between deletions,
// a 5s grace period.
type NamespaceController struct {
	// Client reads Namespaces from the cache (the controller's lister) and
	// writes (delete, status, finalize).
	Client client.Client
	// APIReader reads live, as the deleter's clients do (namespace Get, content
	// List).
	APIReader client.Reader
	// Clock gives the condition timestamps and the Delay sleeps.
	Clock clock.Clock
	// Content lists the namespaced kinds to delete, as list types
	// (&corev1.ConfigMapList{}), or as a metav1.PartialObjectMetadataList
	// with its list kind set for a kind with no Go type (ListOf gives
	// either); upstream discovers every deletable resource. A kind not
	// served when a namespace is synced (its CRD not yet installed, or
	// gone) is left out of that sync, as discovery leaves it out.
	Content []client.ObjectList

	// Shuffle, if set, permutes the kinds at each pass (upstream ranges over a
	// Go map of resources) and the objects of each kind (the apiserver's
	// DeleteCollection deletes them from parallel workers). A *rand.Rand of
	// math/rand/v2 on a seeded source fits.
	Shuffle func(n int, swap func(i, j int))
	// Order, if set, arranges the objects of one pass, all kinds together,
	// after Shuffle; it decides, say, whether a RoleBinding goes before the
	// custom resource whose finalizer needs it (DeleteFirst).
	Order func(objs []client.Object)
	// Delay, if set, is the time spent before deleting obj: the share of a
	// DeleteCollection or of discovery and listing that precedes it.
	Delay func(obj client.Object) time.Duration
	// GracePeriod is the delay from a Namespace event to the sync it triggers;
	// zero means DefaultGracePeriod.
	GracePeriod time.Duration
	// MinTerminating, if set, keeps a Namespace terminating at least this long
	// after its deletionTimestamp even when it is empty (a T_term for slow
	// content such as pods in graceful termination). Upstream has no such knob.
	MinTerminating time.Duration
}

// ResourcesRemainingError is returned while content remains; the controller
// requeues the namespace after Estimate/2+1 seconds.
type ResourcesRemainingError struct {
	Estimate int64
}

func (e *ResourcesRemainingError) Error() string {
	return fmt.Sprintf("some content remains in the namespace, estimate %d seconds before it is removed", e.Estimate)
}

// NamespaceRateLimiter is the namespace controller's per-item limiter: 5ms
// doubling to 60s (nsControllerRateLimiter, without its 10 qps bucket, which
// reads the wall clock).
func NamespaceRateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, 60*time.Second)
}

// EventHandler enqueues a deleting Namespace GracePeriod after each of its add
// and update events, as enqueueNamespace does (AddAfter, so a burst of events
// leads to one sync).
func (nc *NamespaceController) EventHandler() handler.EventHandler {
	enqueue := func(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if obj.GetDeletionTimestamp().IsZero() {
			return
		}
		q.AddAfter(reconcile.Request{NamespacedName: types.NamespacedName{Name: obj.GetName()}}, nc.gracePeriod())
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.ObjectNew, q)
		},
	}
}

func (nc *NamespaceController) gracePeriod() time.Duration {
	if nc.GracePeriod == 0 {
		return DefaultGracePeriod
	}
	return nc.GracePeriod
}

// Controllers describes the controller SetupWithManager registers.
func (nc *NamespaceController) Controllers() []Controller {
	return []Controller{{
		Name:        "namespace",
		Watches:     []Watch{{Object: &corev1.Namespace{}, Handler: nc.EventHandler()}},
		Workers:     ConcurrentNamespaceSyncs,
		RateLimiter: NamespaceRateLimiter(),
		Reconciler:  nc,
	}}
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (nc *NamespaceController) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, nc.Controllers())
}

// Reconcile is syncNamespaceFromKey plus the worker's requeue logic: content
// remaining requeues after Estimate/2+1 seconds, other errors are rate limited.
func (nc *NamespaceController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cached corev1.Namespace
	if err := nc.Client.Get(ctx, req.NamespacedName, &cached); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	wait, err := nc.delete(ctx, req.Name)
	var remaining *ResourcesRemainingError
	switch {
	case errors.As(err, &remaining):
		return reconcile.Result{RequeueAfter: time.Duration(remaining.Estimate/2+1) * time.Second}, nil
	case err != nil:
		return reconcile.Result{}, err
	case wait > 0:
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	return reconcile.Result{}, nil
}

// delete is namespacedResourcesDeleter.Delete. A positive duration asks to come
// back then (MinTerminating not yet reached).
func (nc *NamespaceController) delete(ctx context.Context, name string) (time.Duration, error) {
	ns := &corev1.Namespace{}
	if err := nc.APIReader.Get(ctx, types.NamespacedName{Name: name}, ns); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	if ns.DeletionTimestamp == nil {
		return 0, nil
	}
	ns, err := nc.retryOnConflict(ctx, ns, nc.updateNamespaceStatus)
	if err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	if ns.DeletionTimestamp.IsZero() || len(ns.Spec.Finalizers) == 0 {
		return 0, nil
	}
	estimate, err := nc.deleteAllContent(ctx, ns)
	if err != nil {
		return 0, err
	}
	if estimate > 0 {
		return 0, &ResourcesRemainingError{Estimate: estimate}
	}
	if nc.MinTerminating > 0 {
		if left := ns.DeletionTimestamp.Add(nc.MinTerminating).Sub(nc.Clock.Now()); left > 0 {
			return left, nil
		}
	}
	_, err = nc.retryOnConflict(ctx, ns, nc.finalize)
	return 0, client.IgnoreNotFound(err)
}

// retryOnConflict retries fn on conflicts with the live namespace, as the
// deleter does, unless the namespace was re-created.
func (nc *NamespaceController) retryOnConflict(ctx context.Context, ns *corev1.Namespace, fn func(context.Context, *corev1.Namespace) (*corev1.Namespace, error)) (*corev1.Namespace, error) {
	latest := ns
	for {
		result, err := fn(ctx, latest)
		if err == nil {
			return result, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, err
		}
		prev := latest
		latest = &corev1.Namespace{}
		if err := nc.APIReader.Get(ctx, types.NamespacedName{Name: prev.Name}, latest); err != nil {
			return nil, err
		}
		if prev.UID != latest.UID {
			return nil, fmt.Errorf("namespace uid has changed across retries")
		}
	}
}

// updateNamespaceStatus moves a deleting namespace to the Terminating phase.
func (nc *NamespaceController) updateNamespaceStatus(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
	if ns.DeletionTimestamp.IsZero() || ns.Status.Phase == corev1.NamespaceTerminating {
		return ns, nil
	}
	n := ns.DeepCopy()
	n.Status.Phase = corev1.NamespaceTerminating
	if err := nc.Client.Status().Update(ctx, n); err != nil {
		return nil, err
	}
	return n, nil
}

// finalize removes the kubernetes token from spec.finalizers through the
// finalize subresource (the remaining tokens sorted, as sets.String.List does).
func (nc *NamespaceController) finalize(ctx context.Context, ns *corev1.Namespace) (*corev1.Namespace, error) {
	n := &corev1.Namespace{ObjectMeta: *ns.ObjectMeta.DeepCopy(), Spec: *ns.Spec.DeepCopy()}
	var keep []string
	for _, f := range ns.Spec.Finalizers {
		if f != FinalizerKubernetes && !slices.Contains(keep, string(f)) {
			keep = append(keep, string(f))
		}
	}
	sort.Strings(keep)
	n.Spec.Finalizers = make([]corev1.FinalizerName, 0, len(keep))
	for _, f := range keep {
		n.Spec.Finalizers = append(n.Spec.Finalizers, corev1.FinalizerName(f))
	}
	if err := nc.Client.SubResource("finalize").Update(ctx, n); err != nil {
		if apierrors.IsNotFound(err) {
			return n, nil
		}
		return nil, err
	}
	return n, nil
}

// contentKind is one kind of namespace content.
type contentKind struct {
	list client.ObjectList
	gvk  schema.GroupVersionKind
	gvr  schema.GroupVersionResource
}

// kindDeletion is what deleting one kind left behind (gvrDeletionMetadata).
type kindDeletion struct {
	estimate   int64
	remaining  int
	finalizers map[string]int
	err        error
}

// deleteAllContent is the deleter's deleteAllContent: pods first (and nothing
// else while pods remain), then every other kind; then the namespace's
// deletion conditions. It returns the estimate of seconds until the content is
// gone.
func (nc *NamespaceController) deleteAllContent(ctx context.Context, ns *corev1.Namespace) (int64, error) {
	var errs []error
	updater := conditionUpdater{now: metav1.NewTime(nc.Clock.Now()).Rfc3339Copy()}
	kinds, err := nc.kinds()
	if err != nil {
		// Upstream's discovery failure.
		errs = append(errs, err)
		updater.processDiscoverResourcesErr(err)
	}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	var pods, others []contentKind
	for _, k := range kinds {
		if k.gvr == podsGVR {
			pods = append(pods, k)
		} else {
			others = append(others, k)
		}
	}
	totals := contentTotals{remaining: map[schema.GroupVersionResource]int{}, finalizers: map[string]int{}}
	estimate := int64(0)
	collect := func(results map[schema.GroupVersionResource]kindDeletion, kinds []contentKind) {
		for _, k := range kinds {
			r := results[k.gvr]
			if r.err != nil {
				errs = append(errs, r.err)
				updater.processDeleteContentErr(r.err)
			}
			estimate = max(estimate, r.estimate)
			if r.remaining > 0 {
				totals.remaining[k.gvr] = r.remaining
				for f, n := range r.finalizers {
					totals.finalizers[f] += n
				}
			}
		}
	}
	if len(pods) > 0 {
		results := nc.deleteKinds(ctx, ns, pods)
		if r := results[podsGVR]; r.err != nil {
			r.err = fmt.Errorf("failed to delete pods for namespace: %s, err: %w", ns.Name, r.err)
			results[podsGVR] = r
		}
		collect(results, pods)
		if totals.remaining[podsGVR] > 0 {
			nc.updateConditions(ctx, ns, &updater)
			return estimate, utilerrors.NewAggregate(errs)
		}
	}
	collect(nc.deleteKinds(ctx, ns, others), others)
	updater.processContentTotals(totals)
	nc.updateConditions(ctx, ns, &updater)
	return estimate, utilerrors.NewAggregate(errs)
}

// updateConditions writes the deletion conditions if they changed; a failure
// is only logged upstream.
func (nc *NamespaceController) updateConditions(ctx context.Context, ns *corev1.Namespace, u *conditionUpdater) {
	if u.update(ns) {
		_ = nc.Client.Status().Update(ctx, ns)
	}
}

// kinds resolves Content, in Shuffle's order if set.
func (nc *NamespaceController) kinds() ([]contentKind, error) {
	var out []contentKind
	var errs []error
	for _, l := range nc.Content {
		gvk, err := apiutil.GVKForObject(l, nc.Client.Scheme())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
		m, err := nc.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			continue // not served now (a CRD not yet installed, or removed): not in discovery
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, contentKind{list: l, gvk: gvk, gvr: m.Resource})
	}
	if nc.Shuffle != nil {
		nc.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out, utilerrors.NewAggregate(errs)
}

// deleteKinds deletes the content of kinds (deleteAllContentForGroupVersionResource
// for each, with the deletions of all kinds in one sequence so that Order and
// Delay can interleave them), then lists each kind again to see what remains.
// Pods remaining while their graceful termination may still run (upstream's
// estimateGracefulTermination) are an estimate, not an error.
func (nc *NamespaceController) deleteKinds(ctx context.Context, ns *corev1.Namespace, kinds []contentKind) map[schema.GroupVersionResource]kindDeletion {
	namespace := ns.Name
	results := map[schema.GroupVersionResource]kindDeletion{}
	graceful := map[schema.GroupVersionResource]int64{}
	var objs []client.Object
	kindOf := map[client.Object]schema.GroupVersionResource{}
	for _, k := range kinds {
		items, err := nc.list(ctx, k, namespace)
		if err != nil {
			results[k.gvr] = kindDeletion{err: err}
			continue
		}
		if k.gvr.Group == "" && k.gvr.Resource == "pods" {
			graceful[k.gvr] = nc.estimateGracefulTermination(items, ns)
		}
		if nc.Shuffle != nil {
			nc.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		}
		for _, o := range items {
			kindOf[o] = k.gvr
		}
		objs = append(objs, items...)
	}
	if nc.Order != nil {
		nc.Order(objs)
	}
	background := client.PropagationPolicy(metav1.DeletePropagationBackground)
	for _, o := range objs {
		gvr := kindOf[o]
		if results[gvr].err != nil {
			continue // deleteEachItem stops at a kind's first error
		}
		if nc.Delay != nil {
			if d := nc.Delay(o); d > 0 {
				nc.Clock.Sleep(d)
			}
		}
		if err := nc.Client.Delete(ctx, o, background); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsMethodNotSupported(err) {
			results[gvr] = kindDeletion{err: err}
		}
	}
	for _, k := range kinds {
		if results[k.gvr].err != nil {
			continue
		}
		items, err := nc.list(ctx, k, namespace)
		if err != nil {
			results[k.gvr] = kindDeletion{err: err}
			continue
		}
		if len(items) == 0 {
			continue
		}
		r := kindDeletion{remaining: len(items), finalizers: map[string]int{}}
		for _, o := range items {
			for _, f := range o.GetFinalizers() {
				r.finalizers[f]++
			}
		}
		if e := graceful[k.gvr]; e > 0 {
			r.estimate = e
		} else if len(r.finalizers) > 0 {
			r.estimate = finalizerEstimateSeconds
		} else {
			r.err = fmt.Errorf("unexpected items still remain in namespace: %s for gvr: %v", namespace, k.gvr)
		}
		results[k.gvr] = r
	}
	return results
}

// estimateGracefulTermination is upstream's estimate for pods
// (estimateGracefulTerminationForPods): the longest
// terminationGracePeriodSeconds of the pods not yet terminal, or 0 once the
// namespace has been deleting that long.
func (nc *NamespaceController) estimateGracefulTermination(pods []client.Object, ns *corev1.Namespace) int64 {
	estimate := int64(0)
	for _, o := range pods {
		pod, ok := o.(*corev1.Pod)
		if !ok {
			continue
		}
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g > estimate {
			estimate = *g
		}
	}
	if ns.DeletionTimestamp != nil && nc.Clock.Since(ns.DeletionTimestamp.Time) >= time.Duration(estimate)*time.Second {
		return 0
	}
	return estimate
}

// list lists one kind in namespace, live.
func (nc *NamespaceController) list(ctx context.Context, k contentKind, namespace string) ([]client.Object, error) {
	l := k.list.DeepCopyObject().(client.ObjectList)
	if err := nc.APIReader.List(ctx, l, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	out, err := extract(l)
	for _, o := range out {
		o.GetObjectKind().SetGroupVersionKind(k.gvk)
	}
	return out, err
}

// contentTotals is allGVRDeletionMetadata.
type contentTotals struct {
	remaining  map[schema.GroupVersionResource]int
	finalizers map[string]int
}

// The deletion conditions and their messages when all is well
// (pkg/controller/namespace/deletion/status_condition_utils.go).
var (
	conditionTypes = []corev1.NamespaceConditionType{
		corev1.NamespaceDeletionDiscoveryFailure,
		corev1.NamespaceDeletionGVParsingFailure,
		corev1.NamespaceDeletionContentFailure,
		corev1.NamespaceContentRemaining,
		corev1.NamespaceFinalizersRemaining,
	}
	okMessages = map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "All resources successfully discovered",
		corev1.NamespaceDeletionGVParsingFailure: "All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "All content successfully deleted, may be waiting on finalization",
		corev1.NamespaceContentRemaining:         "All content successfully removed",
		corev1.NamespaceFinalizersRemaining:      "All content-preserving finalizers finished",
	}
	okReasons = map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "ResourcesDiscovered",
		corev1.NamespaceDeletionGVParsingFailure: "ParsedGroupVersions",
		corev1.NamespaceDeletionContentFailure:   "ContentDeleted",
		corev1.NamespaceContentRemaining:         "ContentRemoved",
		corev1.NamespaceFinalizersRemaining:      "ContentHasNoFinalizers",
	}
)

// conditionUpdater is namespaceConditionUpdater, with the time from the clock.
type conditionUpdater struct {
	now                 metav1.Time
	newConditions       []corev1.NamespaceCondition
	deleteContentErrors []error
}

func (u *conditionUpdater) processDiscoverResourcesErr(err error) {
	u.newConditions = append(u.newConditions, corev1.NamespaceCondition{
		Type: corev1.NamespaceDeletionDiscoveryFailure, Status: corev1.ConditionTrue, LastTransitionTime: u.now,
		Reason: "DiscoveryFailed", Message: err.Error(),
	})
}

func (u *conditionUpdater) processDeleteContentErr(err error) {
	u.deleteContentErrors = append(u.deleteContentErrors, err)
}

func (u *conditionUpdater) processContentTotals(t contentTotals) {
	if len(t.remaining) != 0 {
		var rs []string
		for gvr, n := range t.remaining { // sorted below
			if n != 0 {
				rs = append(rs, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
			}
		}
		sort.Strings(rs)
		u.newConditions = append(u.newConditions, corev1.NamespaceCondition{
			Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, LastTransitionTime: u.now,
			Reason: "SomeResourcesRemain", Message: fmt.Sprintf("Some resources are remaining: %s", strings.Join(rs, ", ")),
		})
	}
	if len(t.finalizers) != 0 {
		var fs []string
		for f, n := range t.finalizers { // sorted below
			if n != 0 {
				fs = append(fs, fmt.Sprintf("%s in %d resource instances", f, n))
			}
		}
		sort.Strings(fs)
		u.newConditions = append(u.newConditions, corev1.NamespaceCondition{
			Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, LastTransitionTime: u.now,
			Reason: "SomeFinalizersRemain", Message: fmt.Sprintf("Some content in the namespace has finalizers remaining: %s", strings.Join(fs, ", ")),
		})
	}
}

// update merges the new conditions into ns.Status and reports a change.
func (u *conditionUpdater) update(ns *corev1.Namespace) bool {
	if getCondition(u.newConditions, corev1.NamespaceDeletionContentFailure) == nil && len(u.deleteContentErrors) > 0 {
		msgs := make([]string, 0, len(u.deleteContentErrors))
		for _, e := range u.deleteContentErrors {
			msgs = append(msgs, e.Error())
		}
		sort.Strings(msgs)
		u.newConditions = append(u.newConditions, corev1.NamespaceCondition{
			Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionTrue, LastTransitionTime: u.now,
			Reason:  "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(u.deleteContentErrors), strings.Join(msgs, ", ")),
		})
	}
	changed := false
	for _, t := range conditionTypes {
		nc := getCondition(u.newConditions, t)
		if nc == nil {
			nc = &corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, LastTransitionTime: u.now, Reason: okReasons[t], Message: okMessages[t]}
		}
		old := getCondition(ns.Status.Conditions, t)
		switch {
		case old == nil:
			ns.Status.Conditions = append(ns.Status.Conditions, *nc)
			changed = true
		case old.Status != nc.Status || old.Message != nc.Message || old.Reason != nc.Reason:
			if old.Status != nc.Status {
				old.LastTransitionTime = u.now
			}
			old.Status, old.Reason, old.Message = nc.Status, nc.Reason, nc.Message
			changed = true
		}
	}
	return changed
}

func getCondition(cs []corev1.NamespaceCondition, t corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}

// Controller describes one controller of a model as SetupWithManager registers
// it, for hosts that register controllers their own way (the simulator's
// builder): a name, watches with their handlers, the queue's rate limiter and
// the reconciler. There is no For: each watch names its handler.
type Controller struct {
	Name    string
	Watches []Watch
	// Workers is MaxConcurrentReconciles.
	Workers int
	// RateLimiter is the queue's limiter; nil means controller-runtime's default.
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	Reconciler  reconcile.Reconciler
}

// Watch is one watch of a Controller.
type Watch struct {
	Object     client.Object
	Handler    handler.EventHandler
	Predicates []predicate.Predicate
}

// setup registers cs with a controller-runtime manager, on client-go's classic
// queue as kube-controller-manager's controllers use.
func setup(mgr ctrl.Manager, cs []Controller) error {
	classic := false
	for _, c := range cs {
		b := ctrl.NewControllerManagedBy(mgr).Named(c.Name).
			WithOptions(controller.Options{MaxConcurrentReconciles: c.Workers, RateLimiter: c.RateLimiter, UsePriorityQueue: &classic})
		for _, w := range c.Watches {
			b = b.Watches(w.Object, w.Handler, builder.WithPredicates(w.Predicates...))
		}
		if err := b.Complete(c.Reconciler); err != nil {
			return err
		}
	}
	return nil
}

// DeleteFirst is an Order: objects of the named kinds first, in that order,
// then the rest in list order.
func DeleteFirst(kinds ...string) func([]client.Object) {
	rank := func(o client.Object) int {
		if i := slices.Index(kinds, o.GetObjectKind().GroupVersionKind().Kind); i >= 0 {
			return i
		}
		return len(kinds)
	}
	return func(objs []client.Object) {
		slices.SortStableFunc(objs, func(a, b client.Object) int { return rank(a) - rank(b) })
	}
}
