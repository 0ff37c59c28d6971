package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// This file is kube-controller-manager's statefulset controller
// (k8s.io/kubernetes@v1.37.1 pkg/controller/statefulset: stateful_set.go,
// stateful_set_control.go, stateful_set_utils.go, stateful_pod_control.go,
// stateful_set_status_updater.go) and the ControllerRevision history it keeps
// (pkg/controller/history/controller_history.go), with v1.37's default feature
// gates: MaxUnavailableStatefulSet on, StatefulSetRecreateStrategy off.

// ConcurrentStatefulSetSyncs is kube-controller-manager's default
// --concurrent-statefulset-syncs.
const ConcurrentStatefulSetSyncs = 5

// ControllerRevisionHashLabel is the label of a ControllerRevision with its hash
// (history.ControllerRevisionHashLabel).
const ControllerRevisionHashLabel = "controller.kubernetes.io/hash"

var statefulSetKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

// StatefulSetController is kube-controller-manager's statefulset controller: pods
// named "<set>-<ordinal>" from the revision of their ordinal
// (newVersionedStatefulSetPod), with the identity labels
// statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index, hostname and
// subdomain, and the controller-revision-hash label; ControllerRevisions
// "<set>-<hash>" holding the template as a strategic merge patch, rolled back by
// raising their revision, truncated past revisionHistoryLimit; OrderedReady
// (one pod at a time, in ordinal order up, reverse order down) and Parallel pod
// management; RollingUpdate (partition, maxUnavailable) and OnDelete; the status
// counters and revisions, and the events of StatefulPodControl
// (SuccessfulCreate "Create Pod web-0 in StatefulSet web successful", ...).
type StatefulSetController struct {
	// Client reads from the cache (the listers) and writes.
	Client client.Client
	// APIReader, if set, reads what upstream reads from the apiserver itself (the
	// ControllerRevision that a create found existing, the set before adopting
	// revisions); nil reads through Client.
	APIReader client.Reader
	// Clock gives availability times.
	Clock clock.Clock
	// Recorder, if set, records upstream's events.
	Recorder record.EventRecorder
}

// Controllers describes the controller SetupWithManager registers: it watches
// StatefulSets and their pods (ControllerRevisions are read from the cache, not
// watched, as upstream's revision informer has no handler).
func (sc *StatefulSetController) Controllers() []Controller {
	return []Controller{{
		Name: "statefulset",
		Watches: []Watch{
			{Object: &appsv1.StatefulSet{}, Handler: &handler.EnqueueRequestForObject{}},
			{Object: &corev1.Pod{}, Handler: sc.podHandler()},
		},
		Workers:    ConcurrentStatefulSetSyncs,
		Reconciler: sc,
	}}
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (sc *StatefulSetController) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, sc.Controllers())
}

func (sc *StatefulSetController) reader() client.Reader {
	if sc.APIReader != nil {
		return sc.APIReader
	}
	return sc.Client
}

// resolveControllerRef is resolveControllerRef: the StatefulSet of ref in the
// cache, if it is the one (same uid).
func (sc *StatefulSetController) resolveControllerRef(ctx context.Context, namespace string, ref *metav1.OwnerReference) *appsv1.StatefulSet {
	if ref == nil || ref.Kind != statefulSetKind.Kind {
		return nil
	}
	set := &appsv1.StatefulSet{}
	if err := sc.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, set); err != nil || set.UID != ref.UID {
		return nil
	}
	return set
}

// podHandler is addPod, updatePod and deletePod: the pod's StatefulSet is queued;
// a pod turned ready is synced again after minReadySeconds.
func (sc *StatefulSetController) podHandler() handler.EventHandler {
	enqueue := func(q queue, set *appsv1.StatefulSet) {
		q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(set)})
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) {
			if set := sc.resolveControllerRef(ctx, e.Object.GetNamespace(), controllerOf(e.Object)); set != nil {
				enqueue(q, set)
			}
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			if e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
				return
			}
			oldRef, curRef := controllerOf(e.ObjectOld), controllerOf(e.ObjectNew)
			if !reflect.DeepEqual(oldRef, curRef) && oldRef != nil {
				if set := sc.resolveControllerRef(ctx, e.ObjectOld.GetNamespace(), oldRef); set != nil {
					enqueue(q, set)
				}
			}
			set := sc.resolveControllerRef(ctx, e.ObjectNew.GetNamespace(), curRef)
			if set == nil {
				return
			}
			enqueue(q, set)
			oldPod, okOld := e.ObjectOld.(*corev1.Pod)
			curPod, okCur := e.ObjectNew.(*corev1.Pod)
			if okOld && okCur && !isPodReady(oldPod) && isPodReady(curPod) && set.Spec.MinReadySeconds > 0 {
				q.AddAfter(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(set)}, time.Duration(set.Spec.MinReadySeconds)*time.Second)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) {
			if set := sc.resolveControllerRef(ctx, e.Object.GetNamespace(), controllerOf(e.Object)); set != nil {
				enqueue(q, set)
			}
		},
	}
}

// statefulSetWithDefaults applies SetDefaults_StatefulSet
// (pkg/apis/apps/v1/defaults.go, MaxUnavailableStatefulSet on) to a copy: the
// apiserver model does not default.
func statefulSetWithDefaults(set *appsv1.StatefulSet) *appsv1.StatefulSet {
	set = set.DeepCopy()
	s := &set.Spec
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if s.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && s.UpdateStrategy.RollingUpdate != nil {
		if s.UpdateStrategy.RollingUpdate.Partition == nil {
			s.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
		}
		if s.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			s.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	return set
}

// Reconcile is sync and syncStatefulSet.
func (sc *StatefulSetController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	stored := &appsv1.StatefulSet{}
	if err := sc.Client.Get(ctx, req.NamespacedName, stored); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	selector, err := metav1.LabelSelectorAsSelector(stored.Spec.Selector)
	if err != nil {
		return reconcile.Result{}, nil
	}
	set := statefulSetWithDefaults(stored)
	if err := sc.adoptOrphanRevisions(ctx, set, selector); err != nil {
		return reconcile.Result{}, err
	}
	pods, err := sc.podsFor(ctx, set, selector)
	if err != nil {
		return reconcile.Result{}, err
	}
	now := sc.Clock.Now()
	s := &statefulSetSync{sc: sc, ctx: ctx, stored: stored, selector: selector, now: now}
	status, err := s.updateStatefulSet(set, pods)
	if err != nil {
		return reconcile.Result{}, err
	}
	if set.Spec.MinReadySeconds > 0 && status != nil && status.ReadyReplicas != status.AvailableReplicas {
		next := time.Duration(set.Spec.MinReadySeconds) * time.Second
		if d := nextAvailabilityCheck(pods, set.Spec.MinReadySeconds, now); d != nil {
			next = *d
		}
		return reconcile.Result{RequeueAfter: next}, nil
	}
	return reconcile.Result{}, nil
}

// podsFor is getPodsForStatefulSet without adoption or release: the pods the set
// controls that match its selector and are named as its members (isMemberOf).
func (sc *StatefulSetController) podsFor(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector) ([]*corev1.Pod, error) {
	owned, err := ownedPods(ctx, sc.Client, set.Namespace, set)
	if err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for _, p := range owned {
		if selector.Matches(labels.Set(p.Labels)) && isMemberOf(set, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// listRevisions is ListRevisions (realHistory.ListControllerRevisions): the
// ControllerRevisions of the namespace matching selector that set controls or no
// one does.
func (sc *StatefulSetController) listRevisions(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector) ([]*appsv1.ControllerRevision, error) {
	var list appsv1.ControllerRevisionList
	if err := sc.Client.List(ctx, &list, client.InNamespace(set.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, err
	}
	var out []*appsv1.ControllerRevision
	for i := range list.Items {
		cr := &list.Items[i]
		if ref := controllerOf(cr); ref == nil || ref.UID == set.UID {
			out = append(out, cr)
		}
	}
	return out, nil
}

// adoptOrphanRevisions is adoptOrphanRevisions: a revision no one controls is
// adopted (AdoptControllerRevision's strategic merge patch) once a fresh read
// shows the set is the same and not being deleted (RecheckDeletionTimestamp).
func (sc *StatefulSetController) adoptOrphanRevisions(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector) error {
	revisions, err := sc.listRevisions(ctx, set, selector)
	if err != nil {
		return err
	}
	var orphans []*appsv1.ControllerRevision
	for _, r := range revisions {
		if controllerOf(r) == nil {
			orphans = append(orphans, r)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	fresh := &appsv1.StatefulSet{}
	if err := sc.reader().Get(ctx, client.ObjectKeyFromObject(set), fresh); err != nil {
		return fmt.Errorf("can't adopt ControllerRevisions: %v", err)
	}
	if fresh.UID != set.UID {
		return fmt.Errorf("can't adopt ControllerRevisions: original StatefulSet %v/%v is gone: got uid %v, wanted %v", set.Namespace, set.Name, fresh.UID, set.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("can't adopt ControllerRevisions: %v/%v has just been deleted at %v", set.Namespace, set.Name, fresh.DeletionTimestamp)
	}
	for _, r := range orphans {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"ownerReferences": []metav1.OwnerReference{{
				APIVersion: statefulSetKind.GroupVersion().String(), Kind: statefulSetKind.Kind,
				Name: set.Name, UID: set.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
			"uid": r.UID,
		}})
		if err != nil {
			return err
		}
		if err := sc.Client.Patch(ctx, r.DeepCopy(), client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
			return err
		}
	}
	return nil
}

// statefulSetSync is one UpdateStatefulSet (defaultStatefulSetControl).
type statefulSetSync struct {
	sc       *StatefulSetController
	ctx      context.Context
	stored   *appsv1.StatefulSet // as read, not defaulted: its status is written
	selector labels.Selector
	now      time.Time
}

func (s *statefulSetSync) event(set *appsv1.StatefulSet, typ, reason, msg string) {
	if s.sc.Recorder != nil {
		s.sc.Recorder.Event(s.stored, typ, reason, msg)
	}
}

// recordPodEvent is StatefulPodControl.recordPodEvent.
func (s *statefulSetSync) recordPodEvent(verb string, set *appsv1.StatefulSet, pod *corev1.Pod, err error) {
	title := titleVerb(verb)
	if err == nil {
		s.event(set, corev1.EventTypeNormal, "Successful"+title, fmt.Sprintf("%s Pod %s in StatefulSet %s successful", title, pod.Name, set.Name))
		return
	}
	s.event(set, corev1.EventTypeWarning, "Failed"+title, fmt.Sprintf("%s Pod %s in StatefulSet %s failed error: %s", title, pod.Name, set.Name, err))
}

// titleVerb is cases.Title(language.English) of the verbs recordPodEvent uses.
func titleVerb(verb string) string {
	switch verb {
	case "create":
		return "Create"
	case "update":
		return "Update"
	case "delete":
		return "Delete"
	}
	panic("unknown verb " + verb)
}

// updateStatefulSet is UpdateStatefulSet and performUpdate.
func (s *statefulSetSync) updateStatefulSet(set *appsv1.StatefulSet, pods []*corev1.Pod) (*appsv1.StatefulSetStatus, error) {
	set = set.DeepCopy()
	revisions, err := s.sc.listRevisions(s.ctx, set, s.selector)
	if err != nil {
		return nil, err
	}
	sortControllerRevisions(revisions)

	currentRevision, updateRevision, status, err := s.performUpdate(set, pods, revisions)
	if err != nil {
		if terr := s.truncateHistory(set, pods, revisions, currentRevision, updateRevision); terr != nil {
			return nil, fmt.Errorf("[%v, %v]", err, terr)
		}
		return nil, err
	}
	return status, s.truncateHistory(set, pods, revisions, currentRevision, updateRevision)
}

func (s *statefulSetSync) performUpdate(set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, *appsv1.ControllerRevision, *appsv1.StatefulSetStatus, error) {
	currentRevision, updateRevision, collisionCount, err := s.getStatefulSetRevisions(set, revisions)
	if err != nil {
		return currentRevision, updateRevision, nil, err
	}
	status, err := s.updatePods(set, currentRevision, updateRevision, collisionCount, pods)
	if err != nil && status == nil {
		return currentRevision, updateRevision, nil, err
	}
	statusErr := s.updateStatefulSetStatus(set, status)
	switch {
	case err != nil:
		return currentRevision, updateRevision, status, err
	case statusErr != nil:
		return currentRevision, updateRevision, status, statusErr
	}
	return currentRevision, updateRevision, status, nil
}

// truncateHistory deletes the oldest revisions that are neither current, update,
// nor any pod's, beyond revisionHistoryLimit.
func (s *statefulSetSync) truncateHistory(set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) error {
	live := map[string]bool{}
	if current != nil {
		live[current.Name] = true
	}
	if update != nil {
		live[update.Name] = true
	}
	for _, p := range pods {
		live[podRevision(p)] = true
	}
	var history []*appsv1.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			history = append(history, r)
		}
	}
	limit := int(*set.Spec.RevisionHistoryLimit)
	if limit < 0 || len(history) <= limit {
		return nil
	}
	for _, r := range history[:len(history)-limit] {
		if err := s.sc.Client.Delete(s.ctx, r.DeepCopy()); err != nil {
			return err
		}
	}
	return nil
}

// getStatefulSetRevisions finds or makes the update revision (a new one, or an
// equal older one rolled forward to the next revision number) and the current one.
func (s *statefulSetSync) getStatefulSetRevisions(set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, *appsv1.ControllerRevision, int32, error) {
	sortControllerRevisions(revisions)
	var collisionCount int32
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	updateRevision, err := newStatefulSetRevision(set, nextRevision(revisions), &collisionCount)
	if err != nil {
		return nil, nil, collisionCount, err
	}
	var equal []*appsv1.ControllerRevision
	for _, r := range revisions {
		if bytes.Equal(r.Data.Raw, updateRevision.Data.Raw) {
			equal = append(equal, r)
		}
	}
	n := len(revisions)
	switch {
	case len(equal) > 0 && bytes.Equal(revisions[n-1].Data.Raw, equal[len(equal)-1].Data.Raw):
		updateRevision = revisions[n-1]
	case len(equal) > 0:
		updateRevision, err = s.updateControllerRevision(equal[len(equal)-1], updateRevision.Revision)
		if err != nil {
			return nil, nil, collisionCount, err
		}
	default:
		updateRevision, err = s.createControllerRevision(set, updateRevision, &collisionCount)
		if err != nil {
			return nil, nil, collisionCount, err
		}
	}
	var currentRevision *appsv1.ControllerRevision
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			currentRevision = r
			break
		}
	}
	if currentRevision == nil {
		currentRevision = updateRevision
	}
	return currentRevision, updateRevision, collisionCount, nil
}

// createControllerRevision is realHistory.CreateControllerRevision: a name taken
// by a revision of other data raises the collision count and tries again.
func (s *statefulSetSync) createControllerRevision(set *appsv1.StatefulSet, revision *appsv1.ControllerRevision, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	clone := revision.DeepCopy()
	for {
		hash := hashControllerRevision(revision, collisionCount)
		clone.Name = controllerRevisionName(set.Name, hash)
		clone.Namespace = set.Namespace
		clone.ResourceVersion = ""
		err := s.sc.Client.Create(s.ctx, clone)
		if apierrors.IsAlreadyExists(err) {
			exists := &appsv1.ControllerRevision{}
			if err := s.sc.reader().Get(s.ctx, client.ObjectKeyFromObject(clone), exists); err != nil {
				return nil, err
			}
			if bytes.Equal(exists.Data.Raw, clone.Data.Raw) {
				return exists, nil
			}
			*collisionCount++
			continue
		}
		if err != nil {
			return nil, err
		}
		return clone, nil
	}
}

// updateControllerRevision is realHistory.UpdateControllerRevision: the revision
// number raised, retried on conflicts (retry.DefaultBackoff's 4 steps) with the
// cached copy.
func (s *statefulSetSync) updateControllerRevision(revision *appsv1.ControllerRevision, newRevision int64) (*appsv1.ControllerRevision, error) {
	clone := revision.DeepCopy()
	var err error
	for range 4 {
		if clone.Revision == newRevision {
			return clone, nil
		}
		clone.Revision = newRevision
		if err = s.sc.Client.Update(s.ctx, clone); err == nil {
			return clone, nil
		}
		if !apierrors.IsConflict(err) {
			return clone, err
		}
		fresh := &appsv1.ControllerRevision{}
		if getErr := s.sc.Client.Get(s.ctx, client.ObjectKeyFromObject(clone), fresh); getErr == nil {
			clone = fresh
		}
	}
	return clone, err
}

// updatePods is defaultStatefulSetControl.updateStatefulSet: it creates, fixes
// and deletes pods towards the target state and returns the status it saw.
func (s *statefulSetSync) updatePods(set *appsv1.StatefulSet, currentRevision, updateRevision *appsv1.ControllerRevision, collisionCount int32, pods []*corev1.Pod) (*appsv1.StatefulSetStatus, error) {
	currentSet, err := applyRevision(set, currentRevision)
	if err != nil {
		return nil, err
	}
	updateSet, err := applyRevision(set, updateRevision)
	if err != nil {
		return nil, err
	}
	if set.Spec.UpdateStrategy.Type == appsv1.RecreateStatefulSetStrategyType {
		// StatefulSetRecreateStrategy is off (alpha in v1.37).
		msg := fmt.Errorf("statefulset %s/%s uses Recreate strategy but feature gate %s is disabled", set.Namespace, set.Name, "StatefulSetRecreateStrategy")
		s.event(set, corev1.EventTypeWarning, "UnknownStrategy", msg.Error())
		return nil, msg
	}
	status := appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    currentRevision.Name,
		UpdateRevision:     updateRevision.Name,
		CollisionCount:     ptr.To(collisionCount),
	}
	status.Conditions = append(status.Conditions, set.Status.Conditions...)
	updateStatefulSetStatusCounts(&status, set.Spec.MinReadySeconds, currentRevision, updateRevision, s.now, pods)

	replicaCount := int(*set.Spec.Replicas)
	replicas := make([]*corev1.Pod, replicaCount)
	condemned := make([]*corev1.Pod, 0, len(pods))
	unavailable := 0
	var firstUnavailablePod *corev1.Pod
	for _, pod := range pods {
		if podInOrdinalRange(pod, set) {
			replicas[podOrdinal(pod)-startOrdinal(set)] = pod
		} else if podOrdinal(pod) >= 0 {
			condemned = append(condemned, pod)
		}
	}
	start, end := startOrdinal(set), endOrdinal(set)
	for ord := start; ord <= end; ord++ {
		if replicas[ord-start] == nil {
			replicas[ord-start] = newVersionedStatefulSetPod(currentSet, updateSet, currentRevision.Name, updateRevision.Name, ord)
		}
	}
	sort.SliceStable(condemned, func(i, j int) bool { return podOrdinal(condemned[i]) > podOrdinal(condemned[j]) })
	for _, p := range replicas {
		if isStatefulPodUnavailable(p, set.Spec.MinReadySeconds, s.now) {
			unavailable++
			if firstUnavailablePod == nil {
				firstUnavailablePod = p
			}
		}
	}
	for i := len(condemned) - 1; i >= 0; i-- {
		if isStatefulPodUnavailable(condemned[i], set.Spec.MinReadySeconds, s.now) {
			unavailable++
			if firstUnavailablePod == nil {
				firstUnavailablePod = condemned[i]
			}
		}
	}
	if set.DeletionTimestamp != nil {
		return &status, nil
	}
	monotonic := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	finish := func(err error) (*appsv1.StatefulSetStatus, error) {
		updateStatefulSetStatusCounts(&status, set.Spec.MinReadySeconds, currentRevision, updateRevision, s.now, replicas, condemned)
		return &status, err
	}

	if exit, err := runForAll(replicas, func(i int) (bool, error) { return s.processReplica(set, updateSet, monotonic, replicas, i) }, monotonic); exit || err != nil {
		return finish(err)
	}
	if exit, err := runForAll(condemned, func(i int) (bool, error) { // fixPodClaim
		if match, err := s.claimsMatchRetentionPolicy(updateSet, condemned[i]); err != nil {
			return true, err
		} else if !match {
			if err := s.updatePodClaimForRetentionPolicy(updateSet, condemned[i]); err != nil {
				return true, err
			}
		}
		return false, nil
	}, monotonic); exit || err != nil {
		return finish(err)
	}
	if exit, err := runForAll(condemned, func(i int) (bool, error) {
		return s.processCondemned(set, firstUnavailablePod, monotonic, condemned, i)
	}, monotonic); exit || err != nil {
		return finish(err)
	}
	updateStatefulSetStatusCounts(&status, set.Spec.MinReadySeconds, currentRevision, updateRevision, s.now, replicas, condemned)

	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return &status, nil
	}
	return s.rollingUpdate(set, replicas, updateRevision, status)
}

// rollingUpdate is updateStatefulSetAfterInvariantEstablished (the
// MaxUnavailableStatefulSet path): pods of an old revision at or above the
// partition are deleted from the highest ordinal down, within maxUnavailable.
func (s *statefulSetSync) rollingUpdate(set *appsv1.StatefulSet, replicas []*corev1.Pod, updateRevision *appsv1.ControllerRevision, status appsv1.StatefulSetStatus) (*appsv1.StatefulSetStatus, error) {
	replicaCount := int(*set.Spec.Replicas)
	updateMin := 0
	maxUnavailable := 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		updateMin = int(*ru.Partition)
		var err error
		if maxUnavailable, err = statefulSetMaxUnavailable(ru.MaxUnavailable, replicaCount); err != nil {
			return &status, err
		}
	}
	minReady := set.Spec.MinReadySeconds
	parallel := set.Spec.PodManagementPolicy == appsv1.ParallelPodManagement
	unavailablePods, unavailableNeedingUpdate := 0, 0
	for target := len(replicas) - 1; target >= 0; target-- {
		pod := replicas[target]
		if isStatefulPodUnavailable(pod, minReady, s.now) {
			unavailablePods++
			if parallel && podRevision(pod) != updateRevision.Name && pod.DeletionTimestamp == nil {
				unavailableNeedingUpdate++
			}
		}
	}
	if unavailablePods >= maxUnavailable && unavailableNeedingUpdate == 0 {
		return &status, nil
	}
	del := func(pod *corev1.Pod) error {
		if err := s.deleteStatefulPod(set, pod); err != nil {
			return err
		}
		status.CurrentReplicas--
		return nil
	}
	if parallel {
		// Phase 1: the old pods that are already unavailable.
		for target := len(replicas) - 1; target >= updateMin; target-- {
			pod := replicas[target]
			if podRevision(pod) != updateRevision.Name && !isPodAvailable(pod, minReady, s.now) && pod.DeletionTimestamp == nil {
				if err := del(pod); err != nil {
					return &status, err
				}
			}
		}
		// Phase 2: available ones, within the remaining budget.
		budget := maxUnavailable - unavailablePods
		for target := len(replicas) - 1; target >= updateMin && budget > 0; target-- {
			pod := replicas[target]
			if podRevision(pod) != updateRevision.Name && !isStatefulPodUnavailable(pod, minReady, s.now) {
				if err := del(pod); err != nil {
					return &status, err
				}
				budget--
			}
		}
		return &status, nil
	}
	toDelete := maxUnavailable - unavailablePods
	deleted := 0
	for target := len(replicas) - 1; target >= updateMin && deleted < toDelete; target-- {
		if podRevision(replicas[target]) != updateRevision.Name && replicas[target].DeletionTimestamp == nil {
			if err := del(replicas[target]); err != nil {
				return &status, err
			}
			deleted++
		}
	}
	return &status, nil
}

// processReplica brings the replica of index i to life and to its identity; in
// monotonic mode it stops at the first one not yet Running, Ready and available.
func (s *statefulSetSync) processReplica(set, updateSet *appsv1.StatefulSet, monotonic bool, replicas []*corev1.Pod, i int) (bool, error) {
	pod := replicas[i]
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		if pod.DeletionTimestamp == nil {
			if err := s.deleteStatefulPod(set, pod); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	if !isStatefulPodCreated(pod) {
		if stale, err := s.podClaimIsStale(set, pod); err != nil || stale {
			return true, err
		}
		if err := s.createStatefulPod(set, pod); err != nil {
			return true, err
		}
		if monotonic {
			return true, nil
		}
	}
	if pod.Status.Phase == corev1.PodPending {
		if err := s.createMissingPersistentVolumeClaims(set, pod); err != nil {
			return true, err
		}
	}
	if pod.DeletionTimestamp != nil && monotonic {
		return true, nil
	}
	if !isRunningAndReady(pod) && monotonic {
		return true, nil
	}
	if !isPodAvailable(pod, set.Spec.MinReadySeconds, s.now) && monotonic {
		return true, nil
	}
	retentionMatch, err := s.claimsMatchRetentionPolicy(updateSet, pod)
	if err != nil {
		retentionMatch = true // expected while the pod is not fully updated
	}
	if identityMatches(set, pod) && storageMatches(set, pod) && retentionMatch {
		return false, nil
	}
	if err := s.updateStatefulPod(updateSet, pod.DeepCopy()); err != nil {
		return true, err
	}
	return false, nil
}

// processCondemned deletes a pod beyond the replicas; in monotonic mode only once
// every pod before it is healthy, one at a time.
func (s *statefulSetSync) processCondemned(set *appsv1.StatefulSet, firstUnhealthy *corev1.Pod, monotonic bool, condemned []*corev1.Pod, i int) (bool, error) {
	pod := condemned[i]
	if pod.DeletionTimestamp != nil {
		return monotonic, nil
	}
	if !isRunningAndReady(pod) && monotonic && pod != firstUnhealthy {
		return true, nil
	}
	if !isPodAvailable(pod, set.Spec.MinReadySeconds, s.now) && monotonic && pod != firstUnhealthy {
		return true, nil
	}
	return true, s.deleteStatefulPod(set, pod)
}

// runForAll runs fn over pods: in order, stopping at the first exit or error
// (monotonic), or in slow-start batches (1, 2, 4, ...) that stop after a batch
// with an error. A batch's calls run one after the other (upstream: goroutines).
func runForAll(pods []*corev1.Pod, fn func(i int) (bool, error), monotonic bool) (bool, error) {
	if monotonic {
		for i := range pods {
			if exit, err := fn(i); exit || err != nil {
				return true, err
			}
		}
		return false, nil
	}
	j := 0
	remaining := len(pods)
	for batch := min(remaining, 1); batch > 0; batch = min(2*batch, remaining, 500) {
		var errs []error
		for range batch {
			if _, err := fn(j); err != nil {
				errs = append(errs, err)
			}
			j++
		}
		if len(errs) > 0 {
			if len(errs) == 1 {
				return true, errs[0]
			}
			return true, fmt.Errorf("%v", errs)
		}
		remaining -= batch
	}
	return false, nil
}

// createStatefulPod is StatefulPodControl.CreateStatefulPod: the claims, the pod
// (a copy: as upstream's, the replica keeps no phase, uid or resourceVersion of
// the created pod for the rest of the sync), the claims' references.
func (s *statefulSetSync) createStatefulPod(set *appsv1.StatefulSet, pod *corev1.Pod) error {
	if err := s.createPersistentVolumeClaims(set, pod); err != nil {
		s.recordPodEvent("create", set, pod, err)
		return err
	}
	err := s.sc.Client.Create(s.ctx, pod.DeepCopy())
	if apierrors.IsAlreadyExists(err) {
		return err
	}
	if err := s.updatePodClaimForRetentionPolicy(set, pod); err != nil {
		s.recordPodEvent("update", set, pod, err)
		return err
	}
	s.recordPodEvent("create", set, pod, err)
	return err
}

// updateStatefulPod is StatefulPodControl.UpdateStatefulPod: the identity labels
// and the claims' volumes restored, retried on conflicts with the cached pod.
func (s *statefulSetSync) updateStatefulPod(set *appsv1.StatefulSet, pod *corev1.Pod) error {
	attempted := false
	var err error
	for range 4 { // retry.DefaultBackoff
		consistent := true
		if !identityMatches(set, pod) {
			updateIdentity(set, pod)
			consistent = false
		}
		if !storageMatches(set, pod) {
			updateStorage(set, pod)
			consistent = false
			if err = s.createPersistentVolumeClaims(set, pod); err != nil {
				s.recordPodEvent("update", set, pod, err)
				return err
			}
		}
		if match, merr := s.claimsMatchRetentionPolicy(set, pod); merr != nil {
			s.recordPodEvent("update", set, pod, merr)
			return merr
		} else if !match {
			if err = s.updatePodClaimForRetentionPolicy(set, pod); err != nil {
				s.recordPodEvent("update", set, pod, err)
				return err
			}
			consistent = false
		}
		if consistent {
			err = nil
			break
		}
		attempted = true
		if err = s.sc.Client.Update(s.ctx, pod); err == nil || !apierrors.IsConflict(err) {
			break
		}
		fresh := &corev1.Pod{}
		if getErr := s.sc.Client.Get(s.ctx, client.ObjectKeyFromObject(pod), fresh); getErr == nil {
			pod = fresh
		}
	}
	if attempted {
		s.recordPodEvent("update", set, pod, err)
	}
	return err
}

// deleteStatefulPod is StatefulPodControl.DeleteStatefulPod.
func (s *statefulSetSync) deleteStatefulPod(set *appsv1.StatefulSet, pod *corev1.Pod) error {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}}
	if err := s.sc.Client.Delete(s.ctx, p); err != nil && !apierrors.IsNotFound(err) {
		s.recordPodEvent("delete", set, pod, err)
		return err
	}
	s.recordPodEvent("delete", set, pod, nil)
	return nil
}

// updateStatefulSetStatus is updateStatefulSetStatus and
// realStatefulSetStatusUpdater: completeUpdate, then a status update when
// inconsistentStatus, retried on conflicts (retry.DefaultRetry's 5 steps) with
// the cached set.
func (s *statefulSetSync) updateStatefulSetStatus(set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) error {
	completeUpdate(set, status)
	if !inconsistentStatus(set, status) {
		return nil
	}
	u := s.stored.DeepCopy()
	var err error
	for range 5 {
		u.Status = *status
		if err = s.sc.Client.Status().Update(s.ctx, u); err == nil || !apierrors.IsConflict(err) {
			return err
		}
		fresh := &appsv1.StatefulSet{}
		if getErr := s.sc.Client.Get(s.ctx, client.ObjectKeyFromObject(u), fresh); getErr == nil {
			u = fresh
		}
	}
	return err
}

// updateStatefulSetStatusCounts is updateStatus (computeReplicaStatus over lists).
func updateStatefulSetStatusCounts(status *appsv1.StatefulSetStatus, minReadySeconds int32, current, update *appsv1.ControllerRevision, now time.Time, lists ...[]*corev1.Pod) {
	status.Replicas, status.ReadyReplicas, status.AvailableReplicas, status.CurrentReplicas, status.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, list := range lists {
		for _, pod := range list {
			if isStatefulPodCreated(pod) {
				status.Replicas++
			}
			if isRunningAndReady(pod) {
				status.ReadyReplicas++
				if isPodAvailable(pod, minReadySeconds, now) {
					status.AvailableReplicas++
				}
			}
			if isStatefulPodCreated(pod) && pod.DeletionTimestamp == nil {
				rev := podRevision(pod)
				if rev == current.Name {
					status.CurrentReplicas++
				}
				if rev == update.Name {
					status.UpdatedReplicas++
				}
			}
		}
	}
}

// completeUpdate: once every replica is updated and ready, the update revision
// becomes the current one.
func completeUpdate(set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) {
	want := *set.Spec.Replicas
	if status.UpdatedReplicas == want && status.ReadyReplicas == want && status.Replicas == want {
		status.CurrentReplicas = status.UpdatedReplicas
		status.CurrentRevision = status.UpdateRevision
	}
}

// inconsistentStatus is inconsistentStatus (collisionCount alone does not make a
// write).
func inconsistentStatus(set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) bool {
	return status.ObservedGeneration > set.Status.ObservedGeneration ||
		status.Replicas != set.Status.Replicas ||
		status.CurrentReplicas != set.Status.CurrentReplicas ||
		status.ReadyReplicas != set.Status.ReadyReplicas ||
		status.UpdatedReplicas != set.Status.UpdatedReplicas ||
		status.CurrentRevision != set.Status.CurrentRevision ||
		status.AvailableReplicas != set.Status.AvailableReplicas ||
		status.UpdateRevision != set.Status.UpdateRevision ||
		!reflect.DeepEqual(set.Status.Conditions, status.Conditions)
}

// statefulSetMaxUnavailable is getStatefulSetMaxUnavailable: maxUnavailable of
// the replicas (default 1, percentages rounded down), at least 1.
func statefulSetMaxUnavailable(v *intstr.IntOrString, replicas int) (int, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(v, intstr.FromInt32(1)), replicas, false)
	if err != nil {
		return 0, err
	}
	return max(n, 1), nil
}

// statefulPodRegex is statefulPodRegex: the parent and the ordinal of a pod's name.
var statefulPodRegex = regexp.MustCompile("(.*)-([0-9]+)$")

// parentAndOrdinal is getParentNameAndOrdinal.
func parentAndOrdinal(pod *corev1.Pod) (string, int) {
	m := statefulPodRegex.FindStringSubmatch(pod.Name)
	if len(m) < 3 {
		return "", -1
	}
	ordinal := -1
	if i, err := strconv.ParseInt(m[2], 10, 32); err == nil {
		ordinal = int(i)
	}
	return m[1], ordinal
}

func podOrdinal(pod *corev1.Pod) int {
	_, o := parentAndOrdinal(pod)
	return o
}

func startOrdinal(set *appsv1.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

func endOrdinal(set *appsv1.StatefulSet) int { return startOrdinal(set) + int(*set.Spec.Replicas) - 1 }

func podInOrdinalRange(pod *corev1.Pod, set *appsv1.StatefulSet) bool {
	o := podOrdinal(pod)
	return o >= startOrdinal(set) && o <= endOrdinal(set)
}

// statefulPodName is getPodName.
func statefulPodName(set *appsv1.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

// claimName is getPersistentVolumeClaimName.
func claimName(set *appsv1.StatefulSet, claim *corev1.PersistentVolumeClaim, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", claim.Name, set.Name, ordinal)
}

func isMemberOf(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, _ := parentAndOrdinal(pod)
	return parent == set.Name
}

func identityMatches(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, ordinal := parentAndOrdinal(pod)
	return ordinal >= 0 && set.Name == parent && pod.Name == statefulPodName(set, ordinal) &&
		pod.Namespace == set.Namespace && pod.Labels[appsv1.StatefulSetPodNameLabel] == pod.Name
}

func storageMatches(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	ordinal := podOrdinal(pod)
	if ordinal < 0 {
		return false
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	for i := range set.Spec.VolumeClaimTemplates {
		claim := &set.Spec.VolumeClaimTemplates[i]
		v, ok := volumes[claim.Name]
		if !ok || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claimName(set, claim, ordinal) {
			return false
		}
	}
	return true
}

// updateStorage is updateStorage: a volume per claim template (in the templates'
// order; upstream ranges over a map), then the pod's other volumes.
func updateStorage(set *appsv1.StatefulSet, pod *corev1.Pod) {
	ordinal := podOrdinal(pod)
	templates := map[string]bool{}
	volumes := make([]corev1.Volume, 0, len(set.Spec.VolumeClaimTemplates))
	for i := range set.Spec.VolumeClaimTemplates {
		claim := &set.Spec.VolumeClaimTemplates[i]
		templates[claim.Name] = true
		volumes = append(volumes, corev1.Volume{Name: claim.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName(set, claim, ordinal)},
		}})
	}
	for _, v := range pod.Spec.Volumes {
		if !templates[v.Name] {
			volumes = append(volumes, v)
		}
	}
	pod.Spec.Volumes = volumes
}

// updateIdentity is updateIdentity: name, namespace and the identity labels.
func updateIdentity(set *appsv1.StatefulSet, pod *corev1.Pod) {
	ordinal := podOrdinal(pod)
	pod.Name = statefulPodName(set, ordinal)
	pod.Namespace = set.Namespace
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
}

func isRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && isPodReady(pod)
}

// isStatefulPodCreated is isCreated: the apiserver has given it a phase.
func isStatefulPodCreated(pod *corev1.Pod) bool { return pod.Status.Phase != "" }

// isStatefulPodUnavailable is isUnavailable.
func isStatefulPodUnavailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	return !isPodAvailable(pod, minReadySeconds, now) || pod.DeletionTimestamp != nil
}

// podRevision is getPodRevision.
func podRevision(pod *corev1.Pod) string { return pod.Labels[appsv1.StatefulSetRevisionLabel] }

// newStatefulSetPod is newStatefulSetPod: GetPodFromTemplate (generateName
// "<set>-" and the controller reference included), the name of the ordinal,
// initIdentity (hostname, subdomain) and the claims' volumes.
func newStatefulSetPod(set *appsv1.StatefulSet, ordinal int) *corev1.Pod {
	pod := podFromTemplate(&set.Spec.Template, set, metav1.NewControllerRef(set, statefulSetKind))
	pod.Name = statefulPodName(set, ordinal)
	updateIdentity(set, pod)
	pod.Spec.Hostname = pod.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
	updateStorage(set, pod)
	return pod
}

// newVersionedStatefulSetPod is newVersionedStatefulSetPod: ordinals below the
// partition get the current revision, the others the update revision (with
// upstream's operator precedence).
func newVersionedStatefulSetPod(currentSet, updateSet *appsv1.StatefulSet, currentRevision, updateRevision string, ordinal int) *corev1.Pod {
	ru := currentSet.Spec.UpdateStrategy.RollingUpdate
	if currentSet.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		(ru == nil && ordinal < startOrdinal(currentSet)+int(currentSet.Status.CurrentReplicas)) ||
		(ru != nil && ordinal < startOrdinal(currentSet)+int(*ru.Partition)) {
		pod := newStatefulSetPod(currentSet, ordinal)
		pod.Labels[appsv1.StatefulSetRevisionLabel] = currentRevision
		return pod
	}
	pod := newStatefulSetPod(updateSet, ordinal)
	pod.Labels[appsv1.StatefulSetRevisionLabel] = updateRevision
	return pod
}

// statefulSetPatch is getPatch: the set's JSON cut down to spec.template, with
// "$patch": "replace" so that applying it replaces the whole template.
func statefulSetPatch(set *appsv1.StatefulSet) ([]byte, error) {
	data, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	template := raw["spec"].(map[string]any)["template"].(map[string]any)
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// newStatefulSetRevision is newRevision and history.NewControllerRevision: the
// template labels plus the hash label, the set's annotations, the controller
// reference, named "<set>-<hash>".
func newStatefulSetRevision(set *appsv1.StatefulSet, revision int64, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	patch, err := statefulSetPatch(set)
	if err != nil {
		return nil, err
	}
	lbls := map[string]string{}
	for k, v := range set.Spec.Template.Labels { // lint:order-independent copied into a map
		lbls[k] = v
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       set.Namespace,
			Labels:          lbls,
			Annotations:     map[string]string{},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, statefulSetKind)},
		},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: revision,
	}
	hash := hashControllerRevision(cr, collisionCount)
	cr.Name = controllerRevisionName(set.Name, hash)
	cr.Labels[ControllerRevisionHashLabel] = hash
	for k, v := range set.Annotations { // lint:order-independent copied into a map
		cr.Annotations[k] = v
	}
	return cr, nil
}

// hashControllerRevision is history.HashControllerRevision: fnv32 (not 32a) of
// the data and the decimal collision count.
func hashControllerRevision(r *appsv1.ControllerRevision, probe *int32) string {
	h := fnv.New32()
	if len(r.Data.Raw) > 0 {
		h.Write(r.Data.Raw)
	}
	if probe != nil {
		h.Write([]byte(strconv.FormatInt(int64(*probe), 10)))
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// controllerRevisionName is history.ControllerRevisionName.
func controllerRevisionName(prefix, hash string) string {
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash
}

// applyRevision is ApplyRevision: set with the spec restored from revision's
// strategic merge patch.
func applyRevision(set *appsv1.StatefulSet, revision *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	clone := set.DeepCopy()
	original, err := json.Marshal(clone)
	if err != nil {
		return nil, err
	}
	patched, err := strategicpatch.StrategicMergePatch(original, revision.Data.Raw, &appsv1.StatefulSet{})
	if err != nil {
		return nil, err
	}
	restored := &appsv1.StatefulSet{}
	if err := json.Unmarshal(patched, restored); err != nil {
		return nil, err
	}
	clone.Spec = restored.Spec
	return clone, nil
}

// nextRevision is nextRevision: one more than the last (sorted) revision's.
func nextRevision(revisions []*appsv1.ControllerRevision) int64 {
	if len(revisions) == 0 {
		return 1
	}
	return revisions[len(revisions)-1].Revision + 1
}

// sortControllerRevisions is history.SortControllerRevisions: by revision, then
// creation time, then name.
func sortControllerRevisions(rs []*appsv1.ControllerRevision) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Revision == b.Revision {
			if b.CreationTimestamp.Equal(&a.CreationTimestamp) {
				return a.Name < b.Name
			}
			return b.CreationTimestamp.After(a.CreationTimestamp.Time)
		}
		return a.Revision < b.Revision
	})
}
