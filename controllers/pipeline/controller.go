package pipeline

import (
	"context"
	"fmt"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/promotion"
)

// Promoter triggers promotions: upstream's strategy.Promote. It is not
// idempotent.
type Promoter interface {
	Promote(ctx context.Context, k promotion.Key) error
}

// Prober is what the robust variant can ask a Promoter that supports it: whether a
// promotion took effect. It settles a claim left in doubt (a crash between the
// claim and the record of its outcome). promotion.System implements it.
type Prober interface {
	Promoted(ctx context.Context, k promotion.Key) (bool, error)
}

// Reconciler is weaveworks pipeline-controller's level-triggered Pipeline
// reconciler (controllers/leveltriggered/controller.go), in three variants.
type Reconciler struct {
	client.Client
	// Cache is where app events look up the pipelines that use an app (upstream
	// caches.reader); it must carry the AppIndex index. SetupWithManager uses the
	// manager's cache.
	Cache    client.Reader
	Promoter Promoter
	Clock    clock.PassiveClock
	Variant  variant.Variant
	// PreRecord makes the buggy variant the code before PR #214 (main@2ca1d66):
	// no promotion record at all. Without it, buggy is f852a075: the promotion is
	// recorded and checked, but nothing keeps a stale read from missing the record.
	PreRecord bool
	// Robust variant: the retry backoff of a failed promotion (doubling from
	// RetryBase up to RetryMax) and how long a claim may stay in doubt before it
	// is settled with the Prober. Zero values: 30s, 10m, 5m.
	RetryBase, RetryMax, InDoubtAfter time.Duration
}

// Reconcile observes the targets of every environment, records them in the
// status, and promotes the first environment's revision to the next environment
// that does not run it yet.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var pipeline Pipeline
	if err := r.Get(ctx, req.NamespacedName, &pipeline); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !pipeline.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	patcher := newSerialPatcher(&pipeline, r.Client)

	envStatuses := map[string]*EnvironmentStatus{}
	unready := false
	for _, env := range pipeline.Spec.Environments {
		// Before PR #214 the map started empty; f852a075 starts from the existing
		// status, because the promotion record "can't be observed each time".
		envStatus := &EnvironmentStatus{}
		if existing, ok := pipeline.Status.Environments[env.Name]; ok && existing != nil && !r.PreRecord {
			envStatus = existing
		}
		envStatus.Targets = make([]TargetStatus, len(env.Targets))
		envStatuses[env.Name] = envStatus
		for i, target := range env.Targets {
			ts := &envStatus.Targets[i]
			ts.ClusterAppRef.LocalAppReference = pipeline.Spec.AppRef
			if target.ClusterRef != nil {
				ts.ClusterAppRef.ClusterRef = target.ClusterRef
				ts.Error = "remote clusters are not modelled"
				unready = true
				continue
			}
			obj, err := r.targetObject(&pipeline, &target)
			if err != nil {
				ts.Error = fmt.Sprintf("target spec could not be interpreted as an object: %s", err)
				unready = true
				continue
			}
			if err := r.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				ts.Error = err.Error()
				unready = true
				continue
			}
			if err := setTargetStatus(ts, obj); err != nil {
				return ctrl.Result{}, err
			}
		}
	}

	ready := metav1.Condition{Type: ReadyCondition, Status: metav1.ConditionTrue, Reason: ReconciliationSucceededReason,
		Message: "All clusters checked", LastTransitionTime: metav1.NewTime(r.Clock.Now())}
	if unready {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, TargetNotReadableReason, "One or more targets was not reachable or not present"
	}
	pipeline.Status.ObservedGeneration = pipeline.Generation
	apimeta.SetStatusCondition(&pipeline.Status.Conditions, ready)
	pipeline.Status.Environments = envStatuses
	if err := patcher.Patch(ctx, &pipeline); err != nil {
		return ctrl.Result{Requeue: true}, err
	}

	// ed4cfb2d: "If it's not ready, we can't make any promotion decisions. Requeue,
	// presuming backoff."
	if unready && r.Variant != variant.Buggy {
		return ctrl.Result{Requeue: true}, nil
	}

	firstEnv := pipeline.Spec.Environments[0]
	firstEnvStatus := pipeline.Status.Environments[firstEnv.Name]
	latest := checkAllTargetsHaveSameRevision(firstEnvStatus)
	if latest == "" {
		r.setPendingCondition(&pipeline, "Waiting for all targets to have the same revision")
		if err := patcher.Patch(ctx, &pipeline); err != nil {
			return ctrl.Result{Requeue: true}, fmt.Errorf("error setting pending condition: %w", err)
		}
		return ctrl.Result{}, nil
	}
	if !checkAllTargetsAreReady(firstEnvStatus) {
		r.setPendingCondition(&pipeline, "Waiting for all targets to be ready")
		if err := patcher.Patch(ctx, &pipeline); err != nil {
			return ctrl.Result{}, fmt.Errorf("error setting pending condition: %w", err)
		}
		return ctrl.Result{}, nil
	}
	if removePendingCondition(&pipeline) {
		if err := patcher.Patch(ctx, &pipeline); err != nil {
			return ctrl.Result{}, fmt.Errorf("error removing pending condition: %w", err)
		}
	}

	var result ctrl.Result
	for _, env := range pipeline.Spec.Environments[1:] {
		envStatus := pipeline.Status.Environments[env.Name]
		if checkAllTargetsRunRevision(envStatus, latest) && checkAllTargetsAreReady(envStatus) {
			if r.Variant == variant.Robust {
				if err := r.recordDone(ctx, &pipeline, env, latest); err != nil {
					return ctrl.Result{}, err
				}
			}
			continue
		}
		switch {
		case r.PreRecord && r.Variant == variant.Buggy:
			// main@2ca1d66: a target at the revision means "in progress"; otherwise
			// promote, with nothing recorded, and return a failure to be retried.
			if checkAnyTargetHasRevision(envStatus, latest) {
				return ctrl.Result{}, nil
			}
			if err := r.promote(ctx, &pipeline, env, latest); err != nil {
				return ctrl.Result{}, fmt.Errorf("error promoting new version: %w", err)
			}
			return ctrl.Result{}, nil
		case r.Variant == variant.Robust:
			res, err := r.promoteOnce(ctx, &pipeline, env, latest)
			if err != nil {
				return res, err
			}
			result = res
		case envStatus.Promotion != nil && envStatus.Promotion.Revision == latest:
			// f852a075 / 9244c67d: "if there's a promotion recorded, we can stop here."
		default:
			promoteErr := r.promote(ctx, &pipeline, env, latest)
			setPromotionStatus(&pipeline, env.Name, latest, promoteErr == nil, r.Clock.Now())
		}
		break
	}
	if err := patcher.Patch(ctx, &pipeline); err != nil {
		return ctrl.Result{}, err
	}
	return result, nil
}

// promote calls the strategy, if the environment has one.
func (r *Reconciler) promote(ctx context.Context, p *Pipeline, env Environment, revision string) error {
	if p.Spec.GetPromotion(env.Name) == nil || r.Promoter == nil {
		return nil
	}
	return r.Promoter.Promote(ctx, promotion.Key{Pipeline: types.NamespacedName{Namespace: p.Namespace, Name: p.Name},
		Environment: env.Name, Version: revision})
}

func setPromotionStatus(p *Pipeline, env, revision string, succeeded bool, now time.Time) {
	st := p.Status.Environments[env]
	st.Promotion = &PromotionStatus{Revision: revision, Succeeded: succeeded, LastAttemptedTime: metav1.NewTime(now)}
}

func (r *Reconciler) setPendingCondition(p *Pipeline, message string) {
	apimeta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{Type: PromotionPendingCondition,
		Status: metav1.ConditionTrue, Reason: EnvironmentNotReadyReason, Message: message, LastTransitionTime: metav1.NewTime(r.Clock.Now())})
}

func removePendingCondition(p *Pipeline) bool {
	if apimeta.FindStatusCondition(p.Status.Conditions, PromotionPendingCondition) == nil {
		return false
	}
	apimeta.RemoveStatusCondition(&p.Status.Conditions, PromotionPendingCondition)
	return true
}

// targetObject is an empty object of the app kind for one target. Upstream uses
// unstructured objects; the simulator's cache is typed, so the kind must be in
// the scheme.
func (r *Reconciler) targetObject(p *Pipeline, t *Target) (client.Object, error) {
	gv, err := schema.ParseGroupVersion(p.Spec.AppRef.APIVersion)
	if err != nil {
		return nil, err
	}
	ro, err := r.Scheme().New(gv.WithKind(p.Spec.AppRef.Kind))
	if err != nil {
		return nil, err
	}
	obj, ok := ro.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", gv.WithKind(p.Spec.AppRef.Kind))
	}
	obj.SetNamespace(t.Namespace)
	obj.SetName(p.Spec.AppRef.Name)
	return obj, nil
}

// setTargetStatus reads a Flux-like object: a Ready condition and
// .status.lastAppliedRevision (upstream setTargetStatus, on the unstructured form).
func setTargetStatus(ts *TargetStatus, obj client.Object) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	status, _ := u["status"].(map[string]any)
	conds, ok := status["conditions"].([]any)
	if !ok {
		ts.Ready = false
		return nil
	}
	ts.Ready = readyUnstructured(conds)
	rev, ok := status["lastAppliedRevision"].(string)
	if !ok {
		if ts.Ready {
			ts.Error = "unable to find .status.lastAppliedRevision in ready target object"
			ts.Ready = false
		}
		return nil
	}
	ts.Revision = rev
	return nil
}

func readyUnstructured(conds []any) bool {
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == ReadyCondition {
			return m["status"] == string(metav1.ConditionTrue)
		}
	}
	return false
}

func checkAnyTargetHasRevision(env *EnvironmentStatus, revision string) bool {
	for _, t := range env.Targets {
		if t.Revision == revision {
			return true
		}
	}
	return false
}

func checkAllTargetsRunRevision(env *EnvironmentStatus, revision string) bool {
	for _, t := range env.Targets {
		if t.Revision != revision {
			return false
		}
	}
	return true
}

// checkAllTargetsHaveSameRevision returns the revision all targets have, or "".
func checkAllTargetsHaveSameRevision(env *EnvironmentStatus) string {
	if env == nil || len(env.Targets) == 0 {
		return ""
	}
	rev := env.Targets[0].Revision
	for _, t := range env.Targets {
		if t.Revision != rev {
			return ""
		}
	}
	return rev
}

func checkAllTargetsAreReady(env *EnvironmentStatus) bool {
	for _, t := range env.Targets {
		if !t.Ready {
			return false
		}
	}
	return true
}

// ---- wiring ----

// AppIndex indexes Pipelines by the app objects they target (upstream
// applicationKey / indexApplication).
const AppIndex = ".spec.environments.targets.app"

// AppIndexKey is the index value of one target app in the local cluster, in
// upstream's format "<cluster>:<gvk>:<namespace>/<name>".
func AppIndexKey(gvk schema.GroupVersionKind, app client.ObjectKey) string {
	return fmt.Sprintf("%s:%s:%s", client.ObjectKey{}, gvk, app)
}

// IndexApplication is the AppIndex indexer.
func IndexApplication(o client.Object) []string {
	p, ok := o.(*Pipeline)
	if !ok {
		return nil
	}
	gv, err := schema.ParseGroupVersion(p.Spec.AppRef.APIVersion)
	if err != nil {
		return nil
	}
	gvk := gv.WithKind(p.Spec.AppRef.Kind)
	var out []string
	for _, env := range p.Spec.Environments {
		for _, t := range env.Targets {
			if t.ClusterRef == nil {
				out = append(out, AppIndexKey(gvk, client.ObjectKey{Namespace: t.Namespace, Name: p.Spec.AppRef.Name}))
			}
		}
	}
	return out
}

// RequestsForApp maps an app event to the pipelines that target the app, from
// Cache (upstream pipelinesForApplication, whose events reach the controller on a
// channel source).
func (r *Reconciler) RequestsForApp(ctx context.Context, app client.Object) []reconcile.Request {
	gvk, err := r.gvkOf(app)
	if err != nil {
		return nil
	}
	var list PipelineList
	if err := r.Cache.List(ctx, &list, client.MatchingFields{AppIndex: AppIndexKey(gvk, client.ObjectKeyFromObject(app))}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, p := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
	}
	return out
}

func (r *Reconciler) gvkOf(obj client.Object) (schema.GroupVersionKind, error) {
	gvks, _, err := r.Scheme().ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("no kind for %T: %v", obj, err)
	}
	return gvks[0], nil
}

// PipelinePredicates are the predicates of the For(&Pipeline{}) watch: none before
// PR #214; GenerationChangedPredicate in it (9244c67d) "to drop updates that
// didn't change the spec".
func (r *Reconciler) PipelinePredicates() []predicate.Predicate {
	if r.Variant == variant.Buggy {
		return nil
	}
	return []predicate.Predicate{predicate.GenerationChangedPredicate{}}
}

// SetupWithManager registers the controller with a controller-runtime manager:
// the AppIndex, For(Pipeline) with PipelinePredicates, app events through
// RequestsForApp, and (robust) the PromotionClaims it owns, on client-go's
// classic workqueue, which the seed's controller ran on (controller-runtime
// v0.25 would default to its priority queue).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &Pipeline{}, AppIndex, IndexApplication); err != nil {
		return fmt.Errorf("failed setting index fields: %w", err)
	}
	if r.Cache == nil {
		r.Cache = mgr.GetCache()
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&Pipeline{}, builder.WithPredicates(r.PipelinePredicates()...)).
		Watches(&HelmRelease{}, handler.EnqueueRequestsFromMapFunc(r.RequestsForApp))
	if r.Variant == variant.Robust {
		b = b.Owns(&PromotionClaim{})
	}
	return b.WithOptions(controller.Options{UsePriorityQueue: ptr.To(false)}).Complete(r)
}
