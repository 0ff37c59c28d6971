package reposync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Source is what an ns-reconciler syncs: the objects its repository declares
// for the RepoSync's namespace, at one commit.
type Source struct {
	// Commit names the revision (reported in status.lastSyncedCommit).
	Commit string
	// Objects are the declared objects; their namespace is the RepoSync's.
	Objects []client.Object
	// Latency is how long applying or deleting one object takes until it is
	// reconciled or NotFound (cli-utils' applier and destroyer wait for status).
	Latency time.Duration
	// PollPeriod is the time between syncs (reconcilerPollingPeriod, 15s).
	PollPeriod time.Duration
}

// Finalizer is the ns-reconciler's finalizer controller
// (pkg/reconciler/finalizer/controller.go with reposync_finalizer.go): while the
// RepoSync is not deleting it adds the reconciler finalizer when the deletion
// propagation policy is Foreground and removes it otherwise; once the RepoSync
// is deleting, Finalize sets ReconcilerFinalizing, destroys the managed
// objects, updates ReconcilerFinalizerFailure, removes ReconcilerFinalizing and
// removes the finalizer. Every error is returned: retried with backoff. Each of
// these writes needs the shared RoleBinding (and the destroy the user's grants
// on the managed kinds). The same in every variant: the fix is in the manager.
type Finalizer struct {
	Client client.Client
	Clock  clock.Clock
	// Sync is the RepoSync this reconciler serves.
	Sync   types.NamespacedName
	Source Source
	// Stop is shared with the process's Syncer: Finalize stops it and waits
	// for its apply to end before destroying (nil: no Syncer to stop).
	Stop *Stop
}

// Stop is how an ns-reconciler's Finalizer stops its Syncer, as
// config-sync's RepoSyncFinalizer.Finalize calls StopControllers and waits
// on ControllersStopped before its Destroyer runs
// (pkg/reconciler/finalizer/reposync_finalizer.go): once stopped the Syncer
// applies nothing more, and the Finalizer waits while an apply it began is
// still under way (else an object applied after its destroy passed would
// outlive the RepoSync). One Stop per start of the process.
type Stop struct {
	mu            sync.Mutex
	stopped, busy bool
}

// begin marks an apply under way; false once stopped.
func (s *Stop) begin() bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false
	}
	s.busy = true
	return true
}

// applying reports whether the apply may go on (not stopped).
func (s *Stop) applying() bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.stopped
}

// end marks the apply over.
func (s *Stop) end() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = false
}

// stop stops the Syncer and reports whether it has stopped (no apply under
// way).
func (s *Stop) stop() bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	return !s.busy
}

// stopWait is how long Finalize waits for the Syncer's apply to end before it
// looks again.
const stopWait = 100 * time.Millisecond

// Predicates are the finalizer controller's: one event per resourceVersion, and
// only this reconciler's RepoSync.
func (f *Finalizer) Predicates() []predicate.Predicate {
	return []predicate.Predicate{predicate.ResourceVersionChangedPredicate{}, singleObject(f.Sync)}
}

// SetupWithManager registers the controller "Finalizer" with one worker.
func (f *Finalizer) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("Finalizer").
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, UsePriorityQueue: ptr.To(false)}).
		For(&RepoSync{}, builder.WithPredicates(f.Predicates()...)).
		Complete(f)
}

// Reconcile is Controller.Reconcile.
func (f *Finalizer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.NamespacedName != f.Sync {
		return reconcile.Result{}, nil // misconfiguration: retrying will not help
	}
	rs := &RepoSync{}
	if err := f.Client.Get(ctx, f.Sync, rs); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil // too late to finalize
		}
		return reconcile.Result{}, fmt.Errorf("failed to get %s: %w", f.Sync, err)
	}
	if !rs.DeletionTimestamp.IsZero() {
		if controllerutil.ContainsFinalizer(rs, ReconcilerFinalizer) {
			if !f.Stop.stop() {
				return reconcile.Result{RequeueAfter: stopWait}, nil // the Syncer's apply is still under way
			}
			if err := f.finalize(ctx, rs); err != nil {
				return reconcile.Result{}, fmt.Errorf("finalizing: %w", err)
			}
		}
		return reconcile.Result{}, nil
	}
	if err := f.reconcileFinalizer(ctx, rs); err != nil {
		return reconcile.Result{}, fmt.Errorf("reconciling finalizer: %w", err)
	}
	return reconcile.Result{}, nil
}

// reconcileFinalizer adds the finalizer for Foreground and removes it for Orphan
// (the default), as config-sync did when the seed was written.
func (f *Finalizer) reconcileFinalizer(ctx context.Context, rs *RepoSync) error {
	policy, found := rs.Annotations[DeletionPropagationPolicyAnnotation]
	if !found {
		policy = DeletionPropagationOrphan
	}
	switch policy {
	case DeletionPropagationForeground:
		_, err := withRetry(ctx, f.Client, f.Clock, rs, updateSpec(f.Client), func() error {
			if !controllerutil.AddFinalizer(rs, ReconcilerFinalizer) {
				return errNoUpdate
			}
			return nil
		})
		return err
	case DeletionPropagationOrphan:
		return f.removeFinalizer(ctx, rs)
	}
	return nil // an invalid policy is a user error: retrying will not help
}

// finalize is RepoSyncFinalizer.Finalize, once the Syncer has stopped
// (Stop).
func (f *Finalizer) finalize(ctx context.Context, rs *RepoSync) error {
	now := metav1.NewTime(f.Clock.Now()).Rfc3339Copy()
	if _, err := withRetry(ctx, f.Client, f.Clock, rs, updateStatus(f.Client), func() error {
		if !rs.setCondition(RepoSyncReconcilerFinalizing, metav1.ConditionTrue, "ResourcesDeleting", "Deleting managed resource objects", now) {
			return errNoUpdate
		}
		return nil
	}); err != nil {
		return fmt.Errorf("setting Finalizing condition: %w", err)
	}
	destroyErr := f.destroy(ctx, rs.Namespace)
	if _, err := withRetry(ctx, f.Client, f.Clock, rs, updateStatus(f.Client), func() error {
		if destroyErr != nil {
			if !rs.setCondition(RepoSyncReconcilerFinalizerFailure, metav1.ConditionTrue, "DestroyFailure", destroyErr.Error(), now) {
				return errNoUpdate
			}
		} else if !rs.removeCondition(RepoSyncReconcilerFinalizerFailure) {
			return errNoUpdate
		}
		return nil
	}); err != nil {
		err = fmt.Errorf("updating FinalizerFailure condition: %w", err)
		return errors.Join(destroyErr, err)
	}
	if destroyErr != nil {
		return fmt.Errorf("deleting managed objects: %w", destroyErr)
	}
	if _, err := withRetry(ctx, f.Client, f.Clock, rs, updateStatus(f.Client), func() error {
		if !rs.removeCondition(RepoSyncReconcilerFinalizing) {
			return errNoUpdate
		}
		return nil
	}); err != nil {
		return fmt.Errorf("removing Finalizing condition: %w", err)
	}
	if err := f.removeFinalizer(ctx, rs); err != nil {
		return fmt.Errorf("removing finalizer: %w", err)
	}
	return nil
}

func (f *Finalizer) removeFinalizer(ctx context.Context, rs *RepoSync) error {
	_, err := withRetry(ctx, f.Client, f.Clock, rs, updateSpec(f.Client), func() error {
		if !controllerutil.RemoveFinalizer(rs, ReconcilerFinalizer) {
			return errNoUpdate
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("failed to remove finalizer: %w", err)
	}
	return nil
}

// destroy deletes every declared object (the Destroyer), waiting Latency for
// each to be gone; objects already gone are fine.
func (f *Finalizer) destroy(ctx context.Context, namespace string) error {
	var errs []string
	for _, o := range f.Source.Objects {
		obj := o.DeepCopyObject().(client.Object)
		obj.SetNamespace(namespace)
		if err := f.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
			continue
		}
		if f.Source.Latency > 0 {
			f.Clock.Sleep(f.Source.Latency)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d destroy errors: %s", len(errs), strings.Join(errs, "; "))
	}
	return nil
}

// Syncer stands for the ns-reconciler's parser and remediator: every
// PollPeriod it creates the declared objects that are missing and records the
// commit in the status. It stops once the RepoSync is deleting or the
// Finalizer has stopped it (Stop), and no apply of its outlives Finalize's
// destroy.
type Syncer struct {
	Client client.Client
	Clock  clock.Clock
	Sync   types.NamespacedName
	Source Source
	// Stop is shared with the process's Finalizer, which stops the Syncer
	// before it destroys (nil: never stopped).
	Stop *Stop
}

// Predicates filter the Syncer's watch to its RepoSync, one event per
// resourceVersion.
func (s *Syncer) Predicates() []predicate.Predicate {
	return []predicate.Predicate{predicate.ResourceVersionChangedPredicate{}, singleObject(s.Sync)}
}

// SetupWithManager registers the controller "Syncer" with one worker.
func (s *Syncer) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("Syncer").
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, UsePriorityQueue: ptr.To(false)}).
		For(&RepoSync{}, builder.WithPredicates(s.Predicates()...)).
		Complete(s)
}

// Reconcile applies the missing declared objects and reports the commit.
func (s *Syncer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	rs := &RepoSync{}
	if err := s.Client.Get(ctx, s.Sync, rs); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !rs.DeletionTimestamp.IsZero() || !s.Stop.begin() {
		return reconcile.Result{}, nil
	}
	defer s.Stop.end()
	manager := rs.Namespace + "_" + rs.Name
	for _, o := range s.Source.Objects {
		if !s.Stop.applying() {
			return reconcile.Result{}, nil // the Finalizer stopped the apply
		}
		obj := o.DeepCopyObject().(client.Object)
		obj.SetNamespace(rs.Namespace)
		existing := o.DeepCopyObject().(client.Object)
		err := s.Client.Get(ctx, client.ObjectKeyFromObject(obj), existing)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[ManagedByLabel] = ManagedByValue
		obj.SetLabels(labels)
		obj.SetAnnotations(map[string]string{ResourceManagerAnno: manager})
		if err := s.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return reconcile.Result{}, fmt.Errorf("applying %s: %w", client.ObjectKeyFromObject(obj), err)
		}
		if s.Source.Latency > 0 {
			s.Clock.Sleep(s.Source.Latency)
		}
	}
	if rs.Status.LastSyncedCommit != s.Source.Commit {
		if _, err := withRetry(ctx, s.Client, s.Clock, rs, updateStatus(s.Client), func() error {
			if rs.Status.LastSyncedCommit == s.Source.Commit {
				return errNoUpdate
			}
			rs.Status.LastSyncedCommit = s.Source.Commit
			return nil
		}); err != nil {
			return reconcile.Result{}, err
		}
	}
	period := s.Source.PollPeriod
	if period == 0 {
		period = 15 * time.Second
	}
	return reconcile.Result{RequeueAfter: period}, nil
}

// singleObject is config-sync's SingleObjectPredicate.
func singleObject(key types.NamespacedName) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetNamespace() == key.Namespace && o.GetName() == key.Name
	})
}
