package clientgo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// MirrorLabel marks the ConfigMaps the operator mirrors into a Secret.
	MirrorLabel = "mirror.ctrlsim.dev/enabled"
	// OwnerLabel is on each mirror Secret: the name of its ConfigMap.
	OwnerLabel = "mirror.ctrlsim.dev/configmap"
	// SecretAnnotation is the operator's record on the ConfigMap: the name of
	// its mirror Secret (what sample-controller writes into Foo's status).
	SecretAnnotation = "mirror.ctrlsim.dev/secret"
)

// Controller mirrors each labelled ConfigMap's data into a Secret it owns,
// and records the Secret's name on the ConfigMap.
type Controller struct {
	client     kubernetes.Interface
	configMaps corelisters.ConfigMapLister
	secrets    corelisters.SecretLister
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[cache.ObjectName]
	recorder   record.EventRecorder
	// Buggy names each Secret with generateName and finds it again through
	// the Secret lister by its owner label: right after its own create, the
	// lister does not have the Secret yet (the watch has not delivered it),
	// and a sync that runs meanwhile (the ConfigMap's update event, from the
	// operator's own annotation) creates a second one. The correct
	// controller names the Secret after the ConfigMap (<name>-mirror), so a
	// create the lister has not caught up with fails with AlreadyExists and
	// is retried.
	Buggy bool
}

// NewController wires the controller to its informers, as sample-controller's
// NewController does: a handler on ConfigMaps enqueues them, one on Secrets
// enqueues the ConfigMap that owns each.
func NewController(ctx context.Context, client kubernetes.Interface, configMaps coreinformers.ConfigMapInformer, secrets coreinformers.SecretInformer,
	queue workqueue.TypedRateLimitingInterface[cache.ObjectName], buggy bool) (*Controller, error) {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	c := &Controller{
		recorder:   broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "mirror"}),
		client:     client,
		configMaps: configMaps.Lister(),
		secrets:    secrets.Lister(),
		synced:     []cache.InformerSynced{configMaps.Informer().HasSynced, secrets.Informer().HasSynced},
		queue:      queue,
		Buggy:      buggy,
	}
	if _, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := secrets.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.handleSecret,
		UpdateFunc: func(old, obj any) {
			if old.(*corev1.Secret).ResourceVersion != obj.(*corev1.Secret).ResourceVersion {
				c.handleSecret(obj)
			}
		},
		DeleteFunc: c.handleSecret,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueue(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Labels[MirrorLabel] == "" {
		return
	}
	c.queue.Add(cache.MetaObjectToName(cm))
}

// handleSecret enqueues the ConfigMap that controls a Secret.
func (c *Controller) handleSecret(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(s)
	if ref == nil || ref.Kind != "ConfigMap" {
		return
	}
	cm, err := c.configMaps.ConfigMaps(s.Namespace).Get(ref.Name)
	if err != nil {
		return
	}
	c.enqueue(cm)
}

// Run waits for the caches, starts workers workers and blocks until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return errors.New("failed to wait for caches to sync")
	}
	logger.Info("Starting workers", "count", workers)
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

// sync makes the ConfigMap's mirror Secret match it and records its name.
func (c *Controller) sync(ctx context.Context, key cache.ObjectName) error {
	cm, err := c.configMaps.ConfigMaps(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil // its Secret goes with it (owner reference)
	}
	if err != nil {
		return err
	}
	if cm.Labels[MirrorLabel] == "" {
		return nil
	}
	secret, err := c.mirrorOf(cm)
	if err != nil {
		return err
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	switch {
	case secret == nil:
		secret, err = c.client.CoreV1().Secrets(cm.Namespace).Create(ctx, c.newSecret(cm, data), metav1.CreateOptions{})
		if err != nil {
			return err
		}
		c.recorder.Eventf(cm, corev1.EventTypeNormal, "Mirrored", "Secret %s created", secret.Name)
	case !metav1.IsControlledBy(secret, cm):
		return fmt.Errorf("Secret %s/%s exists and is not controlled by ConfigMap %s", secret.Namespace, secret.Name, cm.Name)
	case !maps.EqualFunc(secret.Data, data, func(a, b []byte) bool { return string(a) == string(b) }):
		s := secret.DeepCopy()
		s.Data = data
		if secret, err = c.client.CoreV1().Secrets(cm.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	if cm.Annotations[SecretAnnotation] == secret.Name {
		return nil
	}
	cm = cm.DeepCopy()
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[SecretAnnotation] = secret.Name
	_, err = c.client.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// mirrorOf is the ConfigMap's Secret as the lister has it, or nil.
func (c *Controller) mirrorOf(cm *corev1.ConfigMap) (*corev1.Secret, error) {
	if !c.Buggy {
		s, err := c.secrets.Secrets(cm.Namespace).Get(cm.Name + "-mirror")
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return s, err
	}
	all, err := c.secrets.Secrets(cm.Namespace).List(labels.SelectorFromSet(labels.Set{OwnerLabel: cm.Name}))
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if metav1.IsControlledBy(s, cm) {
			return s, nil
		}
	}
	return nil, nil
}

func (c *Controller) newSecret(cm *corev1.ConfigMap, data map[string][]byte) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: cm.Namespace,
			Labels:    map[string]string{OwnerLabel: cm.Name},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cm,
				corev1.SchemeGroupVersion.WithKind("ConfigMap"))},
		},
		Data: data,
	}
	if c.Buggy {
		s.GenerateName = cm.Name + "-"
	} else {
		s.Name = cm.Name + "-mirror"
	}
	return s
}
