package kube

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/dump"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// This file holds what the workload controllers share, from
// k8s.io/kubernetes@v1.37.1 pkg/controller/controller_utils.go and
// pkg/api/v1/pod/util.go.

// Event reasons of RealPodControl (controller_utils.go).
const (
	FailedCreatePodReason     = "FailedCreate"
	SuccessfulCreatePodReason = "SuccessfulCreate"
	FailedDeletePodReason     = "FailedDelete"
	SuccessfulDeletePodReason = "SuccessfulDelete"
)

// ExpectationsTimeout is how long a controller waits for the events of its own
// creations and deletions before it syncs regardless (controller_utils.go).
const ExpectationsTimeout = 5 * time.Minute

// expectations is ControllerExpectations: per controller key, the pod creations
// and deletions the controller made and has not yet seen in its cache. A
// controller whose expectations are not satisfied does not create or delete
// (so that a lagging cache does not make it create twice).
type expectations struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	m     map[string]*expectation
}

type expectation struct {
	add, del int
	at       time.Time
}

func newExpectations(c clock.PassiveClock) *expectations {
	return &expectations{clock: c, m: map[string]*expectation{}}
}

// satisfied is SatisfiedExpectations: no record, fulfilled, or expired.
func (e *expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.m[key]
	if !ok {
		return true
	}
	if x.add <= 0 && x.del <= 0 {
		return true
	}
	return e.clock.Since(x.at) > ExpectationsTimeout
}

// expect is SetExpectations (ExpectCreations, ExpectDeletions).
func (e *expectations) expect(key string, add, del int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[key] = &expectation{add: add, del: del, at: e.clock.Now()}
}

// observed lowers the expectations of key (CreationObserved, DeletionObserved,
// and the decrements after a failed call).
func (e *expectations) observed(key string, add, del int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.m[key]; ok {
		x.add -= add
		x.del -= del
	}
}

func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}

// keyOf is controller.KeyFunc.
func keyOf(namespace, name string) string { return namespace + "/" + name }

// podFromTemplate is GetPodFromTemplate: labels, annotations and finalizers of
// the template, generateName "<owner>-", the controller reference, the spec.
func podFromTemplate(t *corev1.PodTemplateSpec, owner metav1.Object, ref *metav1.OwnerReference) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:    owner.GetNamespace(),
		Labels:       map[string]string{},
		Annotations:  map[string]string{},
		GenerateName: owner.GetName() + "-",
		Finalizers:   append([]string{}, t.Finalizers...),
	}}
	for k, v := range t.Labels { // lint:order-independent copied into a map
		pod.Labels[k] = v
	}
	for k, v := range t.Annotations { // lint:order-independent copied into a map
		pod.Annotations[k] = v
	}
	if ref != nil {
		pod.OwnerReferences = append(pod.OwnerReferences, *ref)
	}
	pod.Spec = *t.Spec.DeepCopy()
	return pod
}

// podControl is RealPodControl: pod creations and deletions with their events.
type podControl struct {
	c        client.Client
	recorder record.EventRecorder
}

func (pc podControl) event(obj client.Object, typ, reason, format string, args ...any) {
	if pc.recorder != nil {
		pc.recorder.Eventf(obj, typ, reason, format, args...)
	}
}

// create is createPods.
func (pc podControl) create(ctx context.Context, pod *corev1.Pod, owner client.Object) error {
	if len(pod.Labels) == 0 {
		return fmt.Errorf("unable to create pods, no labels")
	}
	if err := pc.c.Create(ctx, pod); err != nil {
		if !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			pc.event(owner, corev1.EventTypeWarning, FailedCreatePodReason, "Error creating: %v", err)
		}
		return err
	}
	pc.event(owner, corev1.EventTypeNormal, SuccessfulCreatePodReason, "Created pod: %v", pod.Name)
	return nil
}

// delete is DeletePod.
func (pc podControl) delete(ctx context.Context, pod *corev1.Pod, owner client.Object) error {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}}
	if err := pc.c.Delete(ctx, p); err != nil {
		if apierrors.IsNotFound(err) {
			return err
		}
		pc.event(owner, corev1.EventTypeWarning, FailedDeletePodReason, "Error deleting: %v", err)
		return fmt.Errorf("unable to delete pods: %v", err)
	}
	pc.event(owner, corev1.EventTypeNormal, SuccessfulDeletePodReason, "Deleted pod: %v", pod.Name)
	return nil
}

// slowStartBatch is the replicaset controller's slowStartBatch: calls fn count
// times in batches of 1, 2, 4, ..., stopping after the first batch with an
// error; it returns the successes. Calls of a batch run one after the other
// (upstream runs them in parallel goroutines).
func slowStartBatch(count, initial int, fn func() error) (int, error) {
	remaining := count
	successes := 0
	for batch := min(remaining, initial); batch > 0; batch = min(2*batch, remaining) {
		var firstErr error
		for i := 0; i < batch; i++ {
			if err := fn(); err != nil {
				if firstErr == nil {
					firstErr = err
				}
			} else {
				successes++
			}
		}
		if firstErr != nil {
			return successes, firstErr
		}
		remaining -= batch
	}
	return successes, nil
}

// isPodActive is controller.IsPodActive.
func isPodActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

// isPodTerminating is controller.IsPodTerminating.
func isPodTerminating(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp != nil
}

// podReadyCondition is GetPodReadyCondition.
func podReadyCondition(s corev1.PodStatus) *corev1.PodCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == corev1.PodReady {
			return &s.Conditions[i]
		}
	}
	return nil
}

// isPodReady is podutil.IsPodReady.
func isPodReady(p *corev1.Pod) bool {
	c := podReadyCondition(p.Status)
	return c != nil && c.Status == corev1.ConditionTrue
}

// isPodAvailable is podutil.IsPodAvailable.
func isPodAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	if !isPodReady(p) {
		return false
	}
	c := podReadyCondition(p.Status)
	d := time.Duration(minReadySeconds) * time.Second
	return minReadySeconds == 0 || (!c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(d).Compare(now) <= 0)
}

// nextAvailabilityCheck is FindMinNextPodAvailabilityCheck: the time until the
// first ready pod becomes available, if any.
func nextAvailabilityCheck(pods []*corev1.Pod, minReadySeconds int32, now time.Time) *time.Duration {
	var out *time.Duration
	for _, p := range pods {
		if !isPodReady(p) || isPodAvailable(p, minReadySeconds, now) {
			continue
		}
		c := podReadyCondition(p.Status)
		if c.LastTransitionTime.IsZero() {
			continue
		}
		d := c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Sub(now)
		if out == nil || d < *out {
			out = &d
		}
	}
	return out
}

var podPhaseOrdinal = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// activePodsLess is controller.ActivePods.Less: the pods to delete first come
// first (unassigned, pending, not ready, ready for less time, more restarts,
// newer).
func activePodsLess(a, b *corev1.Pod) bool {
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if podPhaseOrdinal[a.Status.Phase] != podPhaseOrdinal[b.Status.Phase] {
		return podPhaseOrdinal[a.Status.Phase] < podPhaseOrdinal[b.Status.Phase]
	}
	if isPodReady(a) != isPodReady(b) {
		return !isPodReady(a)
	}
	if isPodReady(a) && isPodReady(b) {
		ta, tb := podReadyCondition(a.Status).LastTransitionTime, podReadyCondition(b.Status).LastTransitionTime
		if !ta.Equal(&tb) {
			return afterOrZero(&ta, &tb)
		}
	}
	ra, rb := maxRestarts(a), maxRestarts(b)
	if ra != rb {
		return ra > rb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return afterOrZero(&a.CreationTimestamp, &b.CreationTimestamp)
	}
	return false
}

func afterOrZero(t1, t2 *metav1.Time) bool {
	if t1.Time.IsZero() || t2.Time.IsZero() {
		return t1.Time.IsZero()
	}
	return t1.After(t2.Time)
}

func maxRestarts(p *corev1.Pod) int32 {
	var m int32
	for _, s := range p.Status.ContainerStatuses {
		m = max(m, s.RestartCount)
	}
	return m
}

// sortActivePods sorts pods as sort.Sort(controller.ActivePods(pods)), stably
// so that ties keep the cache's order.
func sortActivePods(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool { return activePodsLess(pods[i], pods[j]) })
}

// computeHash is controller.ComputeHash: fnv32a of the template's dump, and
// the collision count.
func computeHash(t *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	h.Reset()
	fmt.Fprintf(h, "%v", dump.ForHash(*t))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// controllerOf is metav1.GetControllerOf.
func controllerOf(obj metav1.Object) *metav1.OwnerReference {
	return metav1.GetControllerOf(obj)
}

// enqueueOwner maps obj to the request of its controller of the given kind.
func ownerRequest(obj metav1.Object, apiVersion, kind string) (reconcile.Request, bool) {
	ref := controllerOf(obj)
	if ref == nil || ref.Kind != kind || ref.APIVersion != apiVersion {
		return reconcile.Request{}, false
	}
	return reconcile.Request{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: ref.Name}}, true
}

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
