// Package bundletest holds the bundles the ClusterExtension controller is tested
// with, in the simulator (scenarios/clusterextension) and on a real API server
// (the controller's envtest suite): the same package on both.
//
// # Known gaps
//
// One package, three versions; bundles are object lists, not images.
package bundletest

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/catalog"
)

// PackageName is the package the bundles belong to.
const PackageName = "op"

// Bundle returns the content of package op at version 1.0.0, 2.0.0 or 3.0.0:
//
//	1.0.0  ServiceAccount op-controller, ConfigMap op-config, Deployment op-controller
//	2.0.0  the same at v2, plus ConfigMap op-migration (upgrades from 1.0.0)
//	3.0.0  the same at v3, without op-migration (upgrades from 1.0.0 and 2.0.0)
func Bundle(version string) catalog.Bundle {
	major := version[:1]
	b := catalog.Bundle{
		Package: PackageName, Name: PackageName + ".v" + version, Version: version,
		Image: "quay.io/example/op-bundle:v" + version,
		Objects: []client.Object{
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "op-controller"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "op-config"}, Data: map[string]string{"version": major}},
		},
	}
	switch major {
	case "2":
		b.UpgradesFrom = []string{"1.0.0"}
		b.Objects = append(b.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "op-migration"}, Data: map[string]string{"from": "1", "to": "2"}})
	case "3":
		b.UpgradesFrom = []string{"1.0.0", "2.0.0"}
	}
	labels := map[string]string{"app": "op-controller"}
	b.Objects = append(b.Objects, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "op-controller"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			ServiceAccountName: "op-controller",
			Containers:         []corev1.Container{{Name: "manager", Image: "quay.io/example/op:v" + major}},
		}},
	}})
	return b
}
