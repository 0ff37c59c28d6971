package apiserver_test

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A pod created bound to a Node gets the Node's zone and region labels
// (PodTopologyLabels admission, plugin/pkg/admission/podtopologylabels); a
// pod bound to a missing Node, or unbound, gets none. An environment
// variable's fieldRef gets apiVersion v1 (SetDefaults_ObjectFieldSelector).
func TestAPodCreatedOnANodeGetsItsTopologyLabels(t *testing.T) {
	w := newWorld(t)
	w.must(w.s.Create(admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{
		corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1", corev1.LabelHostname: "n1"}}}))
	pod := func(name, node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": "a"}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox",
				Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}}}}
	}
	for _, tc := range []struct {
		name, node string
		want       map[string]string
	}{
		{"bound", "n1", map[string]string{"app": "a", corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1"}},
		{"missing-node", "n2", map[string]string{"app": "a"}},
		{"unbound", "", map[string]string{"app": "a"}},
	} {
		p := pod(tc.name, tc.node)
		w.must(w.s.Create(admin, p))
		var got corev1.Pod
		w.must(w.s.Get(admin, client.ObjectKeyFromObject(p), &got))
		if !maps.Equal(got.Labels, tc.want) {
			t.Errorf("%s: labels %v, want %v", tc.name, got.Labels, tc.want)
		}
		if v := got.Spec.Containers[0].Env[0].ValueFrom.FieldRef.APIVersion; v != "v1" {
			t.Errorf("%s: fieldRef apiVersion %q, want v1", tc.name, v)
		}
	}
}
