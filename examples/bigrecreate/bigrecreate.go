package bigrecreate

import (
	"context"
	"fmt"
	"strconv"
	"time"

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

// CRD is the App CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the App.
	GroupVersion  = schema.GroupVersion{Group: "bigrecreate.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds App to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&App{}, &AppList{}) }

// AppLabel names the App an object belongs to, MemberLabel its member.
const (
	AppLabel    = "bigrecreate.ctrlsim.dev/app"
	MemberLabel = "bigrecreate.ctrlsim.dev/member"
)

// App is an application of Members members, each with its ConfigMap,
// Secret and Service.
type App struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AppSpec   `json:"spec,omitempty"`
	Status            AppStatus `json:"status,omitempty"`
}

// AppSpec is the number of members.
type AppSpec struct {
	Members int `json:"members"`
}

// AppStatus is how far the operator has got: Ready once every child of
// the generation it observed is made.
type AppStatus struct {
	Phase              string `json:"phase,omitempty"`
	ReadyMembers       int    `json:"readyMembers,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
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

// Finalizer holds an App until its members have left, the last first.
const Finalizer = "bigrecreate.ctrlsim.dev/members-leave"

// The phases of an App: its children being made, all made, its members
// leaving.
const (
	PhaseCreating    = "Creating"
	PhaseReady       = "Ready"
	PhaseTerminating = "Terminating"
)

// Children are the kinds and names of the objects an App of that name and
// members owns, in the order the operator makes them: its headless Service
// <name>, then for each member i its ConfigMap <name>-<i>-config, Secret
// <name>-<i>-credentials and Service <name>-<i>.
func Children(name string, members int) [][2]string {
	out := [][2]string{{"Service", name}}
	for i := range members {
		out = append(out,
			[2]string{"ConfigMap", fmt.Sprintf("%s-%d-config", name, i)},
			[2]string{"Secret", fmt.Sprintf("%s-%d-credentials", name, i)},
			[2]string{"Service", fmt.Sprintf("%s-%d", name, i)})
	}
	return out
}

// WaitForOld is when the correct operator looks again at an App one of
// whose children is still an App's of the same name that is gone, or
// exists but is not in its cache yet (the child's deletion, or its
// appearance in the cache, requeues the App too).
const WaitForOld = 2 * time.Second

// Reconciler makes each App's children, records its progress, and on its
// deletion has its members leave, the last first.
type Reconciler struct {
	client.Client
	// Buggy takes whatever its cache has under a child's name for the
	// App's child, whichever App controls it: after the App is deleted and
	// made again under its name, a cache that still holds the old App's
	// child makes the operator skip making it, and once the status says
	// Ready the App is not looked at again.
	Buggy bool
}

// SetupWithManager registers the controller: Apps and the ConfigMaps,
// Secrets and Services they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&App{}).
		Owns(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Owns(&corev1.Service{}).Complete(r)
}

// Reconcile adds the finalizer and makes the App's children one member at
// a time, writing the ready members as each member is made, then the phase
// Ready. An App whose status says Ready for its generation has been made:
// nothing to do until its spec changes. An App being deleted has its
// members leave (leave).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app App
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.leave(ctx, &app)
	}
	if !controllerutil.ContainsFinalizer(&app, Finalizer) {
		controllerutil.AddFinalizer(&app, Finalizer)
		if err := r.Update(ctx, &app); err != nil {
			return ctrl.Result{}, err
		}
	}
	if app.Status.Phase == PhaseReady && app.Status.ObservedGeneration == app.Generation {
		return ctrl.Result{}, nil
	}
	ok, err := r.ensure(ctx, &app, r.service(&app, app.Name, -1))
	if err != nil {
		return ctrl.Result{}, err
	}
	waiting := !ok
	for i := range app.Spec.Members {
		made := true
		for _, o := range r.member(&app, i) {
			ok, err := r.ensure(ctx, &app, o)
			if err != nil {
				return ctrl.Result{}, err
			}
			made = made && ok
		}
		if !made {
			waiting = true
			continue
		}
		if !waiting && app.Status.ReadyMembers < i+1 {
			if err := r.writeStatus(ctx, &app, PhaseCreating, i+1); err != nil { // progress, as a member is made
				return ctrl.Result{}, err
			}
		}
	}
	if waiting {
		return ctrl.Result{RequeueAfter: WaitForOld}, nil
	}
	return ctrl.Result{}, r.writeStatus(ctx, &app, PhaseReady, app.Spec.Members)
}

// leave deletes each member's Service, Secret and ConfigMap, the last
// member first, writing the members left as each one goes, then removes
// the finalizer (the garbage collector deletes the headless Service, and
// any child the cache did not show). Only the children the App controls
// are deleted, each with its uid as a precondition: a cache behind a
// re-creation under the App's name shows the new App's children too.
func (r *Reconciler) leave(ctx context.Context, app *App) error {
	if !controllerutil.ContainsFinalizer(app, Finalizer) {
		return nil
	}
	for i := app.Spec.Members - 1; i >= 0; i-- {
		objs := r.member(app, i)
		for j := len(objs) - 1; j >= 0; j-- {
			o := objs[j]
			if err := r.Get(ctx, client.ObjectKeyFromObject(o), o); apierrors.IsNotFound(err) {
				continue
			} else if err != nil {
				return err
			}
			if !metav1.IsControlledBy(o, app) || !o.GetDeletionTimestamp().IsZero() {
				continue
			}
			uid := o.GetUID()
			if err := r.Delete(ctx, o, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
				return err
			}
		}
		if app.Status.Phase != PhaseTerminating || app.Status.ReadyMembers > i {
			if err := r.writeStatus(ctx, app, PhaseTerminating, i); err != nil { // progress, as a member leaves
				return err
			}
		}
	}
	controllerutil.RemoveFinalizer(app, Finalizer)
	return client.IgnoreNotFound(r.Update(ctx, app))
}

// writeStatus writes the phase and ready members of the App's generation
// when they changed.
func (r *Reconciler) writeStatus(ctx context.Context, app *App, phase string, ready int) error {
	want := AppStatus{Phase: phase, ReadyMembers: ready, ObservedGeneration: app.Generation}
	if app.Status == want {
		return nil
	}
	app.Status = want
	return r.Status().Update(ctx, app)
}

// ensure makes o, controlled by app, unless the cache has it, and reports
// whether app has it now. The correct operator takes a child found for
// app's only when app controls it (a child of a gone App of the same name
// waits for the garbage collector), and one that exists but the cache has
// not seen yet for nothing until it sees it.
func (r *Reconciler) ensure(ctx context.Context, app *App, o client.Object) (bool, error) {
	found := o.DeepCopyObject().(client.Object)
	err := r.Get(ctx, client.ObjectKeyFromObject(o), found)
	if err == nil {
		return r.Buggy || (metav1.IsControlledBy(found, app) && found.GetDeletionTimestamp().IsZero()), nil
	}
	if !apierrors.IsNotFound(err) {
		return false, err
	}
	if err := controllerutil.SetControllerReference(app, o, r.Scheme()); err != nil {
		return false, err
	}
	if err := r.Create(ctx, o); apierrors.IsAlreadyExists(err) {
		return r.Buggy, nil
	} else if err != nil {
		return false, err
	}
	return true, nil
}

// member is member i's ConfigMap, Secret and Service.
func (r *Reconciler) member(app *App, i int) []client.Object {
	return []client.Object{
		&corev1.ConfigMap{ObjectMeta: meta(app, fmt.Sprintf("%s-%d-config", app.Name, i), i),
			Data: map[string]string{"member.conf": fmt.Sprintf("id=%d\nmembers=%d\npeers=%s\n", i, app.Spec.Members, app.Name)}},
		&corev1.Secret{ObjectMeta: meta(app, fmt.Sprintf("%s-%d-credentials", app.Name, i), i),
			StringData: map[string]string{"username": fmt.Sprintf("member-%d", i)}},
		r.service(app, fmt.Sprintf("%s-%d", app.Name, i), i),
	}
}

// service is a Service of app's: the headless one (member -1) or member's.
func (r *Reconciler) service(app *App, name string, member int) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: meta(app, name, member),
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 8080}},
			Selector: map[string]string{AppLabel: app.Name}}}
	if member < 0 {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	} else {
		svc.Spec.Selector[MemberLabel] = strconv.Itoa(member)
	}
	return svc
}

// meta is the metadata of one of app's objects: its name, app's
// namespace, and the labels that map it back to app (and to its member,
// if any).
func meta(app *App, name string, member int) metav1.ObjectMeta {
	labels := map[string]string{AppLabel: app.Name}
	if member >= 0 {
		labels[MemberLabel] = strconv.Itoa(member)
	}
	return metav1.ObjectMeta{Namespace: app.Namespace, Name: name, Labels: labels}
}
