package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// GCSyncPeriod is how often kube-controller-manager re-reads discovery and
// starts the collector's monitors of newly served resources
// (cmd/kube-controller-manager's startGarbageCollectorController: syncPeriod
// = 30 * time.Second, passed to GarbageCollector.Sync).
const GCSyncPeriod = 30 * time.Second

// crdGVK is the CustomResourceDefinition kind, read as unstructured so that
// the collector needs no apiextensions types in its scheme.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// discovery is the collector's state when it monitors kinds served at run
// time (GarbageCollector.Sync): the controllers running, one per monitored
// kind, and the instant the sync loop started.
type discovery struct {
	mgr     ctrl.Manager
	start   time.Time
	running []monitored
	names   map[string]bool
}

// monitored is one kind's controller and its reconciler.
type monitored struct {
	ctrl controller.Controller
	r    *gcReconciler
}

// setupWithSync registers the collector's controllers, kept so that kinds
// served later can be watched by them too, and the discovery controller.
func (gc *GarbageCollector) setupWithSync(mgr ctrl.Manager, cs []Controller) error {
	gc.disc = &discovery{mgr: mgr, start: gc.Clock.Now(), names: map[string]bool{}}
	for _, c := range cs {
		built, err := build(mgr, c)
		if err != nil {
			return err
		}
		gc.disc.running = append(gc.disc.running, monitored{ctrl: built, r: c.Reconciler.(*gcReconciler)})
		gc.disc.names[c.Name] = true
	}
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(crdGVK)
	classic := false
	return ctrl.NewControllerManagedBy(mgr).Named("garbagecollector-discovery").
		WithOptions(controller.Options{UsePriorityQueue: &classic}).
		Watches(crd, &handler.EnqueueRequestForObject{}, builder.WithPredicates(predicate.Funcs{
			CreateFunc:  func(e event.CreateEvent) bool { return gc.unmonitored(e.Object) != nil },
			UpdateFunc:  func(e event.UpdateEvent) bool { return gc.unmonitored(e.ObjectNew) != nil },
			DeleteFunc:  func(event.DeleteEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		Complete(reconcile.Func(gc.discover))
}

// build registers c with mgr as setup does, and returns the controller.
func build(mgr ctrl.Manager, c Controller) (controller.Controller, error) {
	classic := false
	b := ctrl.NewControllerManagedBy(mgr).Named(c.Name).
		WithOptions(controller.Options{MaxConcurrentReconciles: c.Workers, RateLimiter: c.RateLimiter, UsePriorityQueue: &classic})
	for _, w := range c.Watches {
		b = b.Watches(w.Object, w.Handler, builder.WithPredicates(w.Predicates...))
	}
	return b.Build(c.Reconciler)
}

// unmonitored is the kind a CRD serves, when the CRD is Established and
// the collector does not monitor its kind yet; nil otherwise. The version is
// the storage version if it is served, else the first served one: owners
// and dependents are matched by group and kind.
func (gc *GarbageCollector) unmonitored(obj client.Object) *schema.GroupVersionKind {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &crd); err != nil {
		return nil
	}
	if crd.DeletionTimestamp != nil || !established(&crd) {
		return nil
	}
	var version string
	for _, v := range crd.Spec.Versions {
		if v.Served && (version == "" || v.Storage) {
			version = v.Name
		}
	}
	if version == "" {
		return nil
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	kinds, err := gc.gvks()
	if err != nil {
		return nil
	}
	for _, k := range kinds {
		if k.GroupKind() == gvk.GroupKind() {
			return nil
		}
	}
	return &gvk
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// discover starts monitoring the kind a newly Established CRD serves, at the
// first sync instant (start + k*GCSyncPeriod) at or after now: until then
// the kind is not in discovery as the collector last read it.
func (gc *GarbageCollector) discover(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(crdGVK)
	if err := gc.Graph.Get(ctx, req.NamespacedName, crd); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	gvk := gc.unmonitored(crd)
	if gvk == nil {
		return reconcile.Result{}, nil
	}
	now := gc.Clock.Now()
	if wait := gc.nextSync(now).Sub(now); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	return reconcile.Result{}, gc.monitor(ctx, *gvk)
}

// nextSync is the first instant of the sync loop at or after now.
func (gc *GarbageCollector) nextSync(now time.Time) time.Time {
	since := now.Sub(gc.disc.start)
	k := (since + gc.Sync - 1) / gc.Sync
	return gc.disc.start.Add(k * gc.Sync)
}

// monitor adds gvk to the collected kinds, as resyncMonitors starts a
// monitor (an informer) for a newly discovered resource: every running
// controller watches the new kind (its objects may own theirs), is queued
// the objects of its kind that name an owner of the new kind (upstream's
// graph held those owners as virtual nodes, checked against the apiserver),
// and the new kind gets its own controller.
func (gc *GarbageCollector) monitor(ctx context.Context, gvk schema.GroupVersionKind) error {
	obj, err := gc.newObjectOf(gvk)
	if err != nil {
		return err
	}
	gc.Kinds = append(gc.Kinds, obj)
	kinds, err := gc.gvks()
	if err != nil {
		return err
	}
	cache := gc.disc.mgr.GetCache()
	for _, m := range gc.disc.running {
		m.r.kinds = kinds
		if err := m.ctrl.Watch(source.Kind[client.Object](cache, gc.newWatched(gvk), handler.EnqueueRequestsFromMapFunc(m.r.related))); err != nil {
			return err
		}
		if err := m.ctrl.Watch(source.Func(m.r.ownedBy(gvk.GroupKind()))); err != nil {
			return err
		}
	}
	r := &gcReconciler{gc: gc, gvk: gvk, kinds: kinds}
	ws := []Watch{{Object: gc.newWatched(gvk), Handler: &handler.EnqueueRequestForObject{}, Predicates: []predicate.Predicate{itemChanged}}}
	for _, k := range kinds {
		ws = append(ws, Watch{Object: gc.newWatched(k), Handler: handler.EnqueueRequestsFromMapFunc(r.related)})
	}
	name := "garbagecollector-" + strings.ToLower(gvk.Kind)
	if gc.disc.names[name] {
		name += "." + gvk.Group
	}
	gc.disc.names[name] = true
	built, err := build(gc.disc.mgr, Controller{Name: name, Watches: ws, Reconciler: r})
	if err != nil {
		return fmt.Errorf("garbage collector: monitoring %s: %w", gvk, err)
	}
	gc.disc.running = append(gc.disc.running, monitored{ctrl: built, r: r})
	return nil
}

// newWatched is a fresh object of kind gvk to watch.
func (gc *GarbageCollector) newWatched(gvk schema.GroupVersionKind) client.Object {
	for i, k := range gc.mustGVKs() {
		if k == gvk {
			return gc.Kinds[i].DeepCopyObject().(client.Object)
		}
	}
	o, err := gc.newObjectOf(gvk)
	if err != nil {
		panic(fmt.Sprintf("garbage collector: kind %s left the scheme: %v", gvk, err))
	}
	return o
}

func (gc *GarbageCollector) mustGVKs() []schema.GroupVersionKind {
	kinds, err := gc.gvks()
	if err != nil {
		panic(fmt.Sprintf("garbage collector: %v", err))
	}
	return kinds
}

// ownedBy queues, once, the objects of r's kind (from the graph) that name
// an owner of group and kind gk.
func (r *gcReconciler) ownedBy(gk schema.GroupKind) func(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	return func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		items, err := r.gc.list(ctx, r.gvk)
		if err != nil {
			return err
		}
		var reqs []reconcile.Request
		for _, o := range items {
			if slices.ContainsFunc(o.GetOwnerReferences(), func(ref metav1.OwnerReference) bool { return refGVK(ref).GroupKind() == gk }) {
				reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}})
			}
		}
		for _, req := range reqs {
			q.Add(req)
		}
		return nil
	}
}

// PreferredVersion is the version of gk that mapper serves with the highest
// priority (v1 before v1beta1, v2 before v1: kube-apiserver's preferred
// version of a group in practice), and whether it serves gk at all.
func PreferredVersion(mapper meta.RESTMapper, gk schema.GroupKind) (schema.GroupVersionKind, bool) {
	ms, err := mapper.RESTMappings(gk)
	if err != nil || len(ms) == 0 {
		return schema.GroupVersionKind{}, false
	}
	best := ms[0].GroupVersionKind
	for _, m := range ms[1:] {
		if version.CompareKubeAwareVersionStrings(m.GroupVersionKind.Version, best.Version) > 0 {
			best = m.GroupVersionKind
		}
	}
	return best, true
}
