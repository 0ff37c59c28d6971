package dynctl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// SummarizeLabel marks the objects the controller summarizes.
	SummarizeLabel = "dynctl.ctrlsim.dev/summarize"
	// KeysKey is the summary's one key: how many keys the object's data has.
	KeysKey = "keys"
)

// ConfigMaps is the resource the tests run the controller on.
var ConfigMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// Controller is a dynamic controller, as a resource-graph operator starts
// one per resource at run time: for each object of its resource labelled
// SummarizeLabel=yes it keeps a ConfigMap <name>-summary, owned by the
// object, whose data says how many keys the object's data has. It reads
// through a dynamic informer and writes through the dynamic client.
type Controller struct {
	client   dynamic.Interface
	gvr      schema.GroupVersionResource
	informer informers.GenericInformer
	queue    workqueue.TypedRateLimitingInterface[string]
	written  *recent // the summaries written lately (its janitor never stops)
	// Buggy forgets a key whose sync failed instead of retrying it: an
	// error answer to its summary's write (a conflict, a timeout, a 500)
	// leaves the summary missing or stale until the object changes again.
	Buggy bool
}

// New builds the controller on factory's informer of gvr, and its
// workqueue, as dynamic controllers do in their constructor: a rate-limited
// client-go queue with client-go's default rate limiter.
func New(client dynamic.Interface, factory dynamicinformer.DynamicSharedInformerFactory, gvr schema.GroupVersionResource, buggy bool) (*Controller, error) {
	c := &Controller{
		client:   client,
		gvr:      gvr,
		informer: factory.ForResource(gvr),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "dynctl-" + gvr.Resource}),
		written: newRecent(time.Minute, 10*time.Second, 1000),
		Buggy:   buggy,
	}
	_, err := c.informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: c.enqueue,
	})
	return c, err
}

// enqueue queues the object's key, and its owner's when the object is a
// summary (so that a summary deleted or changed by another is made again).
func (c *Controller) enqueue(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, err := meta(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	if ref := metav1.GetControllerOf(m); ref != nil && ref.Kind == "ConfigMap" {
		c.queue.Add(m.GetNamespace() + "/" + ref.Name)
		return
	}
	c.queue.Add(m.GetNamespace() + "/" + m.GetName())
}

func meta(obj any) (metav1.Object, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("dynctl: %T is not unstructured", obj)
	}
	return u, nil
}

// Run waits for the informer's cache and runs workers until ctx ends,
// shutting its queue down on the way out.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.informer.Informer().HasSynced) {
		return errors.New("dynctl: caches did not sync")
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.next(ctx) {
	}
}

func (c *Controller) next(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "syncing", "key", key)
		if !c.Buggy {
			c.queue.AddRateLimited(key)
			return true
		}
	}
	c.queue.Forget(key)
	return true
}

// sync makes the object's summary what its data says.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	obj, err := c.informer.Lister().ByNamespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // its summary goes with it (the garbage collector)
	}
	if err != nil {
		return err
	}
	u := obj.(*unstructured.Unstructured)
	if u.GetLabels()[SummarizeLabel] != "yes" || u.GetDeletionTimestamp() != nil {
		return nil
	}
	data, _, _ := unstructured.NestedStringMap(u.Object, "data")
	keys := strconv.Itoa(len(data))
	summaries := c.client.Resource(ConfigMaps).Namespace(ns)
	have, err := summaries.Get(ctx, name+"-summary", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		s := &unstructured.Unstructured{}
		s.SetAPIVersion("v1")
		s.SetKind("ConfigMap")
		s.SetNamespace(ns)
		s.SetName(name + "-summary")
		s.SetOwnerReferences([]metav1.OwnerReference{*metav1.NewControllerRef(u, schema.GroupVersionKind{Version: "v1", Kind: u.GetKind()})})
		_ = unstructured.SetNestedStringMap(s.Object, map[string]string{KeysKey: keys}, "data")
		_, err = summaries.Create(ctx, s, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	}
	if ref := metav1.GetControllerOf(have); ref == nil || ref.UID != u.GetUID() {
		return nil // an old object's, which the garbage collector deletes (its deletion queues this one again)
	}
	if v, _, _ := unstructured.NestedString(have.Object, "data", KeysKey); v == keys {
		return nil
	}
	_ = unstructured.SetNestedStringMap(have.Object, map[string]string{KeysKey: keys}, "data")
	if _, err = summaries.Update(ctx, have, metav1.UpdateOptions{}); err == nil && c.written.add(key) {
		klog.FromContext(ctx).Info("summary rewritten within a minute", "key", key)
	}
	return err
}
