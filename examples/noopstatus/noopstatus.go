package noopstatus

import (
	"context"
	"time"

	_ "embed"

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

// CRD is the App CustomResourceDefinition (config/crd/bases in a kubebuilder
// project).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the App.
	GroupVersion  = schema.GroupVersion{Group: "noopstatus.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds App to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&App{}, &AppList{}) }

// App is an application whose configuration lives in two ConfigMaps.
type App struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AppSpec   `json:"spec,omitempty"`
	Status            AppStatus `json:"status,omitempty"`
}

// AppSpec is the App's image.
type AppSpec struct {
	Image string `json:"image,omitempty"`
}

// AppStatus counts the App's ConfigMaps.
type AppStatus struct {
	Children int `json:"children,omitempty"`
}

// AppList is a list of Apps.
type AppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []App `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *App) DeepCopyInto(out *App) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the App.
func (in *App) DeepCopyObject() runtime.Object {
	out := new(App)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *AppList) DeepCopyObject() runtime.Object {
	out := &AppList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var a App
		in.Items[i].DeepCopyInto(&a)
		out.Items = append(out.Items, a)
	}
	return out
}

// Resync is how often the operator asks to reconcile an App again.
const Resync = 15 * time.Second

// Reconciler makes each App's two ConfigMaps and counts them in its status.
type Reconciler struct {
	client.Client
	// NoopStatus writes the status on every reconcile, changed or not (the
	// fixed operator writes it only when the count changed).
	NoopStatus bool
	// CrashBug stops when the first ConfigMap exists (the fixed operator
	// checks each).
	CrashBug bool
}

// SetupWithManager registers the controller: Apps, and their ConfigMaps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&App{}).Owns(&corev1.ConfigMap{}).Complete(r)
}

// Reconcile creates <name>-config, then <name>-credentials, and writes the
// count in the App's status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app App
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	children := 0
	for i, suffix := range []string{"-config", "-credentials"} {
		var cm corev1.ConfigMap
		err := r.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name + suffix}, &cm)
		if err == nil {
			if cm.Data["image"] != app.Spec.Image {
				cm.Data = map[string]string{"image": app.Spec.Image} // the App's image changed since
				if err := r.Update(ctx, &cm); err != nil {
					return ctrl.Result{}, err
				}
			}
			children++
			if i == 0 && r.CrashBug {
				children++ // the bug: the first ConfigMap stands for both
				break
			}
			continue
		}
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		cm = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + suffix},
			Data: map[string]string{"image": app.Spec.Image}}
		if err := controllerutil.SetControllerReference(&app, &cm, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &cm); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
		children++
	}
	if r.NoopStatus || app.Status.Children != children {
		app.Status.Children = children
		if err := r.Status().Update(ctx, &app); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{RequeueAfter: Resync}, nil
}
