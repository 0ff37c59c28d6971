package execop

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
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
	// GroupVersion is the operator's API group.
	GroupVersion  = schema.GroupVersion{Group: "execop.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds App to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&App{}, &AppList{}) }

// Image is the operand's image; Container its container, where app-cli runs.
const (
	Image     = "ctrlsim.dev/appd:1.0"
	Container = "app"
)

// App is an operand whose config the operator applies with its CLI.
type App struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AppSpec   `json:"spec,omitempty"`
	Status            AppStatus `json:"status,omitempty"`
}

// AppSpec is the config to apply.
type AppSpec struct {
	Config string `json:"config"`
}

// AppStatus says which generation's config is applied.
type AppStatus struct {
	AppliedGeneration int64 `json:"appliedGeneration,omitempty"`
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

// Reconciler keeps each App's StatefulSet and applies its config in the pod.
type Reconciler struct {
	client.Client
	// Config is the REST config the executor streams over (mgr.GetConfig()).
	Config *rest.Config
	// Buggy records the applied generation before the exec and trusts it.
	Buggy bool

	clientset kubernetes.Interface
}

// SetupWithManager registers the controller: Apps, owned StatefulSets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Config == nil {
		r.Config = mgr.GetConfig()
	}
	cs, err := kubernetes.NewForConfig(r.Config)
	if err != nil {
		return err
	}
	r.clientset = cs
	return ctrl.NewControllerManagedBy(mgr).For(&App{}).Owns(&appsv1.StatefulSet{}).Complete(r)
}

// Reconcile keeps the StatefulSet, waits for its pod to run, applies the
// config in it, then records the applied generation.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app App
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		labels := map[string]string{"app.kubernetes.io/instance": app.Name}
		one := int32(1)
		sts.Spec.Replicas = &one
		sts.Spec.ServiceName = app.Name
		if sts.Spec.Selector == nil {
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		sts.Spec.Template.Labels = labels
		sts.Spec.Template.Spec.Containers = []corev1.Container{{Name: Container, Image: Image}}
		return controllerutil.SetControllerReference(&app, sts, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	var pod corev1.Pod
	if err := r.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name + "-0"}, &pod); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	if !ownedBy(&pod, sts) || !pod.DeletionTimestamp.IsZero() || !running(&pod) {
		// Not our StatefulSet's pod yet (one of an App deleted before), or
		// not running: nothing to exec into.
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	if r.Buggy {
		if app.Status.AppliedGeneration == app.Generation {
			return ctrl.Result{}, nil // the bug: trusts a status written before the work
		}
		app.Status.AppliedGeneration = app.Generation // the bug: recorded before the exec
		if err := r.Status().Update(ctx, &app); err != nil {
			return ctrl.Result{}, err
		}
		_, err := r.exec(ctx, &pod, "app-cli", "set-config", app.Spec.Config)
		return ctrl.Result{}, err
	}
	current, err := r.exec(ctx, &pod, "app-cli", "get-config")
	if err != nil {
		return ctrl.Result{}, err
	}
	if strings.TrimSuffix(current, "\n") != app.Spec.Config {
		if _, err := r.exec(ctx, &pod, "app-cli", "set-config", app.Spec.Config); err != nil {
			return ctrl.Result{}, err
		}
	}
	if app.Status.AppliedGeneration == app.Generation {
		return ctrl.Result{}, nil
	}
	app.Status.AppliedGeneration = app.Generation
	return ctrl.Result{}, r.Status().Update(ctx, &app)
}

// exec runs command in the pod's app container and returns its stdout, as
// kubectl exec does.
func (r *Reconciler) exec(ctx context.Context, pod *corev1.Pod, command ...string) (string, error) {
	req := r.clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(pod.Namespace).Name(pod.Name).
		SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Container: Container, Command: command, Stdout: true, Stderr: true,
	}, clientgoscheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(r.Config, "POST", req.URL())
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	if err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		return "", fmt.Errorf("exec %q in %s/%s: %w (stderr %q)", command, pod.Namespace, pod.Name, err, stderr.String())
	}
	return stdout.String(), nil
}

// ownedBy reports whether sts controls pod.
func ownedBy(pod *corev1.Pod, sts *appsv1.StatefulSet) bool {
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.UID == sts.UID
}

// running reports whether the pod's app container runs.
func running(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == Container {
			return cs.State.Running != nil
		}
	}
	return false
}
