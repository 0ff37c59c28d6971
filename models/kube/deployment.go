package kube

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Annotations, reasons and messages of the deployment controller
// (pkg/controller/deployment/util/deployment_util.go).
const (
	RevisionAnnotation         = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation  = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation  = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation      = "deployment.kubernetes.io/max-replicas"
	ReplicaSetUpdatedReason    = "ReplicaSetUpdated"
	FailedRSCreateReason       = "ReplicaSetCreateError"
	NewReplicaSetReason        = "NewReplicaSetCreated"
	FoundNewRSReason           = "FoundNewReplicaSet"
	NewRSAvailableReason       = "NewReplicaSetAvailable"
	TimedOutReason             = "ProgressDeadlineExceeded"
	PausedDeployReason         = "DeploymentPaused"
	ResumedDeployReason        = "DeploymentResumed"
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// ConcurrentDeploymentSyncs is kube-controller-manager's default
// --concurrent-deployment-syncs.
const ConcurrentDeploymentSyncs = 5

const maxRevHistoryLengthInChars = 2000

// DeploymentController is kube-controller-manager's deployment controller
// (k8s.io/kubernetes@v1.37.1 pkg/controller/deployment: syncDeployment,
// sync.go, rolling.go, recreate.go, progress.go and util/deployment_util.go):
// ReplicaSets named "<deployment>-<pod-template-hash>" with the
// pod-template-hash label, revision annotations, proportional scaling,
// RollingUpdate (maxSurge, maxUnavailable) and Recreate rollouts, cleanup of
// old ReplicaSets past revisionHistoryLimit, the status counters and the
// Available and Progressing conditions with upstream's reasons and messages,
// the progress deadline, pause and resume.
type DeploymentController struct {
	// Client reads from the cache (the listers) and writes.
	Client client.Client
	// Clock gives condition times and the progress deadline.
	Clock clock.Clock
	// Recorder, if set, records upstream's events (ScalingReplicaSet ...).
	Recorder record.EventRecorder
}

// Controllers describes the controller SetupWithManager registers: it watches
// Deployments, their ReplicaSets and (for Recreate) their pods' deletions.
func (dc *DeploymentController) Controllers() []Controller {
	return []Controller{{
		Name: "deployment",
		Watches: []Watch{
			{Object: &appsv1.Deployment{}, Handler: &handler.EnqueueRequestForObject{}},
			{Object: &appsv1.ReplicaSet{}, Handler: dc.ownerHandler()},
			{Object: &corev1.Pod{}, Handler: handler.Funcs{DeleteFunc: dc.podDeleted}},
		},
		Workers:    ConcurrentDeploymentSyncs,
		Reconciler: dc,
	}}
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (dc *DeploymentController) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, dc.Controllers())
}

// ownerHandler maps ReplicaSet events to their controlling Deployment
// (addReplicaSet, updateReplicaSet, deleteReplicaSet).
func (dc *DeploymentController) ownerHandler() handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q queue) { dc.enqueueOwner(e.Object, q) },
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q queue) {
			dc.enqueueOwner(e.ObjectOld, q)
			dc.enqueueOwner(e.ObjectNew, q)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q queue) { dc.enqueueOwner(e.Object, q) },
	}
}

func (dc *DeploymentController) enqueueOwner(obj client.Object, q queue) {
	if req, ok := ownerRequest(obj, "apps/v1", "Deployment"); ok {
		q.Add(req)
	}
}

// podDeleted is deletePod: a Recreate Deployment is synced when its last old
// pod is gone.
func (dc *DeploymentController) podDeleted(ctx context.Context, e event.DeleteEvent, q queue) {
	ref := controllerOf(e.Object)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs := &appsv1.ReplicaSet{}
	if err := dc.Client.Get(ctx, client.ObjectKey{Namespace: e.Object.GetNamespace(), Name: ref.Name}, rs); err != nil {
		return
	}
	dc.enqueueOwner(rs, q)
}

// withDefaults applies SetDefaults_Deployment to a copy (the apiserver model
// does not default).
func withDefaults(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptrInt32(1)
	}
	if d.Spec.Strategy.Type == "" {
		d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if d.Spec.Strategy.RollingUpdate == nil {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		q := intstr.FromString("25%")
		if d.Spec.Strategy.RollingUpdate.MaxUnavailable == nil {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = &q
		}
		if d.Spec.Strategy.RollingUpdate.MaxSurge == nil {
			d.Spec.Strategy.RollingUpdate.MaxSurge = &q
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = ptrInt32(10)
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		d.Spec.ProgressDeadlineSeconds = ptrInt32(600)
	}
	return d
}

func ptrInt32(v int32) *int32 { return &v }

// Reconcile is syncDeployment; a stuck deployment is requeued for its progress
// check (requeueStuckDeployment).
func (dc *DeploymentController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cached := &appsv1.Deployment{}
	if err := dc.Client.Get(ctx, req.NamespacedName, cached); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	d := withDefaults(cached)
	s := &deploymentSync{dc: dc, ctx: ctx, d: d, orig: cached}
	err := s.run()
	if err != nil {
		return reconcile.Result{}, err
	}
	if s.requeue > 0 {
		return reconcile.Result{RequeueAfter: s.requeue}, nil
	}
	return reconcile.Result{}, nil
}

// deploymentSync is one syncDeployment.
type deploymentSync struct {
	dc      *DeploymentController
	ctx     context.Context
	d       *appsv1.Deployment // defaulted
	orig    *appsv1.Deployment
	requeue time.Duration
}

func (s *deploymentSync) event(typ, reason, format string, args ...any) {
	if s.dc.Recorder != nil {
		s.dc.Recorder.Eventf(s.orig, typ, reason, format, args...)
	}
}

func (s *deploymentSync) now() metav1.Time { return metav1.NewTime(s.dc.Clock.Now()) }

// updateStatus writes d's status and annotations (UpdateStatus of the
// defaulted copy: the status strategy keeps the stored spec).
func (s *deploymentSync) updateStatus() error {
	u := s.orig.DeepCopy()
	u.Annotations = s.d.Annotations
	u.Status = s.d.Status
	if err := s.dc.Client.Status().Update(s.ctx, u); err != nil {
		return err
	}
	s.orig = u
	s.d.ResourceVersion = u.ResourceVersion
	return nil
}

func (s *deploymentSync) run() error {
	d := s.d
	if reflect.DeepEqual(d.Spec.Selector, &metav1.LabelSelector{}) {
		s.event(corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			_ = s.updateStatus()
		}
		return nil
	}
	rsList, err := s.replicaSets()
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return s.syncStatusOnly(rsList)
	}
	if err := s.checkPausedConditions(); err != nil {
		return err
	}
	if d.Spec.Paused {
		return s.sync(rsList)
	}
	scaling, err := s.isScalingEvent(rsList)
	if err != nil {
		return err
	}
	if scaling {
		return s.sync(rsList)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return s.rolloutRecreate(rsList)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return s.rolloutRolling(rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// replicaSets is getReplicaSetsForDeployment without adoption: the
// ReplicaSets the deployment controls whose labels its selector matches.
func (s *deploymentSync) replicaSets() ([]*appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(s.d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	var list appsv1.ReplicaSetList
	if err := s.dc.Client.List(s.ctx, &list, client.InNamespace(s.d.Namespace)); err != nil {
		return nil, err
	}
	var out []*appsv1.ReplicaSet
	for i := range list.Items {
		rs := &list.Items[i]
		if ref := controllerOf(rs); ref != nil && ref.UID == s.d.UID && sel.Matches(labels.Set(rs.Labels)) {
			if rs.Spec.Replicas == nil {
				rs.Spec.Replicas = ptrInt32(1)
			}
			out = append(out, rs)
		}
	}
	return out, nil
}

// syncStatusOnly only updates the status of a deleting Deployment.
func (s *deploymentSync) syncStatusOnly(rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(rsList, false)
	if err != nil {
		return err
	}
	return s.syncDeploymentStatus(append(oldRSs, newRS), newRS)
}

func (s *deploymentSync) sync(rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(rsList, false)
	if err != nil {
		return err
	}
	if err := s.scale(newRS, oldRSs); err != nil {
		return err
	}
	if s.d.Spec.Paused {
		if err := s.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return s.syncDeploymentStatus(append(oldRSs, newRS), newRS)
}

func (s *deploymentSync) checkPausedConditions() error {
	d := s.d
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil
	}
	pausedCondExists := cond != nil && cond.Reason == PausedDeployReason
	switch {
	case d.Spec.Paused && !pausedCondExists:
		s.setCondition(&d.Status, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, PausedDeployReason, "Deployment is paused"))
	case !d.Spec.Paused && pausedCondExists:
		s.setCondition(&d.Status, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ResumedDeployReason, "Deployment is resumed"))
	default:
		return nil
	}
	return s.updateStatus()
}

func (s *deploymentSync) getAllReplicaSetsAndSyncRevision(rsList []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	allOld := findOldReplicaSets(s.d, rsList)
	newRS, err := s.getNewReplicaSet(rsList, allOld, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, allOld, nil
}

func (s *deploymentSync) getNewReplicaSet(rsList, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	d := s.d
	existing := findNewReplicaSet(d, rsList)
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)
	if existing != nil {
		rsCopy := existing.DeepCopy()
		annotationsUpdated := setNewReplicaSetAnnotations(d, rsCopy, newRevision, true)
		if annotationsUpdated || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			return rsCopy, s.dc.Client.Update(s.ctx, rsCopy)
		}
		needsUpdate := setDeploymentRevision(d, rsCopy.Annotations[RevisionAnnotation])
		if hasProgressDeadline(d) && deploymentCondition(d.Status, appsv1.DeploymentProgressing) == nil {
			s.setCondition(&d.Status, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, FoundNewRSReason, fmt.Sprintf("Found new replica set %q", rsCopy.Name)))
			needsUpdate = true
		}
		if needsUpdate {
			if err := s.updateStatus(); err != nil {
				return nil, err
			}
		}
		return rsCopy, nil
	}
	if !create {
		return nil, nil
	}
	template := *d.Spec.Template.DeepCopy()
	hash := computeHash(&template, d.Status.CollisionCount)
	template.Labels = cloneAndAdd(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	newRS := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            replicaSetName(d.Name, hash),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(s.orig, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: new(int32), MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: template},
	}
	count, err := newRSNewReplicas(d, append(oldRSs, newRS), newRS)
	if err != nil {
		return nil, err
	}
	*newRS.Spec.Replicas = count
	setNewReplicaSetAnnotations(d, newRS, newRevision, false)
	alreadyExists := false
	err = s.dc.Client.Create(s.ctx, newRS)
	created := newRS
	switch {
	case apierrors.IsAlreadyExists(err):
		alreadyExists = true
		rs := &appsv1.ReplicaSet{}
		if getErr := s.dc.Client.Get(s.ctx, client.ObjectKeyFromObject(newRS), rs); getErr != nil {
			return nil, getErr
		}
		if ref := controllerOf(rs); ref != nil && ref.UID == d.UID && equalIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			created, err = rs, nil
			break
		}
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		*d.Status.CollisionCount++
		_ = s.updateStatus()
		return nil, err
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if hasProgressDeadline(d) {
			s.setCondition(&d.Status, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, FailedRSCreateReason, msg))
			_ = s.updateStatus()
		}
		s.event(corev1.EventTypeWarning, FailedRSCreateReason, "%s", msg)
		return nil, err
	}
	if !alreadyExists && count > 0 {
		s.event(corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set %s from 0 to %d", created.Name, count)
	}
	needsUpdate := setDeploymentRevision(d, newRevision)
	if !alreadyExists && hasProgressDeadline(d) {
		s.setCondition(&d.Status, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewReplicaSetReason, fmt.Sprintf("Created new replica set %q", created.Name)))
		needsUpdate = true
	}
	if needsUpdate {
		err = s.updateStatus()
	}
	return created, err
}

func (s *deploymentSync) scale(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	d := s.d
	if a := findActiveOrLatest(newRS, oldRSs); a != nil {
		if *a.Spec.Replicas == *d.Spec.Replicas {
			return nil
		}
		_, _, err := s.scaleReplicaSet(a, *d.Spec.Replicas, false)
		return err
	}
	if isSaturated(d, newRS) {
		for _, old := range filterActive(oldRSs) {
			if _, _, err := s.scaleReplicaSet(old, 0, false); err != nil {
				return err
			}
		}
		return nil
	}
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return nil
	}
	all := filterActive(append(oldRSs, newRS))
	allReplicas := replicaCount(all)
	allowed := int32(0)
	if *d.Spec.Replicas > 0 {
		allowed = *d.Spec.Replicas + maxSurge(d)
	}
	toAdd := allowed - allReplicas
	switch {
	case toAdd > 0:
		sort.SliceStable(all, func(i, j int) bool { return bySizeNewer(all[i], all[j]) })
	case toAdd < 0:
		sort.SliceStable(all, func(i, j int) bool { return bySizeOlder(all[i], all[j]) })
	}
	added := int32(0)
	sizes := map[string]int32{}
	for _, rs := range all {
		if toAdd != 0 {
			p := replicaSetProportion(rs, d, toAdd, added)
			sizes[rs.Name] = *rs.Spec.Replicas + p
			added += p
		} else {
			sizes[rs.Name] = *rs.Spec.Replicas
		}
	}
	for i, rs := range all {
		if i == 0 && toAdd != 0 {
			sizes[rs.Name] += toAdd - added
			if sizes[rs.Name] < 0 {
				sizes[rs.Name] = 0
			}
		}
		if _, _, err := s.scaleReplicaSet(rs, sizes[rs.Name], true); err != nil {
			return err
		}
	}
	return nil
}

func (s *deploymentSync) scaleReplicaSet(rs *appsv1.ReplicaSet, newScale int32, force bool) (bool, *appsv1.ReplicaSet, error) {
	d := s.d
	if !force && *rs.Spec.Replicas == newScale {
		return false, rs, nil
	}
	sizeNeedsUpdate := *rs.Spec.Replicas != newScale
	annotationsNeedUpdate := replicasAnnotationsNeedUpdate(rs, *d.Spec.Replicas, *d.Spec.Replicas+maxSurge(d))
	if !sizeNeedsUpdate && !annotationsNeedUpdate {
		return false, rs, nil
	}
	oldScale := *rs.Spec.Replicas
	rsCopy := rs.DeepCopy()
	*rsCopy.Spec.Replicas = newScale
	setReplicasAnnotations(rsCopy, *d.Spec.Replicas, *d.Spec.Replicas+maxSurge(d))
	if err := s.dc.Client.Update(s.ctx, rsCopy); err != nil {
		return false, rs, err
	}
	scaled := false
	if sizeNeedsUpdate {
		op := "down"
		if oldScale < newScale {
			op = "up"
		}
		scaled = true
		s.event(corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled %s replica set %s from %d to %d", op, rsCopy.Name, oldScale, newScale)
	}
	return scaled, rsCopy, nil
}

func (s *deploymentSync) cleanupDeployment(oldRSs []*appsv1.ReplicaSet) error {
	d := s.d
	if d.Spec.RevisionHistoryLimit == nil || *d.Spec.RevisionHistoryLimit == math.MaxInt32 {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := int32(len(cleanable)) - *d.Spec.RevisionHistoryLimit
	if diff <= 0 {
		return nil
	}
	sort.SliceStable(cleanable, func(i, j int) bool { return byRevision(cleanable[i], cleanable[j]) })
	for i := int32(0); i < diff; i++ {
		rs := cleanable[i]
		if rs.Status.Replicas != 0 || *rs.Spec.Replicas != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		if err := s.dc.Client.Delete(s.ctx, rs); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func (s *deploymentSync) syncDeploymentStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	st := s.calculateStatus(allRSs, newRS)
	if equality.Semantic.DeepEqual(s.d.Status, st) {
		return nil
	}
	s.d.Status = st
	return s.updateStatus()
}

func (s *deploymentSync) calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	d := s.d
	available := availableCount(allRSs)
	total := replicaCount(allRSs)
	unavailable := max(total-available, 0)
	st := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            actualCount(allRSs),
		UpdatedReplicas:     actualCount([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       readyCount(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
		TerminatingReplicas: terminatingCount(allRSs),
	}
	st.Conditions = append(st.Conditions, d.Status.Conditions...)
	if available >= *d.Spec.Replicas-maxUnavailable(d) {
		s.setCondition(&st, s.newCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability."))
	} else {
		s.setCondition(&st, s.newCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability."))
	}
	return st
}

func (s *deploymentSync) isScalingEvent(rsList []*appsv1.ReplicaSet) (bool, error) {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range filterActive(append(oldRSs, newRS)) {
		desired, ok := nonNegativeAnnotation(rs, DesiredReplicasAnnotation)
		if ok && desired != *s.d.Spec.Replicas {
			return true, nil
		}
	}
	return false, nil
}

// rolling.go

func (s *deploymentSync) rolloutRolling(rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(oldRSs, newRS)
	scaledUp, err := s.reconcileNewReplicaSet(allRSs, newRS)
	if err != nil {
		return err
	}
	if scaledUp {
		return s.syncRolloutStatus(allRSs, newRS)
	}
	scaledDown, err := s.reconcileOldReplicaSets(allRSs, filterActive(oldRSs), newRS)
	if err != nil {
		return err
	}
	if scaledDown {
		return s.syncRolloutStatus(allRSs, newRS)
	}
	if deploymentComplete(s.d, &s.d.Status) {
		if err := s.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return s.syncRolloutStatus(allRSs, newRS)
}

func (s *deploymentSync) reconcileNewReplicaSet(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	d := s.d
	if *newRS.Spec.Replicas == *d.Spec.Replicas {
		return false, nil
	}
	if *newRS.Spec.Replicas > *d.Spec.Replicas {
		scaled, _, err := s.scaleReplicaSet(newRS, *d.Spec.Replicas, false)
		return scaled, err
	}
	count, err := newRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := s.scaleReplicaSet(newRS, count, false)
	return scaled, err
}

func (s *deploymentSync) reconcileOldReplicaSets(allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (bool, error) {
	d := s.d
	if replicaCount(oldRSs) == 0 {
		return false, nil
	}
	allPods := replicaCount(allRSs)
	minAvailable := *d.Spec.Replicas - maxUnavailable(d)
	newUnavailable := *newRS.Spec.Replicas - newRS.Status.AvailableReplicas
	maxScaledDown := allPods - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := s.cleanupUnhealthyReplicas(oldRSs, maxScaledDown)
	if err != nil {
		return false, nil
	}
	scaledDown, err := s.scaleDownOldReplicaSetsForRollingUpdate(append(oldRSs, newRS), oldRSs)
	if err != nil {
		return false, nil
	}
	return cleaned+scaledDown > 0, nil
}

func (s *deploymentSync) cleanupUnhealthyReplicas(oldRSs []*appsv1.ReplicaSet, maxCleanup int32) ([]*appsv1.ReplicaSet, int32, error) {
	sortByCreation(oldRSs)
	total := int32(0)
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		if *rs.Spec.Replicas == 0 || *rs.Spec.Replicas == rs.Status.AvailableReplicas {
			continue
		}
		down := min(maxCleanup-total, *rs.Spec.Replicas-rs.Status.AvailableReplicas)
		_, updated, err := s.scaleReplicaSet(rs, *rs.Spec.Replicas-down, false)
		if err != nil {
			return nil, total, err
		}
		total += down
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

func (s *deploymentSync) scaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs []*appsv1.ReplicaSet) (int32, error) {
	d := s.d
	minAvailable := *d.Spec.Replicas - maxUnavailable(d)
	available := availableCount(allRSs)
	if available <= minAvailable {
		return 0, nil
	}
	sortByCreation(oldRSs)
	total, want := int32(0), available-minAvailable
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		if *rs.Spec.Replicas == 0 {
			continue
		}
		down := min(*rs.Spec.Replicas, want-total)
		if _, _, err := s.scaleReplicaSet(rs, *rs.Spec.Replicas-down, false); err != nil {
			return total, err
		}
		total += down
	}
	return total, nil
}

// recreate.go

func (s *deploymentSync) rolloutRecreate(rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(oldRSs, newRS)
	scaledDown := false
	for _, rs := range filterActive(oldRSs) {
		if *rs.Spec.Replicas == 0 {
			continue
		}
		scaled, _, err := s.scaleReplicaSet(rs, 0, false)
		if err != nil {
			return err
		}
		scaledDown = scaledDown || scaled
	}
	if scaledDown {
		return s.syncRolloutStatus(allRSs, newRS)
	}
	running, err := s.oldPodsRunning(newRS, oldRSs, rsList)
	if err != nil {
		return err
	}
	if running {
		return s.syncRolloutStatus(allRSs, newRS)
	}
	if newRS == nil {
		newRS, oldRSs, err = s.getAllReplicaSetsAndSyncRevision(rsList, true)
		if err != nil {
			return err
		}
		allRSs = append(oldRSs, newRS)
	}
	if _, _, err := s.scaleReplicaSet(newRS, *s.d.Spec.Replicas, false); err != nil {
		return err
	}
	if deploymentComplete(s.d, &s.d.Status) {
		if err := s.cleanupDeployment(oldRSs); err != nil {
			return err
		}
	}
	return s.syncRolloutStatus(allRSs, newRS)
}

// oldPodsRunning is oldPodsRunning over getPodMapForDeployment.
func (s *deploymentSync) oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs, rsList []*appsv1.ReplicaSet) (bool, error) {
	if actualCount(oldRSs) > 0 {
		return true, nil
	}
	var pods corev1.PodList
	if err := s.dc.Client.List(s.ctx, &pods, client.InNamespace(s.d.Namespace)); err != nil {
		return false, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		ref := controllerOf(p)
		if ref == nil || (newRS != nil && ref.UID == newRS.UID) {
			continue
		}
		for _, rs := range rsList {
			if rs.UID == ref.UID && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
				return true, nil
			}
		}
	}
	return false, nil
}

// progress.go

func (s *deploymentSync) syncRolloutStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) error {
	d := s.d
	st := s.calculateStatus(allRSs, newRS)
	if !hasProgressDeadline(d) {
		st.Conditions = filterDeploymentConditions(st.Conditions, appsv1.DeploymentProgressing)
	}
	current := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && current != nil && current.Reason == NewRSAvailableReason
	if hasProgressDeadline(d) && !complete {
		switch {
		case deploymentComplete(d, &st):
			msg := fmt.Sprintf("Deployment %q has successfully progressed.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has successfully progressed.", newRS.Name)
			}
			s.setCondition(&st, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, msg))
		case deploymentProgressing(d, &st):
			msg := fmt.Sprintf("Deployment %q is progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q is progressing.", newRS.Name)
			}
			c := s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, msg)
			if current != nil {
				if current.Status == corev1.ConditionTrue {
					c.LastTransitionTime = current.LastTransitionTime
				}
				st.Conditions = filterDeploymentConditions(st.Conditions, appsv1.DeploymentProgressing)
			}
			s.setCondition(&st, c)
		case s.timedOut(&st):
			msg := fmt.Sprintf("Deployment %q has timed out progressing.", d.Name)
			if newRS != nil {
				msg = fmt.Sprintf("ReplicaSet %q has timed out progressing.", newRS.Name)
			}
			s.setCondition(&st, s.newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, TimedOutReason, msg))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		s.setCondition(&st, failures[0])
	} else {
		st.Conditions = filterDeploymentConditions(st.Conditions, appsv1.DeploymentReplicaFailure)
	}
	if equality.Semantic.DeepEqual(d.Status, st) {
		s.requeueStuck(st)
		return nil
	}
	d.Status = st
	return s.updateStatus()
}

// requeueStuck is requeueStuckDeployment.
func (s *deploymentSync) requeueStuck(st appsv1.DeploymentStatus) {
	d := s.d
	current := deploymentCondition(d.Status, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || current == nil || deploymentComplete(d, &st) || current.Reason == TimedOutReason {
		return
	}
	after := current.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(s.dc.Clock.Now())
	if after < time.Second {
		s.requeue = time.Second // enqueueRateLimited
		return
	}
	s.requeue = after + time.Second
}

func (s *deploymentSync) timedOut(st *appsv1.DeploymentStatus) bool {
	d := s.d
	c := deploymentCondition(*st, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == NewRSAvailableReason {
		return false
	}
	if c.Reason == TimedOutReason {
		return true
	}
	return c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Before(s.dc.Clock.Now())
}

func replicaFailures(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []appsv1.DeploymentCondition {
	var out []appsv1.DeploymentCondition
	conv := func(c appsv1.ReplicaSetCondition) appsv1.DeploymentCondition {
		return appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
	}
	if newRS != nil {
		for _, c := range newRS.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure {
				out = append(out, conv(c))
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, rs := range allRSs {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == appsv1.ReplicaSetReplicaFailure {
				out = append(out, conv(c))
			}
		}
	}
	return out
}

// util/deployment_util.go

func (s *deploymentSync) newCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, msg string) appsv1.DeploymentCondition {
	now := s.now()
	return appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: now, LastTransitionTime: now, Reason: reason, Message: msg}
}

// setCondition is SetDeploymentCondition.
func (s *deploymentSync) setCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	current := deploymentCondition(*st, c.Type)
	if current != nil && current.Status == c.Status && current.Reason == c.Reason {
		return
	}
	if current != nil && current.Status == c.Status {
		c.LastTransitionTime = current.LastTransitionTime
	}
	st.Conditions = append(filterDeploymentConditions(st.Conditions, c.Type), c)
}

func deploymentCondition(st appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			c := st.Conditions[i]
			return &c
		}
	}
	return nil
}

func filterDeploymentConditions(cs []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) []appsv1.DeploymentCondition {
	var out []appsv1.DeploymentCondition
	for _, c := range cs {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

func setDeploymentRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[RevisionAnnotation] != revision {
		d.Annotations[RevisionAnnotation] = revision
		return true
	}
	return false
}

func revisionOf(obj metav1.Object) (int64, error) {
	v, ok := obj.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	m := int64(0)
	for _, rs := range rss {
		if v, err := revisionOf(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

var annotationsToSkip = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	RevisionAnnotation:                 true,
	RevisionHistoryAnnotation:          true,
	DesiredReplicasAnnotation:          true,
	MaxReplicasAnnotation:              true,
	appsv1.DeprecatedRollbackTo:        true,
}

// setNewReplicaSetAnnotations is SetNewReplicaSetAnnotations.
func setNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations { // lint:order-independent copied into a map
		if cur, ok := rs.Annotations[k]; annotationsToSkip[k] || (ok && cur == v) {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	oldRevision, ok := rs.Annotations[RevisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldInt < newInt {
		rs.Annotations[RevisionAnnotation] = newRevision
		changed = true
	}
	if ok && oldInt < newInt {
		history := rs.Annotations[RevisionHistoryAnnotation]
		olds := strings.Split(history, ",")
		if len(olds[0]) == 0 {
			rs.Annotations[RevisionHistoryAnnotation] = oldRevision
		} else {
			total := len(history) + len(oldRevision) + 1
			start := 0
			for total > maxRevHistoryLengthInChars && start < len(olds) {
				total = total - len(olds[start]) - 1
				start++
			}
			if total <= maxRevHistoryLengthInChars {
				rs.Annotations[RevisionHistoryAnnotation] = strings.Join(append(olds[start:], oldRevision), ",")
			}
		}
	}
	if !exists && setReplicasAnnotations(rs, *d.Spec.Replicas, *d.Spec.Replicas+maxSurge(d)) {
		changed = true
	}
	return changed
}

func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	updated := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	if ds := strconv.Itoa(int(desired)); rs.Annotations[DesiredReplicasAnnotation] != ds {
		rs.Annotations[DesiredReplicasAnnotation] = ds
		updated = true
	}
	if ms := strconv.Itoa(int(maxReplicas)); rs.Annotations[MaxReplicasAnnotation] != ms {
		rs.Annotations[MaxReplicasAnnotation] = ms
		updated = true
	}
	return updated
}

func replicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations == nil || rs.Annotations[DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

func nonNegativeAnnotation(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}

// resolveFenceposts is ResolveFenceposts.
func resolveFenceposts(d *appsv1.Deployment) (int32, int32) {
	ru := d.Spec.Strategy.RollingUpdate
	zero := intstr.FromInt32(0)
	surge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxSurge, zero), int(*d.Spec.Replicas), true)
	if err != nil {
		return 0, 0
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxUnavailable, zero), int(*d.Spec.Replicas), false)
	if err != nil {
		return 0, 0
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int32(surge), int32(unavailable)
}

func maxUnavailable(d *appsv1.Deployment) int32 {
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || *d.Spec.Replicas == 0 {
		return 0
	}
	_, u := resolveFenceposts(d)
	return min(u, *d.Spec.Replicas)
}

func maxSurge(d *appsv1.Deployment) int32 {
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return 0
	}
	s, _ := resolveFenceposts(d)
	return s
}

func replicaSetProportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rs == nil || *rs.Spec.Replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

func replicaSetFraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if *d.Spec.Replicas == 0 {
		return -*rs.Spec.Replicas
	}
	maxReplicas := *d.Spec.Replicas + maxSurge(d)
	before, ok := nonNegativeAnnotation(rs, MaxReplicasAnnotation)
	if !ok || before == 0 {
		before = d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	size := float64(*rs.Spec.Replicas*maxReplicas) / float64(before)
	return int32(math.Round(size)) - *rs.Spec.Replicas
}

func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return equality.Semantic.DeepEqual(a, b)
}

// sortByCreation is sort.Sort(ReplicaSetsByCreationTimestamp).
func sortByCreation(rss []*appsv1.ReplicaSet) {
	sort.SliceStable(rss, func(i, j int) bool { return byCreation(rss[i], rss[j]) })
}

func byCreation(a, b *appsv1.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}

func bySizeOlder(a, b *appsv1.ReplicaSet) bool {
	if *a.Spec.Replicas == *b.Spec.Replicas {
		return byCreation(a, b)
	}
	return *a.Spec.Replicas > *b.Spec.Replicas
}

func bySizeNewer(a, b *appsv1.ReplicaSet) bool {
	if *a.Spec.Replicas == *b.Spec.Replicas {
		return byCreation(b, a)
	}
	return *a.Spec.Replicas > *b.Spec.Replicas
}

func byRevision(a, b *appsv1.ReplicaSet) bool {
	ra, ea := revisionOf(a)
	rb, eb := revisionOf(b)
	if ea != nil || eb != nil || ra == rb {
		return byCreation(a, b)
	}
	return ra < rb
}

func findNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sortByCreation(rss)
	for _, rs := range rss {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets returns FindOldReplicaSets' allRSs.
func findOldReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	newRS := findNewReplicaSet(d, rss)
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		out = append(out, rs)
	}
	return out
}

func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sort.SliceStable(oldRSs, func(i, j int) bool { return byCreation(oldRSs[j], oldRSs[i]) })
	all := filterActive(append(oldRSs, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return all[0]
	}
	return nil
}

func filterActive(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.Annotations[DesiredReplicasAnnotation])
	if err != nil {
		return false
	}
	return *rs.Spec.Replicas == *d.Spec.Replicas && int32(desired) == *d.Spec.Replicas && rs.Status.AvailableReplicas == *d.Spec.Replicas
}

func newRSNewReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		surge, err := intstr.GetScaledValueFromIntOrPercent(d.Spec.Strategy.RollingUpdate.MaxSurge, int(*d.Spec.Replicas), true)
		if err != nil {
			return 0, err
		}
		current := replicaCount(allRSs)
		maxTotal := *d.Spec.Replicas + int32(surge)
		if current >= maxTotal {
			return *newRS.Spec.Replicas, nil
		}
		up := min(maxTotal-current, *d.Spec.Replicas-*newRS.Spec.Replicas)
		return *newRS.Spec.Replicas + up, nil
	case appsv1.RecreateDeploymentStrategyType:
		return *d.Spec.Replicas, nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

func deploymentComplete(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	return st.UpdatedReplicas == *d.Spec.Replicas && st.Replicas == *d.Spec.Replicas &&
		st.AvailableReplicas == *d.Spec.Replicas && st.ObservedGeneration >= d.Generation
}

func deploymentProgressing(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas || (st.Replicas-st.UpdatedReplicas) < (old.Replicas-old.UpdatedReplicas) ||
		st.ReadyReplicas > old.ReadyReplicas || st.AvailableReplicas > old.AvailableReplicas
}

func replicaCount(rss []*appsv1.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += *rs.Spec.Replicas
		}
	}
	return n
}

func actualCount(rss []*appsv1.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.Replicas
		}
	}
	return n
}

func readyCount(rss []*appsv1.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.ReadyReplicas
		}
	}
	return n
}

func availableCount(rss []*appsv1.ReplicaSet) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += rs.Status.AvailableReplicas
		}
	}
	return n
}

// terminatingCount is GetTerminatingReplicaCountForReplicaSets.
func terminatingCount(rss []*appsv1.ReplicaSet) *int32 {
	n := int32(0)
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.ObservedGeneration == 0 && rs.Status.TerminatingReplicas == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

func cloneAndAdd(m map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range m { // lint:order-independent copied into a map
		out[a] = b
	}
	out[k] = v
	return out
}

// replicaSetName is generateReplicaSetName.
func replicaSetName(name, hash string) string {
	maxLen := 253 - 1 - len(hash)
	if len(name) > maxLen && maxLen > 0 {
		return name[:maxLen] + "-" + hash
	}
	return name + "-" + hash
}
