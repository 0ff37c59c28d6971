package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

const (
	// ItemLabel marks the ConfigMaps that are items.
	ItemLabel = "ledger.ctrlsim.dev/item"
	// LedgerName is the ledger ConfigMap's name, in each item's namespace.
	LedgerName = "ledger"
	// BootstrapDelay is how long the bootstrap Runnable waits before it makes
	// the ledger.
	BootstrapDelay = 5 * time.Second
)

// Reconciler records items in their namespace's ledger.
type Reconciler struct {
	Client client.Client
	Log    logr.Logger
	// Buggy: read the ledger once before retrying, and drop the item when the
	// retries run out (see the package doc).
	Buggy bool
}

// Reconcile waits for the ledger to be in the cache, then records the item.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	item := &corev1.ConfigMap{}
	if err := r.Client.Get(ctx, req.NamespacedName, item); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	key := types.NamespacedName{Namespace: req.Namespace, Name: LedgerName}
	err := wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := r.Client.Get(ctx, key, &corev1.ConfigMap{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("waiting for the ledger: %w", err)
	}
	amount := item.Data["amount"]
	if r.Buggy {
		ledger := &corev1.ConfigMap{}
		if err := r.Client.Get(ctx, key, ledger); err != nil {
			return ctrl.Result{}, err
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if ledger.Data[item.Name] == amount {
				return nil
			}
			if ledger.Data == nil {
				ledger.Data = map[string]string{}
			}
			ledger.Data[item.Name] = amount
			return r.Client.Update(ctx, ledger)
		})
		if err != nil {
			r.Log.Error(err, "could not record the item", "item", item.Name)
		}
		return ctrl.Result{}, nil
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ledger := &corev1.ConfigMap{}
		if err := r.Client.Get(ctx, key, ledger); err != nil {
			return err
		}
		if ledger.Data[item.Name] == amount {
			return nil
		}
		if ledger.Data == nil {
			ledger.Data = map[string]string{}
		}
		ledger.Data[item.Name] = amount
		return r.Client.Update(ctx, ledger)
	})
	if err == nil {
		r.Log.Info("recorded", "item", item.Name, "amount", amount)
	}
	return ctrl.Result{}, err
}

// Bootstrap makes the ledger of Namespace after BootstrapDelay: a manager
// Runnable, as operators add with mgr.Add.
type Bootstrap struct {
	Client    client.Client
	Log       logr.Logger
	Namespace string
}

// Start waits, makes the ledger (one already made is fine) and returns.
func (b *Bootstrap) Start(ctx context.Context) error {
	time.Sleep(BootstrapDelay)
	ledger := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: LedgerName}}
	if err := b.Client.Create(ctx, ledger); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	b.Log.Info("ledger ready", "namespace", b.Namespace)
	return nil
}

// SetupWithManager registers the controller (two workers) and the bootstrap
// Runnable for namespace.
func (r *Reconciler) SetupWithManager(mgr manager.Manager, namespace string) error {
	if err := mgr.Add(&Bootstrap{Client: mgr.GetClient(), Log: ctrl.Log.WithName("bootstrap"), Namespace: namespace}); err != nil {
		return err
	}
	isItem := predicate.NewPredicateFuncs(func(o client.Object) bool { _, ok := o.GetLabels()[ItemLabel]; return ok })
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(isItem)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 2}).
		Complete(r)
}
