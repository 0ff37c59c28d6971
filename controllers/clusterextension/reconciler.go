package clusterextension

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

// Finalizer is added to every ClusterExtension before anything else is done
// (operator-controller's unpack-cache cleanup finalizer).
const Finalizer = "olm.operatorframework.io/cleanup-unpack-cache"

// Labels operator-controller puts on release records (storage labels) and on
// the release's objects (owner labels, by its post-renderer).
const (
	BundleNameLabel      = "olm.operatorframework.io/bundle-name"
	PackageNameLabel     = "olm.operatorframework.io/package-name"
	BundleVersionLabel   = "olm.operatorframework.io/bundle-version"
	BundleReferenceLabel = "olm.operatorframework.io/bundle-reference"
	OwnerKindLabel       = "olm.operatorframework.io/owner-kind"
	OwnerNameLabel       = "olm.operatorframework.io/owner-name"
)

// DefaultPendingTimeout is how long the robust variant lets a pending record
// written during its own lifetime be, before it treats it as interrupted.
const DefaultPendingTimeout = 5 * time.Minute

// Reconciler is operator-controller's ClusterExtensionReconciler with its helm
// applier, at base 532c3067 (Buggy), with #1776/#1987 (Fixed), or with this
// project's design (Robust).
type Reconciler struct {
	Client client.Client
	// APIReader is what helm reads release records and objects with (helm reads
	// the API server); nil means Client.
	APIReader client.Reader
	Clock     clock.Clock
	Catalog   *catalog.Catalog
	Variant   variant.Variant
	// Started is when this process started (Robust: a pending record written
	// before it was left by a dead process). Zero: every pending record counts as
	// interrupted. SetupWithManager sets it.
	Started time.Time
	// PendingTimeout (Robust) is how old a pending record written after Started
	// must be to count as interrupted; default DefaultPendingTimeout.
	PendingTimeout time.Duration
}

// SetupWithManager registers the controller as operator-controller does: For
// ClusterExtension with no predicate (status writes requeue), and every
// ClusterExtension on a ClusterCatalog content change; the classic workqueue.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Started.IsZero() {
		r.Started = r.Clock.Now()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&ClusterExtension{}).
		Named("clusterextension").
		Watches(&ClusterCatalog{}, handler.EnqueueRequestsFromMapFunc(RequestsForCatalog(mgr.GetClient())),
			builder.WithPredicates(CatalogChanged())).
		WithOptions(controller.Options{UsePriorityQueue: ptr.To(false)}).
		Complete(r)
}

// RequestsForCatalog maps a ClusterCatalog event to every ClusterExtension
// (clusterExtensionRequestsForCatalog), listed from r.
func RequestsForCatalog(r client.Reader) handler.MapFunc {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		var list ClusterExtensionList
		if err := r.List(ctx, &list); err != nil {
			return nil
		}
		out := make([]reconcile.Request, len(list.Items))
		for i, e := range list.Items {
			out[i] = reconcile.Request{NamespacedName: types.NamespacedName{Name: e.Name}}
		}
		return out
	}
}

// CatalogChanged passes creates, deletes and the updates that change the
// resolved image reference.
func CatalogChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*ClusterCatalog)
		n, ok2 := e.ObjectNew.(*ClusterCatalog)
		if !ok1 || !ok2 {
			return true
		}
		return ref(o) != ref(n)
	}}
}

func ref(c *ClusterCatalog) string {
	if c.Status.ResolvedSource == nil || c.Status.ResolvedSource.Image == nil {
		return ""
	}
	return c.Status.ResolvedSource.Image.Ref
}

// Reconcile reconciles a copy of the ClusterExtension, then writes its status
// and its finalizers when they changed (clusterextension_controller.go).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	existing := &ClusterExtension{}
	if err := r.Client.Get(ctx, req.NamespacedName, existing); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	reconciled := existing.DeepCopy()
	res, reconcileErr := r.reconcile(ctx, reconciled)
	updateStatus := !equality.Semantic.DeepEqual(existing.Status, reconciled.Status)
	updateFinalizers := !equality.Semantic.DeepEqual(existing.Finalizers, reconciled.Finalizers)
	finalizers := reconciled.Finalizers
	if updateStatus {
		if err := r.Client.Status().Update(ctx, reconciled); err != nil {
			reconcileErr = errors.Join(reconcileErr, fmt.Errorf("error updating status: %v", err))
		}
	}
	reconciled.Finalizers = finalizers
	if updateFinalizers {
		if err := r.Client.Update(ctx, reconciled); err != nil {
			reconcileErr = errors.Join(reconcileErr, fmt.Errorf("error updating finalizers: %v", err))
		}
	}
	return res, reconcileErr
}

// installedBundle is a bundle as the release records name it.
type installedBundle struct {
	BundleMetadata
	Image string
}

func (r *Reconciler) reconcile(ctx context.Context, ext *ClusterExtension) (ctrl.Result, error) {
	if ext.DeletionTimestamp != nil {
		controllerutil.RemoveFinalizer(ext, Finalizer) // nothing to clean up in this model
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(ext, Finalizer) {
		return ctrl.Result{}, nil // "make sure the finalizer is applied before we do anything"
	}
	ac := r.actionClient(ext)

	// GetInstalledBundle: the newest deployed record.
	history, err := ac.History(ctx, ext.Name)
	if err != nil && !errors.Is(err, helm.ErrReleaseNotFound) {
		ext.Status.Install = nil
		r.setInstalled(ext, metav1.ConditionUnknown, ReasonFailed, err.Error())
		r.setProgressing(ext, errors.New("retrying to get installed bundle"))
		return ctrl.Result{}, err
	}
	installed := newestDeployed(history)

	if r.Variant == variant.Robust {
		res, resumed, err := r.resume(ctx, ac, ext, history, installed)
		if err != nil || res.RequeueAfter > 0 {
			return res, err
		}
		if resumed != nil {
			installed = resumed
		}
	}

	bundle, err := r.resolve(ext, installed)
	if err != nil {
		r.setProgressing(ext, err)
		r.setInstalledFromBundle(ext, installed)
		return ctrl.Result{}, err
	}
	resolved := BundleMetadata{Name: bundle.Name, Version: bundle.Version}
	storeLabels := map[string]string{
		BundleNameLabel: bundle.Name, PackageNameLabel: bundle.Package,
		BundleVersionLabel: bundle.Version, BundleReferenceLabel: bundle.Image,
	}
	if err := r.apply(ctx, ac, ext, chartFor(ext, bundle), storeLabels); err != nil {
		r.setProgressing(ext, wrapErrorWithResolutionInfo(resolved, err))
		r.setInstalledFromBundle(ext, installed)
		return ctrl.Result{}, err
	}
	r.setInstalledFromBundle(ext, &installedBundle{BundleMetadata: resolved, Image: bundle.Image})
	r.setProgressing(ext, nil)
	return ctrl.Result{}, nil
}

// actionClient is the helm action client for the extension's install namespace,
// with operator-controller's WithFailureRollbacks(false).
func (r *Reconciler) actionClient(ext *ClusterExtension) *helm.ActionClient {
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	ac := helm.NewActionClient(helm.New(helm.Config{Client: r.Client, Reader: reader, Clock: r.Clock, Namespace: ext.Spec.Namespace}))
	ac.FailureRollbacks = false
	return ac
}

func newestDeployed(history []*helm.Release) *installedBundle {
	for _, rel := range history { // newest first
		if rel.Info.Status == helm.StatusDeployed {
			return bundleOf(rel)
		}
	}
	return nil
}

func bundleOf(rel *helm.Release) *installedBundle {
	return &installedBundle{
		BundleMetadata: BundleMetadata{Name: rel.Labels[BundleNameLabel], Version: rel.Labels[BundleVersionLabel]},
		Image:          rel.Labels[BundleReferenceLabel],
	}
}

func catalogRequest(ext *ClusterExtension) catalog.Request {
	req := catalog.Request{Policy: catalog.CatalogProvided}
	if c := ext.Spec.Source.Catalog; c != nil {
		req.Package, req.VersionRange = c.PackageName, c.Version
		if c.UpgradeConstraintPolicy != "" {
			req.Policy = catalog.Policy(c.UpgradeConstraintPolicy)
		}
	}
	return req
}

func (r *Reconciler) resolve(ext *ClusterExtension, installed *installedBundle) (catalog.Bundle, error) {
	req := catalogRequest(ext)
	if installed != nil {
		req.Installed = installed.Version
	}
	return r.Catalog.Resolve(req)
}

// chartFor is the bundle's content as a chart, with operator-controller's owner
// labels on every object (its post-renderer).
func chartFor(ext *ClusterExtension, b catalog.Bundle) *helm.Chart {
	c := &helm.Chart{Name: b.Package, Version: b.Version}
	for _, o := range b.Objects {
		obj := o.DeepCopyObject().(client.Object)
		lbs := obj.GetLabels()
		if lbs == nil {
			lbs = map[string]string{}
		}
		lbs[OwnerKindLabel], lbs[OwnerNameLabel] = ClusterExtensionGVK.Kind, ext.Name
		obj.SetLabels(lbs)
		c.Objects = append(c.Objects, obj)
	}
	return c
}

func wrapErrorWithResolutionInfo(b BundleMetadata, err error) error {
	return fmt.Errorf("%w for resolved bundle %q with version %q", err, b.Name, b.Version)
}

// setProgressing: True/Succeeded "desired state reached", or True/Retrying with
// the error (False/Blocked for a terminal one).
func (r *Reconciler) setProgressing(ext *ClusterExtension, err error) {
	c := metav1.Condition{Type: TypeProgressing, Status: metav1.ConditionTrue, Reason: ReasonSucceeded, Message: "desired state reached"}
	if err != nil {
		c.Reason, c.Message = ReasonRetrying, err.Error()
	}
	if errors.Is(err, reconcile.TerminalError(nil)) {
		c.Status, c.Reason = metav1.ConditionFalse, ReasonBlocked
	}
	r.setCondition(ext, c)
}

func (r *Reconciler) setInstalled(ext *ClusterExtension, status metav1.ConditionStatus, reason, msg string) {
	r.setCondition(ext, metav1.Condition{Type: TypeInstalled, Status: status, Reason: reason, Message: msg})
}

// setInstalledFromBundle: status.install and Installed from what is installed.
func (r *Reconciler) setInstalledFromBundle(ext *ClusterExtension, b *installedBundle) {
	if b == nil {
		ext.Status.Install = nil
		r.setInstalled(ext, metav1.ConditionFalse, ReasonFailed, "No bundle installed")
		return
	}
	ext.Status.Install = &ClusterExtensionInstallStatus{Bundle: b.BundleMetadata}
	r.setInstalled(ext, metav1.ConditionTrue, ReasonSucceeded, fmt.Sprintf("Installed bundle %s successfully", b.Image))
}

// setCondition stamps the transition time from the injected clock (SetStatusCondition
// would read the wall clock).
func (r *Reconciler) setCondition(ext *ClusterExtension, c metav1.Condition) {
	c.ObservedGeneration = ext.Generation
	c.LastTransitionTime = metav1.NewTime(r.Clock.Now().Truncate(time.Second))
	apimeta.SetStatusCondition(&ext.Status.Conditions, c)
}
