package listermutate

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

const (
	// StampLabel marks the ConfigMaps the operator stamps.
	StampLabel = "stamp.ctrlsim.dev/enabled"
	// DigestAnnotation is the operator's stamp: a digest of the data.
	DigestAnnotation = "stamp.ctrlsim.dev/digest"
)

// Controller stamps each labelled ConfigMap with a digest of its data.
type Controller struct {
	client     kubernetes.Interface
	configMaps corelisters.ConfigMapLister
	synced     cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[cache.ObjectName]
	// Buggy writes the stamp into the lister's own object before its
	// update: a failed update leaves the informer's cache stamped.
	Buggy bool
}

// NewController wires the controller to its informer, as sample-controller's
// NewController does.
func NewController(client kubernetes.Interface, configMaps coreinformers.ConfigMapInformer,
	queue workqueue.TypedRateLimitingInterface[cache.ObjectName], buggy bool) (*Controller, error) {
	c := &Controller{client: client, configMaps: configMaps.Lister(), synced: configMaps.Informer().HasSynced, queue: queue, Buggy: buggy}
	if _, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueue(obj any) {
	if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Labels[StampLabel] != "" {
		c.queue.Add(cache.MetaObjectToName(cm))
	}
}

// Run waits for the cache, starts workers workers and blocks until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return errors.New("failed to wait for caches to sync")
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Error syncing; requeuing for later retry", "objectReference", key)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// sync stamps the ConfigMap with its data's digest.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) error {
	cm, err := c.configMaps.ConfigMaps(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	want := Digest(cm.Data)
	if cm.Labels[StampLabel] == "" || cm.Annotations[DigestAnnotation] == want {
		return nil
	}
	if !c.Buggy {
		cm = cm.DeepCopy() // the lister's object is the cache's: read-only
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[DigestAnnotation] = want
	_, err = c.client.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// Digest is a digest of a ConfigMap's data (FNV-1a over its sorted keys and
// values).
func Digest(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data { // lint:order-independent sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := fnv.New64a()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, data[k])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
