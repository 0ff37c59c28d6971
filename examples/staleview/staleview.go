package staleview

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Migration CustomResourceDefinition (config/crd/bases in a
// kubebuilder project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the Migration.
	GroupVersion  = schema.GroupVersion{Group: "staleview.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Migration to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Migration{}, &MigrationList{}) }

// Migration runs Spec.Image once, as a Pod.
type Migration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              MigrationSpec   `json:"spec,omitempty"`
	Status            MigrationStatus `json:"status,omitempty"`
}

// MigrationSpec is what to run.
type MigrationSpec struct {
	Image string `json:"image"`
}

// MigrationStatus is the run's progress: Running once claimed, then the
// outcome and the uid of the Pod it came from.
type MigrationStatus struct {
	Phase string `json:"phase,omitempty"`
	Pod   string `json:"pod,omitempty"`
}

// MigrationList is a list of Migrations.
type MigrationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Migration `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Migration) DeepCopyInto(out *Migration) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Migration.
func (in *Migration) DeepCopyObject() runtime.Object {
	out := new(Migration)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *MigrationList) DeepCopyObject() runtime.Object {
	out := &MigrationList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var m Migration
		in.Items[i].DeepCopyInto(&m)
		out.Items = append(out.Items, m)
	}
	return out
}

// Reconciler runs each Migration once.
type Reconciler struct {
	client.Client
	// APIReader reads live (the manager's GetAPIReader).
	APIReader client.Reader
	// Buggy runs a Running Migration without a Pod again on the word of
	// its cache alone.
	Buggy bool

	finished map[types.UID]bool // the Migrations this incarnation recorded an outcome of
}

// SetupWithManager registers the controller: Migrations, owned Pods.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.finished = map[types.UID]bool{}
	return ctrl.NewControllerManagedBy(mgr).For(&Migration{}).Owns(&corev1.Pod{}).Complete(r)
}

// Reconcile claims, starts, records and cleans up the Migration's run.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var m Migration
	if err := r.Get(ctx, req.NamespacedName, &m); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var pod corev1.Pod
	err := r.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name + "-run"}, &pod)
	found := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if found && !metav1.IsControlledBy(&pod, &m) {
		// A Pod of an earlier Migration of this name, which the garbage
		// collector has yet to delete.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	switch m.Status.Phase {
	case "":
		// Claim the run before starting it: the update conflicts if this
		// view of the Migration is old.
		m.Status.Phase = "Running"
		if err := r.Status().Update(ctx, &m); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.start(ctx, &m)
	case "Running":
		if !found {
			if r.finished[m.UID] {
				return ctrl.Result{}, nil // recorded by this incarnation: the cache has yet to show it
			}
			if !r.Buggy {
				// The cache may show an old Migration: confirm live that
				// the run is still to do.
				var live Migration
				if err := r.APIReader.Get(ctx, req.NamespacedName, &live); err != nil {
					return ctrl.Result{}, client.IgnoreNotFound(err)
				}
				if live.Status.Phase != "Running" {
					return ctrl.Result{}, nil
				}
			}
			return ctrl.Result{}, r.start(ctx, &m) // never started (a crash after the claim), or lost
		}
		if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			return ctrl.Result{}, nil
		}
		m.Status.Phase, m.Status.Pod = string(pod.Status.Phase), string(pod.UID)
		if err := r.Status().Update(ctx, &m); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.deleteRun(ctx, &pod, m.Status.Pod); err != nil {
			return ctrl.Result{}, err
		}
		r.finished[m.UID] = true
		return ctrl.Result{}, nil
	default:
		// The outcome is recorded: delete the Pod it came from, if a crash
		// left it.
		if found && string(pod.UID) == m.Status.Pod {
			return ctrl.Result{}, r.deleteRun(ctx, &pod, m.Status.Pod)
		}
		return ctrl.Result{}, nil
	}
}

// start creates the Migration's Pod (AlreadyExists: it has it).
func (r *Reconciler) start(ctx context.Context, m *Migration) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name + "-run"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "migrate", Image: m.Spec.Image, Command: []string{"sh", "-c", "sleep 1"}}},
		},
	}
	if err := controllerutil.SetControllerReference(m, pod, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// deleteRun deletes the Pod whose uid is uid, and no other of its name.
func (r *Reconciler) deleteRun(ctx context.Context, pod *corev1.Pod, uid string) error {
	u := types.UID(uid)
	err := r.Delete(ctx, pod, client.Preconditions{UID: &u})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or another Pod of that name: not this run's
	}
	return err
}
