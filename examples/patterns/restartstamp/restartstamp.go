package restartstamp

import (
	"context"
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

// CRD is the Broker CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Broker to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Broker{}, &BrokerList{}) }

// RestartedAt is the pod template annotation `kubectl rollout restart`
// writes: a change of it rolls the pods.
const RestartedAt = "kubectl.kubernetes.io/restartedAt"

// ConfigAnnotation is the StatefulSet's record of the configuration its
// pods were (re)started for, written with the restart time.
const ConfigAnnotation = "patterns.ctrlsim.dev/config"

// Broker is a message broker run as a StatefulSet whose configuration file
// comes from a ConfigMap.
type Broker struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BrokerSpec   `json:"spec,omitempty"`
	Status            BrokerStatus `json:"status,omitempty"`
}

// BrokerSpec is the configuration file and the number of brokers.
type BrokerSpec struct {
	Config   string `json:"config"`
	Replicas int32  `json:"replicas"`
}

// BrokerStatus records the configuration the pods were restarted for.
type BrokerStatus struct {
	AppliedConfig string `json:"appliedConfig,omitempty"`
}

// BrokerList is a list of Brokers.
type BrokerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Broker `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Broker) DeepCopyInto(out *Broker) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Broker.
func (in *Broker) DeepCopyObject() runtime.Object {
	out := new(Broker)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *BrokerList) DeepCopyObject() runtime.Object {
	out := &BrokerList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var b Broker
		in.Items[i].DeepCopyInto(&b)
		out.Items = append(out.Items, b)
	}
	return out
}

// Reconciler keeps each Broker's ConfigMap, StatefulSet and status.
type Reconciler struct {
	client.Client
	// Buggy stamps a new restart time at every reconcile.
	Buggy bool
}

// SetupWithManager registers the controller: Brokers, and the ConfigMaps
// and StatefulSets they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Broker{}).Owns(&corev1.ConfigMap{}).Owns(&appsv1.StatefulSet{}).Complete(r)
}

// Reconcile writes the ConfigMap, then the StatefulSet, stamping its pod
// template with the time when the configuration differs from the one the
// StatefulSet records its pods were started for (none: a new StatefulSet),
// then mirrors that configuration in status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b Broker
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if b.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: b.Name + "-config"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"broker.conf": b.Spec.Config}
		return controllerutil.SetControllerReference(&b, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "broker", "app.kubernetes.io/instance": b.Name}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: b.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, sts, func() error {
		replicas := b.Spec.Replicas
		sts.Spec.Replicas = &replicas
		sts.Spec.ServiceName = b.Name
		if sts.Spec.Selector == nil { // immutable once set
			sts.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		}
		sts.Spec.Template.Labels = labels
		if sts.Annotations[ConfigAnnotation] != b.Spec.Config || r.Buggy { // the bug: a new restart time at every reconcile
			// The pods start (a new StatefulSet) or restart (a changed
			// configuration) now, and the StatefulSet records for which
			// configuration, in the same write.
			if sts.Spec.Template.Annotations == nil {
				sts.Spec.Template.Annotations = map[string]string{}
			}
			sts.Spec.Template.Annotations[RestartedAt] = time.Now().UTC().Format(time.RFC3339)
			metav1.SetMetaDataAnnotation(&sts.ObjectMeta, ConfigAnnotation, b.Spec.Config)
		}
		sts.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}}
		sts.Spec.Template.Spec.Containers = []corev1.Container{{
			Name:         "broker",
			Image:        "rabbitmq:4.1",
			VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/broker"}},
		}}
		return controllerutil.SetControllerReference(&b, sts, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	if b.Status.AppliedConfig == b.Spec.Config {
		return ctrl.Result{}, nil
	}
	b.Status.AppliedConfig = b.Spec.Config
	return ctrl.Result{}, r.Status().Update(ctx, &b)
}
