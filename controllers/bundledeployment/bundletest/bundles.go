// Package bundletest holds the bundles the BundleDeployment controller is tested
// with, in the simulator (scenarios/bundledeployment) and on a real API server
// (the controller's envtest suite): the same objects on both.
//
// # Known gaps
//
// Bundles are lists of objects served by image reference; there is no bundle
// unpacking.
package bundletest

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
)

// Bundles (image references) the world's storage serves. Each is templated by
// the BundleDeployment's name n:
//
//	broken  Namespace n, ConfigMap n/config, Deployment n/operator with an invalid annotation key
//	v1      Namespace n, ConfigMap n/config
//	v2      v1 plus Namespace n-extra, ConfigMap n-extra/extra, and the invalid Deployment n/operator
const (
	Broken = "broken"
	V1     = "v1"
	V2     = "v2"
)

// InvalidAnnotation is the annotation key that makes Deployment operator
// invalid: a real API server refuses it in metadata validation
// (ValidateAnnotations), as this model's does.
const InvalidAnnotation = "example.com/not a valid key"

// RootCause is a substring of the root-cause message: the API server's
// refusal of the invalid Deployment.
const RootCause = `Deployment.apps "operator" is invalid`

// Transient is a substring of the message a create meets in a namespace that
// the previous attempt's cleanup is still deleting (NamespaceLifecycle).
const Transient = "because it is being terminated"

// Content is the content of bundle ref for BundleDeployment n.
func Content(ref, n string) ([]client.Object, error) {
	ns := func(name string) client.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	cm := func(namespace, name string) client.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string]string{"k": "v"}}
	}
	labels := map[string]string{"app": "operator"}
	invalid := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: n, Name: "operator", Annotations: map[string]string{InvalidAnnotation: "x"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "manager", Image: "quay.io/example/operator:v1"}},
			}},
		},
	}
	switch ref {
	case Broken:
		return []client.Object{ns(n), cm(n, "config"), invalid}, nil
	case V1:
		return []client.Object{ns(n), cm(n, "config")}, nil
	case V2:
		return []client.Object{ns(n), cm(n, "config"), ns(n + "-extra"), cm(n+"-extra", "extra"), invalid}, nil
	}
	return nil, fmt.Errorf("bundle %q not found", ref)
}

// NewBundleDeployment is BundleDeployment name of the plain provisioner with
// bundle ref.
func NewBundleDeployment(name, ref string) *bdc.BundleDeployment {
	return &bdc.BundleDeployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: bdc.BundleDeploymentSpec{
			ProvisionerClassName: bdc.PlainProvisionerID,
			Template: bdc.BundleTemplate{Spec: bdc.BundleSpec{
				ProvisionerClassName: "core-rukpak-io-registry",
				Source:               bdc.BundleSource{Type: "image", Image: &bdc.ImageSource{Ref: ref}},
			}},
		},
	}
}
