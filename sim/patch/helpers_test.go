package patch

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

var (
	configMaps  = schema.GroupResource{Resource: "configmaps"}
	deployments = schema.GroupResource{Group: "apps", Resource: "deployments"}
	widgets     = schema.GroupResource{Group: "example.com", Resource: "widgets"}

	builtin = Options{Strategic: true, GroupResource: configMaps}
	custom  = Options{Strategic: false, GroupResource: widgets}
)

func configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "settings", Namespace: "team-a", UID: "uid-cm", ResourceVersion: "41",
			Labels:     map[string]string{"app": "web", "app.kubernetes.io/name": "web"},
			Finalizers: []string{"example.com/first"},
		},
		Data: map[string]string{"color": "blue", "size": "large"},
	}
}

func deployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "team-a", UID: "uid-dep", ResourceVersion: "7", Generation: 2,
			Labels: map[string]string{"app": "web"},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromString("25%")),
				},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "app", Image: "app:1", Env: []corev1.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "DEBUG", Value: "0"}}},
					{Name: "sidecar", Image: "proxy:1"},
				}},
			},
		},
	}
}

// Widget stands for a custom resource: a Go struct without strategic merge tags, served without
// strategic merge patch.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Size  int32    `json:"size"`
	Parts []string `json:"parts,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Parts = append([]string(nil), w.Spec.Parts...)
	return &out
}

func widget() *Widget {
	return &Widget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "team-a", UID: "uid-w", ResourceVersion: "3"},
		Spec:       WidgetSpec{Size: 1, Parts: []string{"a", "b"}},
	}
}

// mustApply applies a patch that must succeed, and checks that current was left alone and the result
// is a new object of the same Go type.
func mustApply(t *testing.T, current runtime.Object, pt types.PatchType, data string, opts Options) runtime.Object {
	t.Helper()
	before := current.DeepCopyObject()
	got, err := Apply(current, pt, []byte(data), opts)
	if err != nil {
		t.Fatalf("Apply(%s, %s) failed: %v", pt, data, err)
	}
	if !equality.Semantic.DeepEqual(before, current) {
		t.Fatalf("Apply modified current:\n%s", diff(before, current))
	}
	if got == current {
		t.Fatalf("Apply returned current itself, want a new object")
	}
	if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", current) {
		t.Fatalf("Apply returned %T, want %T", got, current)
	}
	return got
}

func assertSame(t *testing.T, want, got runtime.Object) {
	t.Helper()
	if !equality.Semantic.DeepEqual(want, got) {
		t.Errorf("patched object differs:\n%s", diff(want, got))
	}
}

func diff(want, got runtime.Object) string {
	w, _ := yaml.Marshal(want)
	g, _ := yaml.Marshal(got)
	return "want:\n" + string(w) + "got:\n" + string(g)
}

func statusOf(t *testing.T, err error) metav1.Status {
	t.Helper()
	se, ok := err.(*apierrors.StatusError)
	if !ok {
		t.Fatalf("error %v is a %T, want *apierrors.StatusError", err, err)
	}
	return se.ErrStatus
}
