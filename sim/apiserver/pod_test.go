package apiserver_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A pod is created with phase Pending and its QoS class, whatever status the
// request carried (pkg/registry/core/pod/strategy.go PrepareForCreate, and
// ComputePodQOS of pkg/apis/core/v1/helper/qos).
func TestAPodIsCreatedPendingWithItsQoSClass(t *testing.T) {
	w := newWorld(t)
	rl := func(kv ...string) corev1.ResourceList {
		out := corev1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name string
		res  []corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"none", []corev1.ResourceRequirements{{}}, corev1.PodQOSBestEffort},
		{"equal", []corev1.ResourceRequirements{{Requests: rl("cpu", "1", "memory", "1Gi"), Limits: rl("cpu", "1", "memory", "1Gi")}}, corev1.PodQOSGuaranteed},
		{"cpu-only", []corev1.ResourceRequirements{{Requests: rl("cpu", "1"), Limits: rl("cpu", "1")}}, corev1.PodQOSBurstable},
		{"mixed", []corev1.ResourceRequirements{{Requests: rl("cpu", "1", "memory", "1Gi"), Limits: rl("cpu", "1", "memory", "1Gi")}, {}}, corev1.PodQOSBurstable},
		{"request-below-limit", []corev1.ResourceRequirements{{Requests: rl("memory", "1Gi"), Limits: rl("memory", "2Gi")}}, corev1.PodQOSBurstable},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: tc.name},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.9"}}
		for i, r := range tc.res {
			pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "c" + string(rune('0'+i)), Image: "busybox", Resources: r})
		}
		w.must(w.s.Create(admin, pod))
		var got corev1.Pod
		w.must(w.s.Get(admin, client.ObjectKeyFromObject(pod), &got))
		if got.Status.Phase != corev1.PodPending || got.Status.QOSClass != tc.want || got.Status.PodIP != "" {
			t.Errorf("%s: status %+v, want only phase Pending and qosClass %s", tc.name, got.Status, tc.want)
		}
	}
}
