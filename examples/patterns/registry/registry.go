package registry

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the RegisteredApp CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds RegisteredApp to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&RegisteredApp{}, &RegisteredAppList{}) }

// RegisteredApp is an app whose image the cluster's registry lists.
type RegisteredApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RegisteredAppSpec   `json:"spec,omitempty"`
	Status            RegisteredAppStatus `json:"status,omitempty"`
}

// RegisteredAppSpec is the app's image.
type RegisteredAppSpec struct {
	Image string `json:"image"`
}

// RegisteredAppStatus is the image last registered.
type RegisteredAppStatus struct {
	Registered string `json:"registered,omitempty"`
}

// RegisteredAppList is a list of RegisteredApps.
type RegisteredAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RegisteredApp `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *RegisteredApp) DeepCopyInto(out *RegisteredApp) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the RegisteredApp.
func (in *RegisteredApp) DeepCopyObject() runtime.Object {
	out := new(RegisteredApp)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *RegisteredAppList) DeepCopyObject() runtime.Object {
	out := &RegisteredAppList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var c RegisteredApp
		in.Items[i].DeepCopyInto(&c)
		out.Items = append(out.Items, c)
	}
	return out
}

const (
	// RegistryNamespace is the cluster's registry namespace, made by the
	// operator's install.
	RegistryNamespace = "registry-system"
	// Finalizer holds a deleted app until its entry is removed.
	Finalizer = "patterns.ctrlsim.dev/registry"
)

// Reconciler keeps each RegisteredApp's registry entry and status.
type Reconciler struct {
	client.Client
	// APIReader reads the app live before its entry is created.
	APIReader client.Reader
	// Buggy registers with a plain create while status lacks the image.
	Buggy bool
}

// SetupWithManager registers the controller: RegisteredApps and their
// registry entries (an entry changed since the operator's own write, or
// its own write seen late, is one to look at again).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	entry := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		ns, name, ok := strings.Cut(o.GetName(), ".")
		if o.GetNamespace() != RegistryNamespace || !ok {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
	})
	return ctrl.NewControllerManagedBy(mgr).For(&RegisteredApp{}).Watches(&corev1.ConfigMap{}, entry).Complete(r)
}

// write creates or updates the app's entry; a create only once a live read
// shows the app alive: a restart onto a cache from before the app's
// deletion would otherwise bring back the entry its finalizer removed (no
// owner reference crosses namespaces, so nothing would collect it).
func (r *Reconciler) write(ctx context.Context, app *RegisteredApp, entry *corev1.ConfigMap) error {
	err := r.Get(ctx, client.ObjectKeyFromObject(entry), entry)
	switch {
	case apierrors.IsNotFound(err):
		live := &RegisteredApp{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(app), live); err != nil {
			return client.IgnoreNotFound(err)
		}
		if live.DeletionTimestamp != nil {
			return nil
		}
		entry.Data = map[string]string{"image": live.Spec.Image}
		return r.Create(ctx, entry)
	case err != nil:
		return err
	case entry.Data["image"] == app.Spec.Image:
		return nil
	}
	entry.Data = map[string]string{"image": app.Spec.Image}
	return r.Update(ctx, entry)
}

// Reconcile writes the app's registry entry (removes it once the app is
// deleted) and records the image registered.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app RegisteredApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	entry := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: RegistryNamespace, Name: app.Namespace + "." + app.Name}}
	if app.DeletionTimestamp != nil {
		if !controllerutil.ContainsFinalizer(&app, Finalizer) {
			return ctrl.Result{}, nil
		}
		if err := r.Delete(ctx, entry); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		controllerutil.RemoveFinalizer(&app, Finalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, &app))
	}
	if !controllerutil.ContainsFinalizer(&app, Finalizer) {
		controllerutil.AddFinalizer(&app, Finalizer)
		return ctrl.Result{}, r.Update(ctx, &app)
	}
	if r.Buggy {
		if app.Status.Registered == "" {
			entry.Data = map[string]string{"image": app.Spec.Image}
			if err := r.Create(ctx, entry); err != nil {
				return ctrl.Result{}, err // the bug: an entry made before a crash is an error for ever
			}
		} else if app.Status.Registered != app.Spec.Image {
			if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, entry, func() error {
				entry.Data = map[string]string{"image": app.Spec.Image}
				return nil
			}); err != nil {
				return ctrl.Result{}, err
			}
		}
	} else if err := r.write(ctx, &app, entry); err != nil {
		return ctrl.Result{}, err
	}
	if app.Status.Registered == app.Spec.Image {
		return ctrl.Result{}, nil
	}
	app.Status.Registered = app.Spec.Image
	return ctrl.Result{}, r.Status().Update(ctx, &app)
}
