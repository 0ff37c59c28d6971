package schedule

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Schedule CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Schedule to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Schedule{}, &ScheduleList{}) }

// ScheduleLabel names, on a Job, its Schedule; ScheduledAt is the run's
// time (RFC 3339), an annotation.
const (
	ScheduleLabel = "patterns.ctrlsim.dev/schedule"
	ScheduledAt   = "patterns.ctrlsim.dev/scheduled-at"
)

// Schedule runs a Job every IntervalSeconds.
type Schedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ScheduleSpec   `json:"spec,omitempty"`
	Status            ScheduleStatus `json:"status,omitempty"`
}

// ScheduleSpec is what to run and when (defaults from the CRD: every 30 s,
// a 10 s starting deadline, 3 finished Jobs kept).
type ScheduleSpec struct {
	Image                   string `json:"image"`
	IntervalSeconds         int32  `json:"intervalSeconds,omitempty"`
	StartingDeadlineSeconds int32  `json:"startingDeadlineSeconds,omitempty"`
	HistoryLimit            int32  `json:"historyLimit,omitempty"`
}

// ScheduleStatus is the time of the last run started.
type ScheduleStatus struct {
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// ScheduleList is a list of Schedules.
type ScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Schedule `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Schedule) DeepCopyInto(out *Schedule) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.LastScheduleTime = in.Status.LastScheduleTime.DeepCopy()
}

// DeepCopyObject copies the Schedule.
func (in *Schedule) DeepCopyObject() runtime.Object {
	out := new(Schedule)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *ScheduleList) DeepCopyObject() runtime.Object {
	out := &ScheduleList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var s Schedule
		in.Items[i].DeepCopyInto(&s)
		out.Items = append(out.Items, s)
	}
	return out
}

// Reconciler runs each Schedule's Jobs.
type Reconciler struct {
	client.Client
	// Buggy creates runs with generateName.
	Buggy bool
}

// SetupWithManager registers the controller: Schedules, owned Jobs.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Schedule{}).Owns(&batchv1.Job{}).Complete(r)
}

// Reconcile trims the history, starts the latest due run unless it is past
// its deadline, and sleeps until the next.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var s Schedule
	if err := r.Get(ctx, req.NamespacedName, &s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if err := r.trim(ctx, &s); err != nil {
		return ctrl.Result{}, err
	}
	now := time.Now()
	interval := time.Duration(max(s.Spec.IntervalSeconds, 1)) * time.Second
	created := s.CreationTimestamp.Time
	// The latest scheduled time at or before now (created + k*interval, k >= 1).
	latest := created.Add(now.Sub(created).Truncate(interval))
	due := latest.After(created) && (s.Status.LastScheduleTime == nil || latest.After(s.Status.LastScheduleTime.Time))
	if due && now.Sub(latest) <= time.Duration(s.Spec.StartingDeadlineSeconds)*time.Second {
		if err := r.run(ctx, &s, latest); err != nil {
			return ctrl.Result{}, err
		}
		s.Status.LastScheduleTime = &metav1.Time{Time: latest}
		if err := r.Status().Update(ctx, &s); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{RequeueAfter: latest.Add(interval).Sub(now)}, nil
}

// run creates the Job of the run scheduled at t.
func (r *Reconciler) run(ctx context.Context, s *Schedule, t time.Time) error {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: fmt.Sprintf("%s-%d", s.Name, t.Unix()),
			Labels:      map[string]string{ScheduleLabel: s.Name},
			Annotations: map[string]string{ScheduledAt: t.UTC().Format(time.RFC3339)}},
		Spec: batchv1.JobSpec{
			BackoffLimit: new(int32),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "run", Image: s.Spec.Image}},
			}},
		},
	}
	if r.Buggy { // the bug: a run's Job has no name of its own
		job.GenerateName, job.Name = s.Name+"-", ""
	}
	if err := controllerutil.SetControllerReference(s, job, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// trim deletes the finished Jobs beyond the history limit, oldest first.
func (r *Reconciler) trim(ctx context.Context, s *Schedule) error {
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(s.Namespace), client.MatchingLabels{ScheduleLabel: s.Name}); err != nil {
		return err
	}
	var finished []batchv1.Job
	for _, j := range jobs.Items {
		if metav1.IsControlledBy(&j, s) && j.DeletionTimestamp == nil && (j.Status.Succeeded > 0 || j.Status.Failed > 0) {
			finished = append(finished, j)
		}
	}
	slices.SortFunc(finished, func(a, b batchv1.Job) int {
		return strings.Compare(a.Annotations[ScheduledAt]+a.Name, b.Annotations[ScheduledAt]+b.Name)
	})
	for len(finished) > int(max(s.Spec.HistoryLimit, 1)) {
		err := r.Delete(ctx, &finished[0], client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		finished = finished[1:]
	}
	return nil
}
