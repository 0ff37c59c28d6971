package bundledeployment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

// PlainProvisionerID is the plain provisioner's class name.
const PlainProvisionerID = "core-rukpak-io-plain"

// Owner labels rukpak's post-renderer puts on every release object.
const (
	OwnerKindLabel = "core.rukpak.io/owner-kind"
	OwnerNameLabel = "core.rukpak.io/owner-name"
)

// DefaultCleanupTimeout is PR #596's wait on the uninstall and rollback after a
// failed install or upgrade.
const DefaultCleanupTimeout = 30 * time.Second

// FixedWorkers stands for PR #596's MaxConcurrentReconciles: runtime.NumCPU(),
// fixed here so that a run does not depend on the machine.
const FixedWorkers = 4

// Bundle is unpacked bundle content: what rukpak's storage.Load and the plain
// handler make of a Bundle (a chart of plain manifests).
type Bundle struct {
	Name    string
	Objects []client.Object
}

// Storage loads the content of a BundleDeployment's bundle.
type Storage interface {
	Load(ctx context.Context, bd *BundleDeployment) (*Bundle, error)
}

// Watcher starts a watch on the kind of obj whose events enqueue the owning
// BundleDeployment (rukpak's p.controller.Watch(&source.Kind{Type: u},
// EnqueueRequestForOwner{IsController: true}, DependentPredicateFuncs())).
type Watcher interface {
	Watch(obj client.Object) error
}

// WatcherFunc adapts a function to Watcher.
type WatcherFunc func(obj client.Object) error

// Watch calls f.
func (f WatcherFunc) Watch(obj client.Object) error { return f(obj) }

// Reconciler is rukpak's bundledeploymentProvisioner with the plain provisioner
// flow: at base ae6e755 (Buggy), with PR #596 (Fixed), or with this project's
// design (Robust).
type Reconciler struct {
	Client client.Client
	// APIReader is what helm reads release records and objects with (helm reads
	// the API server); nil means Client.
	APIReader client.Reader
	Clock     clock.Clock
	Variant   variant.Variant
	Storage   Storage
	// ReleaseNamespace holds the release records (rukpak-system).
	ReleaseNamespace string
	// ProvisionerID is the class name this provisioner serves; default
	// PlainProvisionerID.
	ProvisionerID string
	// CleanupTimeout is Fixed's wait on the failure uninstall and rollback;
	// default DefaultCleanupTimeout.
	CleanupTimeout time.Duration
	// Watcher starts the dependent watches after a successful install.
	// SetupWithManager sets it to the controller's Watch.
	Watcher Watcher

	mu       sync.Mutex
	watched  map[schema.GroupVersionKind]bool
	expected map[objectKey]bool // Robust: deletions of its own cleanup
}

// ControllerName is the controller's name ("set bundle deployment controller
// name correctly", ae6e755).
func (r *Reconciler) ControllerName() string {
	return "controller.bundledeployment." + r.provisionerID()
}

func (r *Reconciler) provisionerID() string {
	if r.ProvisionerID == "" {
		return PlainProvisionerID
	}
	return r.ProvisionerID
}

// Workers is MaxConcurrentReconciles: the default 1 (Buggy), NumCPU (Fixed,
// FixedWorkers here), and FixedWorkers (Robust, whose workers never block).
func (r *Reconciler) Workers() int {
	if r.Variant == variant.Buggy {
		return 1
	}
	return FixedWorkers
}

// ForPredicates are the predicates of For(BundleDeployment): the provisioner
// filter, which has no generation predicate, so every status write enqueues
// the BundleDeployment again; Robust adds GenerationChangedPredicate.
func (r *Reconciler) ForPredicates() []predicate.Predicate {
	ps := []predicate.Predicate{ProvisionerFilter(r.provisionerID())}
	if r.Variant == variant.Robust {
		ps = append(ps, predicate.GenerationChangedPredicate{})
	}
	return ps
}

// RobustBaseDelay is the first retry delay of Robust's rate limiter.
const RobustBaseDelay = time.Second

// RateLimiter is the queue's rate limiter: nil (controller-runtime's default,
// 5ms doubling to 1000s plus a 10 qps bucket) for Buggy and Fixed; Robust
// starts at RobustBaseDelay, since a helm install and its cleanup are dozens of
// API calls that leave deletions behind, and a retry 5ms later only meets them.
func (r *Reconciler) RateLimiter() workqueue.TypedRateLimiter[reconcile.Request] {
	if r.Variant != variant.Robust {
		return nil
	}
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](RobustBaseDelay, 1000*time.Second)
}

// SetupWithManager registers the controller as SetupProvisioner does: For
// BundleDeployment with the provisioner filter, the variant's workers, and
// dependent watches added after each successful install.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	c, err := ctrl.NewControllerManagedBy(mgr).
		Named(r.ControllerName()).
		For(&BundleDeployment{}, builder.WithPredicates(r.ForPredicates()...)).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Workers(), RateLimiter: r.RateLimiter(), UsePriorityQueue: ptr.To(false)}).
		Build(r)
	if err != nil {
		return err
	}
	if r.Watcher == nil {
		h := r.DependentHandler(mgr.GetScheme(), mgr.GetRESTMapper())
		r.Watcher = WatcherFunc(func(obj client.Object) error {
			return c.Watch(source.Kind(mgr.GetCache(), obj, h, DependentPredicate()))
		})
	}
	return nil
}

// Reconcile reconciles a copy of the BundleDeployment, then writes its status
// and its metadata when they changed (bundledeployment.go Reconcile).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	existing := &BundleDeployment{}
	if err := r.Client.Get(ctx, req.NamespacedName, existing); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	reconciled := existing.DeepCopy()
	res, reconcileErr := r.reconcile(ctx, reconciled)
	if !equality.Semantic.DeepEqual(existing.Status, reconciled.Status) {
		if err := r.Client.Status().Update(ctx, reconciled); err != nil {
			return res, utilerrors.NewAggregate([]error{reconcileErr, err})
		}
	}
	// Upstream compares the rest after the status write, which changed
	// reconciled's resourceVersion: it always sends this (no-op) update then.
	existing.Status, reconciled.Status = BundleDeploymentStatus{}, BundleDeploymentStatus{}
	if !equality.Semantic.DeepEqual(existing, reconciled) {
		if err := r.Client.Update(ctx, reconciled); err != nil {
			return res, utilerrors.NewAggregate([]error{reconcileErr, err})
		}
	}
	return res, reconcileErr
}

type releaseState string

const (
	stateNeedsInstall releaseState = "NeedsInstall"
	stateNeedsUpgrade releaseState = "NeedsUpgrade"
	stateUnchanged    releaseState = "Unchanged"
	stateError        releaseState = "Error"
)

func (r *Reconciler) reconcile(ctx context.Context, bd *BundleDeployment) (ctrl.Result, error) {
	bd.Status.ObservedGeneration = bd.Generation
	bundle, err := r.Storage.Load(ctx, bd)
	if err != nil {
		r.setCondition(bd, TypeHasValidBundle, metav1.ConditionFalse, ReasonBundleLoadFailed, err.Error())
		return ctrl.Result{}, err
	}
	r.setCondition(bd, TypeHasValidBundle, metav1.ConditionTrue, ReasonUnpackSuccessful,
		fmt.Sprintf("Successfully unpacked the %s Bundle", bundle.Name))

	ac := r.actionClient()
	chart := r.chartFor(bd, bundle)
	rel, state, err := r.getReleaseState(ctx, ac, bd, chart)
	if err != nil {
		r.setInstalledFailed(bd, ReasonErrorGettingReleaseState, err)
		return ctrl.Result{}, err
	}
	switch state {
	case stateNeedsInstall, stateNeedsUpgrade:
		if r.Variant == variant.Robust {
			// No overlap: never start while the cleanup of an earlier attempt is
			// still deleting something this attempt needs. The status keeps the
			// root cause; the rate limiter paces the retries.
			if err := r.leftovers(ctx, chart); err != nil {
				return ctrl.Result{}, err
			}
		}
		reason := ReasonInstallFailed
		if state == stateNeedsInstall {
			rel, err = r.install(ctx, ac, bd.Name, chart)
		} else {
			reason = ReasonUpgradeFailed
			rel, err = r.upgrade(ctx, ac, bd.Name, chart, rel)
		}
		if err != nil {
			if isResourceNotFoundErr(err) {
				err = errRequiredResourceNotFound{err}
			}
			r.setInstalledFailed(bd, reason, err)
			return ctrl.Result{}, err
		}
	case stateUnchanged:
		if err := ac.Reconcile(ctx, rel); err != nil {
			if isResourceNotFoundErr(err) {
				err = errRequiredResourceNotFound{err}
			}
			r.setInstalledFailed(bd, ReasonReconcileFailed, err)
			return ctrl.Result{}, err
		}
	default:
		return ctrl.Result{}, fmt.Errorf("unexpected release state %q", state)
	}
	if err := r.ensureWatches(rel); err != nil {
		r.setInstalledFailed(bd, ReasonCreateDynamicWatchFailed, err)
		return ctrl.Result{}, err
	}
	r.setCondition(bd, TypeInstalled, metav1.ConditionTrue, ReasonInstallationSucceeded,
		fmt.Sprintf("Instantiated bundle %s successfully", bundle.Name))
	bd.Status.ActiveBundle = bundle.Name
	return ctrl.Result{}, nil
}

// actionClient is the helm action client for the release namespace: failure
// rollbacks without waits (Buggy), with 30s waits (Fixed, #596's
// AppendInstallFailureUninstallOptions / AppendUpgradeFailureRollbackOptions),
// or off, Robust cleaning up itself (robust.go).
func (r *Reconciler) actionClient() *helm.ActionClient {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	ac := helm.NewActionClient(helm.New(helm.Config{Client: r.Client, Reader: reader, Clock: r.Clock, Namespace: r.ReleaseNamespace}))
	switch r.Variant {
	case variant.Fixed:
		ac.InstallFailureUninstall = helm.UninstallOptions{Wait: true, Timeout: r.cleanupTimeout()}
		ac.UpgradeFailureRollback = helm.RollbackOptions{Wait: true, Timeout: r.cleanupTimeout()}
	case variant.Robust:
		ac.FailureRollbacks = false
	}
	return ac
}

func (r *Reconciler) cleanupTimeout() time.Duration {
	if r.CleanupTimeout == 0 {
		return DefaultCleanupTimeout
	}
	return r.CleanupTimeout
}

// chartFor is the bundle as a chart: rukpak's post-renderer replaces each
// object's labels with the owner labels, and helm-operator-plugins' owner-ref
// post-renderer makes the BundleDeployment its controller.
func (r *Reconciler) chartFor(bd *BundleDeployment, b *Bundle) *helm.Chart {
	c := &helm.Chart{Name: b.Name, Version: "0.0.0"}
	owner := metav1.OwnerReference{
		APIVersion: GroupVersion.String(), Kind: BundleDeploymentGVK.Kind, Name: bd.Name, UID: bd.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
	for _, o := range b.Objects {
		obj := o.DeepCopyObject().(client.Object)
		obj.SetLabels(map[string]string{OwnerKindLabel: BundleDeploymentGVK.Kind, OwnerNameLabel: bd.Name})
		obj.SetOwnerReferences([]metav1.OwnerReference{owner})
		c.Objects = append(c.Objects, obj)
	}
	return c
}

// getReleaseState: no release is NeedsInstall; otherwise a dry-run upgrade
// whose manifest differs, or a current release failed or superseded, is
// NeedsUpgrade, and anything else Unchanged.
func (r *Reconciler) getReleaseState(ctx context.Context, ac *helm.ActionClient, bd *BundleDeployment, chart *helm.Chart) (*helm.Release, releaseState, error) {
	current, err := ac.Get(ctx, bd.Name)
	if errors.Is(err, helm.ErrReleaseNotFound) {
		return nil, stateNeedsInstall, nil
	}
	if err != nil {
		return nil, stateError, err
	}
	desired, err := ac.Upgrade(ctx, bd.Name, chart, helm.UpgradeOptions{DryRun: true})
	if err != nil {
		return current, stateError, err
	}
	if desired.Manifest != current.Manifest || current.Info.Status == helm.StatusFailed || current.Info.Status == helm.StatusSuperseded {
		return current, stateNeedsUpgrade, nil
	}
	return current, stateUnchanged, nil
}

// ensureWatches starts a dependent watch for each kind of the release not yet
// watched. The set lives as long as the process, as upstream's
// dynamicWatchGVKs does.
func (r *Reconciler) ensureWatches(rel *helm.Release) error {
	if r.Watcher == nil {
		return nil
	}
	objs, err := rel.Objects(r.Client.Scheme())
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watched == nil {
		r.watched = map[schema.GroupVersionKind]bool{}
	}
	for _, o := range objs {
		gvk := o.GetObjectKind().GroupVersionKind()
		if r.watched[gvk] {
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := r.Watcher.Watch(u); err != nil {
			return err
		}
		r.watched[gvk] = true
	}
	return nil
}

// setInstalledFailed sets Installed=False with the error as message. Robust
// does not let a transient error hide a root cause already shown (robust.go).
func (r *Reconciler) setInstalledFailed(bd *BundleDeployment, reason string, err error) {
	if r.Variant == variant.Robust && isTransient(err) {
		if c := apimeta.FindStatusCondition(bd.Status.Conditions, TypeInstalled); c != nil && c.Status == metav1.ConditionFalse {
			return
		}
	}
	r.setCondition(bd, TypeInstalled, metav1.ConditionFalse, reason, err.Error())
}

// setCondition stamps the transition time from the injected clock
// (meta.SetStatusCondition would read the wall clock).
func (r *Reconciler) setCondition(bd *BundleDeployment, typ string, status metav1.ConditionStatus, reason, msg string) {
	apimeta.SetStatusCondition(&bd.Status.Conditions, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg,
		LastTransitionTime: metav1.NewTime(r.Clock.Now().Truncate(time.Second)),
	})
}

// errRequiredResourceNotFound marks a missing kind or object.
type errRequiredResourceNotFound struct{ error }

func (e errRequiredResourceNotFound) Error() string {
	return fmt.Sprintf("required resource not found: %v", e.error)
}

func (e errRequiredResourceNotFound) Unwrap() error { return e.error }

// isResourceNotFoundErr is upstream's: a NoKindMatchError, a NotFound, or the
// text "no matches for kind".
func isResourceNotFoundErr(err error) bool {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			return isResourceNotFoundErr(e)
		}
	}
	if apimeta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return true
	}
	return strings.Contains(err.Error(), "no matches for kind")
}
