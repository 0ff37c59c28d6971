package jobmodel

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Reconciler runs Jobs to completion (see the package doc).
type Reconciler struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Default is how long a Job without DurationAnnotation runs.
	Default time.Duration
}

// SetupWithManager registers the model as the controller "job" on mgr.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&batchv1.Job{}).Named("job").Complete(r)
}

// Duration is how long job runs: N seconds when its first container's command
// and arguments say "sleep N" (a word of their own, or ending a shell
// statement: "sleep 90; date"), else r.Default.
func (r *Reconciler) Duration(job *batchv1.Job) time.Duration {
	if cs := job.Spec.Template.Spec.Containers; len(cs) > 0 {
		words := strings.Fields(strings.Join(append(slices.Clone(cs[0].Command), cs[0].Args...), " "))
		for i := 0; i+1 < len(words); i++ {
			if words[i] != "sleep" {
				continue
			}
			if n, err := strconv.ParseUint(strings.TrimRight(words[i+1], ";&|"), 10, 32); err == nil {
				return time.Duration(n) * time.Second
			}
		}
	}
	return r.Default
}

// Finished reports whether job has a true Complete or Failed condition.
func Finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// Reconcile starts a new Job, and completes it once its duration has passed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var job batchv1.Job
	if err := r.Client.Get(ctx, req.NamespacedName, &job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if Finished(&job) || job.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	now := metav1.NewTime(r.Clock.Now())
	if job.Status.StartTime == nil {
		job.Status.StartTime = &now
		job.Status.Active = 1
		if err := r.Client.Status().Update(ctx, &job); err != nil {
			return ctrl.Result{}, err
		}
	}
	due := job.CreationTimestamp.Add(r.Duration(&job))
	if left := due.Sub(now.Time); left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	job.Status.Active = 0
	job.Status.Succeeded = 1
	job.Status.CompletionTime = &now
	for _, t := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete} {
		job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{
			Type: t, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now})
	}
	return ctrl.Result{}, r.Client.Status().Update(ctx, &job)
}
