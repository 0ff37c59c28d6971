package kube

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Job controller constants (pkg/controller/job/job_controller.go).
const (
	// DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff bound the delay
	// before a failed pod is replaced.
	DefaultJobPodFailureBackOff = 10 * time.Second
	MaxJobPodFailureBackOff     = 10 * time.Minute
	// MaxUncountedPods bounds status.uncountedTerminatedPods.
	MaxUncountedPods = 500
	// MaxPodCreateDeletePerSync bounds the pods created or deleted per sync.
	MaxPodCreateDeletePerSync = 500
	// ConcurrentJobSyncs is kube-controller-manager's default
	// --concurrent-job-syncs.
	ConcurrentJobSyncs = 5
)

// JobController is kube-controller-manager's job controller
// (k8s.io/kubernetes@v1.37.1 pkg/controller/job/job_controller.go: syncJob,
// manageJob, trackJobStatusAndRemoveFinalizers,
// flushUncountedAndRemoveFinalizers, enactJobFinished; backoff_utils.go;
// indexed_job_utils.go) for NonIndexed and Indexed Jobs (with
// backoffLimitPerIndex): pods for parallelism and completions with the
// batch.kubernetes.io/job-tracking finalizer, finished pods counted through
// status.uncountedTerminatedPods before their finalizer is removed,
// status active, ready, terminating, succeeded, failed, startTime and
// completionTime, the pod failure back-off (10s doubling to 10m), the
// conditions SuccessCriteriaMet then Complete (CompletionsReached), and
// FailureTarget then Failed (BackoffLimitExceeded, DeadlineExceeded), with
// upstream's events.
type JobController struct {
	// Client reads from the cache (the listers) and writes.
	Client client.Client
	// Clock gives the times of the status and of the back-off.
	Clock clock.Clock
	// Recorder, if set, records upstream's events.
	Recorder record.EventRecorder

	exp     *expectations
	mu      sync.Mutex
	backoff map[string]backoffRecord
}

type backoffRecord struct {
	failuresAfterLastSuccess int32
	lastFailureTime          *time.Time
}

// Controllers describes the controllers SetupWithManager registers: "job"
// watches Jobs and their pods; "job-orphan-pod" (upstream's orphanQueue)
// removes the tracking finalizer of pods whose Job is gone or finished.
func (jc *JobController) Controllers() []Controller {
	jc.exp = newExpectations(jc.Clock)
	jc.backoff = map[string]backoffRecord{}
	return []Controller{{
		Name: "job",
		Watches: []Watch{
			{Object: &batchv1.Job{}, Handler: &handler.EnqueueRequestForObject{}},
			{Object: &corev1.Pod{}, Handler: podOwnerHandler(jc.exp, "batch/v1", "Job")},
		},
		Workers:    ConcurrentJobSyncs,
		Reconciler: jc,
	}, {
		Name: "job-orphan-pod",
		Watches: []Watch{
			{Object: &corev1.Pod{}, Handler: handler.EnqueueRequestsFromMapFunc(trackedPod)},
			{Object: &batchv1.Job{}, Handler: handler.EnqueueRequestsFromMapFunc(jc.podsOfJob)},
		},
		Workers:    1,
		Reconciler: reconcile.Func(jc.syncOrphanPod),
	}}
}

// trackedPod queues a pod that has the tracking finalizer (enqueueOrphanPod's
// callers filter further; syncOrphanPod decides).
func trackedPod(_ context.Context, obj client.Object) []reconcile.Request {
	if !slices.Contains(obj.GetFinalizers(), batchv1.JobTrackingFinalizer) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(obj)}}
}

// podsOfJob queues the pods of a job that is deleted or finished
// (enqueueLabelSelector, the finished job's pods).
func (jc *JobController) podsOfJob(ctx context.Context, obj client.Object) []reconcile.Request {
	live := &batchv1.Job{}
	if err := jc.Client.Get(ctx, client.ObjectKeyFromObject(obj), live); err == nil && live.UID == obj.GetUID() &&
		live.DeletionTimestamp == nil && !jobFinished(live) {
		return nil
	}
	pods, err := ownedPods(ctx, jc.Client, obj.GetNamespace(), obj)
	if err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, p := range pods {
		if hasTrackingFinalizer(p) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)})
		}
	}
	return out
}

// syncOrphanPod is handleSingleOrphanPod: a pod whose controlling Job is gone
// or finished loses its tracking finalizer.
func (jc *JobController) syncOrphanPod(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := jc.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !hasTrackingFinalizer(pod) {
		return reconcile.Result{}, nil
	}
	if ref := controllerOf(pod); ref != nil {
		if ref.Kind != "Job" || ref.APIVersion != "batch/v1" {
			return reconcile.Result{}, nil
		}
		job := &batchv1.Job{}
		err := jc.Client.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: ref.Name}, job)
		switch {
		case err == nil && job.UID == ref.UID:
			if job.Spec.ManagedBy != nil && *job.Spec.ManagedBy != "kubernetes.io/job-controller" {
				return reconcile.Result{}, nil
			}
			if !jobFinished(job) {
				return reconcile.Result{}, nil
			}
		case err != nil && !apierrors.IsNotFound(err):
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, client.IgnoreNotFound(jc.removeFinalizer(ctx, pod))
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (jc *JobController) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, jc.Controllers())
}

// jobSync is one syncJob's jobCtx.
type jobSync struct {
	job                  *batchv1.Job
	pods, activePods     []*corev1.Pod
	ready, terminating   int32
	succeeded, failed    int32
	uncountedSucceeded   map[types.UID]bool
	uncountedFailed      map[types.UID]bool
	finishedCondition    *batchv1.JobCondition
	newBackoff           backoffRecord
	requeue              time.Duration
	completions          *int32
	parallelism, limit   int32
	satisfiedExpectation bool
	// Indexed Jobs: the completed indexes of the status, and with those of
	// the succeeded pods not yet counted.
	prevSucceededIndexes, succeededIndexes orderedIntervals
	// backoffLimitPerIndex: the failed indexes, and the last failed pod of
	// each index that waits for its replacement (its finalizer kept).
	failedIndexes *orderedIntervals
	delayed       map[int]*corev1.Pod
}

func (jc *JobController) now() time.Time { return jc.Clock.Now() }

func (jc *JobController) event(obj client.Object, typ, reason, format string, args ...any) {
	if jc.Recorder != nil {
		jc.Recorder.Eventf(obj, typ, reason, format, args...)
	}
}

// Reconcile is syncJob.
func (jc *JobController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	shared := &batchv1.Job{}
	if err := jc.Client.Get(ctx, req.NamespacedName, shared); err != nil {
		if apierrors.IsNotFound(err) {
			jc.exp.forget(key)
			jc.mu.Lock()
			delete(jc.backoff, key)
			jc.mu.Unlock()
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if shared.Spec.ManagedBy != nil && *shared.Spec.ManagedBy != "kubernetes.io/job-controller" {
		return reconcile.Result{}, nil
	}
	job := shared.DeepCopy()
	if jobFinished(job) {
		jc.mu.Lock()
		delete(jc.backoff, key)
		jc.mu.Unlock()
		return reconcile.Result{}, nil
	}
	if isIndexedJob(job) && job.Spec.Completions == nil {
		return reconcile.Result{}, nil // validation refuses it
	}
	if job.Status.UncountedTerminatedPods == nil {
		job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	s := &jobSync{job: job, satisfiedExpectation: jc.exp.satisfied(key), limit: 6, parallelism: 1, completions: job.Spec.Completions}
	// SetDefaults_Job's values where a field is nil (the apiserver model
	// defaults Jobs; a Job given to the model another way may not be).
	if job.Spec.BackoffLimit != nil {
		s.limit = *job.Spec.BackoffLimit
	} else if job.Spec.BackoffLimitPerIndex != nil {
		s.limit = math.MaxInt32
	}
	if job.Spec.Parallelism != nil {
		s.parallelism = *job.Spec.Parallelism
	}
	if job.Spec.Completions == nil && job.Spec.Parallelism == nil {
		s.completions = ptr.To(int32(1))
	}
	pods, err := jc.podsForJob(ctx, job)
	if err != nil {
		return reconcile.Result{}, err
	}
	s.pods = pods
	for _, p := range pods {
		if isPodActive(p) {
			s.activePods = append(s.activePods, p)
			if isPodReady(p) {
				s.ready++
			}
		}
		if isPodTerminating(p) {
			s.terminating++
		}
	}
	s.uncountedSucceeded = uidSet(job.Status.UncountedTerminatedPods.Succeeded)
	s.uncountedFailed = uidSet(job.Status.UncountedTerminatedPods.Failed)
	active := int32(len(s.activePods))
	newSucceeded, newFailed := s.newFinishedPods()
	s.succeeded = job.Status.Succeeded + int32(len(newSucceeded)) + int32(len(s.uncountedSucceeded))
	s.failed = job.Status.Failed + int32(len(newFailed)) + int32(len(s.uncountedFailed))
	if job.Status.StartTime == nil && !jobSuspended(job) {
		now := metav1.NewTime(jc.now())
		job.Status.StartTime = &now
	}
	if isIndexedJob(job) {
		s.prevSucceededIndexes, s.succeededIndexes = succeededIndexes(job, pods)
		s.succeeded = int32(s.succeededIndexes.total())
	}
	s.newBackoff = jc.newBackoffRecord(key, newSucceeded, newFailed)
	var manageErr error
	s.finishedCondition = jobCondition(job.Status.Conditions, batchv1.JobSuccessCriteriaMet)
	if s.finishedCondition == nil {
		if ft := jobCondition(job.Status.Conditions, batchv1.JobFailureTarget); ft != nil {
			s.finishedCondition = newJobCondition(batchv1.JobFailed, ft.Reason, ft.Message, jc.now())
		}
	}
	if s.finishedCondition == nil {
		switch {
		case s.failed > s.limit || pastBackoffLimitOnFailure(job, s.limit, pods):
			s.finishedCondition = newJobCondition(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", jc.now())
		case jc.pastActiveDeadline(job):
			s.finishedCondition = newJobCondition(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline", jc.now())
		case job.Spec.ActiveDeadlineSeconds != nil && !jobSuspended(job):
			s.requeue = time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second - jc.now().Sub(job.Status.StartTime.Time)
		}
	}
	if isIndexedJob(job) && hasBackoffLimitPerIndex(job) {
		s.failedIndexes = failedIndexes(job, pods)
		if s.finishedCondition == nil {
			if job.Spec.MaxFailedIndexes != nil && s.failedIndexes.total() > int(*job.Spec.MaxFailedIndexes) {
				s.finishedCondition = newJobCondition(batchv1.JobFailureTarget, batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes", jc.now())
			} else if s.failedIndexes.total() > 0 && s.failedIndexes.total()+s.succeededIndexes.total() >= int(*job.Spec.Completions) {
				s.finishedCondition = newJobCondition(batchv1.JobFailureTarget, batchv1.JobReasonFailedIndexes, "Job has failed indexes", jc.now())
			}
		}
		s.delayed = podsWithDelayedDeletionPerIndex(s)
	}
	if s.finishedCondition != nil {
		deletedReady, deleted, err := jc.deleteActivePods(ctx, job, s.activePods)
		if deleted != active || !s.satisfiedExpectation {
			s.finishedCondition = nil
		}
		active -= deleted
		s.terminating += deleted
		s.ready -= deletedReady
		manageErr = err
	} else {
		if s.satisfiedExpectation && job.DeletionTimestamp == nil {
			active, manageErr = jc.manageJob(ctx, key, s)
		}
		complete := false
		if s.completions == nil {
			complete = s.succeeded > 0 && active == 0
		} else {
			complete = s.succeeded >= *s.completions && active == 0
		}
		if complete {
			s.finishedCondition = newJobCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", jc.now())
		}
	}
	needsUpdate := active != job.Status.Active || !ptr.Equal(&s.ready, job.Status.Ready) || !ptr.Equal(job.Status.Terminating, &s.terminating)
	job.Status.Active = active
	job.Status.Ready = ptr.To(s.ready)
	job.Status.Terminating = ptr.To(s.terminating)
	if err := jc.trackJobStatusAndRemoveFinalizers(ctx, shared, s, needsUpdate); err != nil {
		return reconcile.Result{}, fmt.Errorf("tracking status: %w", err)
	}
	if manageErr != nil {
		return reconcile.Result{}, manageErr
	}
	if s.requeue > 0 {
		return reconcile.Result{RequeueAfter: s.requeue}, nil
	}
	return reconcile.Result{}, nil
}

// podsForJob is getPodsForJob without adoption: the pods the job controls
// (matching its selector, if it has one).
func (jc *JobController) podsForJob(ctx context.Context, job *batchv1.Job) ([]*corev1.Pod, error) {
	pods, err := ownedPods(ctx, jc.Client, job.Namespace, job)
	if err != nil || job.Spec.Selector == nil {
		return pods, err
	}
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, err
	}
	var out []*corev1.Pod
	for _, p := range pods {
		if sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out, nil
}

func uidSet(uids []types.UID) map[types.UID]bool {
	m := map[types.UID]bool{}
	for _, u := range uids {
		m[u] = true
	}
	return m
}

func hasTrackingFinalizer(p *corev1.Pod) bool {
	return slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer)
}

// isPodFailed: a failed pod, or (podReplacementPolicy TerminatingOrFailed, the
// default without a pod failure policy) a deleting one that did not succeed.
func isPodFailed(p *corev1.Pod, job *batchv1.Job) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	if job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed {
		return false
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded
}

// newFinishedPods is getNewFinishedPods.
func (s *jobSync) newFinishedPods() (succeeded, failed []*corev1.Pod) {
	for _, p := range s.pods {
		if !hasTrackingFinalizer(p) {
			continue
		}
		if p.Status.Phase == corev1.PodSucceeded && !s.uncountedSucceeded[p.UID] {
			succeeded = append(succeeded, p)
		}
		if isPodFailed(p, s.job) && !s.uncountedFailed[p.UID] {
			failed = append(failed, p)
		}
	}
	return succeeded, failed
}

func jobFinished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func jobSuspended(j *batchv1.Job) bool { return j.Spec.Suspend != nil && *j.Spec.Suspend }

func jobCondition(cs []batchv1.JobCondition, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range cs {
		if cs[i].Type == t && cs[i].Status == corev1.ConditionTrue {
			return &cs[i]
		}
	}
	return nil
}

func newJobCondition(t batchv1.JobConditionType, reason, msg string, now time.Time) *batchv1.JobCondition {
	return &batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, LastProbeTime: metav1.NewTime(now),
		LastTransitionTime: metav1.NewTime(now), Reason: reason, Message: msg}
}

func pastBackoffLimitOnFailure(job *batchv1.Job, limit int32, pods []*corev1.Pod) bool {
	if job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return false
	}
	var n int32
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
			for _, s := range p.Status.InitContainerStatuses {
				n += s.RestartCount
			}
			for _, s := range p.Status.ContainerStatuses {
				n += s.RestartCount
			}
		}
	}
	if limit == 0 {
		return n > 0
	}
	return n >= limit
}

func (jc *JobController) pastActiveDeadline(job *batchv1.Job) bool {
	if job.Spec.ActiveDeadlineSeconds == nil || job.Status.StartTime == nil || jobSuspended(job) {
		return false
	}
	return jc.now().Sub(job.Status.StartTime.Time) >= time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second
}

// finishedTime is getFinishedTime.
func finishedTime(p *corev1.Pod) time.Time {
	var latest *time.Time
	for _, s := range p.Status.ContainerStatuses {
		if t := s.State.Terminated; t != nil && !t.FinishedAt.IsZero() && (latest == nil || t.FinishedAt.After(*latest)) {
			at := t.FinishedAt.Time
			latest = &at
		}
	}
	if latest != nil {
		return *latest
	}
	if c := podReadyCondition(p.Status); c != nil && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	if p.DeletionTimestamp != nil {
		return p.DeletionTimestamp.Time
	}
	return p.CreationTimestamp.Time
}

// newBackoffRecord is backoffStore.newBackoffRecord.
func (jc *JobController) newBackoffRecord(key string, succeeded, failed []*corev1.Pod) backoffRecord {
	jc.mu.Lock()
	b := jc.backoff[key]
	jc.mu.Unlock()
	byFinish := func(ps []*corev1.Pod) {
		sort.SliceStable(ps, func(i, j int) bool { return finishedTime(ps[i]).Before(finishedTime(ps[j])) })
	}
	byFinish(succeeded)
	byFinish(failed)
	switch {
	case len(succeeded) == 0 && len(failed) == 0:
	case len(succeeded) == 0:
		b.failuresAfterLastSuccess += int32(len(failed))
		t := finishedTime(failed[len(failed)-1])
		b.lastFailureTime = &t
	default:
		b = backoffRecord{}
		last := finishedTime(succeeded[len(succeeded)-1])
		for i := len(failed) - 1; i >= 0; i-- {
			t := finishedTime(failed[i])
			if !t.After(last) {
				break
			}
			if b.lastFailureTime == nil {
				b.lastFailureTime = &t
			}
			b.failuresAfterLastSuccess++
		}
	}
	return b
}

func (jc *JobController) remainingBackoff(b backoffRecord) time.Duration {
	if b.failuresAfterLastSuccess == 0 || b.lastFailureTime == nil {
		return 0
	}
	d := DefaultJobPodFailureBackOff
	for i := 1; i < int(b.failuresAfterLastSuccess); i++ {
		d *= 2
		if d >= MaxJobPodFailureBackOff {
			d = MaxJobPodFailureBackOff
			break
		}
	}
	elapsed := jc.now().Sub(*b.lastFailureTime)
	if d < elapsed {
		return 0
	}
	return d - elapsed
}

// manageJob creates or deletes pods towards the wanted active count.
func (jc *JobController) manageJob(ctx context.Context, key string, s *jobSync) (int32, error) {
	job := s.job
	active := int32(len(s.activePods))
	pc := podControl{c: jc.Client, recorder: jc.Recorder}
	if jobSuspended(job) {
		removedReady, removed, err := jc.deleteJobPods(ctx, key, job, s.activePods)
		s.terminating += removed
		s.ready -= removedReady
		return active - removed, err
	}
	var want int32
	if s.completions == nil {
		want = s.parallelism
		if s.succeeded > 0 {
			want = active
		}
	} else {
		want = max(min(*s.completions-s.succeeded, s.parallelism), 0)
	}
	if pods := activePodsForRemoval(job, s.activePods, int(max(active-want, 0))); len(pods) > 0 {
		pods = pods[:min(len(pods), MaxPodCreateDeletePerSync)]
		removedReady, removed, err := jc.deleteJobPods(ctx, key, job, pods)
		s.terminating += removed
		s.ready -= removedReady
		return active - removed, err
	}
	terminating := int32(0)
	if job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed {
		terminating = s.terminating
	}
	diff := want - terminating - active
	if diff <= 0 {
		return active, nil
	}
	if !hasBackoffLimitPerIndex(job) {
		if remaining := jc.remainingBackoff(s.newBackoff); remaining > 0 {
			s.requeue = remaining
			return active, nil
		}
	}
	diff = min(diff, MaxPodCreateDeletePerSync)
	var indexes []int
	if isIndexedJob(job) {
		indexes = firstPendingIndexes(s, int(diff), int(*s.completions))
		if hasBackoffLimitPerIndex(job) {
			var wait time.Duration
			if indexes, wait = jc.indexesToCreateNow(indexes, s.delayed); wait > 0 {
				s.requeue = wait
				return active, nil
			}
		}
		diff = int32(len(indexes))
	}
	jc.exp.expect(key, int(diff), 0)
	template := job.Spec.Template.DeepCopy()
	if !slices.Contains(template.Finalizers, batchv1.JobTrackingFinalizer) {
		template.Finalizers = append(template.Finalizers, batchv1.JobTrackingFinalizer)
	}
	ref := metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))
	active += diff
	ok, err := slowStartBatch(int(diff), 1, func() error {
		pod := podFromTemplate(template, job, ref)
		if len(indexes) > 0 {
			t, name := indexedPodTemplate(template, job, indexes[0])
			if hasBackoffLimitPerIndex(job) {
				// addIndexFailureCountAnnotation: the replaced pod's count, plus
				// its own failure.
				n := int32(0)
				if p := s.delayed[indexes[0]]; p != nil {
					n = indexFailureCount(p) + 1
				}
				t.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(n))
			}
			indexes = indexes[1:]
			pod = podFromTemplate(t, job, ref)
			pod.GenerateName = name
		}
		err := pc.create(ctx, pod, job)
		if err != nil && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		return err
	})
	if skipped := int(diff) - ok; skipped > 0 {
		jc.exp.observed(key, skipped, 0)
		active -= int32(skipped)
	}
	return active, err
}

// deleteJobPods removes the tracking finalizer, then deletes each pod.
func (jc *JobController) deleteJobPods(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod) (int32, int32, error) {
	jc.exp.expect(key, 0, len(pods))
	pc := podControl{c: jc.Client, recorder: jc.Recorder}
	var deletedReady, deleted int32
	var first error
	for _, p := range pods {
		fail := func(err error) {
			jc.exp.observed(key, 0, 1)
			if !apierrors.IsNotFound(err) && first == nil {
				first = err
			}
		}
		if err := jc.removeFinalizer(ctx, p); err != nil {
			fail(fmt.Errorf("removing completion finalizer: %w", err))
			continue
		}
		if err := pc.delete(ctx, p, job); err != nil {
			fail(err)
			if !apierrors.IsNotFound(err) {
				continue
			}
		}
		deleted++
		if isPodReady(p) {
			deletedReady++
		}
	}
	return deletedReady, deleted, first
}

// deleteActivePods deletes the active pods of a finished job (their
// finalizers are removed when they are counted).
func (jc *JobController) deleteActivePods(ctx context.Context, job *batchv1.Job, pods []*corev1.Pod) (int32, int32, error) {
	pc := podControl{c: jc.Client, recorder: jc.Recorder}
	var deletedReady int32
	deleted := int32(len(pods))
	var first error
	for _, p := range pods {
		if err := pc.delete(ctx, p, job); err != nil && !apierrors.IsNotFound(err) {
			deleted--
			if first == nil {
				first = err
			}
		}
		if isPodReady(p) {
			deletedReady++
		}
	}
	return deletedReady, deleted, first
}

// removeFinalizer drops the job-tracking finalizer (upstream: a strategic
// merge patch $deleteFromPrimitiveList; here an update of the cached pod).
func (jc *JobController) removeFinalizer(ctx context.Context, p *corev1.Pod) error {
	if !hasTrackingFinalizer(p) {
		return nil
	}
	np := p.DeepCopy()
	np.Finalizers = slices.DeleteFunc(np.Finalizers, func(f string) bool { return f == batchv1.JobTrackingFinalizer })
	return jc.Client.Update(ctx, np)
}

// trackJobStatusAndRemoveFinalizers counts finished pods through
// uncountedTerminatedPods, removes their finalizers, and finishes the job.
func (jc *JobController) trackJobStatusAndRemoveFinalizers(ctx context.Context, shared *batchv1.Job, s *jobSync, needsFlush bool) error {
	job := s.job
	uncounted := job.Status.UncountedTerminatedPods
	indexed := isIndexedJob(job)
	var newSucceededIndexes []int
	if indexed {
		sortByCompletionIndex(s.pods) // completed indexes come in order
	}
	withFinalizer := map[types.UID]bool{}
	for _, p := range s.pods {
		if hasTrackingFinalizer(p) {
			withFinalizer[p.UID] = true
		}
	}
	if cleanUncounted(&job.Status, withFinalizer) {
		needsFlush = true
	}
	var toRemove []*corev1.Pod
	reachedMax := false
	for _, p := range s.pods {
		if !hasTrackingFinalizer(p) {
			continue
		}
		failed := isPodFailed(p, job)
		if !(job.DeletionTimestamp != nil || s.finishedCondition != nil || p.Status.Phase == corev1.PodSucceeded || failed) {
			continue
		}
		// canRemoveFinalizer: the last failed pod of an index keeps its
		// finalizer until its replacement exists.
		if job.DeletionTimestamp == nil && s.finishedCondition == nil && p.Status.Phase != corev1.PodSucceeded &&
			hasBackoffLimitPerIndex(job) {
			if d, ok := s.delayed[completionIndex(p.Annotations)]; ok && d.UID == p.UID {
				continue
			}
		}
		toRemove = append(toRemove, p)
		ix := completionIndex(p.Annotations)
		if p.Status.Phase == corev1.PodSucceeded && !s.uncountedFailed[p.UID] {
			if indexed {
				// The completion index is enough not to count a pod twice.
				if ix != unknownCompletionIndex && ix < int(*job.Spec.Completions) && !s.prevSucceededIndexes.has(ix) {
					newSucceededIndexes = append(newSucceededIndexes, ix)
					needsFlush = true
				}
			} else if !s.uncountedSucceeded[p.UID] {
				needsFlush = true
				uncounted.Succeeded = append(uncounted.Succeeded, p.UID)
			}
		} else if failed || (s.finishedCondition != nil && s.finishedCondition.Type != batchv1.JobSuccessCriteriaMet) {
			if !s.uncountedFailed[p.UID] && (!indexed || (ix != unknownCompletionIndex && ix < int(*job.Spec.Completions))) {
				needsFlush = true
				uncounted.Failed = append(uncounted.Failed, p.UID)
			}
		}
		if len(newSucceededIndexes)+len(uncounted.Succeeded)+len(uncounted.Failed) >= MaxUncountedPods {
			reachedMax = true
			break
		}
	}
	if indexed {
		s.succeededIndexes = s.succeededIndexes.withOrderedIndexes(newSucceededIndexes)
		str := s.succeededIndexes.String()
		if str != job.Status.CompletedIndexes {
			needsFlush = true
		}
		job.Status.Succeeded = int32(s.succeededIndexes.total())
		job.Status.CompletedIndexes = str
		var failedStr *string
		if s.failedIndexes != nil {
			failedStr = ptr.To(s.failedIndexes.String())
		}
		if !ptr.Equal(job.Status.FailedIndexes, failedStr) {
			job.Status.FailedIndexes = failedStr
			needsFlush = true
		}
	}
	if s.finishedCondition != nil && s.finishedCondition.Type == batchv1.JobFailureTarget {
		job.Status.Conditions = append(job.Status.Conditions, *s.finishedCondition)
		needsFlush = true
		s.finishedCondition = newJobCondition(batchv1.JobFailed, s.finishedCondition.Reason, s.finishedCondition.Message, jc.now())
	}
	if s.finishedCondition != nil && s.finishedCondition.Type == batchv1.JobSuccessCriteriaMet {
		if jobCondition(job.Status.Conditions, batchv1.JobSuccessCriteriaMet) == nil {
			job.Status.Conditions = append(job.Status.Conditions, *s.finishedCondition)
			needsFlush = true
		}
		s.finishedCondition = newJobCondition(batchv1.JobComplete, s.finishedCondition.Reason, s.finishedCondition.Message, jc.now())
	}
	// flushUncountedAndRemoveFinalizers
	if needsFlush {
		if err := jc.updateStatus(ctx, shared, job); err != nil {
			return fmt.Errorf("adding uncounted pods to status: %w", err)
		}
		jc.mu.Lock()
		jc.backoff[keyOf(job.Namespace, job.Name)] = s.newBackoff
		jc.mu.Unlock()
		needsFlush = false
	}
	var rmErr error
	for _, p := range toRemove {
		if err := jc.removeFinalizer(ctx, p); err != nil {
			if !apierrors.IsNotFound(err) {
				if rmErr == nil {
					rmErr = err
				}
				continue
			}
		}
		delete(withFinalizer, p.UID)
	}
	if cleanUncounted(&job.Status, withFinalizer) {
		needsFlush = true
	}
	if rmErr != nil {
		if needsFlush {
			if err := jc.updateStatus(ctx, shared, job); err != nil {
				return fmt.Errorf("removing uncounted pods from status: %w", err)
			}
		}
		return rmErr
	}
	finished := !reachedMax && jc.enactJobFinished(s)
	if finished {
		needsFlush = true
	}
	if needsFlush {
		if err := jc.updateStatus(ctx, shared, job); err != nil {
			return fmt.Errorf("removing uncounted pods from status: %w", err)
		}
		if finished {
			jc.recordFinished(shared, job, s.finishedCondition)
		}
	}
	return nil
}

// cleanUncounted is cleanUncountedPodsWithoutFinalizers: uncounted pods that
// lost their finalizer are counted.
func cleanUncounted(st *batchv1.JobStatus, withFinalizer map[types.UID]bool) bool {
	u := st.UncountedTerminatedPods
	keep := func(uids []types.UID) []types.UID {
		var out []types.UID
		for _, x := range uids {
			if withFinalizer[x] {
				out = append(out, x)
			}
		}
		return out
	}
	updated := false
	if n := keep(u.Succeeded); len(n) != len(u.Succeeded) {
		st.Succeeded += int32(len(u.Succeeded) - len(n))
		u.Succeeded, updated = n, true
	}
	if n := keep(u.Failed); len(n) != len(u.Failed) {
		st.Failed += int32(len(u.Failed) - len(n))
		u.Failed, updated = n, true
	}
	return updated
}

// enactJobFinished adds the finished condition once nothing is uncounted or
// terminating.
func (jc *JobController) enactJobFinished(s *jobSync) bool {
	if s.finishedCondition == nil {
		return false
	}
	job := s.job
	if u := job.Status.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		return false
	}
	if s.terminating > 0 {
		return false
	}
	c := *s.finishedCondition
	job.Status.Conditions = append(job.Status.Conditions, *newJobCondition(c.Type, c.Reason, c.Message, jc.now()))
	if c.Type == batchv1.JobComplete {
		t := job.Status.Conditions[len(job.Status.Conditions)-1].LastTransitionTime
		job.Status.CompletionTime = &t
	}
	return true
}

func (jc *JobController) recordFinished(shared, job *batchv1.Job, c *batchv1.JobCondition) {
	if c.Type == batchv1.JobComplete {
		if job.Spec.Completions != nil && job.Status.Succeeded > *job.Spec.Completions {
			jc.event(shared, corev1.EventTypeWarning, "TooManySucceededPods", "Too many succeeded pods running after completion count reached")
		}
		jc.event(shared, corev1.EventTypeNormal, "Completed", "Job completed")
		return
	}
	jc.event(shared, corev1.EventTypeWarning, c.Reason, "%s", c.Message)
}

// updateStatus is updateJobStatus: UpdateStatus of the job's status.
func (jc *JobController) updateStatus(ctx context.Context, shared, job *batchv1.Job) error {
	u := shared.DeepCopy()
	u.Status = *job.Status.DeepCopy()
	if err := jc.Client.Status().Update(ctx, u); err != nil {
		return err
	}
	shared.ResourceVersion = u.ResourceVersion
	shared.Status = u.Status
	return nil
}
