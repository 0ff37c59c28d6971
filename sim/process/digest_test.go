package process_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

func deployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d", Labels: map[string]string{"app": "d", "tier": "web"}},
		Spec:       appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example/c:1"}}}}},
		Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"}}},
	}
}

// Equal objects have equal digests; a change anywhere in them changes it.
func TestDigestCoversTheWholeObject(t *testing.T) {
	a, b := deployment(), deployment()
	if process.Digest(a) != process.Digest(b) {
		t.Fatal("equal objects, different digests")
	}
	b.Status.Conditions[0].Reason = "Other"
	if process.Digest(a) == process.Digest(b) {
		t.Error("a status change left the digest as it was")
	}
	b = deployment()
	b.Labels["tier"] = "db"
	if process.Digest(a) == process.Digest(b) {
		t.Error("a label change left the digest as it was")
	}
}

// The digest's cost per write, next to the write itself on the apiserver model
// (peers in one run): the price of a trace hash that covers object contents.
func BenchmarkDigestPerWrite(b *testing.B) {
	b.Run("digest", func(b *testing.B) {
		d := deployment()
		b.ReportAllocs()
		for b.Loop() {
			process.Digest(d)
		}
	})
	b.Run("update", func(b *testing.B) {
		s := apiserver.New(apiserver.Options{Scheme: clientgoscheme.Scheme, Clock: clock.New(clock.Epoch)})
		s.CreateDefaultNamespaces()
		if err := s.Create(apiserver.Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}); err != nil {
			b.Fatal(err)
		}
		d := deployment()
		if err := s.Create(apiserver.Admin, d); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Update(apiserver.Admin, d, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
