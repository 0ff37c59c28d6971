package apiserver_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Privileged containers are allowed, as kubeadm, kind and the managed
// clusters run kube-apiserver (--allow-privileged=true): a StatefulSet with a
// privileged init container and a privileged pod are created. With
// SetAllowPrivileged(false), kube-apiserver's own flag default, both are
// refused as it refuses them.
func TestPrivilegedContainersAreAllowedAsKubeadmAndKindRunTheAPIServer(t *testing.T) {
	privileged := true
	spec := func() corev1.PodSpec {
		return corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox", SecurityContext: &corev1.SecurityContext{Privileged: &privileged}}},
			Containers:     []corev1.Container{{Name: "db", Image: "postgres"}},
		}
	}
	sts := func(name string) *appsv1.StatefulSet {
		labels := map[string]string{"app": name}
		return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec()}}}
	}
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: spec()}
	}
	w := newWorld(t)
	w.must(w.s.Create(admin, sts("db")))
	w.must(w.s.Create(admin, pod("db-0")))

	w.s.SetAllowPrivileged(false)
	for _, err := range []error{w.s.Create(admin, sts("db2")), w.s.Create(admin, pod("db2-0"))} {
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "privileged: Forbidden: disallowed by cluster policy") {
			t.Errorf("with --allow-privileged=false: got %v, want the 422 disallowed by cluster policy", err)
		}
	}
}
