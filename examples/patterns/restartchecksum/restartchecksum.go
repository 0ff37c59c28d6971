package restartchecksum

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

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

// CRD is the Relay CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Relay to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Relay{}, &RelayList{}) }

// ChecksumAnnotation is the pod template's checksum of the ConfigMap's
// data: a change of the ConfigMap changes the template, and the pods roll.
const ChecksumAnnotation = "patterns.ctrlsim.dev/config-checksum"

// Relay is a message relay run as a Deployment whose configuration file
// comes from a ConfigMap.
type Relay struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RelaySpec `json:"spec,omitempty"`
}

// RelaySpec is the configuration file and the number of relays.
type RelaySpec struct {
	Config   string `json:"config"`
	Replicas int32  `json:"replicas"`
}

// RelayList is a list of Relays.
type RelayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Relay `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Relay) DeepCopyInto(out *Relay) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Relay.
func (in *Relay) DeepCopyObject() runtime.Object {
	out := new(Relay)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *RelayList) DeepCopyObject() runtime.Object {
	out := &RelayList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var r Relay
		in.Items[i].DeepCopyInto(&r)
		out.Items = append(out.Items, r)
	}
	return out
}

// Reconciler keeps each Relay's ConfigMap and Deployment.
type Reconciler struct {
	client.Client
	// Buggy writes the checksum only in the reconcile that changed the
	// ConfigMap.
	Buggy bool
}

// SetupWithManager registers the controller: Relays, and the ConfigMaps
// and Deployments they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Relay{}).Owns(&corev1.ConfigMap{}).Owns(&appsv1.Deployment{}).Complete(r)
}

// Reconcile writes the ConfigMap, stamped with the time of the
// configuration's last change (kept while the configuration is the same),
// then the Deployment with the checksum of the ConfigMap's data in its pod
// template.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var relay Relay
	if err := r.Get(ctx, req.NamespacedName, &relay); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if relay.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: relay.Namespace, Name: relay.Name + "-config"}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Data["relay.conf"] != relay.Spec.Config || cm.Data["changedAt"] == "" {
			// A new configuration: the pods restart with it, now.
			cm.Data = map[string]string{"relay.conf": relay.Spec.Config, "changedAt": time.Now().UTC().Format(time.RFC3339)}
		}
		return controllerutil.SetControllerReference(&relay, cm, r.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	sum, err := checksum(cm.Data)
	if err != nil {
		return ctrl.Result{}, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "relay", "app.kubernetes.io/instance": relay.Name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: relay.Namespace, Name: relay.Name}}
	_, err = controllerutil.CreateOrUpdate(ctx, r.Client, d, func() error {
		replicas := relay.Spec.Replicas
		d.Spec.Replicas = &replicas
		if d.Spec.Selector == nil { // immutable once set
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		d.Spec.Template.Labels = labels
		if !r.Buggy || op != controllerutil.OperationResultNone { // the bug: the checksum follows the ConfigMap's write, not its content
			metav1.SetMetaDataAnnotation(&d.Spec.Template.ObjectMeta, ChecksumAnnotation, sum)
		}
		d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}}
		d.Spec.Template.Spec.Containers = []corev1.Container{{
			Name:         "relay",
			Image:        "nats:2.11",
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/relay"}},
		}}
		return controllerutil.SetControllerReference(&relay, d, r.Scheme())
	})
	return ctrl.Result{}, err
}

// checksum is the SHA-256 of the data's JSON (its keys sorted, as
// encoding/json writes a map), in hex.
func checksum(data map[string]string) (string, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
