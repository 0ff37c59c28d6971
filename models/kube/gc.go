package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// GarbageCollector is kube-controller-manager's garbage collector for
// ownerReferences (k8s.io/kubernetes pkg/controller/garbagecollector, v1.37.1),
// as one controller per collected kind:
//
//   - background: an object none of whose owners exists any more (NotFound, or
//     a different uid) is deleted, with the propagation policy its own orphan
//     or foregroundDeletion finalizer asks for (background otherwise);
//   - an object with a solid owner loses only its references to owners that
//     are gone or waiting for their dependents (attemptToDeleteItem);
//   - foreground: an owner deleting with the foregroundDeletion finalizer gets
//     its dependents deleted (foreground themselves if they have dependents),
//     and loses the finalizer once no dependent with blockOwnerDeletion is
//     left (processDeletingDependentsItem);
//   - orphan: an owner deleting with the orphan finalizer has its reference
//     removed from every dependent, then loses the finalizer
//     (attemptToOrphanWorker).
//
// The dependency graph is the informer cache (Graph); every decision to delete
// or patch is checked against live reads (APIReader), as upstream checks its
// graph against the apiserver.
type GarbageCollector struct {
	// Client writes (delete, patch).
	Client client.Client
	// APIReader reads live: the item and its owners before deciding.
	APIReader client.Reader
	// Graph is the informer cache (mgr.GetCache()), where the event handlers
	// and the reconcilers look up owners and dependents.
	Graph client.Reader
	// Kinds are the kinds collected, as objects (&corev1.ConfigMap{}, or a
	// metav1.PartialObjectMetadata with its kind set for a kind with no Go
	// type); upstream monitors every deletable resource. Owners may be of any
	// served kind (those the scheme lacks are read as metadata, as upstream
	// reads every owner); dependents are found only among Kinds.
	Kinds []client.Object
	// Sync, when positive, is the period of the discovery sync
	// (GCSyncPeriod, kube-controller-manager's): a kind that an Established
	// CustomResourceDefinition serves and Kinds lacks is collected too from
	// the first sync instant (the collector's start plus a multiple of Sync)
	// after it is served, as upstream's GarbageCollector.Sync starts a
	// monitor for each resource discovery newly lists (gcdiscovery.go).
	// Zero: Kinds only.
	Sync time.Duration
	// Clock is the process's clock; needed with Sync.
	Clock clock.PassiveClock
	// Recorder, if set, records the collector's Events (source
	// garbage-collector-controller): OwnerRefInvalidNamespace, a Warning on
	// a cluster-scoped object that names a namespaced owner.
	Recorder record.EventRecorder

	disc *discovery
}

// Controllers describes the controllers SetupWithManager registers: one per
// kind, "garbagecollector-<kind>", watching its kind (the item itself) and every
// collected kind (their owners and dependents of this kind).
func (gc *GarbageCollector) Controllers() ([]Controller, error) {
	kinds, err := gc.gvks()
	if err != nil {
		return nil, err
	}
	var out []Controller
	names := map[string]bool{}
	for i, k := range kinds {
		r := &gcReconciler{gc: gc, gvk: k, kinds: kinds}
		ws := []Watch{{Object: gc.Kinds[i], Handler: &handler.EnqueueRequestForObject{}, Predicates: []predicate.Predicate{itemChanged}}}
		for j := range kinds {
			ws = append(ws, Watch{Object: gc.Kinds[j], Handler: handler.EnqueueRequestsFromMapFunc(r.related), Predicates: []predicate.Predicate{relatedChanged}})
		}
		name := "garbagecollector-" + strings.ToLower(k.Kind)
		if names[name] { // a kind of the same name in another group (core and events.k8s.io Events)
			name += "." + k.Group
		}
		names[name] = true
		out = append(out, Controller{Name: name, Watches: ws, Reconciler: r})
	}
	return out, nil
}

// itemChanged passes the events of an item the collector may have to act on:
// created with owners or finalizers, or changed in its owners, finalizers or
// deletionTimestamp (what the graph builder reacts to).
var itemChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		return len(e.Object.GetOwnerReferences()) > 0 || len(e.Object.GetFinalizers()) > 0
	},
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return !reflect.DeepEqual(o.GetOwnerReferences(), n.GetOwnerReferences()) ||
			!slices.Equal(o.GetFinalizers(), n.GetFinalizers()) ||
			!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp())
	},
	DeleteFunc: func(event.DeleteEvent) bool { return false },
}

// relatedChanged passes the events of an object that make the graph builder
// queue its owners or its dependents (processGraphChanges): its creation
// (an owner not yet in the graph is looked up), its deletion (its
// dependents lose an owner; an owner deleting in the foreground waits on
// it), and a change of its owners, finalizers or deletionTimestamp. A
// change of anything else (an operator rewriting a child's data) queues
// nothing upstream; here it queued the owner once per write, and an
// operator's hot loop of writes showed as the collector's hot loop of
// reconciles (kubeworld's spec "does not queue an owner for a change of its
// dependent's data").
var relatedChanged = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return true },
	UpdateFunc: itemChanged.UpdateFunc,
	DeleteFunc: func(event.DeleteEvent) bool { return true },
}

// SetupWithManager registers the controllers with a controller-runtime manager.
func (gc *GarbageCollector) SetupWithManager(mgr ctrl.Manager) error {
	cs, err := gc.Controllers()
	if err != nil {
		return err
	}
	if gc.Sync > 0 {
		if gc.Clock == nil {
			return fmt.Errorf("garbage collector: Sync %v needs a Clock", gc.Sync)
		}
		return gc.setupWithSync(mgr, cs)
	}
	return setup(mgr, cs)
}

func (gc *GarbageCollector) gvks() ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	for _, o := range gc.Kinds {
		gvk, err := apiutil.GVKForObject(o, gc.Client.Scheme())
		if err != nil {
			return nil, err
		}
		out = append(out, gvk)
	}
	return out, nil
}

// gcReconciler collects one kind.
type gcReconciler struct {
	gc    *GarbageCollector
	gvk   schema.GroupVersionKind
	kinds []schema.GroupVersionKind
}

// related maps an event of any collected kind to the objects of this kind that
// the graph builder would queue: its owners of this kind and its dependents of
// this kind.
func (r *gcReconciler) related(ctx context.Context, obj client.Object) []reconcile.Request {
	var out []reconcile.Request
	queued := map[reconcile.Request]bool{} // an owner of thousands of dependents: no quadratic dedupe
	add := func(ns, name string) {
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
		if !queued[req] {
			queued[req] = true
			out = append(out, req)
		}
	}
	namespaced, err := r.gc.Client.IsObjectNamespaced(r.newObject())
	if err != nil {
		return nil
	}
	for _, ref := range obj.GetOwnerReferences() {
		if refGVK(ref).GroupKind() != r.gvk.GroupKind() {
			continue
		}
		if namespaced {
			add(obj.GetNamespace(), ref.Name)
		} else {
			add("", ref.Name)
		}
	}
	// The dependents' names only, read in the graph without a copy.
	_ = r.gc.eachDependent(ctx, obj, []schema.GroupVersionKind{r.gvk}, func(_ schema.GroupVersionKind, d client.Object) {
		add(d.GetNamespace(), d.GetName())
	})
	return out
}

func (r *gcReconciler) newObject() client.Object {
	o, err := r.gc.newObjectOf(r.gvk)
	if err != nil {
		panic(fmt.Sprintf("garbage collector: kind %s left the scheme: %v", r.gvk, err))
	}
	return o
}

// Reconcile decides from the graph (the cache) whether the item needs work,
// then does it as attemptToDeleteItem or attemptToOrphanWorker would.
func (r *gcReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cached := r.newObject()
	if err := r.gc.Graph.Get(ctx, req.NamespacedName, cached); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	deleting := cached.GetDeletionTimestamp() != nil
	switch {
	case deleting && slices.Contains(cached.GetFinalizers(), metav1.FinalizerOrphanDependents):
		return reconcile.Result{}, r.orphan(ctx, cached)
	case deleting && slices.Contains(cached.GetFinalizers(), metav1.FinalizerDeleteDependents):
		return reconcile.Result{}, r.processDeletingDependents(ctx, cached)
	case deleting:
		// "being deleted" is a one-way trip: wait for the final deletion.
		return reconcile.Result{}, nil
	case len(cached.GetOwnerReferences()) == 0:
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, r.attemptToDelete(ctx, cached)
}

// attemptToDelete is attemptToDeleteItem for an item that is not deleting.
func (r *gcReconciler) attemptToDelete(ctx context.Context, item client.Object) error {
	latest := r.newObject()
	if err := r.gc.APIReader.Get(ctx, client.ObjectKeyFromObject(item), latest); err != nil {
		return client.IgnoreNotFound(err)
	}
	if latest.GetUID() != item.GetUID() || latest.GetDeletionTimestamp() != nil {
		return nil
	}
	refs := latest.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	solid, dangling, waiting, err := r.classify(ctx, latest, refs)
	if errors.Is(err, errNamespacedOwnerOfClusterScopedObject) {
		// Upstream forgets the item: no retry resolves it.
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// Remove the references to owners that are gone or waiting for their
		// dependents, or those owners would wait for ever.
		drop := append(uids(dangling), uids(waiting)...)
		var keep []metav1.OwnerReference
		for _, ref := range refs {
			if !slices.Contains(drop, ref.UID) {
				keep = append(keep, ref)
			}
		}
		return r.patchOwnerRefs(ctx, latest, keep)
	case len(waiting) != 0 && r.hasDependents(ctx, latest):
		// Upstream first unblocks the item's references if one of its dependents
		// is itself deleting dependents (cycle detection); not modelled.
		return r.deleteItem(ctx, latest, metav1.DeletePropagationForeground)
	default:
		policy := metav1.DeletePropagationBackground
		switch {
		case slices.Contains(latest.GetFinalizers(), metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case slices.Contains(latest.GetFinalizers(), metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		return r.deleteItem(ctx, latest, policy)
	}
}

// classify sorts the references into solid (the owner exists and is not
// waiting for its dependents), dangling (no such owner) and waiting (the owner
// is deleting with the foregroundDeletion finalizer), reading owners live.
func (r *gcReconciler) classify(ctx context.Context, item client.Object, refs []metav1.OwnerReference) (solid, dangling, waiting []metav1.OwnerReference, err error) {
	for _, ref := range refs {
		owner, err := r.gc.newObjectOf(refGVK(ref))
		if err != nil {
			return nil, nil, nil, err // upstream's restMappingError: retried
		}
		namespaced, err := r.gc.Client.IsObjectNamespaced(owner)
		if err != nil {
			return nil, nil, nil, err
		}
		key := types.NamespacedName{Name: ref.Name}
		if namespaced {
			if item.GetNamespace() == "" {
				// A cluster-scoped item cannot have a namespaced owner: upstream
				// forgets the item, neither deleting it nor patching its
				// references (namespacedOwnerOfClusterScopedObjectErr), and its
				// graph builder reports the reference when it has seen the
				// owner in a namespace.
				r.reportInvalidNamespace(ctx, item, ref)
				return nil, nil, nil, errNamespacedOwnerOfClusterScopedObject
			}
			key.Namespace = item.GetNamespace()
		}
		err = r.gc.APIReader.Get(ctx, key, owner)
		switch {
		case apierrors.IsNotFound(err):
			dangling = append(dangling, ref)
		case err != nil:
			return nil, nil, nil, err
		case owner.GetUID() != ref.UID:
			dangling = append(dangling, ref)
		case owner.GetDeletionTimestamp() != nil && slices.Contains(owner.GetFinalizers(), metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// errNamespacedOwnerOfClusterScopedObject is upstream's
// namespacedOwnerOfClusterScopedObjectErr.
var errNamespacedOwnerOfClusterScopedObject = errors.New("cluster-scoped objects cannot refer to namespaced owners")

// reportInvalidNamespace is the graph builder's reportInvalidNamespaceOwnerRef
// for a cluster-scoped item whose namespaced owner ref names an object the
// graph holds (in some namespace): a Warning OwnerRefInvalidNamespace on the
// item. An owner the graph does not hold (absent, or of a kind not
// collected) is not reported, as upstream's virtual node is not.
func (r *gcReconciler) reportInvalidNamespace(ctx context.Context, item client.Object, ref metav1.OwnerReference) {
	if r.gc.Recorder == nil {
		return
	}
	gk := refGVK(ref).GroupKind()
	i := slices.IndexFunc(r.kinds, func(k schema.GroupVersionKind) bool { return k.GroupKind() == gk })
	if i < 0 {
		return
	}
	items, err := r.gc.list(ctx, r.kinds[i], client.UnsafeDisableDeepCopy)
	if err != nil || !slices.ContainsFunc(items, func(o client.Object) bool { return o.GetUID() == ref.UID }) {
		return
	}
	r.gc.Recorder.Eventf(item, corev1.EventTypeWarning, "OwnerRefInvalidNamespace", "ownerRef %s does not exist in namespace %q",
		fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", ref.APIVersion, ref.Kind, item.GetNamespace(), ref.Name, ref.UID), item.GetNamespace())
}

// deleteItem is deleteObject: preconditions on uid and resourceVersion; on a
// conflict where only the resourceVersion moved and the owners are the same,
// it deletes again without the resourceVersion precondition.
func (r *gcReconciler) deleteItem(ctx context.Context, item client.Object, policy metav1.DeletionPropagation) error {
	err := r.gc.Client.Delete(ctx, item, client.PropagationPolicy(policy),
		client.Preconditions{UID: ptrTo(item.GetUID()), ResourceVersion: ptrTo(item.GetResourceVersion())})
	if apierrors.IsConflict(err) {
		live := r.newObject()
		if lerr := r.gc.APIReader.Get(ctx, client.ObjectKeyFromObject(item), live); lerr != nil {
			return client.IgnoreNotFound(lerr)
		}
		if live.GetUID() == item.GetUID() && live.GetResourceVersion() != item.GetResourceVersion() &&
			reflect.DeepEqual(live.GetOwnerReferences(), item.GetOwnerReferences()) {
			err = r.gc.Client.Delete(ctx, item, client.PropagationPolicy(policy), client.Preconditions{UID: ptrTo(item.GetUID())})
		}
	}
	return client.IgnoreNotFound(err)
}

// processDeletingDependents removes the foregroundDeletion finalizer once no
// dependent blocks the owner's deletion. The dependents themselves are deleted
// by their own kinds' controllers, which the owner's update event queued.
func (r *gcReconciler) processDeletingDependents(ctx context.Context, owner client.Object) error {
	deps, err := r.gc.dependents(ctx, owner, r.kinds)
	if err != nil {
		return err
	}
	for _, d := range deps {
		for _, ref := range d.GetOwnerReferences() {
			if ref.UID == owner.GetUID() && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
				return nil // still blocked; the dependent's deletion event brings us back
			}
		}
	}
	return r.removeFinalizer(ctx, owner, metav1.FinalizerDeleteDependents)
}

// orphan removes the owner's reference from its dependents, then the orphan
// finalizer.
func (r *gcReconciler) orphan(ctx context.Context, owner client.Object) error {
	deps, err := r.gc.dependents(ctx, owner, r.kinds)
	if err != nil {
		return err
	}
	var errs []string
	for _, d := range deps {
		var keep []metav1.OwnerReference
		for _, ref := range d.GetOwnerReferences() {
			if ref.UID != owner.GetUID() {
				keep = append(keep, ref)
			}
		}
		if err := r.gc.patchOwnerRefs(ctx, d, keep); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Sprintf("orphaning %s/%s failed, %v", d.GetNamespace(), d.GetName(), err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("failed to orphan dependents of owner %s/%s, got errors: %s", owner.GetNamespace(), owner.GetName(), strings.Join(errs, ", "))
	}
	return r.removeFinalizer(ctx, owner, metav1.FinalizerOrphanDependents)
}

// removeFinalizer removes one finalizer with a JSON merge patch carrying the
// resourceVersion, retrying conflicts with a fresh live read (retry.RetryOnConflict
// with DefaultBackoff's 5 steps, without its sleeps).
func (r *gcReconciler) removeFinalizer(ctx context.Context, owner client.Object, finalizer string) error {
	var err error
	for range 5 {
		live := r.newObject()
		if err = r.gc.APIReader.Get(ctx, client.ObjectKeyFromObject(owner), live); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !slices.Contains(live.GetFinalizers(), finalizer) {
			return nil
		}
		var keep []string
		for _, f := range live.GetFinalizers() {
			if f != finalizer {
				keep = append(keep, f)
			}
		}
		patch, merr := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": live.GetResourceVersion(), "finalizers": keep}})
		if merr != nil {
			return merr
		}
		err = r.gc.Client.Patch(ctx, live, client.RawPatch(types.MergePatchType, patch))
		if !apierrors.IsConflict(err) {
			return client.IgnoreNotFound(err)
		}
	}
	return fmt.Errorf("updateMaxRetries(5) has reached. The garbage collector will retry later for owner %s/%s: %w", owner.GetNamespace(), owner.GetName(), err)
}

func (r *gcReconciler) patchOwnerRefs(ctx context.Context, item client.Object, keep []metav1.OwnerReference) error {
	return r.gc.patchOwnerRefs(ctx, item, keep)
}

// patchOwnerRefs sets item's ownerReferences to keep with a JSON merge patch
// carrying item's resourceVersion (deleteOwnerRefJSONMergePatch).
func (gc *GarbageCollector) patchOwnerRefs(ctx context.Context, item client.Object, keep []metav1.OwnerReference) error {
	if keep == nil {
		keep = []metav1.OwnerReference{}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": item.GetResourceVersion(), "ownerReferences": keep}})
	if err != nil {
		return err
	}
	return gc.Client.Patch(ctx, item.DeepCopyObject().(client.Object), client.RawPatch(types.MergePatchType, patch))
}

// hasDependents reports whether the graph knows a dependent of item.
func (r *gcReconciler) hasDependents(ctx context.Context, item client.Object) bool {
	deps, err := r.gc.dependents(ctx, item, r.kinds)
	return err == nil && len(deps) > 0
}

// dependents lists, from the graph, the objects of kinds that reference owner:
// in owner's namespace, or anywhere for a cluster-scoped owner.
func (gc *GarbageCollector) dependents(ctx context.Context, owner client.Object, kinds []schema.GroupVersionKind) ([]client.Object, error) {
	var out []client.Object
	err := gc.eachDependent(ctx, owner, kinds, func(k schema.GroupVersionKind, o client.Object) {
		d := o.DeepCopyObject().(client.Object)
		d.GetObjectKind().SetGroupVersionKind(k)
		out = append(out, d)
	})
	return out, err
}

// eachDependent calls f with each dependent of owner among kinds, as the
// graph holds it: f must not keep or change it.
func (gc *GarbageCollector) eachDependent(ctx context.Context, owner client.Object, kinds []schema.GroupVersionKind, f func(schema.GroupVersionKind, client.Object)) error {
	for _, k := range kinds {
		// The graph's own objects, read in place (an event lists every
		// object of the kind): f copies what it keeps.
		opts := []client.ListOption{client.UnsafeDisableDeepCopy}
		if owner.GetNamespace() != "" {
			opts = append(opts, client.InNamespace(owner.GetNamespace()))
		}
		items, err := gc.list(ctx, k, opts...)
		if err != nil {
			return err
		}
		for _, o := range items {
			for _, ref := range o.GetOwnerReferences() {
				if ref.UID == owner.GetUID() {
					f(k, o)
					break
				}
			}
		}
	}
	return nil
}

// list lists the objects of kind k from the graph: typed, or as metadata for
// a kind with no Go type.
func (gc *GarbageCollector) list(ctx context.Context, k schema.GroupVersionKind, opts ...client.ListOption) ([]client.Object, error) {
	var list client.ObjectList
	lgvk := k.GroupVersion().WithKind(k.Kind + "List")
	l, err := gc.Client.Scheme().New(lgvk)
	switch {
	case runtime.IsNotRegisteredError(err): // a kind with no Go type: its metadata
		ml := &metav1.PartialObjectMetadataList{}
		ml.SetGroupVersionKind(lgvk)
		list = ml
	case err != nil:
		return nil, err
	default:
		list = l.(client.ObjectList)
	}
	if err := gc.Graph.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	return extract(list)
}

// newObjectOf is an object to read an owner of kind gvk into: typed when the
// scheme has the kind, else metadata only (a custom resource whose kind has no
// Go type), as upstream reads every owner (garbagecollector.go getMetadata).
func (gc *GarbageCollector) newObjectOf(gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := gc.Client.Scheme().New(gvk)
	if runtime.IsNotRegisteredError(err) {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to get REST mapping for %s: %w", gvk, err)
	}
	co, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object kind", gvk)
	}
	co.GetObjectKind().SetGroupVersionKind(gvk)
	return co, nil
}

func refGVK(ref metav1.OwnerReference) schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
}

func uids(refs []metav1.OwnerReference) []types.UID {
	var out []types.UID
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// extract returns the items of a typed list as objects.
func extract(l client.ObjectList) ([]client.Object, error) {
	items, err := meta.ExtractList(l)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		o, ok := it.(client.Object)
		if !ok {
			return nil, fmt.Errorf("list item %T is not a client.Object", it)
		}
		out = append(out, o)
	}
	return out, nil
}

// ObjectOf is an object of kind gvk as the models read it: typed when scheme
// has the kind, else its metadata (a custom resource with no Go type), its
// kind set.
func ObjectOf(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := scheme.New(gvk)
	if runtime.IsNotRegisteredError(err) {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	co, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object kind", gvk)
	}
	co.GetObjectKind().SetGroupVersionKind(gvk)
	return co, nil
}

// ListOf is a list of kind gvk as the models list it: typed when scheme has
// the list kind, else a metadata list (the namespace controller's Content).
func ListOf(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (client.ObjectList, error) {
	lgvk := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	l, err := scheme.New(lgvk)
	if runtime.IsNotRegisteredError(err) {
		ml := &metav1.PartialObjectMetadataList{}
		ml.SetGroupVersionKind(lgvk)
		return ml, nil
	}
	if err != nil {
		return nil, err
	}
	ol, ok := l.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("%s is not a list kind", lgvk)
	}
	return ol, nil
}
