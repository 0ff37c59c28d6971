package kube

import (
	"context"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// BurstReplicas is the most pods the replicaset controller creates or deletes
// in one sync (replica_set.go).
const BurstReplicas = 500

// ConcurrentReplicaSetSyncs is kube-controller-manager's default
// --concurrent-replicaset-syncs.
const ConcurrentReplicaSetSyncs = 5

// ReplicaSetController is kube-controller-manager's replicaset controller
// (k8s.io/kubernetes@v1.37.1 pkg/controller/replicaset, syncReplicaSet,
// manageReplicas, calculateStatus, updateReplicaSetStatus): it creates pods
// from the template (generateName "<rs>-", a controller reference with
// blockOwnerDeletion) in slow-start batches and deletes the surplus in
// ActivePods order, with creation and deletion expectations; it writes
// status.replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
// (minReadySeconds), terminatingReplicas, observedGeneration and the
// ReplicaFailure condition (FailedCreate, FailedDelete).
type ReplicaSetController struct {
	// Client reads from the cache (the listers) and writes.
	Client client.Client
	// Clock gives availability and condition times.
	Clock clock.Clock
	// Recorder, if set, records upstream's events (SuccessfulCreate ...).
	Recorder record.EventRecorder

	exp *expectations
}

// Controllers describes the controller SetupWithManager registers: it watches
// ReplicaSets and their pods (whose events also fulfil expectations).
func (rc *ReplicaSetController) Controllers() []Controller {
	rc.exp = newExpectations(rc.Clock)
	return []Controller{{
		Name: "replicaset",
		Watches: []Watch{
			{Object: &appsv1.ReplicaSet{}, Handler: &handler.EnqueueRequestForObject{}},
			{Object: &corev1.Pod{}, Handler: podOwnerHandler(rc.exp, "apps/v1", "ReplicaSet")},
		},
		Workers:    ConcurrentReplicaSetSyncs,
		Reconciler: rc,
	}}
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (rc *ReplicaSetController) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, rc.Controllers())
}

// podOwnerHandler is the pod event handlers of the replicaset and job
// controllers (addPod, updatePod, deletePod): the pod's controller of the kind
// is queued, and a creation, a deletionTimestamp or a deletion is observed.
func podOwnerHandler(exp *expectations, apiVersion, kind string) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q queue) {
			if req, ok := ownerRequest(e.Object, apiVersion, kind); ok {
				if e.Object.GetDeletionTimestamp() != nil {
					exp.observed(req.String(), 0, 1)
				} else {
					exp.observed(req.String(), 1, 0)
				}
				q.Add(req)
			}
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q queue) {
			oldReq, oldOK := ownerRequest(e.ObjectOld, apiVersion, kind)
			req, ok := ownerRequest(e.ObjectNew, apiVersion, kind)
			if ok && e.ObjectOld.GetDeletionTimestamp() == nil && e.ObjectNew.GetDeletionTimestamp() != nil {
				exp.observed(req.String(), 0, 1)
			}
			if oldOK && oldReq != req {
				q.Add(oldReq)
			}
			if ok {
				q.Add(req)
			}
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q queue) {
			if req, ok := ownerRequest(e.Object, apiVersion, kind); ok {
				if e.Object.GetDeletionTimestamp() == nil {
					exp.observed(req.String(), 0, 1)
				}
				q.Add(req)
			}
		},
	}
}

// ownedPods lists the pods of namespace controlled by uid, from the cache.
func ownedPods(ctx context.Context, c client.Reader, namespace string, owner metav1.Object) ([]*corev1.Pod, error) {
	var list corev1.PodList
	if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for i := range list.Items {
		p := &list.Items[i]
		if ref := controllerOf(p); ref != nil && ref.UID == owner.GetUID() {
			out = append(out, p)
		}
	}
	return out, nil
}

// Reconcile is syncReplicaSet.
func (rc *ReplicaSetController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	rs := &appsv1.ReplicaSet{}
	if err := rc.Client.Get(ctx, req.NamespacedName, rs); err != nil {
		if apierrors.IsNotFound(err) {
			rc.exp.forget(key)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	needsSync := rc.exp.satisfied(key)
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return reconcile.Result{}, nil
	}
	all, err := ownedPods(ctx, rc.Client, rs.Namespace, rs)
	if err != nil {
		return reconcile.Result{}, err
	}
	var active, terminating []*corev1.Pod
	for _, p := range all {
		if !selector.Matches(labels.Set(p.Labels)) {
			continue
		}
		switch {
		case isPodActive(p):
			active = append(active, p)
		case isPodTerminating(p):
			terminating = append(terminating, p)
		}
	}
	var manageErr error
	if needsSync && rs.DeletionTimestamp == nil {
		manageErr = rc.manageReplicas(ctx, active, rs)
	}
	rs = rs.DeepCopy()
	now := rc.Clock.Now()
	status := rc.calculateStatus(rs, active, terminating, manageErr, now)
	updated, err := rc.updateStatus(ctx, rs, status)
	if err != nil {
		return reconcile.Result{}, err
	}
	if manageErr != nil {
		return reconcile.Result{}, manageErr
	}
	if updated.Spec.MinReadySeconds > 0 && updated.Status.ReadyReplicas != updated.Status.AvailableReplicas {
		next := time.Duration(updated.Spec.MinReadySeconds) * time.Second
		if d := nextAvailabilityCheck(active, updated.Spec.MinReadySeconds, now); d != nil {
			next = *d
		}
		return reconcile.Result{RequeueAfter: next}, nil
	}
	return reconcile.Result{}, nil
}

func replicasOf(p *int32) int32 {
	if p == nil {
		return 1 // SetDefaults_ReplicaSet, SetDefaults_Deployment
	}
	return *p
}

// manageReplicas creates or deletes pods to reach spec.replicas.
func (rc *ReplicaSetController) manageReplicas(ctx context.Context, active []*corev1.Pod, rs *appsv1.ReplicaSet) error {
	key := keyOf(rs.Namespace, rs.Name)
	want := replicasOf(rs.Spec.Replicas)
	diff := len(active) - int(want)
	pc := podControl{c: rc.Client, recorder: rc.Recorder}
	switch {
	case diff < 0:
		diff = min(-diff, BurstReplicas)
		rc.exp.expect(key, diff, 0)
		ref := metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))
		ok, err := slowStartBatch(diff, 1, func() error {
			err := pc.create(ctx, podFromTemplate(&rs.Spec.Template, rs, ref), rs)
			if err != nil && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				return nil
			}
			return err
		})
		if skipped := diff - ok; skipped > 0 {
			rc.exp.observed(key, skipped, 0)
		}
		return err
	case diff > 0:
		diff = min(diff, BurstReplicas)
		pods := append([]*corev1.Pod(nil), active...)
		if diff < len(pods) {
			sortActivePods(pods)
		}
		pods = pods[:diff]
		rc.exp.expect(key, 0, diff)
		var first error
		for _, p := range pods {
			if err := pc.delete(ctx, p, rs); err != nil {
				rc.exp.observed(key, 0, 1)
				if !apierrors.IsNotFound(err) && first == nil {
					first = err
				}
			}
		}
		return first
	}
	return nil
}

// calculateStatus is replica_set_utils.go calculateStatus.
func (rc *ReplicaSetController) calculateStatus(rs *appsv1.ReplicaSet, active, terminating []*corev1.Pod, manageErr error, now time.Time) appsv1.ReplicaSetStatus {
	s := *rs.Status.DeepCopy()
	template := labels.Set(rs.Spec.Template.Labels).AsSelectorPreValidated()
	var full, ready, available int32
	for _, p := range active {
		if template.Matches(labels.Set(p.Labels)) {
			full++
		}
		if isPodReady(p) {
			ready++
			if isPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	failure := rsCondition(rs.Status, appsv1.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(active) - int(replicasOf(rs.Spec.Replicas)); diff < 0 {
			reason = FailedCreatePodReason
		} else if diff > 0 {
			reason = FailedDeletePodReason
		}
		s.Conditions = append(filterRSConditions(s.Conditions, appsv1.ReplicaSetReplicaFailure), appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now),
			Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		s.Conditions = filterRSConditions(s.Conditions, appsv1.ReplicaSetReplicaFailure)
	}
	s.Replicas = int32(len(active))
	s.FullyLabeledReplicas = full
	s.ReadyReplicas = ready
	s.AvailableReplicas = available
	s.TerminatingReplicas = ptr.To(int32(len(terminating)))
	return s
}

func rsCondition(s appsv1.ReplicaSetStatus, t appsv1.ReplicaSetConditionType) *appsv1.ReplicaSetCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

func filterRSConditions(cs []appsv1.ReplicaSetCondition, t appsv1.ReplicaSetConditionType) []appsv1.ReplicaSetCondition {
	var out []appsv1.ReplicaSetCondition
	for _, c := range cs {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

// statusUpdateRetries is the retries of updateReplicaSetStatus.
const statusUpdateRetries = 1

// updateStatus is updateReplicaSetStatus.
func (rc *ReplicaSetController) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, s appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, error) {
	if rs.Status.Replicas == s.Replicas && rs.Status.FullyLabeledReplicas == s.FullyLabeledReplicas &&
		rs.Status.ReadyReplicas == s.ReadyReplicas && rs.Status.AvailableReplicas == s.AvailableReplicas &&
		ptr.Equal(rs.Status.TerminatingReplicas, s.TerminatingReplicas) &&
		rs.Generation == rs.Status.ObservedGeneration && reflect.DeepEqual(rs.Status.Conditions, s.Conditions) {
		return rs, nil
	}
	s.ObservedGeneration = rs.Generation
	var err error
	for i := 0; ; i++ {
		rs.Status = s
		if err = rc.Client.Status().Update(ctx, rs); err == nil {
			return rs, nil
		}
		if i >= statusUpdateRetries {
			break
		}
		fresh := &appsv1.ReplicaSet{}
		if getErr := rc.Client.Get(ctx, client.ObjectKeyFromObject(rs), fresh); getErr != nil {
			return nil, getErr
		}
		rs = fresh
	}
	return nil, err
}
