package jobchild

import (
	"context"

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

// CRD is the Task CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Task to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Task{}, &TaskList{}) }

// Task runs Spec.Image once, as a Job.
type Task struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TaskSpec   `json:"spec,omitempty"`
	Status            TaskStatus `json:"status,omitempty"`
}

// TaskSpec is what to run.
type TaskSpec struct {
	Image string   `json:"image"`
	Args  []string `json:"args,omitempty"`
}

// TaskStatus is the Job's progress.
type TaskStatus struct {
	Phase   string `json:"phase,omitempty"`
	JobName string `json:"jobName,omitempty"`
}

// TaskList is a list of Tasks.
type TaskList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Task `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Task) DeepCopyInto(out *Task) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Args = append([]string(nil), in.Spec.Args...)
}

// DeepCopyObject copies the Task.
func (in *Task) DeepCopyObject() runtime.Object {
	out := new(Task)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *TaskList) DeepCopyObject() runtime.Object {
	out := &TaskList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var t Task
		in.Items[i].DeepCopyInto(&t)
		out.Items = append(out.Items, t)
	}
	return out
}

// Reconciler runs each Task's Job.
type Reconciler struct {
	client.Client
	// Buggy records the start in status before it creates the Job, and
	// does not create a Job for a Task whose status says it started.
	Buggy bool
}

// SetupWithManager registers the controller: Tasks, owned Jobs.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Task{}).Owns(&batchv1.Job{}).Complete(r)
}

// Reconcile creates the Task's Job if it is missing, then mirrors its
// progress.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var task Task
	if err := r.Get(ctx, req.NamespacedName, &task); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var job batchv1.Job
	err := r.Get(ctx, req.NamespacedName, &job)
	if apierrors.IsNotFound(err) {
		if r.Buggy && task.Status.Phase != "" {
			return ctrl.Result{}, nil // the bug: the record of the start stands for the Job
		}
		if r.Buggy {
			if err := r.setStatus(ctx, &task, "Pending", req.Name); err != nil { // the bug: recorded before it is done
				return ctrl.Result{}, err
			}
		}
		job = r.job(&task)
		if err := controllerutil.SetControllerReference(&task, &job, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &job); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
	} else if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.setStatus(ctx, &task, phase(&job), job.Name)
}

func (r *Reconciler) setStatus(ctx context.Context, task *Task, phase, jobName string) error {
	if task.Status.Phase == phase && task.Status.JobName == jobName {
		return nil
	}
	task.Status.Phase, task.Status.JobName = phase, jobName
	return r.Status().Update(ctx, task)
}

// job is the Task's Job: its image, run once.
func (r *Reconciler) job(task *Task) batchv1.Job {
	backoff := int32(2)
	return batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: task.Namespace, Name: task.Name},
		Spec: batchv1.JobSpec{
			BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "task", Image: task.Spec.Image, Args: task.Spec.Args}},
			}},
		},
	}
}

// phase is the Job's progress: Pending until it has a pod, then Running
// until it has succeeded or failed.
func phase(job *batchv1.Job) string {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return "Succeeded"
		case batchv1.JobFailed:
			return "Failed"
		}
	}
	if job.Status.Active > 0 {
		return "Running"
	}
	return "Pending"
}
