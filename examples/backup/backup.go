package backup

import (
	"context"
	"fmt"
	"time"

	_ "embed"

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
)

// CRD is the Backup CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Backup.
	GroupVersion  = schema.GroupVersion{Group: "backup.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Backup to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Backup{}, &BackupList{}) }

// Backup asks for a backup Job each minute from its creation.
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            BackupStatus `json:"status,omitempty"`
}

// BackupStatus is the last slot scheduled (0: none yet).
type BackupStatus struct {
	LastSlot int64 `json:"lastSlot,omitempty"`
}

// BackupList is a list of Backups.
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Backup `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Backup) DeepCopyInto(out *Backup) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Backup.
func (in *Backup) DeepCopyObject() runtime.Object {
	out := new(Backup)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *BackupList) DeepCopyObject() runtime.Object {
	out := &BackupList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var b Backup
		in.Items[i].DeepCopyInto(&b)
		out.Items = append(out.Items, b)
	}
	return out
}

// Every is the time between two slots.
const Every = time.Minute

// SlotLabel names the slot a Job was made for.
const SlotLabel = "backup.ctrlsim.dev/slot"

// Reconciler schedules each Backup's Jobs.
type Reconciler struct {
	client.Client
	// Buggy creates each slot's Job with a generated name (the correct
	// operator names it by its slot).
	Buggy bool
}

// SetupWithManager registers the controller: Backups only (what a slot
// needs is in the Backup's status).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Backup{}).Complete(r)
}

// Reconcile schedules the next slot that is due (its Job, then the slot in
// status), and comes back when the one after it is.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b Backup
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !b.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	now := time.Now()
	due := int64(now.Sub(b.CreationTimestamp.Time) / Every) // the latest slot whose time has come
	next := b.Status.LastSlot + 1
	if next > due {
		return ctrl.Result{RequeueAfter: b.CreationTimestamp.Add(time.Duration(next) * Every).Sub(now)}, nil
	}
	if err := r.createJob(ctx, &b, next); err != nil {
		return ctrl.Result{}, err
	}
	b.Status.LastSlot = next
	if err := r.Status().Update(ctx, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return ctrl.Result{RequeueAfter: max(b.CreationTimestamp.Add(time.Duration(next+1)*Every).Sub(now), 0) + time.Millisecond}, nil
}

// createJob creates slot's Job.
func (r *Reconciler) createJob(ctx context.Context, b *Backup, slot int64) error {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: fmt.Sprintf("%s-%d", b.Name, slot),
			Labels: map[string]string{SlotLabel: fmt.Sprint(slot)}},
		Spec: batchv1.JobSpec{
			BackoffLimit: new(int32),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "backup", Image: "backup:1", Args: []string{"--backup", b.Name}}},
			}},
		},
	}
	if r.Buggy { // the bug: a slot's Job has no name of its own
		job.GenerateName, job.Name = b.Name+"-", ""
	}
	if err := controllerutil.SetControllerReference(b, job, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
