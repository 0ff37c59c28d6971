package traps

import (
	"context"
	"crypto/sha256"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Copier keeps a Secret <name>-copy with the data of each ConfigMap.
// Recent, if set, is an expiring cache of the ConfigMaps it copied (a
// library's, with its janitor goroutine); Handoff, if set, is a queue of
// its own that it hands each copied ConfigMap's name to (work a
// controller-runtime operator hands out itself, as an orchestrator that
// starts controllers at run time does).
type Copier struct {
	client.Client
	Recent  *TTLCache
	Handoff workqueue.TypedInterface[types.NamespacedName]
}

// SetupWithManager registers the controller.
func (r *Copier) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Complete(r)
}

// Reconcile makes the copy.
func (r *Copier) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if r.Recent != nil {
		r.Recent.Seen(req.String())
	}
	s := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name + "-copy"}, StringData: cm.Data}
	if err := controllerutil.SetControllerReference(&cm, &s, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.Create(ctx, &s); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	if r.Handoff != nil {
		r.Handoff.Add(req.NamespacedName)
	}
	return reconcile.Result{}, nil
}

// StopOnDone stops c when the process's context ends (a Runnable of mgr).
func StopOnDone(mgr manager.Manager, c *TTLCache) error {
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		c.Stop()
		return nil
	}))
}

// Drain takes the names handed to q and marks each done, until q shuts
// down (a Runnable of mgr, shutting q down when the process's context ends).
func Drain(mgr manager.Manager, q workqueue.TypedInterface[types.NamespacedName]) error {
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		go func() {
			<-ctx.Done()
			q.ShutDown()
		}()
		for {
			n, shutdown := q.Get()
			if shutdown {
				return nil
			}
			q.Done(n)
		}
	}))
}

// Slow reconciles each ConfigMap again every second of virtual time, and
// each reconcile works for Work rounds of hashing (wall time, no virtual
// time): a plan of it takes seconds of wall time to run.
type Slow struct {
	client.Client
	Work int
}

// SetupWithManager registers the controller.
func (r *Slow) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(r)
}

// Reconcile works, then asks to be called again in a second.
func (r *Slow) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	sum := sha256.Sum256([]byte(cm.Name))
	for range r.Work {
		sum = sha256.Sum256(append(sum[:], make([]byte, 64<<10)...))
	}
	return reconcile.Result{RequeueAfter: time.Second}, nil
}
