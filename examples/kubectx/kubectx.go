package kubectx

import (
	"context"
	"errors"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

const (
	// TokenLabel marks the ConfigMaps that get a token Secret.
	TokenLabel = "kubectx.ctrlsim.dev/token"
	// KeysKey is the token's one key: how many keys its ConfigMap's data has.
	KeysKey = "keys"
	// ReadyAnnotation is the ConfigMap's note of its token's KeysKey, once
	// the token says it.
	ReadyAnnotation = "kubectx.ctrlsim.dev/token-keys"
)

// Context is what the framework builds every controller from: clients and
// one shared informer factory, built from a kubeconfig.
type Context struct {
	Client  kubernetes.Interface
	Factory informers.SharedInformerFactory
}

// NewContext builds the context from the kubeconfig file at path, as an
// operator's main does from its --kubeconfig flag.
func NewContext(path string) (*Context, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Context{Client: cs, Factory: informers.NewSharedInformerFactory(cs, 0)}, nil
}

// A Controller is what the framework runs: Register builds its queue and
// takes its informers from the context's factory; Sync makes one key's
// objects what they should be.
type Controller interface {
	Register(c *Context) (workqueue.TypedRateLimitingInterface[string], []cache.InformerSynced, error)
	Sync(ctx context.Context, key string) error
}

// Controllers are the framework's controllers, in the order it registers
// them.
var Controllers = []func() Controller{
	func() Controller { return &tokens{} },
	func() Controller { return &ready{} },
}

// Main is the operator's main from its kubeconfig on: it builds the
// context, registers every controller, starts the factory, syncs its
// caches once, and runs one worker per controller until ctx ends. Buggy
// is the framework's planted bug: a key whose sync failed is forgotten,
// not retried.
func Main(ctx context.Context, kubeconfig string, buggy bool) error {
	c, err := NewContext(kubeconfig)
	if err != nil {
		return err
	}
	type registered struct {
		ctrl  Controller
		queue workqueue.TypedRateLimitingInterface[string]
	}
	var regs []registered
	var synced []cache.InformerSynced
	for _, newCtrl := range Controllers {
		ctrl := newCtrl()
		q, s, err := ctrl.Register(c)
		if err != nil {
			return err
		}
		regs = append(regs, registered{ctrl, q})
		synced = append(synced, s...)
	}
	defer func() {
		for _, r := range regs {
			r.queue.ShutDown()
		}
	}()
	c.Factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return errors.New("kubectx: caches did not sync")
	}
	for _, r := range regs {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for next(ctx, r.ctrl, r.queue, buggy) {
			}
		}, time.Second)
	}
	<-ctx.Done()
	return nil
}

// next processes one key of q.
func next(ctx context.Context, ctrl Controller, q workqueue.TypedRateLimitingInterface[string], buggy bool) bool {
	key, shutdown := q.Get()
	if shutdown {
		return false
	}
	defer q.Done(key)
	if err := ctrl.Sync(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "syncing", "key", key)
		if !buggy {
			q.AddRateLimited(key)
			return true
		}
	}
	q.Forget(key)
	return true
}

// newRecorder is the event recorder every controller builds in Register,
// on a broadcaster of its own that nothing shuts down (as a certificate
// operator's controllers' are): its goroutines outlive the operator.
func newRecorder(c *Context, component string) record.EventRecorder {
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.Client.CoreV1().Events("")})
	return b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
}

// newQueue is the queue every controller builds in Register: client-go's
// rate-limited one, with its default rate limiter.
func newQueue(name string) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// ownerKey queues a ConfigMap's own key, and a token's owner's.
func ownerKey(q workqueue.TypedRateLimitingInterface[string]) cache.ResourceEventHandlerFuncs {
	add := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		m, ok := obj.(metav1.Object)
		if !ok {
			return
		}
		if _, secret := obj.(*corev1.Secret); secret {
			if ref := metav1.GetControllerOf(m); ref != nil && ref.Kind == "ConfigMap" {
				q.Add(m.GetNamespace() + "/" + ref.Name)
			}
			return
		}
		q.Add(m.GetNamespace() + "/" + m.GetName())
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }, DeleteFunc: add}
}

// register adds h to the ConfigMap and Secret informers of c's factory.
func register(c *Context, h cache.ResourceEventHandler) (corelisters.ConfigMapLister, corelisters.SecretLister, []cache.InformerSynced, error) {
	cms, secrets := c.Factory.Core().V1().ConfigMaps(), c.Factory.Core().V1().Secrets()
	for _, inf := range []cache.SharedIndexInformer{cms.Informer(), secrets.Informer()} {
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, nil, nil, err
		}
	}
	return cms.Lister(), secrets.Lister(), []cache.InformerSynced{cms.Informer().HasSynced, secrets.Informer().HasSynced}, nil
}

// tokens keeps a Secret <name>-token, owned by each ConfigMap labelled
// TokenLabel=yes, whose KeysKey says how many keys the ConfigMap's data has.
type tokens struct {
	client  kubernetes.Interface
	events  record.EventRecorder
	cms     corelisters.ConfigMapLister
	secrets corelisters.SecretLister
}

func (t *tokens) Register(c *Context) (workqueue.TypedRateLimitingInterface[string], []cache.InformerSynced, error) {
	q := newQueue("tokens")
	cms, secrets, synced, err := register(c, ownerKey(q))
	t.client, t.cms, t.secrets, t.events = c.Client, cms, secrets, newRecorder(c, "kubectx-tokens")
	return q, synced, err
}

func (t *tokens) Sync(ctx context.Context, key string) error {
	cm, err := configMap(t.cms, key)
	if cm == nil || err != nil {
		return err
	}
	keys := strconv.Itoa(len(cm.Data))
	have, err := t.secrets.Secrets(cm.Namespace).Get(cm.Name + "-token")
	switch {
	case apierrors.IsNotFound(err):
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name + "-token",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))}},
			Data: map[string][]byte{KeysKey: []byte(keys)}}
		if _, err = t.client.CoreV1().Secrets(cm.Namespace).Create(ctx, s, metav1.CreateOptions{}); err == nil {
			t.events.Eventf(cm, corev1.EventTypeNormal, "TokenCreated", "created %s", s.Name)
		}
		return err
	case err != nil:
		return err
	}
	if ref := metav1.GetControllerOf(have); ref == nil || ref.UID != cm.UID || string(have.Data[KeysKey]) == keys {
		return nil // an old ConfigMap's (the garbage collector's), or up to date
	}
	have = have.DeepCopy()
	have.Data = map[string][]byte{KeysKey: []byte(keys)}
	_, err = t.client.CoreV1().Secrets(cm.Namespace).Update(ctx, have, metav1.UpdateOptions{})
	return err
}

// ready notes on each ConfigMap labelled TokenLabel=yes its token's
// KeysKey (ReadyAnnotation), once its token exists.
type ready struct {
	client  kubernetes.Interface
	events  record.EventRecorder
	cms     corelisters.ConfigMapLister
	secrets corelisters.SecretLister
}

func (r *ready) Register(c *Context) (workqueue.TypedRateLimitingInterface[string], []cache.InformerSynced, error) {
	q := newQueue("ready")
	cms, secrets, synced, err := register(c, ownerKey(q))
	r.client, r.cms, r.secrets, r.events = c.Client, cms, secrets, newRecorder(c, "kubectx-ready")
	return q, synced, err
}

func (r *ready) Sync(ctx context.Context, key string) error {
	cm, err := configMap(r.cms, key)
	if cm == nil || err != nil {
		return err
	}
	token, err := r.secrets.Secrets(cm.Namespace).Get(cm.Name + "-token")
	if apierrors.IsNotFound(err) {
		return nil // its creation queues the ConfigMap again
	}
	if err != nil {
		return err
	}
	if ref := metav1.GetControllerOf(token); ref == nil || ref.UID != cm.UID {
		return nil
	}
	keys := string(token.Data[KeysKey])
	if cm.Annotations[ReadyAnnotation] == keys {
		return nil
	}
	cm = cm.DeepCopy()
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[ReadyAnnotation] = keys
	if _, err = r.client.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{}); err == nil {
		r.events.Eventf(cm, corev1.EventTypeNormal, "TokenNoted", "noted %s keys", keys)
	}
	return err
}

// configMap is key's ConfigMap from the lister if it is labelled
// TokenLabel=yes and not being deleted, else nil.
func configMap(l corelisters.ConfigMapLister, key string) (*corev1.ConfigMap, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil, nil
	}
	cm, err := l.ConfigMaps(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil || cm.Labels[TokenLabel] != "yes" || cm.DeletionTimestamp != nil {
		return nil, err
	}
	return cm, nil
}
