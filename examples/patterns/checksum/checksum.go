package checksum

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the WebApp CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds WebApp to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&WebApp{}, &WebAppList{}) }

// Annotation is the pod template's annotation that holds the checksum.
const Annotation = "checksum/config"

// WebApp is a Deployment configured by a ConfigMap.
type WebApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WebAppSpec `json:"spec,omitempty"`
}

// WebAppSpec has the configuration and the number of pods.
type WebAppSpec struct {
	Config   map[string]string `json:"config"`
	Replicas *int32            `json:"replicas,omitempty"`
}

// WebAppList is a list of WebApps.
type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *WebApp) DeepCopyInto(out *WebApp) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Config != nil {
		out.Spec.Config = make(map[string]string, len(in.Spec.Config))
		for k, v := range in.Spec.Config {
			out.Spec.Config[k] = v
		}
	}
	if in.Spec.Replicas != nil {
		n := *in.Spec.Replicas
		out.Spec.Replicas = &n
	}
}

// DeepCopyObject copies the WebApp.
func (in *WebApp) DeepCopyObject() runtime.Object {
	out := new(WebApp)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *WebAppList) DeepCopyObject() runtime.Object {
	out := &WebAppList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var w WebApp
		in.Items[i].DeepCopyInto(&w)
		out.Items = append(out.Items, w)
	}
	return out
}

// Reconciler keeps each WebApp's ConfigMap and Deployment.
type Reconciler struct {
	client.Client
	// Buggy hashes the configuration in Go's map order.
	Buggy bool
}

// SetupWithManager registers the controller: WebApps, and the ConfigMaps
// and Deployments they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&WebApp{}).Owns(&corev1.ConfigMap{}).Owns(&appsv1.Deployment{}).Complete(r)
}

// Reconcile writes the ConfigMap, then the Deployment with the checksum of
// the ConfigMap's data in its pod template.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if app.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-config"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = app.Spec.Config
		return controllerutil.SetControllerReference(&app, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	sum := r.checksum(cm.Data)
	labels := map[string]string{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": app.Name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, d, func() error {
		d.Spec.Replicas = app.Spec.Replicas
		if d.Spec.Selector == nil { // immutable once set
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Annotations = map[string]string{Annotation: sum}
		d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}}
		d.Spec.Template.Spec.Containers = []corev1.Container{{
			Name:         "web",
			Image:        "nginx:1.27",
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/webapp"}},
		}}
		return controllerutil.SetControllerReference(&app, d, r.Scheme())
	})
	return ctrl.Result{}, err
}

// checksum hashes the data, key=value lines in the order of the sorted keys
// (or, Buggy, in the map's order).
func (r *Reconciler) checksum(data map[string]string) string {
	var keys []string
	for k := range data {
		keys = append(keys, k)
	}
	if !r.Buggy {
		slices.Sort(keys)
	} // the bug: Go ranges over a map in a different order every time
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k + "=" + data[k] + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
