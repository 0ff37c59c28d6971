package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron"
	kbatch "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
)

const (
	// ScheduledAtAnnotation is put on every Job the controller creates: the
	// scheduled time the Job runs for, in RFC 3339.
	ScheduledAtAnnotation = "batch.ctrlsim.dev/scheduled-at"
	// CronJobLabel is put on every Job the controller creates: the name of
	// its CronJob, so that a live List can select a CronJob's Jobs (the
	// apiserver knows no field selector on owners).
	CronJobLabel = "batch.ctrlsim.dev/cronjob"
	// jobOwnerField is the cache index of Jobs by the name of the CronJob
	// that controls them.
	jobOwnerField = ".metadata.controller"
)

// CronJobReconciler makes a CronJob's Jobs: one per scheduled time, within
// the starting deadline, as its concurrency policy allows, keeping the history
// its limits ask for.
//
// It reads what it decides on from the apiserver: the CronJob (with its
// status, the memory of which scheduled times have run) on every reconcile,
// and the CronJob's Jobs before it creates one. Creating a Job cannot be
// undone, and a cache that lags or stalls does not show the Job created a
// moment ago. The cache (with the index of Jobs by owner) serves the rest: the
// history kept and status.active.
//
// +kubebuilder:rbac:groups=batch.ctrlsim.dev,resources=cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.ctrlsim.dev,resources=cronjobs/status,verbs=get;update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
type CronJobReconciler struct {
	client.Client
	// APIReader reads from the apiserver, past the cache. SetupWithManager
	// sets mgr.GetAPIReader() when it is nil.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Clock tells the time; SetupWithManager sets the real clock when it is
	// nil.
	Clock clock.PassiveClock

	// ReconstituteFromCache is a deliberately buggy variant, kept to show
	// what the simulator finds in the design of the kubebuilder book's
	// CronJob tutorial (see the example's README.md): it decides from the
	// cache alone (the CronJob and its Jobs) and rebuilds lastScheduleTime
	// and status.active from the Jobs the cache shows on every reconcile,
	// ignoring what the status remembers. A Job created moments ago is then
	// missing from the Forbid decision, and a scheduled time whose Job was
	// deleted by the history limit is due again.
	ReconstituteFromCache bool
}

// SetupWithManager indexes Jobs by their controlling CronJob and builds the
// controller: reconcile a CronJob when it or one of its Jobs changes.
func (r *CronJobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &kbatch.Job{}, jobOwnerField, func(o client.Object) []string {
		if name := ownerName(o.(*kbatch.Job)); name != "" {
			return []string{name}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&batchv1.CronJob{}).
		Owns(&kbatch.Job{}).
		Named("cronjob").
		Complete(r)
}

// ownerName is the name of the CronJob that controls job, or "".
func ownerName(job *kbatch.Job) string {
	ref := metav1.GetControllerOf(job)
	if ref == nil || ref.APIVersion != batchv1.GroupVersion.String() || ref.Kind != "CronJob" {
		return ""
	}
	return ref.Name
}

// Reconcile brings the status and the history of one CronJob up to date, then
// creates the Job of its latest due scheduled time if there is one, and asks
// to be called again at the next scheduled time.
func (r *CronJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var cj batchv1.CronJob
	reader := client.Reader(r.APIReader)
	if r.ReconstituteFromCache {
		reader = r.Client
	}
	if err := reader.Get(ctx, req.NamespacedName, &cj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cj.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector deletes its Jobs
	}
	var cached kbatch.JobList
	if err := r.List(ctx, &cached, client.InNamespace(req.Namespace), client.MatchingFields{jobOwnerField: req.Name}); err != nil {
		return ctrl.Result{}, err
	}
	jobs := ours(&cj, cached.Items)

	// The status: which Jobs run, and the latest scheduled time that ran.
	active, err := r.activeJobs(ctx, &cj, jobs)
	if err != nil {
		return ctrl.Result{}, err
	}
	last := latestScheduledTime(jobs)
	if !r.ReconstituteFromCache {
		last = later(cj.Status.LastScheduleTime, last)
	}
	if err := r.writeStatus(ctx, &cj, active, last); err != nil {
		return ctrl.Result{}, err
	}
	// The history, once the status remembers the times of the Jobs it
	// deletes.
	if err := r.trimHistory(ctx, &cj, jobs); err != nil {
		return ctrl.Result{}, err
	}

	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return ctrl.Result{}, nil
	}
	sched, err := cron.ParseStandard(cj.Spec.Schedule)
	if err != nil {
		// The validating webhook refuses such a schedule; nothing to do until
		// the spec changes.
		return ctrl.Result{}, reconcile.TerminalError(fmt.Errorf("schedule %q: %w", cj.Spec.Schedule, err))
	}
	now := r.Clock.Now()
	run, next := dueTime(sched, &cj, last, now)
	requeue := ctrl.Result{RequeueAfter: next.Sub(now)}
	if next.IsZero() {
		requeue = ctrl.Result{} // the schedule never fires again
	}
	if run.IsZero() {
		return requeue, nil
	}

	if !r.ReconstituteFromCache {
		// About to create a Job: decide on the apiserver's Jobs, not the
		// cache's.
		live, err := r.liveJobs(ctx, &cj)
		if err != nil {
			return ctrl.Result{}, err
		}
		active = nil
		for i := range live {
			if !finished(&live[i]) {
				active = append(active, live[i])
			}
		}
		if l := later(last, latestScheduledTime(live)); !l.Equal(last) {
			// A Job the cache does not show yet ran a later time than the
			// status remembers (the write that recorded it was lost):
			// remember it, and see what is due after it.
			last = l
			if err := r.writeStatus(ctx, &cj, active, last); err != nil {
				return ctrl.Result{}, err
			}
			if run, _ = dueTime(sched, &cj, last, now); run.IsZero() {
				return requeue, nil
			}
		}
	}

	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		if len(active) > 0 {
			log.V(1).Info("run held back: a Job still runs", "scheduled", run, "running", len(active))
			return requeue, nil // the running Job's end triggers a reconcile
		}
	case batchv1.ReplaceConcurrent:
		for i := range active {
			if err := r.Delete(ctx, &active[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
		active = nil
	}

	job, err := r.jobFor(&cj, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Create(ctx, job); err != nil {
		return ctrl.Result{}, fmt.Errorf("creating Job %s for %s: %w", job.Name, run.Format(time.RFC3339), err)
	}
	log.Info("created Job", "job", job.Name, "scheduled", run.Format(time.RFC3339))
	if err := r.writeStatus(ctx, &cj, append(active, *job), &metav1.Time{Time: run}); err != nil {
		return ctrl.Result{}, err
	}
	return requeue, nil
}

// ours keeps the Jobs that cj controls (same UID: not those of an earlier
// CronJob of the same name).
func ours(cj *batchv1.CronJob, jobs []kbatch.Job) []kbatch.Job {
	var out []kbatch.Job
	for _, j := range jobs {
		if ref := metav1.GetControllerOf(&j); ref != nil && ref.UID == cj.UID {
			out = append(out, j)
		}
	}
	return out
}

// activeJobs is the unfinished Jobs of cj. Those the cache shows are judged
// by it; a Job status.active lists and the cache lacks (it was created a
// moment ago, or deleted) is looked up on the apiserver, as Kubernetes' own
// CronJob controller does.
func (r *CronJobReconciler) activeJobs(ctx context.Context, cj *batchv1.CronJob, jobs []kbatch.Job) ([]kbatch.Job, error) {
	var out []kbatch.Job
	seen := map[string]bool{}
	for i := range jobs {
		seen[jobs[i].Name] = true
		if !finished(&jobs[i]) {
			out = append(out, jobs[i])
		}
	}
	if r.ReconstituteFromCache {
		return out, nil
	}
	for _, ref := range cj.Status.Active {
		if seen[ref.Name] {
			continue
		}
		var job kbatch.Job
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: ref.Name}, &job)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, err
		}
		if job.UID == ref.UID && !finished(&job) {
			out = append(out, job)
		}
	}
	return out, nil
}

// liveJobs lists cj's Jobs on the apiserver.
func (r *CronJobReconciler) liveJobs(ctx context.Context, cj *batchv1.CronJob) ([]kbatch.Job, error) {
	var list kbatch.JobList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(cj.Namespace), client.MatchingLabels{CronJobLabel: cj.Name}); err != nil {
		return nil, err
	}
	return ours(cj, list.Items), nil
}

// writeStatus sets status.active to active (sorted by name) and
// status.lastScheduleTime to last, and writes the status if it changed.
func (r *CronJobReconciler) writeStatus(ctx context.Context, cj *batchv1.CronJob, active []kbatch.Job, last *metav1.Time) error {
	status := batchv1.CronJobStatus{LastScheduleTime: last}
	for _, j := range active {
		status.Active = append(status.Active, corev1.ObjectReference{
			APIVersion: "batch/v1", Kind: "Job", Namespace: j.Namespace, Name: j.Name, UID: j.UID, ResourceVersion: j.ResourceVersion,
		})
	}
	slices.SortFunc(status.Active, func(a, b corev1.ObjectReference) int { return strings.Compare(a.Name, b.Name) })
	if sameStatus(cj.Status, status) {
		return nil
	}
	cj.Status = status
	return r.Status().Update(ctx, cj)
}

// sameStatus compares two statuses by the Jobs they list (name and UID) and
// the time they remember; a Job's resourceVersion changes too often to be
// worth a write.
func sameStatus(a, b batchv1.CronJobStatus) bool {
	if (a.LastScheduleTime == nil) != (b.LastScheduleTime == nil) ||
		a.LastScheduleTime != nil && !a.LastScheduleTime.Equal(b.LastScheduleTime) {
		return false
	}
	return slices.EqualFunc(a.Active, b.Active, func(x, y corev1.ObjectReference) bool { return x.Name == y.Name && x.UID == y.UID })
}

// trimHistory deletes the oldest succeeded and failed Jobs beyond the
// CronJob's history limits.
func (r *CronJobReconciler) trimHistory(ctx context.Context, cj *batchv1.CronJob, jobs []kbatch.Job) error {
	var succeeded, failed []kbatch.Job
	for _, j := range jobs {
		switch c := finishedAs(&j); c {
		case kbatch.JobComplete:
			succeeded = append(succeeded, j)
		case kbatch.JobFailed:
			failed = append(failed, j)
		}
	}
	for _, h := range []struct {
		jobs  []kbatch.Job
		limit *int32
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if h.limit == nil || len(h.jobs) <= int(*h.limit) {
			continue
		}
		slices.SortFunc(h.jobs, func(a, b kbatch.Job) int {
			if c := scheduledAt(&a).Compare(scheduledAt(&b)); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
		for i := range h.jobs[:len(h.jobs)-int(*h.limit)] {
			if err := r.Delete(ctx, &h.jobs[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
	}
	return nil
}

// dueTime is the latest scheduled time of sched that is due now and has not
// run (after last, or after the CronJob's creation when nothing ran), and not
// older than the starting deadline; zero when none is. next is the first
// scheduled time after now; zero when the schedule never fires again.
func dueTime(sched cron.Schedule, cj *batchv1.CronJob, last *metav1.Time, now time.Time) (run, next time.Time) {
	from := cj.CreationTimestamp.Time
	if last != nil {
		from = last.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if earliest := now.Add(-time.Duration(*d) * time.Second); earliest.After(from) {
			from = earliest
		}
	}
	for t := sched.Next(from); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		run = t
	}
	return run, sched.Next(now)
}

// jobFor is the Job of cj for the scheduled time run: its template, the
// template's labels and annotations, the scheduled time, cj as controller.
func (r *CronJobReconciler) jobFor(cj *batchv1.CronJob, run time.Time) (*kbatch.Job, error) {
	job := &kbatch.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   cj.Namespace,
			Name:        fmt.Sprintf("%s-%d", cj.Name, run.Unix()),
			Labels:      maps.Clone(cj.Spec.JobTemplate.Labels),
			Annotations: maps.Clone(cj.Spec.JobTemplate.Annotations),
		},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	if job.Labels == nil {
		job.Labels = map[string]string{}
	}
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Labels[CronJobLabel] = cj.Name
	job.Annotations[ScheduledAtAnnotation] = run.UTC().Format(time.RFC3339)
	if err := ctrl.SetControllerReference(cj, job, r.Scheme); err != nil {
		return nil, err
	}
	return job, nil
}

// latestScheduledTime is the latest scheduled-at of jobs, nil when none has
// one.
func latestScheduledTime(jobs []kbatch.Job) *metav1.Time {
	var out *metav1.Time
	for i := range jobs {
		if t := scheduledAt(&jobs[i]); !t.IsZero() && (out == nil || t.After(out.Time)) {
			out = &metav1.Time{Time: t}
		}
	}
	return out
}

// later is the later of a and b (either may be nil).
func later(a, b *metav1.Time) *metav1.Time {
	if a == nil || b != nil && b.After(a.Time) {
		return b
	}
	return a
}

// scheduledAt is the scheduled time job runs for; zero if it has none.
func scheduledAt(job *kbatch.Job) time.Time {
	t, err := time.Parse(time.RFC3339, job.Annotations[ScheduledAtAnnotation])
	if err != nil {
		return time.Time{}
	}
	return t
}

// finishedAs is Complete or Failed for a finished Job (a true condition of
// that type), "" for one that runs.
func finishedAs(job *kbatch.Job) kbatch.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == kbatch.JobComplete || c.Type == kbatch.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

func finished(job *kbatch.Job) bool { return finishedAs(job) != "" }
